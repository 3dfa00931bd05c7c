// Cumulative output tails → only what is new: growth, a sliding bounded
// window, discontinuities, and the final output. tailDelta's native fast path
// for a sliding window must decide exactly as the KMP overlap does: random
// streams, random window sizes and slides, repetitive text, discontinuities.
import { describe, expect, test } from "bun:test";
import {
  advanceStream,
  emptyStream,
  finalDelta,
  OUTPUT_GAP_MARKER,
  restAfterStreams,
  suffixPrefixOverlap,
  tailDelta,
} from "../../../../src/translate/tools/output-tail.ts";
import { rng } from "../../../simulator/fuzz.ts";

const MIN_OVERLAP = 32;

/** The reference: tailDelta with the KMP overlap only. */
function reference(prev: string, next: string): { data: string; gap: boolean } {
  if (next === prev) return { data: "", gap: false };
  if (prev === "" || next.startsWith(prev)) return { data: next.slice(prev.length), gap: false };
  const k = suffixPrefixOverlap(prev, next);
  if (k >= MIN_OVERLAP) return { data: next.slice(k), gap: false };
  return { data: next, gap: true };
}

describe("tailDelta", () => {
  test("growing tail: only the new part", () => {
    expect(tailDelta("", "abc")).toEqual({ data: "abc", gap: false });
    expect(tailDelta("abc", "abcdef")).toEqual({ data: "def", gap: false });
    expect(tailDelta("abc", "abc")).toEqual({ data: "", gap: false });
  });

  test("a sliding (bounded) tail: the overlap is found and only what follows it is new", () => {
    const stream = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join("");
    const prev = stream.slice(100, 1100);
    const next = stream.slice(400, 1400);
    expect(tailDelta(prev, next)).toEqual({ data: stream.slice(1100, 1400), gap: false });
  });

  test("a tail that does not continue: the whole new tail, flagged as a gap", () => {
    expect(tailDelta("something else entirely", "fresh output")).toEqual({ data: "fresh output", gap: true });
    // Shrunk: e.g. the window reset.
    expect(tailDelta("abcdef", "xy")).toEqual({ data: "xy", gap: true });
    // A short accidental overlap is not trusted.
    expect(tailDelta("hello world\n", "\nnext")).toEqual({ data: "\nnext", gap: true });
  });

  test("the gap marker is a line of its own", () => {
    expect(OUTPUT_GAP_MARKER.endsWith("\n")).toBe(true);
    expect(OUTPUT_GAP_MARKER.split("\n")).toHaveLength(2);
  });
});

describe("finalDelta", () => {
  test("what the complete output adds to the last tail", () => {
    expect(finalDelta("", "all")).toEqual({ data: "all", gap: false });
    expect(finalDelta("tail end", "the whole output up to the tail end")).toEqual({ data: "", gap: false });
    expect(finalDelta("start", "start and more")).toEqual({ data: " and more", gap: false });
    expect(finalDelta("middle", "start middle end")).toEqual({ data: " end", gap: false });
    // Repetitive output: the last tail already ended the output.
    expect(finalDelta("y\ny\n", "y\n".repeat(1000))).toEqual({ data: "", gap: false });
    // Not found at all: a discontinuity.
    expect(finalDelta("unrelated", "other")).toEqual({ data: "other", gap: true });
  });
});

describe("suffixPrefixOverlap", () => {
  test("the longest suffix of prev that is a prefix of next", () => {
    expect(suffixPrefixOverlap("abcabc", "abcabcx")).toBe(6);
    expect(suffixPrefixOverlap("xxabab", "ababyy")).toBe(4);
    expect(suffixPrefixOverlap("aaaa", "aab")).toBe(2);
    expect(suffixPrefixOverlap("abc", "")).toBe(0);
    expect(suffixPrefixOverlap("abc", "d")).toBe(0);
  });

  test("linear time on large tails", () => {
    const a = "ab".repeat(200_000);
    const t0 = performance.now();
    suffixPrefixOverlap(a + "c", "a".repeat(400_000));
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

test("fast path agrees with the KMP reference on random sliding tails", () => {
  const r = rng(20261202);
  const int = (n: number) => Math.floor(r() * n);
  const alphabets = ["ab", "abc\n", "y\n", "the quick brown fox jumps over the lazy dog\n", "0123456789abcdef"];
  let checked = 0;
  for (let round = 0; round < 300; round++) {
    const alpha = alphabets[int(alphabets.length)]!;
    let stream = "";
    const gen = (n: number) => {
      let s = "";
      for (let i = 0; i < n; i++) s += alpha[int(alpha.length)]!;
      return s;
    };
    stream = gen(200 + int(400));
    const window = 40 + int(300);
    let prev = stream.slice(-window);
    for (let step = 0; step < 20; step++) {
      if (r() < 0.1)
        stream = gen(50 + int(200)); // discontinuity
      else stream += gen(int(window * 1.5));
      const next = stream.slice(-window);
      expect(tailDelta(prev, next)).toEqual(reference(prev, next));
      prev = next;
      checked++;
    }
  }
  expect(checked).toBe(6000);
});

describe("per-stream state", () => {
  test("advanceStream returns only the new data and keeps what was shown", () => {
    const st = emptyStream();
    expect(advanceStream(st, "a\n")).toBe("a\n");
    expect(advanceStream(st, "a\nb\n")).toBe("b\n");
    expect(advanceStream(st, "a\nb\n")).toBe("");
    expect(st).toEqual({ tail: "a\nb\n", shown: "a\nb\n" });
  });

  test("a tail that does not continue the last one comes after the gap marker, on a line of its own", () => {
    const st = emptyStream();
    advanceStream(st, "partial");
    expect(advanceStream(st, "other")).toBe(`\n${OUTPUT_GAP_MARKER}other`);
    expect(st.shown).toBe(`partial\n${OUTPUT_GAP_MARKER}other`);
  });

  test("restAfterStreams: the whole result when nothing was shown, else what follows the stream that ends it", () => {
    expect(restAfterStreams(emptyStream(), emptyStream(), "all\n")).toBe("all\n");
    const out = emptyStream();
    const err = emptyStream();
    advanceStream(out, "one\n");
    advanceStream(err, "warn\n");
    expect(restAfterStreams(out, err, "one\nwarn\ntwo")).toBe("two");
    // ZCode trimmed the stream's trailing newline before joining: nothing new.
    expect(restAfterStreams(out, err, "one\nwarn")).toBe("");
  });
});
