import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { EventListener } from "../zcode/event-router.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import { applyEvent, type SubagentHooks } from "../translate/events.ts";
import type { ClientFeatures } from "../translate/client-features.ts";
import { TranslationMemory } from "../translate/memory.ts";
import { announceChild, childStopped, reportMessage, taskMessage, type SubagentEvent } from "../translate/subagents.ts";
import { ToolCallTracker } from "../translate/tools/tracker.ts";
import { EventIntake, type IntakeOwner } from "./intake.ts";
import type { SessionDeps } from "./deps.ts";

const logger = log.withTag("subagents");

/** Children followed per parent session; the oldest that stopped is let go past it (memory stays bounded). */
const MAX_CHILDREN = 16;

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
  /** ZCode's events of a session id; returns the unsubscribe. */
  routeEvents(sessionId: string, cb: EventListener): () => void;
}

/** The owner of a session's children: the session itself and what the bridge gives every session. */
export function subagentOwner(
  session: { readonly id: string; readonly cwd: string; readonly isClosed: boolean; emit(u: SessionUpdate): void },
  deps: Pick<SessionDeps, "api" | "features" | "terminalOutput" | "sink" | "routeEvents">,
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
    routeEvents: (sessionId, cb) => deps.routeEvents(sessionId, cb),
  };
}

/**
 * One subagent followed as an ACP child session: ZCode's events of the child
 * session (subscribed from its first seq, since the child starts working as
 * soon as it is announced) translated like any session's, on the child's id.
 */
class ChildSession implements IntakeOwner {
  readonly intake: EventIntake;
  readonly activation = 1;
  private readonly memory: TranslationMemory;
  private unroute: (() => void) | undefined;
  private gone = false;
  stopped = false;
  /** Messages to and from the parent so far (a resumed child gets new tasks; ids never repeat). */
  messages = 0;

  constructor(
    readonly id: string,
    private readonly owner: SubagentOwner,
  ) {
    this.memory = new TranslationMemory(
      () => new ToolCallTracker({ cwd: owner.cwd, terminalOutput: owner.terminalOutput() }),
      () => owner.features,
    );
    this.intake = new EventIntake(this, owner.api, true);
  }

  get isClosed(): boolean {
    return this.gone;
  }

  /** A child is read-only and never resumed by us: calls run as they are. */
  withActive<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  dispatch(e: ZCodeEvent): void {
    applyEvent({ session: this.memory, emit: (u) => this.owner.emitOn(this.id, u) }, e);
  }

  async follow(): Promise<boolean> {
    this.unroute = this.owner.routeEvents(this.id, (raw) => this.intake.accept(raw));
    try {
      await this.intake.ensureSubscribed();
      return true;
    } catch (err) {
      logger.warn(`could not subscribe to subagent session ${this.id} of ${this.owner.id}; its tools stay in the parent:`, err);
      this.close();
      return false;
    }
  }

  close(): void {
    this.gone = true;
    this.unroute?.();
    this.unroute = undefined;
  }
}

/**
 * A parent session's subagents, for a client that takes child sessions
 * (`clientCapabilities.subagents`): each spawn announced with
 * subagent_update (linked to the parent's Agent tool call in `_meta`), its
 * task and reports as session_message, its own events on its own session
 * id, its end as an idle state. Every other client never gets here and
 * keeps the flat tool calls.
 */
export class Subagents implements SubagentHooks {
  private readonly children = new Map<string, ChildSession>();
  /** agentId → child session id (a SubagentMessage may name only the agent). */
  private readonly byAgent = new Map<string, string>();

  constructor(private readonly owner: SubagentOwner) {}

  shows(childSessionId: string): boolean {
    const c = this.children.get(childSessionId);
    return c !== undefined && !c.isClosed;
  }

  event(e: SubagentEvent): void {
    if (!this.owner.features.subagents) return;
    if (e.kind === "spawned") return this.spawned(e);
    const childId = e.childSessionId ?? this.byAgent.get(e.agentId);
    if (!childId || !this.byAgent.has(e.agentId)) return;
    const child = this.children.get(childId);
    if (e.kind === "message") {
      for (const u of reportMessage(this.owner.id, childId, `${childId}-message-${child ? ++child.messages : 0}`, e.text))
        this.owner.emit(u);
      return;
    }
    if (e.summary) {
      for (const u of reportMessage(this.owner.id, childId, `${childId}-message-${child ? ++child.messages : 0}`, e.summary))
        this.owner.emit(u);
    }
    this.owner.emit(childStopped(childId, e));
    if (child) child.stopped = true;
  }

  private spawned(e: Extract<SubagentEvent, { kind: "spawned" }>): void {
    const known = this.children.get(e.childSessionId);
    this.byAgent.set(e.agentId, e.childSessionId);
    // Announced before any traffic of the child (the subscription comes after it).
    this.owner.emit(announceChild(e));
    if (known && !known.isClosed) {
      // Resumed by a SendMessage: the same child works again, already followed.
      known.stopped = false;
      if (e.prompt) this.owner.emit(taskMessage(this.owner.id, known.id, `${known.id}-message-${++known.messages}`, e.prompt));
      return;
    }
    this.makeRoom();
    const child = new ChildSession(e.childSessionId, this.owner);
    this.children.set(e.childSessionId, child);
    if (e.prompt) this.owner.emit(taskMessage(this.owner.id, child.id, `${child.id}-message-${++child.messages}`, e.prompt));
    void child.follow();
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
