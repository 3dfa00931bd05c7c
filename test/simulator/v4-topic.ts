// The conversation topic of a v4-only CLI: one publisher per live session
// (conversation-topic-publisher.ts ConversationTopicPublisher), its snapshot
// (snapshot.ts conversationSnapshotSchema; initial values from
// projection-state.ts createInitialConversationSnapshot), the deltas that move
// it (delta.ts conversationDeltaSchema), subscriptions with their flush
// buffers, and the physical frames (v4-wire.ts).
//
// The simulator derives deltas by comparing the projection (v4.ts projectRows
// over the turn log, plus the A-zone state below) before and after the events
// of a flush window, instead of reducing each event like product-projection.ts:
// the ops are ZCode's (row.appended for a new tail row, row.upserted for a
// changed row, row.removed {fromRowId} for an edit/retry cut, row.delta for
// text appended to a streaming row, state.updated with the changed keys), and
// a coalesced buffer is what the publisher's flush sends anyway
// (appendConversationSubscriberBuffer → coalesceConversationDeltas).
import { projectRows } from "./v4.ts";
import { pendingInteractionsOf } from "./v4-interactions.ts";
import type { Runtime, Sim } from "./sim.ts";
import { contextWindow, currentModelEntry } from "./snapshot.ts";
import type { SessionRecord } from "./types.ts";
import { type DeliveryKind, encodeTopicWireFrames } from "./v4-wire.ts";
import { log } from "./wire.ts";

/** core.ts PROTOCOL_V4_LIMITS. */
const SNAPSHOT_TAIL_WINDOW_ROWS = 60;
const EVENT_RETENTION_PER_SESSION = 2000;

/** core.ts DELIVERY_PROFILES: flush window and which paths stream as row.delta. */
const PROFILES = {
  continuous: { flushWindowMs: 30, streamPaths: ["text", "inputText", "output.text", "summaryText"] },
  replayable: { flushWindowMs: 150, streamPaths: ["text"] },
} as const;
type Profile = (typeof PROFILES)[keyof typeof PROFILES];

type Row = Record<string, any> & { rowId: number };
type Delta = Record<string, unknown>;

/** The A-zone keys of a snapshot, in snapshot.ts order (state.updated patches replace whole keys). */
const STATE_KEYS = [
  "control",
  "availability",
  "inputRouting",
  "meta",
  "config",
  "usage",
  "queue",
  "pendingInteractions",
  "pendingCommands",
  "backgroundWorks",
  "subagents",
  "goal",
  "plan",
] as const;
/** projection-state.ts REVISION_BEARING_PATCH_KEYS (usage and pendingCommands do not move the revision). */
const REVISION_KEYS = new Set([
  "control",
  "availability",
  "inputRouting",
  "meta",
  "config",
  "queue",
  "pendingInteractions",
  "backgroundWorks",
  "subagents",
  "goal",
  "plan",
]);

/** The rows as published (v4.ts projectRows: pending approvals included). */
export function wireRows(sim: Sim, s: SessionRecord, r: Runtime): Row[] {
  return projectRows(sim, s, r) as Row[];
}

function phaseOf(s: SessionRecord, r: Runtime): string {
  if (r.turn) return "running";
  const last = (s.turnLog ?? []).at(-1);
  // createInitialConversationSnapshot: "draft 裁决：会话实体已存在但尚无输入".
  if (!last) return "draft";
  return last.state === "failed" ? "error" : last.state === "running" ? "running" : last.state;
}

/** projection-state.ts computeAvailability. */
function availability(phase: string, goalStatus: string | null) {
  const denied = (reasonCode: string) => ({ allowed: false, reasonCode });
  const ok = { allowed: true };
  const running = phase === "running" || phase === "prewarming";
  return {
    fork: phase === "draft" ? denied("forkTargetNotStable") : ok,
    compact: phase === "draft" ? denied("idleCannotCompact") : ok,
    switchModelConfig: ok,
    setFollowupMode: ok,
    queueEdit: ok,
    sendQueuedNow: running ? ok : denied("sendQueuedNowRequiresRunning"),
    pauseGoal:
      goalStatus === "active" || goalStatus === "verifying" || goalStatus === "notSatisfied"
        ? ok
        : denied(goalStatus === null ? "noGoalToPause" : "goalNotActive"),
    resumeGoal: goalStatus === "paused" ? ok : denied(goalStatus === null ? "noGoalToResume" : "goalNotPaused"),
  };
}

