// The update sink's memory bounds for a slow editor: merged chunks stop at
// MAX_MERGED_CHARS, and backpressure() holds the ZCode reader while the
// backlog is above the high mark, until it drains below the low mark.
import { describe, expect, test } from "bun:test";
import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { BACKLOG_HIGH_CHARS, BACKLOG_LOW_CHARS, MAX_MERGED_CHARS, UpdateSink } from "../../../src/acp/update-sink.ts";

const text = (t: string): SessionUpdate => ({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: t } });

/** A transport that completes one send per `next()`. */
function steppedTransport() {
  const sent: SessionNotification[] = [];
  const pending: Array<() => void> = [];
  return {
    sent,
    notify: (n: SessionNotification) =>
      new Promise<void>((resolve) => {
        sent.push(n);
        pending.push(resolve);
      }),
    async next() {
      pending.shift()?.();
      await Bun.sleep(0);
    },
    get waiting() {
      return pending.length;
    },
  };
}

describe("UpdateSink memory bounds", () => {
  test("a merged chunk never grows past MAX_MERGED_CHARS; the text stays whole and in order", async () => {
    const t = steppedTransport();
    const sink = new UpdateSink(t.notify);
    const piece = "x".repeat(1000);
    const n = 300;
    for (let i = 0; i < n; i++) sink.push("s", text(`${piece.slice(0, 990)}${String(i).padStart(10, "0")}`));
    const done = sink.flush("s");
    while (t.waiting) await t.next();
    await done;
    const texts = t.sent.map((m) => (m.update as { content: { text: string } }).content.text);
    for (const s of texts) expect(s.length).toBeLessThanOrEqual(MAX_MERGED_CHARS);
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.length).toBeLessThan(n / 10);
    const all = texts.join("");
    expect(all.length).toBe(n * 1000);
    for (let i = 0; i < n; i++) expect(all.slice(i * 1000 + 990, (i + 1) * 1000)).toBe(String(i).padStart(10, "0"));
  });

  test("backpressure(): none while small, a promise above the high mark, released below the low mark", async () => {
    const t = steppedTransport();
    const sink = new UpdateSink(t.notify);
    expect(sink.backpressure()).toBeUndefined();
    const chunk = "y".repeat(MAX_MERGED_CHARS);
    // Enough full-size chunks to pass the high mark (the first is in flight).
    const count = Math.ceil(BACKLOG_HIGH_CHARS / MAX_MERGED_CHARS) + 2;
    for (let i = 0; i < count; i++) sink.push("s", text(chunk));
    const gate = sink.backpressure();
    expect(gate).toBeInstanceOf(Promise);
    // The same promise for every caller until released.
    expect(sink.backpressure()).toBe(gate!);
    let released = false;
    void gate!.then(() => (released = true));
    // Draining to just above the low mark keeps it closed...
    const sendsToLow = count - Math.floor(BACKLOG_LOW_CHARS / MAX_MERGED_CHARS);
    for (let i = 0; i < sendsToLow - 1; i++) await t.next();
    expect(released).toBe(false);
    // ...one more send crosses it.
    await t.next();
    await t.next();
    expect(released).toBe(true);
    expect(sink.backpressure()).toBeUndefined();
  });

  test("closing the sink releases a held reader", async () => {
    const t = steppedTransport();
    const sink = new UpdateSink(t.notify);
    const chunk = "z".repeat(MAX_MERGED_CHARS);
    for (let i = 0; i < BACKLOG_HIGH_CHARS / MAX_MERGED_CHARS + 2; i++) sink.push("s", text(chunk));
    const gate = sink.backpressure()!;
    sink.close();
    await gate;
    expect(sink.backpressure()).toBeUndefined();
  });
});
