// The quota request against a local HTTP server: what is sent (the bare key,
// then Bearer once if refused), the timeout (on the headers and on the body),
// the size cap (decompressed), redirects not followed, and failures as
// outcomes.
import { afterAll, describe, expect, test } from "bun:test";
import { QUOTA_BODY_MAX_BYTES, QUOTA_TIMEOUT_MS, quotaTimeoutMs, requestQuota } from "../../../src/quota/client.ts";
import type { QuotaTarget } from "../../../src/quota/target.ts";
import { VERSION } from "../../../src/version.ts";

const KEY = "0f3a9c2e7b5d4e1a8c6f2b9d3e7a1c5f.Zq8XkP2mLw4nR7tY";

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string>;
}
const seen: Seen[] = [];

const OK_BODY = JSON.stringify({
  code: 200,
  success: true,
  data: { level: "lite", limits: [{ type: "TOKENS_LIMIT", unit: 3, number: 5, usage: 100, currentValue: 40, remaining: 60 }] },
});

// 64 MiB of zeros, 64 KB on the wire.
const GZIP_BOMB = Bun.gzipSync(new Uint8Array(64 * 1024 * 1024), { level: 9 });
/** Answers /slow has given (each after 3 s). */
let slowAnswers = 0;

const server: ReturnType<typeof Bun.serve> = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req): Promise<Response> {
    const url = new URL(req.url);
    seen.push({ method: req.method, path: url.pathname, headers: Object.fromEntries(req.headers) });
    switch (url.pathname) {
      case "/ok":
        return new Response(OK_BODY, { headers: { "content-type": "application/json" } });
      case "/slow":
        await Bun.sleep(3000);
        slowAnswers++;
        return new Response(OK_BODY);
      case "/stall":
        // Headers at once, then a body that never ends.
        return new Response(
          new ReadableStream({
            start(c) {
              c.enqueue(new TextEncoder().encode('{"code":200,'));
            },
          }),
        );
      case "/redirect":
        return Response.redirect(`http://127.0.0.1:${server.port}/steal`, 302);
      case "/steal":
        return new Response(OK_BODY);
      case "/bearer-only":
        // A service that only takes the Bearer form.
        return req.headers.get("authorization") === `Bearer ${KEY}` ? new Response(OK_BODY) : new Response("Unauthorized", { status: 401 });
      case "/refuse":
        return new Response("Unauthorized", { status: 401 });
      case "/refuse-200":
        // Z.ai's own way of refusing a key: HTTP 200 and its own code.
        return Response.json({ code: 401, msg: "token expired or incorrect", success: false });
      case "/gzip-bomb":
        return new Response(GZIP_BOMB, { headers: { "content-encoding": "gzip", "content-type": "application/json" } });
      case "/endless":
        return new Response(new ReadableStream({ pull: (c) => c.enqueue(new Uint8Array(64 * 1024).fill(32)) }));
      case "/429":
        return new Response("slow down", { status: 429 });
      default:
        return new Response("nope", { status: 404 });
    }
  },
});
afterAll(() => server.stop(true));

const target = (path: string): QuotaTarget => ({
  url: `http://127.0.0.1:${server.port}${path}`,
  key: KEY,
  providerId: "builtin:zai-coding-plan",
  providerName: "Z.ai Coding Plan",
});

