import type { RawEvent } from "../event-schemas.ts";
import { type Change, ConversationState, type ConversationStateView, DEFAULT_MAX_ROWS } from "./conversation-state.ts";
import type { QueueItem, Snapshot, UsageState } from "./frame-schemas.ts";
import type { PendingInteractionView } from "./interactions.ts";
import { type Emit, RowMemory, type RowContext } from "./row-memory.ts";
import type { Row } from "./schemas.ts";
import type { AssembledFrame } from "./wire-frames.ts";

// Conversation frames → the legacy `session/event` envelopes the session layer
// already consumes (event-schemas.ts: turn.started, model.streaming,
// tool.updated, turn.completed, turn.failed, session.titleUpdated,
// session.updated, turn.steerDrained), and pending interactions → the sink.
// Rows are ZCode's rows.ts; a turn is its turnHeader row (state running →
// completedSuccess | completedInterrupted | failed). Events of a frame are
// emitted after the whole frame is applied, so that what a turn's events take
// from the state (control.activeWorks, control.lastError, usage) is the
// state the frame ends with, whatever the order of its deltas.
//
// A snapshot shows only what is live: the running turn (its header and the
// rows after it); older rows are remembered as already shown, so a row
// re-sent later (upsert, resync) never repeats text. History is replayed
// from rows (rows-history.ts), never from here.

export interface ProjectorSink {
  /** A synthetic legacy session/event envelope; seq increases by one per event of the session. */
  event(e: RawEvent): void;
  /** A new pending interaction (once per interactionId). */
  interaction(i: PendingInteractionView): void;
  /** An interaction resolved elsewhere or removed. */
  interactionGone(interactionId: string): void;
}

export interface ProjectorOptions {
  /** Rows kept in memory (the newest: the live turn's and a few before); default 2000. */
  maxRows?: number;
  /** The seq of the last event already emitted for this session (events continue at +1); default 0. */
  lastSeq?: number;
}

interface Pending {
  type: string;
  turnId: string | undefined;
  payload: Record<string, unknown>;
  /** Completes the payload from the state the frame ended with. */
  fill?: (s: ConversationState, p: Pending) => void;
}

/** Turns remembered (started / ended): a conversation has one live turn; older ones only need to stay ended. */
const TURNS_KEPT = 64;
/** Guides remembered (translate/events.ts keeps as many steers). */
const STEERS_KEPT = 64;

export class ConversationProjector {
  private readonly st: ConversationState;
  private readonly memory: RowMemory;
  private seqNo: number;
  private pending: Pending[] = [];
  /** Rows changed by the deltas of the frame being applied, told together (flushRows). */
  private readonly rowsOfFrame = new Map<number, Row>();
  private readonly turns = new Map<string, { ended: boolean; usageAtStart?: UsageState["cumulative"] }>();
  private readonly asked = new Set<string>();
  /** Guides seen in the queue, by their command: what was told of each (bounded like the legacy steer memory). */
  private readonly steers = new Map<string, { queueItemId: string; fellBack: boolean }>();
  private seenSnapshot = false;
  /** The highest rowId seen: an unknown row at or below it is history (an old row re-sent), never live. */
  private highWater = -1;

  constructor(
    readonly sessionId: string,
    private readonly out: ProjectorSink,
    opts: ProjectorOptions = {},
  ) {
    const maxRows = opts.maxRows ?? DEFAULT_MAX_ROWS;
    this.st = new ConversationState(maxRows);
    this.memory = new RowMemory(maxRows);
    this.seqNo = opts.lastSeq ?? 0;
  }

  /** A snapshot or deltas frame, in order. */
  apply(frame: AssembledFrame): void {
    if (frame.payload.kind === "snapshot") this.onSnapshot(frame.payload.snapshot);
    else for (const d of frame.payload.deltas) this.onChange(this.st.applyDelta(d));
    this.flushRows();
    this.flush();
  }

  get revision(): number {
    return this.st.revision;
  }
  get logEpoch(): string | undefined {
    return this.st.logEpoch;
  }
  /** The seq of the last event emitted. */
  get seq(): number {
    return this.seqNo;
  }
  get state(): ConversationStateView {
    return this.st.view;
  }

