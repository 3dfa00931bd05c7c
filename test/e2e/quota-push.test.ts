// The quota that comes to the user: after a turn the bridge asks the GLM
// Coding Plan's quota service (a local server here, shaped like the one of
// commands-quota.test.ts) at most once a minute, sends the windows in
// usage_update._meta.quota, warns once at 80% and 95%, names the spent
// window when ZCode fails a turn for it, and does none of it when switched
// off. The once-a-minute clock itself is tested with fake timers in
// test/unit/quota/watch.test.ts.
import { afterAll, describe, expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Harness, rejection, withBridge } from "../support/acp-harness.ts";
import { pollUntil } from "../support/poll.ts";

const KEY = "4b8e0c1d9f2a47e3b6c5d8e9f0a1b2c3.Vq7LmN2pXr9sKt4W";
const HOUR = 3_600_000;

/** Requests per path; the path says the 5-hour and weekly percentages: /<five>/<week>. */
const asked = new Map<string, number>();
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  fetch(req): Response {
    const path = new URL(req.url).pathname;
    asked.set(path, (asked.get(path) ?? 0) + 1);
    const [five, week] = path.split("/").slice(2).map(Number) as [number, number];
    const now = Date.now();
    const limit = (type: string, unit: number, number: number, pct: number, resetIn: number) => ({
      type,
      unit,
      number,
      usage: 10000,
      currentValue: pct * 100,
      remaining: 10000 - pct * 100,
      nextResetTime: now + resetIn,
    });
    return Response.json({
      code: 200,
      success: true,
      data: { level: "pro", limits: [limit("TOKENS_LIMIT", 3, 5, five, 2 * HOUR + 60_000), limit("TOKENS_LIMIT", 6, 1, week, 50 * HOUR)] },
    });
  },
});
afterAll(() => server.stop(true));

let runs = 0;
/** A HOME signed in to the Z.ai plan, and a quota URL of its own (so that runs never share the bridge's cache key). */
function setup(five: number, week: number): { env: Record<string, string>; path: string } {
  const home = mkdtempSync(join(tmpdir(), "quota-push-"));
  mkdirSync(join(home, ".zcode", "v2"), { recursive: true });
  writeFileSync(
    join(home, ".zcode", "v2", "config.json"),
    JSON.stringify({ provider: { "builtin:zai-coding-plan": { options: { apiKey: KEY, baseURL: "https://api.z.ai/api/anthropic" } } } }),
  );
  const path = `/run${++runs}-${process.pid}/${five}/${week}`;
  return { env: { HOME: home, ZCODE_ACP_QUOTA_URL: `http://127.0.0.1:${server.port}${path}` }, path };
}

const quotaUpdates = (h: Harness, sessionId: string) =>
  h
    .updates(sessionId)
    .filter((u): u is Extract<acp.SessionUpdate, { sessionUpdate: "usage_update" }> => u.sessionUpdate === "usage_update")
    .map((u) => (u._meta as { quota?: { windows: Array<{ kind: string; usedPercent: number; resetsAt?: string }> } } | undefined)?.quota)
    .filter((q) => q !== undefined);
const notices = (h: Harness, sessionId: string) =>
  h
    .updates(sessionId)
    .filter((u) => u.sessionUpdate === "notice")
    .map((u) => (u as { title: string }).title);
const withNotices = { clientCapabilities: { session: { notices: {} } } as acp.ClientCapabilities };

describe("the quota after a turn", () => {
  test("windows in usage_update._meta.quota, one request for two quick turns, one warning per threshold", async () => {
    const { env, path } = setup(85, 20);
    await withBridge({ env, ...withNotices }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "one")).stopReason).toBe("end_turn");
      await pollUntil(() => quotaUpdates(h, sessionId).length > 0, 10_000);
      const q = quotaUpdates(h, sessionId)[0]!;
      expect(q.windows.map((w) => [w.kind, w.usedPercent])).toEqual([
        ["five_hour", 85],
        ["weekly", 20],
      ]);
      expect(Date.parse(q.windows[0]!.resetsAt!)).toBeGreaterThan(Date.now());
      await pollUntil(() => notices(h, sessionId).length > 0, 10_000);
      expect(notices(h, sessionId)).toEqual([expect.stringContaining("85% of the 5-hour window is used; it resets")]);
      // Two more turns within the minute: no new request, no repeated warning.
      expect((await h.prompt(sessionId, "two")).stopReason).toBe("end_turn");
      expect((await h.prompt(sessionId, "three")).stopReason).toBe("end_turn");
      expect(asked.get(path)).toBe(1);
      expect(quotaUpdates(h, sessionId)).toHaveLength(1);
      expect(notices(h, sessionId)).toHaveLength(1);
      expect(h.stderr).not.toContain(KEY);
    });
  }, 30_000);

  test("--no-quota-push: no request after turns, and a spent plan's error stays ZCode's own", async () => {
    const { env, path } = setup(100, 20);
    await withBridge({ env, args: ["--no-quota-push"] }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "one")).stopReason).toBe("end_turn");
      const e = await rejection(h.prompt(sessionId, "#scenario:fail-quota spent"));
      expect(e.message).toContain("Usage limit reached for 5 hour");
      expect(e.message).not.toContain("5-hour window resets");
      expect((await h.prompt(sessionId, "again")).stopReason).toBe("end_turn");
      expect(asked.get(path)).toBeUndefined();
      expect(quotaUpdates(h, sessionId)).toEqual([]);
    });
  }, 30_000);
});

describe("a turn ZCode fails because the plan is spent", () => {
  test("the error names the window and when it resets", async () => {
    const { env } = setup(100, 40);
    await withBridge({ env }, async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "#scenario:fail-quota spent"));
      expect(e.message).toContain("Usage limit reached for 5 hour");
      expect(e.message).toMatch(
        /The GLM Coding Plan's allowance is used up: the 5-hour window resets \d\d-\d\d \d\d:\d\d \(in 2h \d+m\)\./,
      );
    });
  }, 30_000);

  test("in Chinese when the bridge speaks Chinese", async () => {
    const { env } = setup(100, 40);
    await withBridge({ env: { ...env, ZCODE_ACP_LANG: "zh" } }, async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "#scenario:fail-quota spent"));
      expect(e.message).toMatch(/GLM Coding Plan 的额度已用完：5 小时 额度 \d\d-\d\d \d\d:\d\d 重置（2 小时 \d+ 分钟后）。/);
    });
  }, 30_000);
});