const GOAL_STATUS: Record<string, string> = { active: "active", paused: "paused", budget_limited: "paused", complete: "verified" };
const TODO_STATUS: Record<string, string> = { pending: "pending", in_progress: "inProgress", completed: "completed" };
const TITLE_SOURCE: Record<string, string> = { default: "default", first_input: "generated", generated: "generated", custom: "custom" };

/**
 * snapshot.ts sessionUsageStateSchema as product-projection.ts onModelComplete keeps it: contextWindow
 * {usedTokens: getModelUsageContextTokens (input + output) of the last main-turn request, maxTokens: its context
 * window} (null until one completed: createInitialConversationSnapshot), cumulative: every request's tokens added
 * up (the step-finish parts of the transcript).
 */
function usageOf(s: SessionRecord): Record<string, unknown> {
  const cumulative = { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 };
  for (const m of s.messages)
    for (const p of m.parts) {
      if (p.type !== "step-finish") continue;
      cumulative.inputTokens += p.tokens.input;
      cumulative.outputTokens += p.tokens.output;
      cumulative.cacheReadTokens += p.tokens.cache.read;
      cumulative.cacheWriteTokens += p.tokens.cache.write;
    }
  return {
    contextWindow: s.contextUsed > 0 ? { usedTokens: s.contextUsed, maxTokens: contextWindow(s), autoCompactThresholdTokens: null } : null,
    cumulative,
  };
}

/** setFollowupMode's choice per session (projection config.followupMode; initial "queue"). */
export const followupModes = new Map<string, "queue" | "guide">();

/**
 * snapshot.ts subagentProjectionStateSchema: the children of this session live in this process (running ones
 * with their summary, the ended ones counted). [sim] `revision` counts children plus ended ones (it only grows).
 */
function subagentsOf(sim: Sim, s: SessionRecord): Record<string, unknown> {
  const children: SessionRecord[] = [];
  for (const id of sim.runtimes.keys()) {
    const c = sim.store.get(id);
    if (c?.taskType === "subagent_child" && c.parentSessionId === s.id && c.subagent) children.push(c);
  }
  const running = children.filter((c) => !c.subagent!.status);
  return {
    revision: children.length * 2 - running.length,
    childSessionIds: children.map((c) => c.id),
    running: running.map((c) => ({
      childSessionId: c.id,
      agentId: c.subagent!.agentId,
      toolCallId: c.subagent!.toolCallId,
      subagentType: c.subagent!.subagentType,
      title: c.title,
      status: "running",
      startedAt: c.subagent!.startedAt,
    })),
    endedTotal: children.length - running.length,
  };
}