describe("requestQuota", () => {
  test("GET with the bare key in Authorization (as Z.ai's own client sends it), asking for JSON, naming the bridge", async () => {
    seen.length = 0;
    const o = await requestQuota(target("/ok"));
    expect(o).toMatchObject({ kind: "ok", snapshot: { level: "lite", windows: [{ kind: "five_hour", usedPercent: 40 }] } });
    expect(seen).toHaveLength(1);
    expect(seen[0]!.method).toBe("GET");
    expect(seen[0]!.path).toBe("/ok");
    expect(seen[0]!.headers.authorization).toBe(KEY);
    expect(seen[0]!.headers.accept).toBe("application/json");
    expect(seen[0]!.headers["user-agent"]).toBe(`zcode-acp-server/${VERSION}`);
  });

  test("a service that refuses the bare key with a 401 is asked once more with Bearer", async () => {
    seen.length = 0;
    const o = await requestQuota(target("/bearer-only"));
    expect(o).toMatchObject({ kind: "ok", snapshot: { level: "lite" } });
    expect(seen.map((s) => s.headers.authorization)).toEqual([KEY, `Bearer ${KEY}`]);
  });

  test("a key refused both ways is a sign-in problem, after exactly two requests", async () => {
    for (const path of ["/refuse", "/refuse-200"]) {
      seen.length = 0;
      expect(await requestQuota(target(path))).toEqual({ kind: "auth_error" });
      expect(seen.map((s) => s.headers.authorization)).toEqual([KEY, `Bearer ${KEY}`]);
    }
  });

  test("no second request for anything but a refused key", async () => {
    seen.length = 0;
    await requestQuota(target("/429"));
    await requestQuota(target("/missing"));
    expect(seen.map((s) => s.headers.authorization)).toEqual([KEY, KEY]);
  });

  test("an answer larger than the cap once decompressed (a gzip bomb) is cut off and said so", async () => {
    const o = await requestQuota(target("/gzip-bomb"), { timeoutMs: 20_000 });
    expect(o).toEqual({ kind: "unavailable", reason: { why: "too_large", bytes: QUOTA_BODY_MAX_BYTES } });
  });

  test("an endless body is cut off at the cap, not at the timeout", async () => {
    const o = await requestQuota(target("/endless"), { timeoutMs: 20_000, maxBodyBytes: 100_000 });
    expect(o).toEqual({ kind: "unavailable", reason: { why: "too_large", bytes: 100_000 } });
  });

  test("an answer within the cap is read whole", async () => {
    const o = await requestQuota(target("/ok"), { maxBodyBytes: OK_BODY.length });
    expect(o.kind).toBe("ok");
  });

  test("a slow answer past the timeout is 'unavailable: timeout', before the service's late answer", async () => {
    const before = slowAnswers;
    const o = await requestQuota(target("/slow"), { timeoutMs: 200 });
    expect(o).toEqual({ kind: "unavailable", reason: { why: "timeout", ms: 200 } });
    expect(slowAnswers).toBe(before);
  });

  test("the timeout covers a body that never ends", async () => {
    // The body never ends: any outcome at all came from the timeout.
    const o = await requestQuota(target("/stall"), { timeoutMs: 200 });
    expect(o).toEqual({ kind: "unavailable", reason: { why: "timeout", ms: 200 } });
  });

  test("a redirect is not followed: the key never reaches another address", async () => {
    seen.length = 0;
    const o = await requestQuota(target("/redirect"));
    expect(o).toEqual({ kind: "unavailable", reason: { why: "http", status: 302 } });
    expect(seen.map((s) => s.path)).toEqual(["/redirect"]);
  });

  test("statuses go through the parser", async () => {
    expect(await requestQuota(target("/429"))).toEqual({ kind: "rate_limited" });
    expect(await requestQuota(target("/missing"))).toEqual({ kind: "unavailable", reason: { why: "http", status: 404 } });
  });

  test("nobody listening: 'unavailable: network', not an exception", async () => {
    const closed = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("") });
    const port = closed.port;
    closed.stop(true);
    const o = await requestQuota({ ...target("/"), url: `http://127.0.0.1:${port}/q` }, { timeoutMs: 2000 });
    expect(o).toEqual({ kind: "unavailable", reason: { why: "network" } });
  });

  test("a failing fetch of any kind is an outcome", async () => {
    const o = await requestQuota(target("/ok"), { fetch: (async () => Promise.reject(new TypeError("weird"))) as unknown as typeof fetch });
    expect(o).toEqual({ kind: "unavailable", reason: { why: "network" } });
  });
});

describe("quotaTimeoutMs", () => {
  test("8 s unless ZCODE_ACP_QUOTA_TIMEOUT_MS is a positive whole number", () => {
    expect(QUOTA_TIMEOUT_MS).toBe(8000);
    expect(quotaTimeoutMs({})).toBe(8000);
    expect(quotaTimeoutMs({ ZCODE_ACP_QUOTA_TIMEOUT_MS: "250" })).toBe(250);
    expect(quotaTimeoutMs({ ZCODE_ACP_QUOTA_TIMEOUT_MS: " 250 " })).toBe(250);
    for (const bad of ["", "0", "-5", "1.5", "abc", "1e3", "99999999999999999999"]) {
      expect(quotaTimeoutMs({ ZCODE_ACP_QUOTA_TIMEOUT_MS: bad })).toBe(8000);
    }
  });
});