  // ---- snapshot ----------------------------------------------------------

  private onSnapshot(s: Snapshot): void {
    const before = this.st.applySnapshot(s);
    // Row ids mean something only within their log epoch (a new CLI process, a rebuilt projection).
    if (before.logEpoch !== s.logEpoch) {
      this.memory.clear();
      this.highWater = -1;
    }
    const rows = s.rows.window;
    // The live turn: the last one running, or the one we told started (it may have ended while we were away).
    const live = this.liveHeader(rows);
    // A turn that ended while we were away ends after the rest of its rows is told.
    const ends: Row[] = [];
    for (const row of rows) {
      if (row.kind === "turnHeader") {
        if (row !== live && !this.turns.has(turnOf(row) ?? "")) continue;
        this.onHeader(row, true, false);
        ends.push(row);
        continue;
      }
      if (live && row.rowId > live.rowId) this.memory.project(row, this.emitFor(row), this.ctx);
      else this.memory.baseline(row);
    }
    for (const row of ends) this.onHeader(row, true);
    for (const item of s.queue?.items ?? []) this.onQueueItem(item);
    for (const row of rows) this.highWater = Math.max(this.highWater, row.rowId);
    // A resync: what changed while we were away is told like a patch; the first snapshot tells nothing of the past.
    if (this.seenSnapshot) {
      for (const key of ["meta", "config", "usage"] as const)
        if (JSON.stringify(before[key]) !== JSON.stringify(s[key])) this.onState(key, before[key]);
    }
    this.seenSnapshot = true;
  }

  // ---- deltas ------------------------------------------------------------

  private onChange(c: Change | undefined): void {
    if (!c) return;
    if ((c.op === "row" || c.op === "delta") && c.row.kind !== "turnHeader") {
      this.rowsOfFrame.set(c.row.rowId, c.row);
      return;
    }
    // A turn's start or end, a cut, a state change: the rows before it are told first, as they came.
    this.flushRows();
    switch (c.op) {
      case "row":
      case "delta":
        return this.onHeader(c.row, false);
      case "removed":
        // An edit or retry cut the branch: what was shown of it stays shown; its rows are forgotten.
        return this.memory.forgetFrom(c.fromRowId);
      case "state":
        for (const key of c.keys) this.onState(key, c.previous[key]);
        return;
    }
  }

  /**
   * The rows a run of deltas changed, told in the conversation's order (rowId) rather than the deltas': ZCode
   * coalesces a flush window's deltas (coalesce.ts), and a row.upserted swallows its row's earlier row.delta and
   * takes its place after the deltas of later rows, so a reasoning row completed after its reply began would tell
   * the end of its thought inside the reply.
   */
  private flushRows(): void {
    if (this.rowsOfFrame.size === 0) return;
    const rows = [...this.rowsOfFrame.values()].sort((a, b) => a.rowId - b.rowId);
    this.rowsOfFrame.clear();
    for (const row of rows) this.onRow(row);
  }

  private onRow(row: Row): void {
    const old = !this.memory.knows(row.rowId) && row.rowId <= this.highWater;
    this.highWater = Math.max(this.highWater, row.rowId);
    if (old) this.memory.baseline(row);
    else this.memory.project(row, this.emitFor(row), this.ctx);
  }

  private emitFor(row: Row): Emit {
    return (type, payload) => this.push({ type, turnId: row.turnId, payload });
  }

  private readonly ctx: RowContext = {
    subagentTitle: (child) => this.st.values.subagents?.running.find((r) => r.childSessionId === child)?.title,
    steerIdOf: (commandId) => this.steers.get(commandId)?.queueItemId,
    toolInput: (toolCallId) => {
      const input = this.st.findRow((r) => r.kind === "toolCall" && r.toolCallId === toolCallId)?.input;
      return input && typeof input === "object" && !Array.isArray(input) ? (input as Record<string, unknown>) : undefined;
    },
  };

  private liveHeader(rows: readonly Row[]): Row | undefined {
    for (let i = rows.length - 1; i >= 0; i--) {
      const r = rows[i] as Row;
      if (r.kind !== "turnHeader") continue;
      const known = this.turns.get(turnOf(r) ?? "");
      return r.state === "running" || (known && !known.ended) ? r : undefined;
    }
    return undefined;
  }