/** The A zone (snapshot.ts), from the session record and runtime. */
export function conversationState(sim: Sim, s: SessionRecord, r: Runtime): Record<string, unknown> {
  const phase = phaseOf(s, r);
  const followupMode = followupModes.get(s.id) ?? "queue";
  const goalStatus = s.goal ? (GOAL_STATUS[s.goal.status] ?? "active") : null;
  const turn = r.turn;
  const held = r.heldGuides.length > 0;
  const completed = phase === "completedSuccess" || phase === "completedInterrupted";
  return {
    control: {
      phase,
      sessionEnded: completed,
      canStop: !!turn,
      stopState: turn ? "stoppable" : "idle",
      stopTargetKind: turn ? "assistant" : "unknown",
      activeWorks: turn
        ? [
            {
              // snapshot.ts activeWorkSummarySchema kinds: a manual compaction is a work of its own kind.
              kind: turn.kind === "compact" ? "compact" : "primaryTurn",
              ...(turn.foregroundExecutionId ? { foregroundExecutionId: turn.foregroundExecutionId } : {}),
              startedAt: turn.startedAt,
            },
          ]
        : [],
      lastError: null,
      apiRetry: null,
    },
    availability: availability(phase, goalStatus),
    // computeInputRouting: running → guide or enqueue by followupMode; held + completed → choice.
    inputRouting:
      phase === "running"
        ? { mode: followupMode === "guide" ? "guide" : "enqueue" }
        : completed && held
          ? { mode: "choice", reasonCode: "heldQueueInputRequiresChoice" }
          : { mode: "startNow" },
    meta: { title: s.title, titleSource: TITLE_SOURCE[s.titleSource ?? "default"] ?? "default" },
    config: {
      provider: s.model.providerId,
      model: s.model.modelId,
      thought: s.model.options?.reasoningLevel ?? "",
      // product-projection.ts onModelSelected: thoughtLevels = the selected model's supportedThoughtLevels
      // (model.optionSpecs.reasoningLevel.values); SessionConfigSeed.thoughtLevels seeds them at resume.
      thoughtLevels: currentModelEntry(s)?.reasoning?.levels.map((l) => l.value) ?? [],
      followupMode,
      mode: s.mode,
    },
    usage: usageOf(s),
    // [sim] held guides are counted, not itemized: their QueueItem (input-intent.ts) is not simulated.
    queue: held ? { items: [], autoDrain: false, pauseReason: "stopped" } : { items: [], autoDrain: true },
    pendingInteractions: pendingInteractionsOf(s.id).map((p) => p.view),
    pendingCommands: [],
    backgroundWorks: [],
    subagents: subagentsOf(sim, s),
    goal: s.goal
      ? {
          targetId: s.goal.targetId,
          objective: s.goal.objective,
          summaryTitle: null,
          timeUsedSeconds: 0,
          activeRunStartedAtMs: null,
          status: goalStatus,
          iteration: 1,
          verifications: [],
          iterations: [],
        }
      : null,
    plan: s.todos.length
      ? {
          items: s.todos.map((t, i) => ({ id: String(i + 1), content: t.content, status: TODO_STATUS[t.status] ?? "pending" })),
          updatedAt: s.updatedAt,
        }
      : null,
  };
}

/**
 * coalesce.ts coalesceConversationDeltas (rules 1-4; no workflowRun ops here): adjacent row.delta of one
 * (rowId, path) concatenate, adjacent state.updated merge shallowly, a row.upserted swallows earlier row.delta of
 * its row back to that row's previous appended/upserted, adjacent upserts of a row keep the last; row.removed is a
 * barrier. Applying the result equals applying the input.
 */
export function coalesce(deltas: readonly Delta[]): Delta[] {
  const out: Delta[] = [];
  for (const d of deltas) {
    if (d.op === "row.upserted") {
      const id = (d.row as Row).rowId;
      for (let i = out.length - 1; i >= 0; i--) {
        const prev = out[i]!;
        if (prev.op === "row.removed") break;
        if (prev.op === "row.delta" && prev.rowId === id) {
          out.splice(i, 1);
          continue;
        }
        if ((prev.op === "row.upserted" || prev.op === "row.appended") && (prev.row as Row).rowId === id) break;
      }
    }
    const last = out[out.length - 1];
    if (d.op === "row.delta" && last?.op === "row.delta" && last.rowId === d.rowId && last.path === d.path) {
      out[out.length - 1] = { op: "row.delta", rowId: d.rowId, path: d.path, append: (last.append as string) + (d.append as string) };
      continue;
    }
    if (d.op === "state.updated" && last?.op === "state.updated") {
      out[out.length - 1] = { op: "state.updated", patch: { ...(last.patch as object), ...(d.patch as object) } };
      continue;
    }
    if (d.op === "row.upserted" && last?.op === "row.upserted" && (last.row as Row).rowId === (d.row as Row).rowId) {
      out[out.length - 1] = d;
      continue;
    }
    out.push(d);
  }
  return out;
}

/** core.ts subscriberBufferMaxOps / subscriberBufferMaxBytes (the byte floor; conversationSubscriberBufferByteLimit). */
const SUBSCRIBER_BUFFER_MAX_OPS = 500;
const SUBSCRIBER_BUFFER_MAX_BYTES = 1024 * 1024;

