import { describe, expect, test } from "bun:test";
import { newBatchState, rebatch, type SourceEvent, step } from "./delta-batch.ts";

let n = 0;
const d = (at: number, text: string, kind = "text_delta", extra: Record<string, unknown> = {}): SourceEvent => ({
  n: ++n,
  eventId: `e${n}`,
  type: "model.streaming",
  payload: { assistantMessageId: "m1", kind, delta: text, ...extra },
  timestamp: at,
});
const ev = (at: number): SourceEvent => ({ n: ++n, eventId: `e${n}`, type: "tool.updated", payload: {}, timestamp: at });
const live = (events: SourceEvent[]) => {
  const st = newBatchState();
  const out: SourceEvent[] = [];
  for (const e of events) step(st, e, (x) => out.push(x));
  return { out, st };
};
const shown = (out: SourceEvent[]) => out.map((e) => (e.type === "model.streaming" ? `${e.payload.delta}@${e.n}` : `[${e.type}]`));

describe("delta batching as server-operations.ts does it", () => {
  test("first delta at once, then merged until 250 ms of event time since the last flush (no timer)", () => {
    const es = [d(0, "a"), d(10, "b"), d(100, "c"), d(260, "d"), d(300, "e")];
    const { out, st } = live(es);
    expect(shown(out)).toEqual([`a@${es[0]!.n}`, `bcd@${es[3]!.n}`]);
    // "e" is held: nothing lets it out until the next event.
    expect(st.batch?.delta).toBe("e");
  });

  test("2 KiB of text (4 KiB of tool input) flush; a new key or another event flushes and resets", () => {
    const big = "x".repeat(2048);
    const es = [
      d(0, "a"),
      d(1, big),
      d(2, "t", "tool_input_delta", { toolCallId: "c" }),
      d(3, big, "tool_input_delta", { toolCallId: "c" }),
      ev(4),
      d(5, "z"),
    ];
    const { out } = live(es);
    expect(shown(out)).toEqual([
      `a@${es[0]!.n}`,
      `${big}@${es[1]!.n}`,
      `t@${es[2]!.n}`,
      `${big}@${es[3]!.n}`,
      "[tool.updated]",
      `z@${es[5]!.n}`,
    ]);
  });

  test("a re-read batches the whole store alike and flushes the tail the live stream still holds", () => {
    const es = [d(0, "a"), d(10, "b"), d(20, "c")];
    const { out, st } = live(es);
    expect(shown(out)).toEqual([`a@${es[0]!.n}`]);
    const reread: SourceEvent[] = [];
    rebatch(es, (e) => reread.push(e));
    expect(shown(reread)).toEqual([`a@${es[0]!.n}`, `bc@${es[2]!.n}`]);
    // The live stream still holds "bc": after a pause the next delta sends it again, merged, as a later event.
    const next = d(3000, "d");
    step(st, next, (e) => out.push(e));
    expect(shown(out).at(-1)).toBe(`bcd@${next.n}`);
  });
});
