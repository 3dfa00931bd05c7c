import { describe, expect, test } from "bun:test";
import { LineSplitter } from "../../../src/lines.ts";
import { TranscriptEliding } from "../../../src/zcode/elide-transcript.ts";

const enc = new TextEncoder();

/** Feeds `text` to a fresh scanner in pieces of `size` bytes. */
function elide(text: string, size = 7, keepMax?: number): string | undefined {
  const r = new TranscriptEliding(keepMax);
  const bytes = enc.encode(text);
  for (let i = 0; i < bytes.length; i += size) r.push(bytes.subarray(i, i + size));
  return r.finish();
}

const SNAPSHOT = {
  id: 7,
  result: {
    session: { sessionId: "s1", title: 'say "messages": [1]' },
    settings: { mode: { current: "build" } },
    messages: [
      { info: { messageId: "m1" }, parts: [{ type: "text", text: 'a "quoted" ] } [ \\ text' }] },
      { info: {}, parts: [] },
    ],
    projection: { status: "idle", messages: 3 },
    todos: [],
  },
};

describe("TranscriptEliding", () => {
  test("the result's messages are left out and marked; everything else is kept as it was, whatever the chunking", () => {
    for (const size of [1, 3, 7, 64, 100_000]) {
      const out = elide(JSON.stringify(SNAPSHOT), size);
      const parsed = JSON.parse(out!);
      expect(parsed).toEqual({ ...SNAPSHOT, result: { ...SNAPSHOT.result, messages: [], messagesElided: true } });
    }
  });

  test("a messages key deeper down, or in a string, is not the transcript", () => {
    const line = JSON.stringify({ id: 1, result: { projection: { messages: [1, 2] }, note: '"messages":[1]' } });
    // Nothing at the result's level to leave out: no reduced line.
    expect(elide(line)).toBeUndefined();
  });

  test("gives up past its bound, or when the line is not JSON it understands", () => {
    const big = JSON.stringify({ id: 1, result: { session: { title: "x".repeat(1000) }, messages: [] } });
    expect(elide(big, 7, 100)).toBeUndefined();
    expect(elide('{"id":1,"result":{"messages":null}}')).toBeUndefined();
    expect(elide('{"id":1,"result":{"messages":[1,2')).toBeUndefined();
  });
});

describe("LineSplitter with a reducer", () => {
  test("an over-long snapshot is delivered without its transcript, in its place; the next lines still arrive", () => {
    const lines: string[] = [];
    const reported: number[] = [];
    const s = new LineSplitter((l) => lines.push(l), {
      maxLineBytes: 200,
      onOverlong: (n) => reported.push(n),
      reduceOverlong: () => new TranscriptEliding(),
    });
    const huge = JSON.stringify({
      id: 2,
      result: { session: { sessionId: "s" }, messages: Array.from({ length: 50 }, (_, i) => ({ text: `m${i}` })) },
    });
    const text = `{"a":1}\n${huge}\n{"b":2}\n`;
    const bytes = enc.encode(text);
    for (let i = 0; i < bytes.length; i += 64) s.push(bytes.subarray(i, i + 64));
    s.end();
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { a: 1 },
      { id: 2, result: { session: { sessionId: "s" }, messages: [], messagesElided: true } },
      { b: 2 },
    ]);
    expect(reported).toEqual([huge.length]);
  });

  test("in one chunk, and at EOF without a newline", () => {
    const huge = JSON.stringify({ id: 3, result: { messages: ["x".repeat(500)] } });
    for (const tail of ["\n", ""]) {
      const lines: string[] = [];
      const s = new LineSplitter((l) => lines.push(l), { maxLineBytes: 100, reduceOverlong: () => new TranscriptEliding() });
      s.push(enc.encode(`{"a":1}\n${huge}${tail}`));
      s.end();
      expect(lines).toEqual(['{"a":1}', '{"id":3,"result":{"messages":[],"messagesElided":true}}']);
    }
  });
});

describe("TranscriptEliding: escapes across chunk boundaries", () => {
  test("backslash runs before quotes, split anywhere, never end the skipped string early", () => {
    const tricky = ['\\"', "\\\\", '\\\\\\"', 'a\\\\"b', '"]}[{', "\\u0022"];
    const line = JSON.stringify({ id: 1, result: { messages: tricky.map((text) => ({ text, more: text.repeat(3) })), after: "kept" } });
    for (const size of [1, 2, 3, 5, 8, 13]) {
      expect(JSON.parse(elide(line, size)!)).toEqual({ id: 1, result: { messages: [], messagesElided: true, after: "kept" } });
    }
  });
});