interface Subscription {
  subscriptionId: string;
  connectionId: string;
  profile: Profile;
  buffer: Delta[];
  /** The buffer overflowed: the next flush is a snapshot (appendConversationSubscriberBuffer → resyncRequired). */
  resyncRequired: boolean;
  sentSeq: number;
  ordinal: number;
  timer?: ReturnType<typeof setTimeout>;
}

/** Row changes between two projections (text appended to a streaming row → row.delta when the profile streams it). */
function rowDeltas(before: Map<number, Row>, after: Row[], streamPaths: readonly string[]): Delta[] {
  const out: Delta[] = [];
  const now = new Set(after.map((r) => r.rowId));
  const gone = [...before.keys()].filter((id) => !now.has(id));
  let cut = Number.POSITIVE_INFINITY;
  if (gone.length) {
    cut = Math.min(...gone);
    out.push({ op: "row.removed", fromRowId: cut });
  }
  for (const row of after) {
    const old = before.get(row.rowId);
    if (!old || row.rowId >= cut) {
      out.push({ op: "row.appended", row });
      continue;
    }
    const a = JSON.stringify(old);
    const b = JSON.stringify(row);
    if (a === b) continue;
    const grew = streamPaths.find((p) => {
      const k = p as string;
      if (k.includes(".")) return false;
      const o = old[k];
      const n = row[k];
      if (typeof o !== "string" || typeof n !== "string" || n.length <= o.length || !n.startsWith(o)) return false;
      return JSON.stringify({ ...old, [k]: n }) === b;
    });
    if (grew && row.state === "streaming")
      out.push({ op: "row.delta", rowId: row.rowId, path: grew, append: row[grew].slice(old[grew].length) });
    else out.push({ op: "row.upserted", row });
  }
  return out;
}

export class ConversationPublisher {
  readonly topic: string;
  private rows = new Map<number, Row>();
  private state: Record<string, string> = {};
  private readonly log: { seq: number; deltas: Delta[] }[] = [];
  private floorSeq: number;
  private nextSubscription = 1;
  private nextLogicalFrame = 1;
  private readonly subs = new Map<string, Subscription>();
  private readonly byConnection = new Map<string, string>();
  private stepping = false;
  /** The seq the last projection step saw (see step: a change needs a seq of its own). */
  private steppedSeq: number;
  /** Events came while nobody was subscribed: the baseline is out of date (see changed). */
  private dirty = false;

  constructor(
    private readonly sim: Sim,
    private readonly s: SessionRecord,
    private readonly r: Runtime,
  ) {
    this.topic = `conversation/${s.id}`;
    this.rebase();
    this.floorSeq = this.seq;
    this.steppedSeq = this.seq;
  }

  /** The published baseline = the projection now (no deltas: nobody saw the difference). */
  private rebase(): void {
    this.steppedSeq = this.seq;
    this.rows = new Map(wireRows(this.sim, this.s, this.r).map((row) => [row.rowId, row]));
    const st = conversationState(this.sim, this.s, this.r);
    for (const k of STATE_KEYS) this.state[k] = JSON.stringify(st[k]);
  }

  get logEpoch(): string {
    return this.r.logEpoch;
  }

  /** The event sequence number the projection is at (snapshot.seq = the last ingested event's sequenceNumber). */
  get seq(): number {
    return this.r.sourceSeq;
  }

  /** Full snapshot; rows cut to the 60-row tail window with totalCount/firstRowId of the whole (getWireSnapshotForProfile). */
  snapshot(): Record<string, unknown> {
    const rows = [...this.rows.values()].sort((a, b) => a.rowId - b.rowId);
    const state = Object.fromEntries(STATE_KEYS.map((k) => [k, JSON.parse(this.state[k]!)]));
    return {
      protocolVersion: 1,
      sessionId: this.s.id,
      logEpoch: this.logEpoch,
      seq: this.seq,
      revision: this.r.v4Revision,
      control: state.control,
      availability: state.availability,
      inputRouting: state.inputRouting,
      meta: state.meta,
      config: state.config,
      modelTransition: null,
      usage: state.usage,
      queue: state.queue,
      pendingInteractions: state.pendingInteractions,
      pendingCommands: state.pendingCommands,
      backgroundWorks: state.backgroundWorks,
      subagents: state.subagents,
      goal: state.goal,
      plan: state.plan,
      workspaceHookAdmission: null,
      rows: { window: rows.slice(-SNAPSHOT_TAIL_WINDOW_ROWS), totalCount: rows.length, firstRowId: rows[0]?.rowId ?? null },
    };
  }

