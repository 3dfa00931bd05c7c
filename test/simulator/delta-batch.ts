// The CLI's batching of streamed deltas at its protocol boundary, copied from
// jimpablo/ZCode@aac4755 apps/zcode-cli/packages/bootstrap/src/zcode-protocol/
// server-operations.ts. The event store keeps every delta as an event of its
// own; what goes on the wire merges neighbouring deltas. The same rules run
// twice: live, in `onSessionEvent` (state kept per session), and on every
// re-read (`readProtocolSessionEvents`: session/subscribe afterSeq,
// session/events, each snapshot's eventSeq), which batches the whole store
// again with fresh state and flushes its held tail at the end. A protocol seq
// is assigned per source event (`assignProtocolEventSeq`, keyed by the last
// merged event), so a tail flushed by a re-read takes a seq of its own and a
// live batch that later merges more deltas onto that tail carries the same
// text again under yet another seq.

/** An event as the store keeps it (ZCode's SessionEvent): one per delta. */
export interface SourceEvent {
  /** The store's sequenceNumber (every event, batched or not). */
  n: number;
  eventId: string;
  type: string;
  payload: Record<string, unknown>;
  /** ms; the batching judges intervals by these, never by a timer. */
  timestamp: number;
  turnId?: string;
  /** A simulator fault: stored but never pushed live (`seq-gap`). */
  hidden?: boolean;
  /** A simulator switch: this delta is never merged (`seq-gap`, `flood`). */
  noBatch?: boolean;
}

type Kind = "reasoning_delta" | "text_delta" | "tool_input_delta";

// server-operations.ts:183-186 (PROTOCOL_*_DELTA_BATCH_MAX_CHARS / _INTERVAL_MS).
const LIMITS: Record<Kind, { chars: number; ms: number }> = {
  tool_input_delta: { chars: 4 * 1024, ms: 750 },
  text_delta: { chars: 2 * 1024, ms: 250 },
  reasoning_delta: { chars: 2 * 1024, ms: 250 },
};

interface Info {
  key: string;
  kind: Kind;
  delta: string;
  at: number;
}

export interface Batch {
  key: string;
  kind: Kind;
  delta: string;
  /** The last merged event: the batch goes out as it, with the merged delta. */
  event: SourceEvent;
  updatedAt: number;
}

/** `LiveProtocolStreamingDeltaBatch` (server-operations.ts, near :203). */
export interface BatchState {
  batch?: Batch;
  flushedFirst: Set<string>;
  lastFlushAt: Map<string, number>;
}

export function newBatchState(): BatchState {
  return { flushedFirst: new Set(), lastFlushAt: new Map() };
}

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const rec = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/** `readProtocolStreamingParentToolUseId`. */
function parentToolUseId(p: Record<string, unknown>): string | undefined {
  const meta = rec(p._meta);
  const z = rec(meta.zcode);
  const c = rec(meta.claudeCode);
  return (
    str(p.parentToolUseId) ??
    str(p.parentToolCallId) ??
    str(meta.parentToolUseId) ??
    str(meta.parentToolCallId) ??
    str(z.parentToolUseId) ??
    str(z.parentToolCallId) ??
    str(c.parentToolUseId) ??
    str(c.parentToolCallId)
  );
}

/** `readStreamingDeltaBatchableEvent` (:355-397): which events merge, and under which key (`buildProtocolStreamingDeltaBatchKey`, :312-328). */
export function batchable(e: SourceEvent): Info | null {
  if (e.type !== "model.streaming" || e.noBatch) return null;
  const p = e.payload;
  const kind = str(p.kind);
  if (kind !== "tool_input_delta" && kind !== "text_delta" && kind !== "reasoning_delta") return null;
  const delta = str(p.delta);
  if (!delta) return null;
  const toolCallId = str(p.toolCallId);
  if (kind === "tool_input_delta" && !toolCallId) return null;
  const key = [
    kind,
    str(p.assistantMessageId) ?? "",
    str(p.inputId) ?? "",
    str(p.partId) ?? "",
    parentToolUseId(p) ?? "",
    toolCallId ?? "",
  ].join(":");
  return { key, kind, delta, at: e.timestamp };
}

/** `mergeProtocolStreamingDeltaBatch`. */
function merge(b: Batch | undefined, e: SourceEvent, i: Info): Batch {
  if (!b || b.key !== i.key) return { key: i.key, kind: i.kind, delta: i.delta, event: e, updatedAt: i.at };
  return { key: i.key, kind: i.kind, delta: b.delta + i.delta, event: e, updatedAt: i.at };
}

/** `materializeProtocolStreamingDeltaBatch`: the last event, carrying the merged delta. */
function materialize(b: Batch): SourceEvent {
  return { ...b.event, payload: { ...b.event.payload, delta: b.delta } };
}

/** `shouldFlushProtocolStreamingDeltaBatchForInterval` (:444-459): event timestamps, judged only when a delta comes. */
function intervalDue(b: Batch, lastFlushAt: Map<string, number>): boolean {
  const last = lastFlushAt.get(b.key);
  if (last === undefined) return false;
  return b.updatedAt - last >= LIMITS[b.kind].ms;
}

/**
 * One event through the batching, as `onSessionEvent` (live) and the loop of
 * `readProtocolSessionEvents` (re-read) both run it: `send` gets each event
 * that goes out (a flushed batch or a non-delta event).
 */
export function step(state: BatchState, e: SourceEvent, send: (e: SourceEvent) => void): void {
  const flush = (): void => {
    const b = state.batch;
    if (!b) return;
    state.lastFlushAt.set(b.key, b.updatedAt);
    state.batch = undefined;
    send(materialize(b));
  };
  const info = batchable(e);
  if (!info) {
    // resetLiveProtocolStreamingDeltaBatch: any other event flushes and forgets.
    flush();
    state.flushedFirst.clear();
    state.lastFlushAt.clear();
    send(e);
    return;
  }
  if (state.batch && state.batch.key !== info.key) flush();
  state.batch = merge(state.batch, e, info);
  // shouldFlushFirstDelta is true for all three kinds (:393-394).
  if (!state.flushedFirst.has(info.key)) {
    flush();
    state.flushedFirst.add(info.key);
    return;
  }
  if (state.batch.delta.length >= LIMITS[info.kind].chars || intervalDue(state.batch, state.lastFlushAt)) flush();
}

/** `readProtocolSessionEvents`: the whole store batched again, the held tail flushed at the end. */
export function rebatch(events: readonly SourceEvent[], send: (e: SourceEvent) => void): void {
  const state = newBatchState();
  for (const e of events) step(state, e, send);
  const b = state.batch;
  if (b) {
    state.batch = undefined;
    send(materialize(b));
  }
}
