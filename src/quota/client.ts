import { log } from "../log.ts";
import { VERSION } from "../version.ts";
import type { Env } from "../zcode/host.ts";
import { parseQuotaResponse, type QuotaOutcome } from "./parse.ts";
import type { QuotaTarget } from "./target.ts";

// The one HTTP request the bridge makes on its own while serving an editor:
// GET <quota URL> with the plan's key. The key goes bare in `Authorization`,
// as Z.ai's own usage client sends it (zai-org/zai-coding-plugins,
// glm-plan-usage query-usage.mjs); a service that refuses it that way is asked
// once more with `Bearer <key>`. Bounded by one timeout for both (8 s, or
// ZCODE_ACP_QUOTA_TIMEOUT_MS for tests) and by the size of the answer as
// decompressed (a gzip bomb or an endless body is cut off as it streams in,
// never held whole); redirects are not followed (a key is never carried to a
// host it was not sent to), and every failure is an outcome, never an
// exception.

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

/** The most of an answer read, decompressed; a real one is about 1 KB. */
export const QUOTA_BODY_MAX_BYTES = 256 * 1024;

export interface QuotaRequestOptions {
  timeoutMs?: number;
  /** Overrides QUOTA_BODY_MAX_BYTES (tests). */
  maxBodyBytes?: number;
  /** Stands in for the global fetch in tests. */
  fetch?: typeof fetch;
}

function isTimeout(err: unknown): boolean {
  return err instanceof Error && (err.name === "TimeoutError" || err.name === "AbortError");
}

/** The body as text, or "too_large" once more than `max` bytes arrived (the rest is not read). */
async function readCapped(res: Response, max: number): Promise<string | "too_large"> {
  if (!res.body) return "";
  const reader = res.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    size += r.value.byteLength;
    if (size > max) {
      // Stops the download and the decompression where they are.
      void reader.cancel().catch(() => {});
      return "too_large";
    }
    chunks.push(r.value);
  }
  return new TextDecoder().decode(Buffer.concat(chunks, size));
}

/** One GET with this Authorization value; throws on network errors and the timeout. */
async function ask(
  target: QuotaTarget,
  authorization: string,
  signal: AbortSignal,
  maxBody: number,
  doFetch: typeof fetch,
): Promise<QuotaOutcome> {
  const res = await doFetch(target.url, {
    method: "GET",
    headers: {
      Authorization: authorization,
      Accept: "application/json",
      "User-Agent": `zcode-acp-server/${VERSION}`,
    },
    redirect: "manual",
    signal,
  });
  // The timeout covers the body too: a service that stalls mid-answer still ends.
  const body = await readCapped(res, maxBody);
  if (body === "too_large") {
    logger.info(`the quota service's answer (HTTP ${res.status}) exceeded ${maxBody} bytes; not read further`);
    return { kind: "unavailable", reason: { why: "too_large", bytes: maxBody } };
  }
  return parseQuotaResponse(res.status, body);
}

/** Asks the quota service: the bare key first, then once with `Bearer` if that is refused. */
export async function requestQuota(target: QuotaTarget, opts: QuotaRequestOptions = {}): Promise<QuotaOutcome> {
  const timeoutMs = opts.timeoutMs ?? QUOTA_TIMEOUT_MS;
  const maxBody = opts.maxBodyBytes ?? QUOTA_BODY_MAX_BYTES;
  const doFetch = opts.fetch ?? fetch;
  const started = Date.now();
  const signal = AbortSignal.timeout(timeoutMs);
  logger.debug(`GET ${target.url} with the key of ${target.providerId}`);
  let outcome: QuotaOutcome;
  try {
    outcome = await ask(target, target.key, signal, maxBody, doFetch);
    if (outcome.kind === "auth_error") {
      logger.debug("the quota service refused the bare key; asking once more with Bearer");
      outcome = await ask(target, `Bearer ${target.key}`, signal, maxBody, doFetch);
    }
  } catch (err) {
    outcome = { kind: "unavailable", reason: isTimeout(err) ? { why: "timeout", ms: timeoutMs } : { why: "network" } };
    if (!isTimeout(err)) logger.info("quota request failed:", err instanceof Error ? err.message : String(err));
  }
  const detail = outcome.kind === "unavailable" ? ` (${JSON.stringify(outcome.reason)})` : "";
  logger.debug(`quota answer: ${outcome.kind}${detail} in ${Date.now() - started} ms`);
  return outcome;
}
