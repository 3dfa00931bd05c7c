import { log } from "../log.ts";
import { VERSION } from "../version.ts";
import type { Env } from "../zcode/host.ts";
import { parseQuotaResponse, type QuotaOutcome } from "./parse.ts";
import type { QuotaTarget } from "./target.ts";

// The one HTTP request the bridge makes on its own while serving an editor:
// GET <quota URL> with the plan's key as a bearer token. Bounded by a timeout
// (8 s, or ZCODE_ACP_QUOTA_TIMEOUT_MS for tests), redirects are not followed
// (a key is never carried to a host it was not sent to), and every failure is
// an outcome, never an exception.

const logger = log.withTag("quota");

export const QUOTA_TIMEOUT_MS = 8_000;
/** Undocumented: lets tests use a short timeout. */
export const QUOTA_TIMEOUT_ENV = "ZCODE_ACP_QUOTA_TIMEOUT_MS";

/** The request timeout for this environment: a positive whole number of ms, else 8 s. */
export function quotaTimeoutMs(env: Env): number {
  const raw = env[QUOTA_TIMEOUT_ENV]?.trim();
  const n = raw && /^\d+$/.test(raw) ? Number(raw) : NaN;
  return Number.isSafeInteger(n) && n > 0 ? n : QUOTA_TIMEOUT_MS;
}

export interface QuotaRequestOptions {
  timeoutMs?: number;
  /** Stands in for the global fetch in tests. */
  fetch?: typeof fetch;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

/** Asks the quota service once. */
export async function requestQuota(target: QuotaTarget, opts: QuotaRequestOptions = {}): Promise<QuotaOutcome> {
  const timeoutMs = opts.timeoutMs ?? QUOTA_TIMEOUT_MS;
  const doFetch = opts.fetch ?? fetch;
  const started = Date.now();
  // The URL carries no secret (the key goes in a header), so it may be logged.
  logger.debug(`GET ${target.url} with the key of ${target.providerId}`);
  let outcome: QuotaOutcome;
  try {
    const res = await doFetch(target.url, {
      method: "GET",
      headers: {
        Authorization: `Bearer ${target.key}`,
        Accept: "application/json",
        "User-Agent": `zcode-acp-server/${VERSION}`,
      },
      redirect: "manual",
      signal: AbortSignal.timeout(timeoutMs),
    });
    // The timeout covers the body too: a service that stalls mid-answer still ends.
    const body = await res.text();
    outcome = parseQuotaResponse(res.status, body);
  } catch (err) {
    outcome = { kind: "unavailable", reason: isTimeout(err) ? { why: "timeout", ms: timeoutMs } : { why: "network" } };
    if (!isTimeout(err)) logger.info("quota request failed:", err instanceof Error ? err.message : String(err));
  }
  const detail = outcome.kind === "unavailable" ? ` (${JSON.stringify(outcome.reason)})` : "";
  logger.debug(`quota answer: ${outcome.kind}${detail} in ${Date.now() - started} ms`);
  return outcome;
}
