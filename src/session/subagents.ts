import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ZCodeApi } from "../zcode/api.ts";
import type { ToolUpdated } from "../zcode/event-schemas.ts";
import type { SubagentHooks } from "../translate/events.ts";
import type { ClientFeatures } from "../translate/client-features.ts";
import { announceChild, childStopped, reportMessage, taskMessage, type SubagentEvent } from "../translate/subagents.ts";
import { ChildView } from "./child-view.ts";
import type { SessionDeps } from "./deps.ts";
import { REPLAY_MESSAGES } from "./reads.ts";

/** Children followed per parent session; the oldest that stopped is let go past it (memory stays bounded). */
const MAX_CHILDREN = 16;
/** The longest a child's idle state waits for its final read. */
const END_WAIT_MS = 5000;

/** Resolves when `p` settles, or after END_WAIT_MS. */
function endOf(p: Promise<void>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, END_WAIT_MS)));
  return Promise.race([p.catch(() => {}), late]).finally(() => clearTimeout(timer));
}

/** What the children of a session need of it and of the bridge. */
export interface SubagentOwner {
  readonly id: string;
  readonly cwd: string;
  readonly api: ZCodeApi;
  readonly features: ClientFeatures;
  terminalOutput(): boolean;
  /** A session/update on the parent. */
  emit(u: SessionUpdate): void;
  /** A session/update on another session id (a child), through the same ordered sink. */
  emitOn(sessionId: string, u: SessionUpdate): void;
  /** The editor was told of this child: it is read-only for the editor (the bridge refuses its mutations). */
  childAnnounced(childId: string): void;
}

/** The owner of a session's children: the session itself and what the bridge gives every session. */
export function subagentOwner(
  session: { readonly id: string; readonly cwd: string; readonly isClosed: boolean; emit(u: SessionUpdate): void },
  deps: Pick<SessionDeps, "api" | "features" | "terminalOutput" | "sink" | "childAnnounced">,
): SubagentOwner {
  return {
    id: session.id,
    get cwd() {
      return session.cwd;
    },
    api: deps.api,
    get features() {
      return deps.features();
    },
    terminalOutput: () => deps.terminalOutput(),
    emit: (u) => session.emit(u),
    emitOn: (sessionId, u) => {
      if (!session.isClosed) deps.sink.push(sessionId, u);
    },
    childAnnounced: (childId) => deps.childAnnounced(childId, session.id),
  };
}

/**
 * One subagent shown as an ACP child session. ZCode gives no legacy stream
 * of a child (a running one has no record: session/subscribe on it fails
 * -32004), so what the editor sees of it is read (child-view.ts).
 */
class ChildSession {
  readonly view: ChildView;
  stopped = false;
  /** Messages to and from the parent so far (a resumed child gets new tasks; ids never repeat). */
  messages = 0;

  constructor(
    readonly id: string,
    owner: SubagentOwner,
  ) {
    this.view = new ChildView({
      childId: id,
      get cwd() {
        return owner.cwd;
      },
      rows: (beforeRowId) => owner.api.childRows(id, beforeRowId),
      // Only once it stopped: a resume of a running child would start a second runtime of it
      // (v4-bridge.ts resolveConversationBackingRecord: "不能为了只读查询 cold resume 第二个 child runtime").
      transcript: async () => {
        await owner.api.resume({ sessionId: id, workspace: owner.cwd });
        return (await owner.api.messages(id, { limit: REPLAY_MESSAGES })).messages;
      },
      emit: (u) => owner.emitOn(id, u),
      terminalOutput: () => owner.terminalOutput(),
      compaction: () => owner.features.compaction,
      plans: () => owner.features.plans,
    });
  }

  get isClosed(): boolean {
    return this.view.closed;
  }

  close(): void {
    this.view.close();
  }
}

/**
 * A parent session's subagents, for a client that takes child sessions
 * (`clientCapabilities.subagents`): each spawn announced with
 * subagent_update (linked to the parent's Agent tool call in `_meta`), its
 * task and reports as session_message, its own work on its own session id
 * (read from ZCode, child-view.ts; its tools as ZCode mirrors them into the
 * parent), its end as an idle state. Every other client never gets here and
 * keeps the flat tool calls.
 */
export class Subagents implements SubagentHooks {
  private readonly children = new Map<string, ChildSession>();
  /** agentId → child session id (a SubagentMessage may name only the agent). */
  private readonly byAgent = new Map<string, string>();

  constructor(private readonly owner: SubagentOwner) {}

  /** A tool of a child mirrored into the parent: shown on the child's own session, under the child's tool id. */
  mirrored(p: ToolUpdated): boolean {
    const c = p.childSessionId ? this.children.get(p.childSessionId) : undefined;
    if (!c || c.isClosed || !this.owner.features.subagents) return false;
    c.view.mirrored(p);
    return true;
  }

  event(e: SubagentEvent): void {
    if (!this.owner.features.subagents) return;
    if (e.kind === "spawned") return this.spawned(e);
    const childId = e.childSessionId ?? this.byAgent.get(e.agentId);
    if (!childId || !this.byAgent.has(e.agentId)) return;
    const child = this.children.get(childId);
    child?.view.nudge();
    if (e.kind === "message") {
      for (const u of reportMessage(this.owner.id, childId, `${childId}-message-${child ? ++child.messages : 0}`, e.text))
        this.owner.emit(u);
      return;
    }
    if (e.summary) {
      for (const u of reportMessage(this.owner.id, childId, `${childId}-message-${child ? ++child.messages : 0}`, e.summary))
        this.owner.emit(u);
    }
    if (!child) return this.owner.emit(childStopped(childId, e));
    child.stopped = true;
    // Idle once the child's last words are shown (its final read), unless a SendMessage set it working again meanwhile.
    void endOf(child.view.stopped()).then(() => {
      if (child.stopped) this.owner.emit(childStopped(childId, e));
    });
  }

  private spawned(e: Extract<SubagentEvent, { kind: "spawned" }>): void {
    const known = this.children.get(e.childSessionId);
    this.byAgent.set(e.agentId, e.childSessionId);
    // Announced before any traffic of the child (its rows are read after it).
    this.owner.emit(announceChild(e));
    this.owner.childAnnounced(e.childSessionId);
    if (known && !known.isClosed) {
      // Resumed by a SendMessage: the same child works again, already followed.
      known.stopped = false;
      if (e.prompt) this.owner.emit(taskMessage(this.owner.id, known.id, `${known.id}-message-${++known.messages}`, e.prompt));
      known.view.running();
      return;
    }
    this.makeRoom();
    const child = new ChildSession(e.childSessionId, this.owner);
    this.children.set(e.childSessionId, child);
    if (e.prompt) this.owner.emit(taskMessage(this.owner.id, child.id, `${child.id}-message-${++child.messages}`, e.prompt));
    child.view.running();
  }

  /** Past MAX_CHILDREN, lets go of the oldest child that stopped (or the oldest at all). */
  private makeRoom(): void {
    if (this.children.size < MAX_CHILDREN) return;
    const victim = [...this.children.values()].find((c) => c.stopped) ?? this.children.values().next().value;
    if (!victim) return;
    victim.close();
    this.children.delete(victim.id);
    for (const [agent, id] of this.byAgent) if (id === victim.id) this.byAgent.delete(agent);
  }

  /** The parent is closed or forgotten: nothing more of its children reaches the editor. */
  dispose(): void {
    for (const c of this.children.values()) c.close();
    this.children.clear();
    this.byAgent.clear();
  }
}
