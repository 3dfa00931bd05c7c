// The throughput benchmark's RSS flatness measure (scripts/bench/throughput.ts
// rssGrowth) on synthetic series shaped like the measured ones: a warm-up
// ramp, then a GC sawtooth. It must ignore the warm-up and the sawtooth and
// still see a steady leak at its full size. As in the benchmark, the first
// third of the stream is warm-up and the rest (1 GB) is judged.
import { describe, expect, test } from "bun:test";
import { rssGrowth, type RssSample } from "../../../../scripts/bench/throughput.ts";

const JUDGED_FROM = 1 / 3;

/** Deterministic PRNG (mulberry32), so a failure reproduces. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * 720 samples over a 1.5 GB stream (25 ms at ~85 MB/s), as measured: RSS
 * ramps from 90 to 130 MB over the first `warmUp` of the stream; on top a
 * sawtooth of random period (0.3-0.8 s) and height (15-40 MB) and a slow
 * wander (±4 MB, period 4 s, random phase); plus a steady leak of `leakMB`
 * per judged GB.
 */
function series(seed: number, opts: { leakMB: number; warmUp?: number }): RssSample[] {
  const r = rng(seed);
  const n = 720;
  const warmUp = opts.warmUp ?? 0.2;
  const out: RssSample[] = [];
  let phase = 0;
  let period = 12 + r() * 20;
  let height = 15 + r() * 25;
  const wander = r() * 2 * Math.PI;
  for (let i = 0; i < n; i++) {
    const x = i / (n - 1);
    const base = 90 + 40 * Math.min(1, x / warmUp);
    if (phase >= period) {
      phase = 0;
      period = 12 + r() * 20;
      height = 15 + r() * 25;
    }
    const slow = 4 * Math.sin((2 * Math.PI * i) / 160 + wander);
    out.push({ at: x * 1.5e9, mb: base + slow + (height * phase) / period + opts.leakMB * 1.5 * x });
    phase++;
  }
  return out;
}

describe("rssGrowth", () => {
  test("a warm-up ramp and a GC sawtooth without a leak measure well under 20 MB", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const g = rssGrowth(series(seed, { leakMB: 0, warmUp: 0.3 }), JUDGED_FROM);
      expect(g.growth).toBeLessThan(20);
      // The warm-up is reported apart, below the working band.
      expect(g.warmUp.trough).toBeLessThan(g.early.trough);
    }
  });

  test("a steady leak is measured at about its size over the whole stream", () => {
    for (let seed = 1; seed <= 20; seed++) {
      const g = rssGrowth(series(seed, { leakMB: 40 }), JUDGED_FROM);
      expect(g.growth).toBeGreaterThan(30);
      expect(g.growth).toBeLessThan(60);
    }
  });

  test("windows are by volume: a stream that slows down at the end is judged by bytes, not time", () => {
    // Last half of the bytes take three times the samples (a slower stream); same RSS shape by volume.
    const s = series(7, { leakMB: 0 }).flatMap((p) => (p.at > 1e9 ? [p, { ...p }, { ...p }] : [p]));
    expect(rssGrowth(s, JUDGED_FROM).growth).toBeLessThan(20);
  });

  test("samples are counted per stretch so the benchmark can refuse a band of a handful", () => {
    const g = rssGrowth(series(3, { leakMB: 0 }), JUDGED_FROM);
    expect(g.early.samples).toBeGreaterThan(100);
    expect(g.late.samples).toBeGreaterThan(100);
  });
});