  /** A turn's header: running → turn.started; completed* → turn.completed; failed → turn.failed (each once). */
  private onHeader(row: Row, fromSnapshot: boolean, mayEnd = true): void {
    const turnId = turnOf(row);
    if (!turnId) return;
    let turn = this.turns.get(turnId);
    if (!turn) {
      // An old header re-sent (its actions or file changes recomputed) is no new turn; a new one that ran
      // between two frames we saw (first seen ended) still starts before it ends.
      const isNew = row.rowId > this.highWater || (fromSnapshot && row.state === "running");
      this.highWater = Math.max(this.highWater, row.rowId);
      if (!isNew) return;
      turn = { ended: false };
      this.turns.set(turnId, turn);
      while (this.turns.size > TURNS_KEPT) this.turns.delete(this.turns.keys().next().value as string);
      this.startTurn(row, turnId, turn);
    }
    if (!mayEnd || turn.ended || row.state === "running" || row.state === undefined) return;
    turn.ended = true;
    const started = turn;
    if (row.state === "failed") {
      this.push({
        type: "turn.failed",
        turnId,
        payload: {},
        fill: (s, p) => {
          const e = s.values.control?.lastError;
          if (e) {
            p.payload.error = errorDetail(e);
            return;
          }
          // projection-rows.ts mapTurnResultToHeaderState: a turn that completed with an error_* result
          // (max turns, budget, tool calls, during execution) is "failed" too, with no session error. Legacy
          // told it as a completed turn that stopped short; which limit it was, the row does not say.
          p.type = "turn.completed";
          p.payload.resultType = "error_during_execution";
        },
      });
      return;
    }
    // completedInterrupted is what a stop leaves: the legacy cancelled result (turn-outcome.ts: stop reason "cancelled").
    const resultType = row.state === "completedInterrupted" ? "cancelled" : "success";
    const ev: Pending = {
      type: "turn.completed",
      turnId,
      payload: { resultType },
      fill: (s) => {
        const usage = usageBetween(started.usageAtStart, s.values.usage?.cumulative);
        if (usage) ev.payload.usage = usage;
      },
    };
    this.push(ev);
  }

  private startTurn(row: Row, turnId: string, turn: { usageAtStart?: UsageState["cumulative"] }): void {
    const ev: Pending = {
      type: "turn.started",
      turnId,
      payload: row.sourceCommandId ? { queryId: row.sourceCommandId } : {},
      fill: (s) => {
        const view = s.values;
        turn.usageAtStart = view.usage?.cumulative;
        // What a v4 stop names (snapshot.ts activeWorkSummarySchema): the work this turn's command started, else the primary turn.
        const works = view.control?.activeWorks ?? [];
        const work =
          works.find((w) => row.sourceCommandId !== undefined && w.sourceCommandId === row.sourceCommandId) ??
          works.find((w) => w.kind === "primaryTurn");
        if (work?.foregroundExecutionId) ev.payload.foregroundExecutionId = work.foregroundExecutionId;
        const input = s.findRow((r) => r.kind === "userInput" && r.turnId === row.turnId && r.rowId > row.rowId);
        if (input?.text !== undefined) ev.payload.input = input.text;
      },
    };
    this.push(ev);
  }

  /** A state key replaced: the legacy payloads that told the same. */
  private onState(key: string, previous: unknown): void {
    const view = this.st.values;
    if (key === "meta") {
      const title = view.meta?.title;
      if (title && title !== (previous as { title?: string } | undefined)?.title)
        this.push({ type: "session.titleUpdated", turnId: undefined, payload: { title } });
    } else if (key === "config") {
      // ZCode's mode_changed payload {mode, previousMode} (translate/events.ts sessionUpdatedToUpdates).
      const mode = view.config?.mode;
      const before = (previous as { mode?: string } | undefined)?.mode;
      if (mode && before !== undefined && mode !== before)
        this.push({ type: "session.updated", turnId: undefined, payload: { mode, previousMode: before } });
    } else if (key === "queue") {
      for (const item of view.queue?.items ?? []) this.onQueueItem(item);
    } else if (key === "usage") {
      // The context meter: legacy's {usage:{inputTokens}, contextWindow} of a model request.
      const cw = view.usage?.contextWindow;
      const was = (previous as UsageState | undefined)?.contextWindow;
      if (cw && (cw.usedTokens !== was?.usedTokens || cw.maxTokens !== was?.maxTokens))
        this.push({
          type: "session.updated",
          turnId: undefined,
          payload: { usage: { inputTokens: cw.usedTokens, outputTokens: 0 }, contextWindow: cw.maxTokens },
        });
    }
  }

