import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { availableCommand, configOptions, toolCallContent, toolCallUpdate } from "./shapes.ts";

// The session layer's v1 session/update payloads as ACP v2 ones, for a v2
// connection. The session layer stays version-agnostic: it speaks v1 (the
// unstable schema, whose updates already carry message ids, notices, plan
// ids and subagents) and this is the one place that knows v2.
//
// Kept per connection: the message id of a run of chunks that came without
// one (v2 requires it), the plan id of a legacy `plan` (v2 plans are named).
//
// Dropped, with nothing lost: `current_mode_update` (v2 has no modes; the
// mode is the `mode` config option, whose `config_option_update` the session
// layer sends alongside every mode change).
//
// Updates the session layer never produces for v2 (fs/terminal-backed
// content: a v2 client offers neither) map as the schema allows anyway.

type Update = v1.SessionUpdate;
type Out = v2.SessionUpdate;

const CHUNKS = new Set(["user_message_chunk", "agent_message_chunk", "agent_thought_chunk", "session_message_chunk"]);

/** The whole-message upsert each chunk kind appends to. */
const WHOLE_OF: Record<string, string> = {
  user_message_chunk: "user_message",
  agent_message_chunk: "agent_message",
  agent_thought_chunk: "agent_thought",
};

const MAX_ANNOUNCED = 256;

/** The plan id a legacy whole-plan update is given (one plan per session). */
export const LEGACY_PLAN_ID = "plan";

export class V2Updates {
  /** Per session: the kind of the last chunk seen and the id its run got when it came without one. */
  private readonly runs = new Map<string, { kind: string; id: string }>();

  /** Per session: the message ids already announced by a whole-message update (the most recent ones). */
  private readonly announced = new Map<string, Set<string>>();

  /**
   * The v2 notifications for one v1 notification: none when v2 has no
   * counterpart; two for the first chunk of a message (the whole-message
   * upsert with no content first, as v2 replay requires, then the chunk).
   */
  translate(n: v1.SessionNotification): v2.UpdateSessionNotification[] {
    const update = this.update(n.sessionId, n.update);
    if (!update) return [];
    const wrap = (u: Out): v2.UpdateSessionNotification =>
      n._meta === undefined ? { sessionId: n.sessionId, update: u } : { sessionId: n.sessionId, update: u, _meta: n._meta };
    const whole = this.wholeMessageFirst(n.sessionId, update);
    return whole ? [{ sessionId: n.sessionId, update: whole }, wrap(update)] : [wrap(update)];
  }

  /** The session is gone: forget what was kept for it. */
  forget(sessionId: string): void {
    this.runs.delete(sessionId);
    this.announced.delete(sessionId);
  }

  /** A chunk of a message not announced yet: its whole-message update, empty (chunks then append to it). */
  private wholeMessageFirst(sessionId: string, u: Out): Out | undefined {
    const whole = WHOLE_OF[u.sessionUpdate as string];
    if (!whole) return undefined;
    const id = (u as { messageId?: string }).messageId;
    if (!id) return undefined;
    let seen = this.announced.get(sessionId);
    if (!seen) this.announced.set(sessionId, (seen = new Set()));
    // Each message type has its own id space (a thought and its answer may share an id).
    const key = `${whole}:${id}`;
    if (seen.has(key)) return undefined;
    seen.add(key);
    // Bounded: a message's chunks come together, so only the recent ids matter.
    if (seen.size > MAX_ANNOUNCED) seen.delete(seen.values().next().value as string);
    return { sessionUpdate: whole, messageId: id, content: [] } as unknown as Out;
  }

  private update(sessionId: string, u: Update): Out | undefined {
    const kind = u.sessionUpdate as string;
    if (!CHUNKS.has(kind)) this.runs.delete(sessionId);
    switch (u.sessionUpdate) {
      case "user_message_chunk":
      case "agent_message_chunk":
      case "agent_thought_chunk":
      case "session_message_chunk":
        if (u.messageId) {
          this.runs.delete(sessionId);
          return u as Out;
        }
        return { ...u, messageId: this.runId(sessionId, kind) } as Out;
      case "tool_call":
      case "tool_call_update":
        return { ...toolCallUpdate(u), sessionUpdate: "tool_call_update" } as Out;
      case "plan":
        return {
          sessionUpdate: "plan_update",
          plan: { type: "items", planId: LEGACY_PLAN_ID, entries: u.entries },
          ...(u._meta ? { _meta: u._meta } : {}),
        } as Out;
      case "available_commands_update":
        return { ...u, availableCommands: u.availableCommands.map(availableCommand) } as Out;
      case "config_option_update":
        return { ...u, configOptions: configOptions(u.configOptions) } as Out;
      case "current_mode_update":
        return undefined;
      default:
        if (kind === "tool_call_content_chunk") {
          const c = u as unknown as { content: v1.ToolCallContent };
          return { ...c, content: toolCallContent(c.content) } as unknown as Out;
        }
        // plan_update, plan_removed, session_info_update, usage_update, notice,
        // compaction_*, subagent_update, session_message, and v2's own
        // state_update / user_message: the same shape in both versions.
        return u as unknown as Out;
    }
  }

  private runId(sessionId: string, kind: string): string {
    const run = this.runs.get(sessionId);
    if (run && run.kind === kind) return run.id;
    const id = crypto.randomUUID();
    this.runs.set(sessionId, { kind, id });
    return id;
  }
}
