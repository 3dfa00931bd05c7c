import * as v from "valibot";
import { log } from "../../log.ts";
import type { WorkspaceArg } from "../api-types.ts";
import { workspaceOf } from "../api-types.ts";
import type { ZCodeConnection } from "../connection.ts";
import type { RawEvent } from "../event-schemas.ts";
import { LOCAL_ERR, ZCodeError } from "../errors.ts";
import { loose, maybe, num, str } from "../schemas.ts";
import type { V4Channel } from "./channel.ts";
import { CLIENT_MODE, CONNECTION_ID } from "./only-ids.ts";

// A v4-only child's conversations, followed live: `v4/conversation/subscribe
// {topic:"conversation/<id>", connectionId, clientMode, workspace?}` (an
// implicit cold resume of a stored session: cold-session-resume.ts), its ACK,
// then `v4/conversation/frame` notifications, reassembled and projected by
// v4feed's FrameAssembler / ConversationProjector (the parts below), whose
// legacy envelopes go into the connection's EventRouter like ZCode's own
// session/event. A frame the assembler cannot use (a gap in the seq, a bad
// fragment or checksum) asks `v4/conversation/resync` for a fresh snapshot
// (transport.ts conversationResyncParamsSchema). Pending interactions are
// put to the handlers the session registered for the legacy reverse
// requests, and answered with `resolveInteraction`, once each.

const logger = log.withTag("v4");

const SUBSCRIBE_TIMEOUT_MS = 30_000;
/** How long a command that starts work waits to see it in the projection (an idle ZCode starts it at once). */
const NEXT_WORK_MS = 10_000;

/** transport.ts TopicFrame: what the assembler hands on (a logical frame). */
export interface LogicalFrame {
  topic: string;
  subscriptionId: string;
  fromSeq: number;
  toSeq: number;
  payload: { kind: string };
}

/** What a projector says (v4feed's ProjectorSink). */
export interface FeedSink {
  event(e: RawEvent): void;
  interaction(i: { interactionId: string }): void;
  interactionGone(interactionId: string): void;
}

/** v4feed's modules, as the feed uses them (injected: the feed only routes). */
export interface FeedParts {
  assembler(): { push(params: unknown): LogicalFrame[] | { resync: string } };
  projector(sessionId: string, sink: FeedSink): { apply(frame: LogicalFrame): void; readonly state: unknown };
  /** Undefined: an interaction the legacy reverse requests cannot carry. */
  legacyRequestOf(i: { interactionId: string }): { method: string; params: unknown } | undefined;
  resolveAnswerOf(i: { interactionId: string }, legacyAnswer: unknown): Record<string, unknown>;
}

const AckSchema = loose({ ack: loose({ subscriptionId: str, mode: maybe(str), logEpoch: maybe(str) }) });

interface Subscription {
  sessionId: string;
  topic: string;
  subscriptionId?: string;
  projector: ReturnType<FeedParts["projector"]>;
  /** Resolves once the first snapshot is applied. */
  ready: Promise<void>;
  markReady: () => void;
  answered: Set<string>;
}

export class V4Feed {
  private readonly subs = new Map<string, Subscription>();
  /** Who waits for a session's projection to show new work (nextWork), with the works active before. */
  private readonly workWaiters = new Map<string, Set<{ before: ReadonlySet<string>; finish: (seen: boolean) => void }>>();
  private assembler: ReturnType<FeedParts["assembler"]>;

  constructor(
    private readonly conn: ZCodeConnection,
    private readonly channel: V4Channel,
    private readonly parts: FeedParts,
  ) {
    this.assembler = parts.assembler();
    conn.onNotification("v4/conversation/frame", (params) => this.onFrame(params));
    // The session layer stopped listening (the editor closed it): only the v4 topic is unsubscribed; ZCode's
    // session stays open and stored (its session/close is sent for ACP session/delete alone, deletion.ts).
    conn.onUnwatched((sessionId) => void this.close(sessionId));
    // A new child knows none of our subscriptions: they are made again on the next use.
    conn.onExit(() => {
      this.subs.clear();
      this.assembler = parts.assembler();
    });
  }

  /** The session's projected state (v4feed's ConversationStateView), once its snapshot came. */
  state(sessionId: string): unknown {
    return this.subs.get(sessionId)?.projector.state;
  }