  /** Schedules one projection step (several events of a tick are one step). */
  changed(): void {
    // [sim] Nobody listens: no projection per event (a huge session's turn would re-project it on every delta). The
    // retained log is cut here, so a later resume from an older base gets a snapshot, as past the retention window.
    if (this.subs.size === 0) {
      this.dirty = true;
      this.log.length = 0;
      this.floorSeq = this.seq;
      return;
    }
    if (this.stepping) return;
    this.stepping = true;
    queueMicrotask(() => {
      this.stepping = false;
      this.step();
    });
  }

  /** ingest: project, log and fan the deltas out to every subscription's buffer. */
  step(): void {
    if (this.dirty) {
      this.dirty = false;
      this.rebase();
      return;
    }
    const rows = wireRows(this.sim, this.s, this.r);
    const st = conversationState(this.sim, this.s, this.r);
    const patch: Record<string, unknown> = {};
    let bumps = false;
    for (const k of STATE_KEYS) {
      const j = JSON.stringify(st[k]);
      if (j !== this.state[k]) {
        patch[k] = st[k];
        this.state[k] = j;
        if (REVISION_KEYS.has(k)) bumps = true;
      }
    }
    const perProfile = new Map<Profile, Delta[]>();
    for (const p of Object.values(PROFILES)) perProfile.set(p, rowDeltas(this.rows, rows, p.streamPaths));
    this.rows = new Map(rows.map((x) => [x.rowId, x]));
    // [sim] patches carry the revision they lead to when a revision-bearing key changed (statePatchSchema.revision).
    const statePatch = Object.keys(patch).length
      ? [{ op: "state.updated", patch: bumps ? { revision: this.r.v4Revision, ...patch } : patch }]
      : [];
    const logged = [...perProfile.get(PROFILES.replayable)!, ...statePatch];
    const moved = this.seq !== this.steppedSeq;
    this.steppedSeq = this.seq;
    if (logged.length === 0 && perProfile.get(PROFILES.continuous)!.length === 0) return;
    // ZCode's projection changes only by ingesting an event, whose sequenceNumber becomes the topic's seq
    // (conversation-topic-publisher.ts ingest; reserveFlush sends (sentSeq, currentSeq] and nothing once sentSeq
    // reaches it). [sim] The projection is read from the record and runtime, which some changes reach without an
    // event (a turn's runtime let go after its end event, a command that only edits the record): such a change
    // takes a seq of its own, standing for the event ZCode would have ingested. Without it, a flush between the
    // event and the change sent the change as (N, N], which ZCode's clients drop as already applied, and the
    // session stayed `running` for them.
    if (!moved) this.steppedSeq = ++this.r.sourceSeq;
    this.log.push({ seq: this.seq, deltas: logged });
    while (this.log.length > EVENT_RETENTION_PER_SESSION) this.floorSeq = this.log.shift()!.seq;
    for (const sub of this.subs.values()) {
      if (!sub.resyncRequired) {
        const next = coalesce([...sub.buffer, ...perProfile.get(sub.profile)!, ...statePatch]);
        // Overflow (ops, or bytes past the floor and past the snapshot it would replace): drop the buffer, resync.
        const big =
          next.length > SUBSCRIBER_BUFFER_MAX_OPS ||
          (Buffer.byteLength(JSON.stringify(next)) > SUBSCRIBER_BUFFER_MAX_BYTES &&
            Buffer.byteLength(JSON.stringify({ kind: "deltas", deltas: next })) > Buffer.byteLength(JSON.stringify(this.snapshot())));
        if (big) {
          sub.buffer = [];
          sub.resyncRequired = true;
        } else sub.buffer = next;
      }
      if (!sub.timer) sub.timer = setTimeout(() => this.flush(sub), sub.profile.flushWindowMs);
    }
  }

