import { subagentReadOnly } from "../translate/subagents.ts";

/** Children remembered; the oldest announced are forgotten past this (memory stays bounded). */
const MAX_CHILDREN = 4096;

/**
 * The subagent sessions this connection announced to the editor (child id →
 * parent id). ACP gives the editor a child's updates without load, resume or
 * subscription, and no mutation of it unless the agent grants one (we grant
 * none): ZCode runs the child for its parent, and treating its id as a
 * session of its own would resume a second runtime of a running child and
 * prompt a session ZCode keeps read-only. Kept past the parent's close: the
 * id stays a child's.
 */
export class AnnouncedChildren {
  private readonly parents = new Map<string, string>();

  announced(childId: string, parentId: string): void {
    this.parents.delete(childId);
    this.parents.set(childId, parentId);
    while (this.parents.size > MAX_CHILDREN) this.parents.delete(this.parents.keys().next().value!);
  }

  /** Throws ACP's refusal when `id` is an announced child. */
  refuseMutation(id: string): void {
    const parent = this.parents.get(id);
    if (parent !== undefined) throw subagentReadOnly(id, parent);
  }
}