  /** Follows the session (cold-resuming a stored one); resolves once its snapshot is applied. */
  async open(sessionId: string, workspace?: WorkspaceArg, resumeThoughtLevel?: string): Promise<void> {
    let sub = this.subs.get(sessionId);
    if (!sub) {
      let markReady!: () => void;
      const ready = new Promise<void>((resolve) => (markReady = resolve));
      const created: Subscription = {
        sessionId,
        topic: `conversation/${sessionId}`,
        ready,
        markReady,
        answered: new Set(),
        projector: this.parts.projector(sessionId, {
          event: (e) => {
            this.conn.deliverEvent(e);
            if (e.type === "turn.started") this.workSeen(sessionId);
          },
          interaction: (i) => this.onInteraction(created, i),
          interactionGone: (id) => logger.debug(`interaction ${id} of ${sessionId} was resolved elsewhere`),
        }),
      };
      sub = created;
      this.subs.set(sessionId, sub);
      try {
        const r = await this.conn.request(
          "v4/conversation/subscribe",
          {
            topic: sub.topic,
            connectionId: CONNECTION_ID,
            clientMode: CLIENT_MODE,
            ...(workspace ? { workspace: workspaceOf(workspace) } : {}),
            ...(resumeThoughtLevel ? { resumeThoughtLevel } : {}),
          },
          { timeoutMs: SUBSCRIBE_TIMEOUT_MS, schema: AckSchema },
        );
        sub.subscriptionId = r.ack.subscriptionId;
      } catch (err) {
        this.subs.delete(sessionId);
        throw err;
      }
    }
    await this.withTimeout(sub.ready, sessionId);
  }

  /**
   * Resolves (true) once the session's projection shows work that was not under way when this was called: a
   * turn started, or an active work (snapshot.ts activeWorkSummarySchema: a turn, a compaction) that was not
   * among the active works then; false after `timeoutMs`, or at once for a session not followed.
   * Asked before a command that starts its work in the background (compact, sendGoalCommand: goal-compact.ts),
   * so that a read right after its ACK does not find the session as it was: the frames that show the work come
   * a flush window later (core.ts DELIVERY_PROFILES). Any change would not do: the frame that lets the last
   * turn's own work go (its activeWorks emptied after its end) can arrive after the command and show the
   * session idle, before the compaction shows.
   */
  nextWork(sessionId: string, timeoutMs = NEXT_WORK_MS): { started: Promise<boolean>; cancel(): void } {
    const sub = this.subs.get(sessionId);
    if (!sub) return { started: Promise.resolve(false), cancel: () => {} };
    const before = new Set(activeWorksOf(sub.projector.state));
    let done!: (seen: boolean) => void;
    const started = new Promise<boolean>((resolve) => (done = resolve));
    const waiters = this.workWaiters.get(sessionId) ?? new Set();
    this.workWaiters.set(sessionId, waiters);
    const timer = setTimeout(() => finish(false), timeoutMs);
    const waiter = { before, finish: (seen: boolean) => finish(seen) };
    const finish = (seen: boolean) => {
      clearTimeout(timer);
      waiters.delete(waiter);
      if (waiters.size === 0 && this.workWaiters.get(sessionId) === waiters) this.workWaiters.delete(sessionId);
      done(seen);
    };
    waiters.add(waiter);
    return { started, cancel: () => finish(false) };
  }

  /** A frame was applied (`state`: the projection now), or a turn started (undefined: every waiter is done). */
  private workSeen(sessionId: string, state?: unknown): void {
    const works = state === undefined ? undefined : activeWorksOf(state);
    for (const w of [...(this.workWaiters.get(sessionId) ?? [])]) if (!works || works.some((k) => !w.before.has(k))) w.finish(true);
  }

  /** Stops following the session (v4/conversation/unsubscribe); nothing when it was not followed. */
  async close(sessionId: string): Promise<void> {
    const sub = this.subs.get(sessionId);
    if (!sub) return;
    this.subs.delete(sessionId);
    if (!sub.subscriptionId) return;
    await this.conn
      .request("v4/conversation/unsubscribe", { topic: sub.topic, subscriptionId: sub.subscriptionId, connectionId: CONNECTION_ID })
      .catch((err) => logger.debug(`unsubscribe of ${sessionId} failed:`, err));
  }

