// tailDelta's native fast path for a sliding output window must decide
// exactly as the KMP overlap does: random streams, random window sizes and
// slides, including repetitive text and discontinuities.
import { expect, test } from "bun:test";
import { suffixPrefixOverlap, tailDelta } from "../../../src/bridge/tool-calls.ts";
import { rng } from "../../simulator/fuzz.ts";

const MIN_OVERLAP = 32;

/** The reference: tailDelta with the KMP overlap only. */
function reference(prev: string, next: string): { data: string; gap: boolean } {
  if (next === prev) return { data: "", gap: false };
  if (prev === "" || next.startsWith(prev)) return { data: next.slice(prev.length), gap: false };
  const k = suffixPrefixOverlap(prev, next);
  if (k >= MIN_OVERLAP) return { data: next.slice(k), gap: false };
  return { data: next, gap: true };
}


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
      if (r() < 0.1) stream = gen(50 + int(200)); // discontinuity
      else stream += gen(int(window * 1.5));
      const next = stream.slice(-window);
      expect(tailDelta(prev, next)).toEqual(reference(prev, next));
      prev = next;
      checked++;
    }
  }
  expect(checked).toBe(6000);
});