  /**
   * A guide (steer) in the queue (input-intent.ts): admitted → the legacy turn.steerQueued; fallen back
   * (steer.state fellBack) → the legacy TurnSteerDeliveryChanged payload, session.updated {fallbackReasonCode, pendingInputId}.
   */
  private onQueueItem(item: QueueItem): void {
    if (item.delivery?.admitted !== "guide" || !item.sourceCommandId) return;
    let told = this.steers.get(item.sourceCommandId);
    if (!told) {
      told = { queueItemId: item.queueItemId, fellBack: false };
      this.steers.set(item.sourceCommandId, told);
      while (this.steers.size > STEERS_KEPT) this.steers.delete(this.steers.keys().next().value as string);
      this.push({
        type: "turn.steerQueued",
        turnId: undefined,
        payload: { pendingInputId: item.queueItemId, input: item.text ?? "", delivery: "guide" },
      });
    }
    const reason = item.steer?.state === "fellBack" ? (item.steer.reasonCode ?? item.delivery.fallbackReasonCode) : undefined;
    if (reason && !told.fellBack) {
      told.fellBack = true;
      this.push({ type: "session.updated", turnId: undefined, payload: { fallbackReasonCode: reason, pendingInputId: item.queueItemId } });
    }
  }

  // ---- output ------------------------------------------------------------

  private push(p: Pending): void {
    this.pending.push(p);
  }

  /** Emits the frame's events (completed from the final state) and tells the sink of interactions that came or went. */
  private flush(): void {
    const events = this.pending;
    this.pending = [];
    for (const p of events) {
      p.fill?.(this.st, p);
      this.seqNo += 1;
      this.out.event({
        sessionId: this.sessionId,
        seq: this.seqNo,
        type: p.type,
        ...(p.turnId !== undefined ? { turnId: p.turnId } : {}),
        payload: p.payload,
      });
    }
    const now = new Set<string>();
    for (const i of this.st.values.pendingInteractions) {
      now.add(i.interactionId);
      if (!this.asked.has(i.interactionId)) this.out.interaction({ ...i, sessionId: this.sessionId });
    }
    for (const id of this.asked) if (!now.has(id)) this.out.interactionGone(id);
    this.asked.clear();
    for (const id of now) this.asked.add(id);
  }
}

function turnOf(row: Row): string | undefined {
  return row.turnId ?? row.entityId;
}

/** snapshot.ts sessionErrorInfo → the legacy error detail (code, message, recoverable, retryable). */
function errorDetail(e: NonNullable<NonNullable<ConversationStateView["control"]>["lastError"]>): Record<string, unknown> {
  const retryable = e.attribution?.retryable;
  return {
    code: e.code,
    message: e.message,
    ...(e.recoverable !== undefined ? { recoverable: e.recoverable } : {}),
    ...(retryable !== undefined ? { retryable } : {}),
    ...(e.detail !== undefined ? { detail: e.detail } : {}),
    ...(e.attribution ? { attribution: e.attribution } : {}),
  };
}

/** The turn's usage: what the session's cumulative counters moved by while it ran. */
function usageBetween(a: UsageState["cumulative"], b: UsageState["cumulative"]): Record<string, number> | undefined {
  if (!a || !b) return undefined;
  const d = (k: "inputTokens" | "outputTokens" | "cacheReadTokens" | "cacheWriteTokens") => Math.max(0, (b[k] ?? 0) - (a[k] ?? 0));
  const inputTokens = d("inputTokens");
  const outputTokens = d("outputTokens");
  return {
    inputTokens,
    outputTokens,
    totalTokens: inputTokens + outputTokens,
    cacheReadTokens: d("cacheReadTokens"),
    cacheWriteTokens: d("cacheWriteTokens"),
  };
}