  private async withTimeout(ready: Promise<void>, sessionId: string): Promise<void> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(
            new ZCodeError(`ZCode sent no snapshot of ${sessionId}`, { code: LOCAL_ERR.timeout, method: "v4/conversation/subscribe" }),
          ),
        SUBSCRIBE_TIMEOUT_MS,
      );
    });
    try {
      await Promise.race([ready, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * One frame notification. The assembler checks fragments, checksums and
   * seq continuity; a fault (a gap included) answers `{resync: reason}` for
   * the frame's topic, read here from the wire frame itself.
   */
  private onFrame(params: unknown): void {
    const out = this.assembler.push(params);
    if (!Array.isArray(out)) {
      const topic = (params as { topic?: unknown } | null)?.topic;
      const sub = this.byTopic(typeof topic === "string" ? topic : "");
      if (sub) this.resync(sub, out.resync);
      return;
    }
    for (const frame of out) {
      const sub = this.byTopic(frame.topic);
      // An old subscription's frames (before a resubscribe) are not this one's.
      if (!sub || (sub.subscriptionId && frame.subscriptionId !== sub.subscriptionId)) continue;
      sub.projector.apply(frame);
      if (frame.payload.kind === "snapshot") sub.markReady();
      if (this.workWaiters.has(sub.sessionId)) this.workSeen(sub.sessionId, sub.projector.state);
    }
  }

  private byTopic(topic: string): Subscription | undefined {
    const id = topic.startsWith("conversation/") ? topic.slice("conversation/".length) : undefined;
    return id === undefined ? undefined : this.subs.get(id);
  }

  /** A fresh snapshot of the same subscription (transport.ts v4ConversationResyncParamsSchema). */
  private resync(sub: Subscription, why: string): void {
    if (!sub.subscriptionId) return;
    logger.info(`resyncing ${sub.sessionId}: ${why}`);
    this.conn
      .request("v4/conversation/resync", {
        subscriptionId: sub.subscriptionId,
        base: null,
        forceSnapshot: true,
        topic: sub.topic,
        connectionId: CONNECTION_ID,
      })
      .catch((err) => logger.warn(`resync of ${sub.sessionId} failed:`, err));
  }

  /**
   * A pending interaction: put to the legacy handler the session registered,
   * its answer sent as `resolveInteraction` (first come, first served; a late
   * one is ZCode's `noop proto.alreadyResolved`, which settle() passes). Once
   * per interactionId, whatever resyncs replay it.
   */
  private onInteraction(sub: Subscription, i: { interactionId: string }): void {
    if (sub.answered.has(i.interactionId)) return;
    sub.answered.add(i.interactionId);
    const asked = this.parts.legacyRequestOf(i);
    if (!asked) {
      logger.warn(`interaction ${i.interactionId} of ${sub.sessionId} is of a kind the editor cannot be asked; it stays pending in ZCode`);
      return;
    }
    const { method, params } = asked;
    this.conn
      .ask(method, params)
      .then((answer) => this.channel.plain(sub.sessionId, "resolveInteraction", this.parts.resolveAnswerOf(i, answer)))
      .catch((err) => logger.warn(`interaction ${i.interactionId} of ${sub.sessionId} was not answered:`, err));
  }
}

/**
 * The projection's active works, each named by its kind and start (snapshot.ts activeWorkSummarySchema
 * {kind, foregroundExecutionId?, startedAt}: the execution id may come later, the start stays).
 */
function activeWorksOf(state: unknown): string[] {
  const r = v.safeParse(ProjectedStateSchema, state);
  return (r.success ? (r.output.control?.activeWorks ?? []) : []).map((w) => {
    const { kind, startedAt } = (w ?? {}) as { kind?: unknown; startedAt?: unknown };
    return `${String(kind)}@${String(startedAt)}`;
  });
}

/**
 * Whether ZCode is at work in the session: a running phase, or any active work (snapshot.ts
 * activeWorkSummarySchema: a compaction is one, product-projection.ts onCompactStarted, whatever the phase).
 */
export function isWorking(state: unknown): boolean {
  const r = v.safeParse(ProjectedStateSchema, state);
  const control = r.success ? r.output.control : undefined;
  return control?.phase === "running" || (control?.activeWorks?.length ?? 0) > 0;
}

/** snapshot.ts sessionConfigStateSchema / sessionMetaState, read tolerantly from the projected state. */
export const ProjectedStateSchema = loose({
  config: maybe(
    loose({
      provider: str,
      model: str,
      thought: maybe(str),
      thoughtLevels: maybe(v.array(str)),
      mode: maybe(str),
    }),
  ),
  meta: maybe(loose({ title: maybe(str), updatedAt: maybe(num) })),
  control: maybe(loose({ phase: maybe(str), activeWorks: maybe(v.array(v.unknown())) })),
  usage: maybe(loose({ contextWindow: maybe(v.nullable(loose({ usedTokens: num, maxTokens: num }))) })),
  plan: maybe(v.nullable(loose({ items: v.array(loose({ content: str, status: maybe(str) })) }))),
  goal: maybe(v.nullable(loose({ objective: str, status: maybe(str) }))),
});
