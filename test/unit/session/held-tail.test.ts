import { describe, expect, test } from "bun:test";
import { deltaBatchKey, HeldTail } from "../../../src/session/held-tail.ts";
import type { RawEvent } from "../../../src/zcode/event-schemas.ts";

const delta = (seq: number, kind: string, text: string, extra: Record<string, unknown> = {}): RawEvent => ({
  sessionId: "s",
  seq,
  type: "model.streaming",
  payload: { assistantMessageId: "m1", kind, delta: text, ...extra },
});
const other = (seq: number): RawEvent => ({ sessionId: "s", seq, type: "tool.updated", payload: { kind: "started" } });
const text = (r: RawEvent | undefined) => (r ? (r.payload as { delta: string }).delta : undefined);

describe("HeldTail: text a re-read's held tail carried is shown once", () => {
  for (const [kind, extra] of [
    ["text_delta", {}],
    ["reasoning_delta", {}],
    ["tool_input_delta", { toolCallId: "c1" }],
  ] as const) {
    test(`${kind}: the live batch that merges onto the tail loses the tail's text, repeatedly`, () => {
      const h = new HeldTail();
      const tail = delta(5, kind, "to the question is forty", extra);
      expect(h.trim(tail)).toBe(tail);
      h.reread(tail);
      expect(text(h.trim(delta(6, kind, "to the question is forty-two", extra)))).toBe("-two");
      // A second pause: a second re-read batches the store anew (tail + more), then live adds more again.
      const again = delta(7, kind, "to the question is forty-two, and", extra);
      expect(text(h.trim(again))).toBe("to the question is forty-two, and");
      h.reread(again);
      expect(text(h.trim(delta(8, kind, "to the question is forty-two, and all", extra)))).toBe(" all");
      // Once used, the tail is gone.
      expect(text(h.trim(delta(9, kind, "to the question", extra)))).toBe("to the question");
    });
  }

  test("the live stream flushed the tail itself (its seq came live): the next batch is whole", () => {
    const h = new HeldTail();
    h.reread(delta(5, "text_delta", "ab"));
    h.live(5);
    expect(text(h.trim(delta(6, "text_delta", "abc")))).toBe("abc");
  });

  test("another event or another batch key in between: nothing is cut", () => {
    const h = new HeldTail();
    h.reread(delta(5, "text_delta", "ab"));
    expect(h.trim(other(6))).toEqual(other(6));
    expect(text(h.trim(delta(7, "text_delta", "abc")))).toBe("abc");
    h.reread(delta(8, "text_delta", "ab"));
    expect(text(h.trim(delta(9, "reasoning_delta", "abc")))).toBe("abc");
    expect(text(h.trim(delta(10, "text_delta", "abc")))).toBe("abc");
  });

  test("a delta that does not begin with the tail is shown whole; one that is only the tail is dropped", () => {
    const h = new HeldTail();
    h.reread(delta(5, "text_delta", "ab"));
    expect(text(h.trim(delta(6, "text_delta", "xyz")))).toBe("xyz");
    h.reread(delta(7, "text_delta", "ab"));
    expect(h.trim(delta(8, "text_delta", "ab"))).toBeUndefined();
  });

  test("the batch key is ZCode's: kind, message, input, part, parent tool use, tool call", () => {
    expect(deltaBatchKey(delta(1, "text_delta", "x"))).toBe("text_delta:m1::::");
    expect(
      deltaBatchKey(delta(1, "tool_input_delta", "x", { toolCallId: "c", partId: "p", _meta: { zcode: { parentToolUseId: "u" } } })),
    ).toBe("tool_input_delta:m1::p:u:c");
    expect(deltaBatchKey(delta(1, "text_delta", ""))).toBeUndefined();
    expect(deltaBatchKey(other(1))).toBeUndefined();
  });
});
