import type { RawEvent } from "../zcode/event-schemas.ts";

// ZCode merges neighbouring streamed deltas at its protocol boundary and
// numbers each merged batch by its last source event (server-operations.ts
// onSessionEvent / readProtocolSessionEvents / assignProtocolEventSeq, see
// docs/architecture.md). A re-read (session/subscribe afterSeq) flushes the
// batch the live stream still holds, under a seq of its own; the live stream
// keeps holding it, and when the next delta of the same batch key comes it
// sends the held text again with the new delta, under yet another seq. So
// seqs alone cannot tell shown text from new text: the text a re-read's
// held tail carried is remembered, and cut from the front of the next delta
// of the same key. Exact, not a guess from overlapping text: the live batch
// that follows a re-read tail begins with exactly that tail, or it was
// flushed as the same event (its seq comes live again) and a new batch begins.

const DELTA_KINDS = new Set(["text_delta", "reasoning_delta", "tool_input_delta"]);

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);
const rec = (v: unknown): Record<string, unknown> => (typeof v === "object" && v !== null ? (v as Record<string, unknown>) : {});

/** The key ZCode batches a delta under (buildProtocolStreamingDeltaBatchKey), or undefined for any other event. */
export function deltaBatchKey(raw: RawEvent): string | undefined {
  if (raw.type !== "model.streaming") return undefined;
  const p = rec(raw.payload);
  const kind = str(p.kind);
  if (!kind || !DELTA_KINDS.has(kind) || !str(p.delta)) return undefined;
  const meta = rec(p._meta);
  const parent =
    str(p.parentToolUseId) ??
    str(p.parentToolCallId) ??
    str(meta.parentToolUseId) ??
    str(meta.parentToolCallId) ??
    str(rec(meta.zcode).parentToolUseId) ??
    str(rec(meta.zcode).parentToolCallId) ??
    str(rec(meta.claudeCode).parentToolUseId) ??
    str(rec(meta.claudeCode).parentToolCallId);
  return [kind, str(p.assistantMessageId), str(p.inputId), str(p.partId), parent, str(p.toolCallId)].map((x) => x ?? "").join(":");
}

export class HeldTail {
  private tail: { seq: number; key: string; text: string } | undefined;

  /** Forgets the tail (the session is materialized anew). */
  clear(): void {
    this.tail = undefined;
  }

  /** A live envelope: the tail's own seq coming live means the live stream flushed that very batch, nothing more. */
  live(seq: number): void {
    if (this.tail?.seq === seq) this.tail = undefined;
  }

  /** The last event of a re-read was applied: if it is a delta, the live stream still holds its text. */
  reread(raw: RawEvent): void {
    const key = deltaBatchKey(raw);
    this.tail = key === undefined ? undefined : { seq: raw.seq, key, text: str(rec(raw.payload).delta) ?? "" };
  }

  /** The event to apply in place of `raw`: the held text cut from the front; undefined when nothing is left. */
  trim(raw: RawEvent): RawEvent | undefined {
    const t = this.tail;
    if (!t) return raw;
    this.tail = undefined;
    if (deltaBatchKey(raw) !== t.key) return raw;
    const p = rec(raw.payload);
    const delta = str(p.delta) ?? "";
    // Not the held batch after all (ZCode batched otherwise): show it whole rather than lose text.
    if (!delta.startsWith(t.text)) return raw;
    const rest = delta.slice(t.text.length);
    return rest ? { ...raw, payload: { ...p, delta: rest } } : undefined;
  }
}