  /** reserveFlush: the buffer as one deltas frame over (sentSeq, seq]; held while its connection is saturated. */
  private flush(sub: Subscription): void {
    sub.timer = undefined;
    if (this.subs.get(sub.subscriptionId) !== sub) return;
    if (pausedConnections.has(sub.connectionId)) return;
    if (sub.resyncRequired) {
      sub.resyncRequired = false;
      this.send(sub, { fromSeq: 0, toSeq: this.seq, payload: { kind: "snapshot", snapshot: this.snapshot() } }, "online");
      return;
    }
    if (sub.buffer.length === 0 && sub.sentSeq === this.seq) return;
    const deltas = sub.buffer;
    sub.buffer = [];
    this.send(sub, { fromSeq: sub.sentSeq, toSeq: this.seq, payload: { kind: "deltas", deltas } }, "online");
  }

  private send(sub: Subscription, body: { fromSeq: number; toSeq: number; payload: unknown }, deliveryKind: DeliveryKind): void {
    const frame = { topic: this.topic, subscriptionId: sub.subscriptionId, sentAt: Date.now(), ...body };
    const wires = encodeTopicWireFrames(
      frame,
      {
        deliveryKind,
        topic: this.topic,
        subscriptionId: sub.subscriptionId,
        // reserveFrame: `${subscriptionId}-lf-${publisher serial}`, ordinal per subscription from 1.
        logicalFrameId: `${sub.subscriptionId}-lf-${this.nextLogicalFrame++}`,
        logicalFrameOrdinal: sub.ordinal++,
      },
      this.sim.cfg.v4MaxFrameBytes,
    );
    sub.sentSeq = body.toSeq;
    for (const w of wires) this.sim.out.frame({ method: "v4/conversation/frame", params: w });
  }

  /**
   * subscribeReserved: a re-subscribe of the same connection replaces the old
   * subscription; base on this epoch within the retained log → resume (the
   * logged deltas after base.seq, or nothing when already at seq), else a
   * snapshot. The frame is written after the answer (`after`).
   */
  subscribe(
    p: { connectionId: string; clientMode: string; base?: { logEpoch: string; seq: number } },
    after: (fn: () => void) => void,
  ): { subscriptionId: string; mode: "snapshot" | "resume"; logEpoch: string } {
    this.step();
    const previous = this.byConnection.get(p.connectionId);
    if (previous) this.drop(previous);
    const sub: Subscription = {
      subscriptionId: `sub-${this.logEpoch}-${this.nextSubscription++}`,
      connectionId: p.connectionId,
      // v4-gateway: desktop-continuous → continuous, otherwise replayable (deliveryProfile default "replayable").
      profile: p.clientMode === "desktop-continuous" ? PROFILES.continuous : PROFILES.replayable,
      buffer: [],
      resyncRequired: false,
      sentSeq: 0,
      ordinal: 1,
    };
    this.subs.set(sub.subscriptionId, sub);
    this.byConnection.set(p.connectionId, sub.subscriptionId);
    const base = p.base;
    const resumable = base !== undefined && base.logEpoch === this.logEpoch && base.seq >= this.floorSeq && base.seq <= this.seq;
    if (!resumable) {
      after(() => this.initial(sub, null, "initial"));
      return { subscriptionId: sub.subscriptionId, mode: "snapshot", logEpoch: this.logEpoch };
    }
    sub.sentSeq = base.seq;
    after(() => this.initial(sub, base.seq, "initial"));
    return { subscriptionId: sub.subscriptionId, mode: "resume", logEpoch: this.logEpoch };
  }

