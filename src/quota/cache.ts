import { createHash } from "node:crypto";
import type { Env } from "../zcode/host.ts";
import { quotaTimeoutMs, requestQuota } from "./client.ts";
import type { QuotaOutcome } from "./parse.ts";
import type { QuotaTarget } from "./target.ts";

// /quota typed twice in a row (or by two sessions) asks the service once:
// answers are kept for 10 s per key and URL, and a request already in flight
// is shared. Entries are keyed by a hash, so the cache never holds the key.
// Only answers the service gave are kept: a timeout or an unreachable host
// is worth retrying at once.

export const QUOTA_CACHE_MS = 10_000;

/** The cache slot of a key at a URL (a SHA-256; the key itself is not kept). */
export function cacheId(url: string, key: string): string {
  return createHash("sha256").update(url).update("\0").update(key).digest("hex");
}

export class QuotaCache {
  private readonly answers = new Map<string, { at: number; outcome: QuotaOutcome }>();
  private readonly inflight = new Map<string, Promise<QuotaOutcome>>();

  constructor(
    private readonly ttlMs = QUOTA_CACHE_MS,
    private readonly now: () => number = Date.now,
  ) {}

  /** The cached outcome for `id`, else `load()`'s (shared with concurrent callers). */
  async get(id: string, load: () => Promise<QuotaOutcome>): Promise<QuotaOutcome> {
    const t = this.now();
    for (const [k, v] of this.answers) if (t - v.at >= this.ttlMs) this.answers.delete(k);
    const hit = this.answers.get(id);
    if (hit) return hit.outcome;
    const pending = this.inflight.get(id);
    if (pending) return pending;
    const p = (async () => {
      try {
        const outcome = await load();
        if (outcome.kind !== "unavailable") this.answers.set(id, { at: this.now(), outcome });
        return outcome;
      } finally {
        this.inflight.delete(id);
      }
    })();
    this.inflight.set(id, p);
    return p;
  }
}

/** One cache for the bridge process: /quota and the push after turns share the plan's answers. */
export const quotaCache = new QuotaCache();

/** The plan's quota, asked once per 10 s at most whoever asks (`timeoutMs` shortens the request). */
export function askQuota(target: QuotaTarget, env: Env, timeoutMs = quotaTimeoutMs(env)): Promise<QuotaOutcome> {
  return quotaCache.get(cacheId(target.url, target.key), () => requestQuota(target, { timeoutMs }));
}
