// The 10 s answer cache: per key and URL, shared in-flight requests, and only
// answers the service gave.
import { describe, expect, test } from "bun:test";
import { QUOTA_CACHE_MS, QuotaCache, cacheId } from "../../../src/quota/cache.ts";
import type { QuotaOutcome } from "../../../src/quota/parse.ts";

const OK: QuotaOutcome = { kind: "ok", snapshot: { windows: [{ kind: "five_hour", usedPercent: 10, details: [] }] } };
const TIMEOUT: QuotaOutcome = { kind: "unavailable", reason: { why: "timeout", ms: 8000 } };

function clock() {
  let t = 1_000_000;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

function loader(outcomes: QuotaOutcome[]) {
  let calls = 0;
  return {
    load: async () => outcomes[Math.min(calls++, outcomes.length - 1)]!,
    get calls() {
      return calls;
    },
  };
}

describe("cacheId", () => {
  test("differs by key and by URL, and does not contain the key", () => {
    const key = "0f3a9c2e7b5d4e1a8c6f2b9d3e7a1c5f.Zq8XkP2mLw4nR7tY";
    const a = cacheId("https://api.z.ai/q", key);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(a).not.toContain(key);
    expect(cacheId("https://api.z.ai/q", `${key}x`)).not.toBe(a);
    expect(cacheId("https://open.bigmodel.cn/q", key)).not.toBe(a);
    // The separator keeps "url|key" splits apart.
    expect(cacheId("ab", "c")).not.toBe(cacheId("a", "bc"));
  });
});

describe("QuotaCache", () => {
  test("a second ask within 10 s is answered from the cache; after 10 s the service is asked again", async () => {
    expect(QUOTA_CACHE_MS).toBe(10_000);
    const c = clock();
    const cache = new QuotaCache(QUOTA_CACHE_MS, c.now);
    const l = loader([OK]);
    expect(await cache.get("id", l.load)).toBe(OK);
    c.advance(9_999);
    expect(await cache.get("id", l.load)).toBe(OK);
    expect(l.calls).toBe(1);
    c.advance(1);
    await cache.get("id", l.load);
    expect(l.calls).toBe(2);
  });

  test("entries are per id", async () => {
    const cache = new QuotaCache(QUOTA_CACHE_MS, clock().now);
    const l = loader([OK]);
    await cache.get("a", l.load);
    await cache.get("b", l.load);
    await cache.get("a", l.load);
    expect(l.calls).toBe(2);
  });

  test("refusals and rate limits are kept (no hammering); timeouts and unreachable hosts are not", async () => {
    for (const kept of [{ kind: "auth_error" }, { kind: "rate_limited" }] as QuotaOutcome[]) {
      const cache = new QuotaCache(QUOTA_CACHE_MS, clock().now);
      const l = loader([kept, OK]);
      expect(await cache.get("id", l.load)).toEqual(kept);
      expect(await cache.get("id", l.load)).toEqual(kept);
      expect(l.calls).toBe(1);
    }
    const cache = new QuotaCache(QUOTA_CACHE_MS, clock().now);
    const l = loader([TIMEOUT, OK]);
    expect(await cache.get("id", l.load)).toEqual(TIMEOUT);
    expect(await cache.get("id", l.load)).toBe(OK);
    expect(l.calls).toBe(2);
  });

  test("concurrent asks share one request", async () => {
    const cache = new QuotaCache(QUOTA_CACHE_MS, clock().now);
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const load = async () => {
      calls++;
      await gate;
      return TIMEOUT;
    };
    const both = Promise.all([cache.get("id", load), cache.get("id", load)]);
    release();
    expect(await both).toEqual([TIMEOUT, TIMEOUT]);
    expect(calls).toBe(1);
    // Shared while in flight only: an uncached outcome is asked for again afterwards.
    await cache.get("id", load);
    expect(calls).toBe(2);
  });

  test("a load that throws is not cached and does not wedge the slot", async () => {
    const cache = new QuotaCache(QUOTA_CACHE_MS, clock().now);
    await expect(cache.get("id", async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await cache.get("id", async () => OK)).toBe(OK);
  });
});