  /**
   * The first frame of a (re)subscription, written after the answer: the projection is brought up to date and the
   * buffer emptied first, so what changed between the answer and now is in this frame once, not again in the next
   * flush. `from` null: a snapshot; else the logged deltas after it (nothing to send when already at seq).
   */
  private initial(sub: Subscription, from: number | null, deliveryKind: DeliveryKind): void {
    if (this.subs.get(sub.subscriptionId) !== sub) return;
    this.step();
    if (sub.timer) clearTimeout(sub.timer);
    sub.timer = undefined;
    sub.buffer = [];
    sub.resyncRequired = false;
    if (from === null) {
      this.send(sub, { fromSeq: 0, toSeq: this.seq, payload: { kind: "snapshot", snapshot: this.snapshot() } }, deliveryKind);
      return;
    }
    if (from === this.seq && deliveryKind === "initial") return;
    const replay = coalesce(this.log.filter((e) => e.seq > from).flatMap((e) => e.deltas));
    this.send(sub, { fromSeq: from, toSeq: this.seq, payload: { kind: "deltas", deltas: replay } }, deliveryKind);
  }

  /** resyncReserved: same subscription, the client's base or a snapshot, delivered as `recovery`. Null: no such subscription. */
  resync(
    subscriptionId: string,
    base: { logEpoch: string; seq: number } | null,
    forceSnapshot: boolean,
    after: (fn: () => void) => void,
  ): { subscriptionId: string; mode: "snapshot" | "resume"; logEpoch: string } | null {
    const sub = this.subs.get(subscriptionId);
    if (!sub) return null;
    const resumable =
      !forceSnapshot && base !== null && base.logEpoch === this.logEpoch && base.seq >= this.floorSeq && base.seq <= this.seq;
    if (!resumable) {
      sub.sentSeq = 0;
      after(() => this.initial(sub, null, "recovery"));
      return { subscriptionId, mode: "snapshot", logEpoch: this.logEpoch };
    }
    sub.sentSeq = base.seq;
    after(() => this.initial(sub, base.seq, "recovery"));
    return { subscriptionId, mode: "resume", logEpoch: this.logEpoch };
  }

  /** v4/connection/flow for one connection: drained → flush what was held; closed → its subscriptions end. */
  connectionFlow(connectionId: string, state: string): void {
    for (const sub of [...this.subs.values()]) {
      if (sub.connectionId !== connectionId) continue;
      if (state === "closed") this.drop(sub.subscriptionId);
      else if (state === "drained" && !sub.timer && sub.buffer.length) this.flush(sub);
    }
  }

  has(subscriptionId: string, connectionId: string): boolean {
    return this.subs.get(subscriptionId)?.connectionId === connectionId;
  }

  /** unsubscribe: only the owning connection's. */
  unsubscribe(subscriptionId: string, connectionId: string): void {
    if (this.has(subscriptionId, connectionId)) this.drop(subscriptionId);
  }

  private drop(subscriptionId: string): void {
    const sub = this.subs.get(subscriptionId);
    if (!sub) return;
    if (sub.timer) clearTimeout(sub.timer);
    this.subs.delete(subscriptionId);
    if (this.byConnection.get(sub.connectionId) === subscriptionId) this.byConnection.delete(sub.connectionId);
    log(`v4 ${this.topic}: ${subscriptionId} unsubscribed`);
  }
}

/** v4-gateway pausedConnections: connections that said `saturated` (v4/connection/flow); their flushes wait. */
export const pausedConnections = new Set<string>();

const publishers = new WeakMap<Runtime, ConversationPublisher>();

/** v4/connection/flow: saturated pauses the connection's flushes, drained resumes them, closed ends its subscriptions. */
export function connectionFlow(sim: Sim, connectionId: string, state: string): void {
  if (state === "saturated") pausedConnections.add(connectionId);
  else pausedConnections.delete(connectionId);
  if (state !== "saturated") for (const r of sim.runtimes.values()) publishers.get(r)?.connectionFlow(connectionId, state);
}

/** The session's publisher (made on first use: v4-gateway makes it on the first event ingested or subscribe). */
export function publisherOf(sim: Sim, s: SessionRecord, r: Runtime): ConversationPublisher {
  let p = publishers.get(r);
  if (!p) {
    p = new ConversationPublisher(sim, s, r);
    publishers.set(r, p);
  }
  return p;
}

/** Sim.v4Hook: an event reached the session's store. */
export function onSessionEvent(sim: Sim, s: SessionRecord): void {
  const r = sim.rt(s.id);
  if (!r) return;
  publisherOf(sim, s, r).changed();
}
