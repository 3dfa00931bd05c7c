// /quota end to end: the compiled bridge (with the simulator as its ZCode
// child) asks a local HTTP server playing the GLM Coding Plan's quota service
// (ZCODE_ACP_QUOTA_URL), with the key from config.json in a temporary HOME.
// Checked: the card as the editor receives it, the Authorization header the
// service received, the key absent from every message, log and trace, the
// 10 s cache, each failure's message, the timeout, answers too large to hold
// (a gzip bomb, a 512 MiB body) with the bridge's memory staying bounded,
// credentials in the URL kept out of the log, and that /quota needs no ZCode
// child.
import { afterAll, describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AS_SHIPPED } from "../../scripts/allocator-env.ts";
import { type Harness, rejection, withBridge } from "../support/acp-harness.ts";
import { promptAndCollect } from "./commands-support.ts";

// Shaped like real GLM keys (32 hex, a dot, 16 more): nothing in the bridge's
// redaction recognises this shape, so only never printing it keeps it out.
const ZAI_KEY = "4b8e0c1d9f2a47e3b6c5d8e9f0a1b2c3.Vq7LmN2pXr9sKt4W";
const BIGMODEL_KEY = "7d2f1e0c9b8a4c6d5e3f2a1b0c9d8e7f.Hj3Kp8Qw2Er6Ty1U";
const KEYS = [ZAI_KEY, BIGMODEL_KEY];

const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

// ---------------------------------------------------------------- the service

type Behaviour = "ok" | "expired" | "unauthorized" | "busy" | "garbage" | "error" | "slow" | "gzip-bomb" | "huge";

const MiB = 1024 * 1024;
// 256 MiB of zeros, 250 KB on the wire.
const GZIP_BOMB = Bun.gzipSync(new Uint8Array(256 * MiB), { level: 9 });
/** Peak memory (VmHWM, KiB) of a running process. */
function peakRssKiB(pid: number): number {
  return Number(/^VmHWM:\s+(\d+)/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]);
}
const requests: Array<{ method: string; path: string; authorization: string | null }> = [];

/** The service's normal answer; reset times relative to when it is given. */
function normalAnswer(now: number) {
  return {
    code: 200,
    msg: "Operation successful",
    success: true,
    data: {
      level: "pro",
      limits: [
        {
          type: "TOKENS_LIMIT",
          unit: 3,
          number: 5,
          usage: 12000,
          currentValue: 5710,
          remaining: 6290,
          percentage: 47,
          nextResetTime: now + 2 * HOUR + 14 * MIN + 30_000,
        },
        {
          type: "TOKENS_LIMIT",
          unit: 6,
          number: 1,
          usage: 60000,
          currentValue: 5710,
          remaining: 54290,
          percentage: 9,
          nextResetTime: now + 4 * DAY + 3 * HOUR + 30_000,
        },
        {
          type: "TIME_LIMIT",
          unit: 5,
          number: 1,
          usage: 4000,
          currentValue: 125,
          remaining: 3875,
          percentage: 3,
          nextResetTime: now + 30 * DAY + 30_000,
          usageDetails: [
            { modelCode: "search-prime", usage: 100 },
            { modelCode: "web-reader", usage: 25 },
          ],
        },
      ],
    },
  };
}

let lastAnswerAt = 0;
/** Answers the slow service has given (each after 5 s). */
let slowAnswers = 0;
const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  idleTimeout: 30,
  async fetch(req): Promise<Response> {
    const path = new URL(req.url).pathname;
    requests.push({ method: req.method, path, authorization: req.headers.get("authorization") });
    const behaviour = path.split("/")[1] as Behaviour;
    switch (behaviour) {
      case "ok":
        lastAnswerAt = Date.now();
        return Response.json(normalAnswer(lastAnswerAt));
      case "expired":
        // What the service really does with a bad key: HTTP 200 and its own code.
        return Response.json({ code: 401, msg: "token expired or incorrect", success: false });
      case "unauthorized":
        return new Response("Unauthorized", { status: 401 });
      case "busy":
        return new Response(JSON.stringify({ code: 1302, msg: "High concurrency", success: false }), { status: 429 });
      case "garbage":
        return new Response("<html>definitely not json", { status: 200 });
      case "error":
        return new Response("Internal Server Error", { status: 500 });
      case "slow":
        await Bun.sleep(5000);
        slowAnswers++;
        return Response.json(normalAnswer(Date.now()));
      case "gzip-bomb":
        return new Response(GZIP_BOMB, { headers: { "content-encoding": "gzip", "content-type": "application/json" } });
      case "huge": {
        // 512 MiB of spaces (valid JSON whitespace), as fast as the bridge takes it.
        const chunk = new Uint8Array(MiB).fill(32);
        let sent = 0;
        return new Response(
          new ReadableStream({
            pull(c) {
              if (sent++ < 512) c.enqueue(chunk);
              else c.close();
            },
          }),
          { headers: { "content-type": "application/json" } },
        );
      }
      default:
        return new Response("not found", { status: 404 });
    }
  },
});

const tmp = mkdtempSync(join(tmpdir(), "zcode-quota-e2e-"));
afterAll(() => {
  server.stop(true);
  rmSync(tmp, { recursive: true, force: true });
});

// The BigModel plan comes first in the file: the Z.ai key is used only because
// the session's model (the simulator's default, builtin:zai-coding-plan) is on it.
const HOME = join(tmp, "home");
mkdirSync(join(HOME, ".zcode", "v2"), { recursive: true });
writeFileSync(
  join(HOME, ".zcode", "v2", "config.json"),
  JSON.stringify({
    provider: {
      "builtin:bigmodel-coding-plan": {
        name: "BigModel Coding Plan",
        options: { apiKey: BIGMODEL_KEY, baseURL: "https://open.bigmodel.cn/api/anthropic" },
      },
      "builtin:zai-coding-plan": { name: "Z.ai Coding Plan", options: { apiKey: ZAI_KEY, baseURL: "https://api.z.ai/api/coding/paas/v4" } },
    },
  }),
);

let runs = 0;
/** A bridge whose quota URL plays `behaviour` (a fresh path each time, so no cache is shared by accident). */
function quotaBridge(
  behaviour: Behaviour,
  fn: (h: Harness, files: { log: string; trace: string }) => Promise<void>,
  /** memoryMeasured: the test measures the bridge's memory, so it runs with the allocator as Bun ships it. */
  opts: { timeoutMs?: number; userInfo?: string; memoryMeasured?: boolean } = {},
) {
  const log = join(tmp, `bridge-${++runs}.log`);
  const trace = join(tmp, `trace-${runs}.jsonl`);
  return withBridge(
    {
      record: true,
      args: ["--log-file", log, "--trace", trace],
      env: {
        ...(opts.memoryMeasured ? AS_SHIPPED : {}),
        HOME,
        ZCODE_ACP_QUOTA_URL: `http://${opts.userInfo ? `${opts.userInfo}@` : ""}127.0.0.1:${server.port}/${behaviour}/${runs}`,
        ZCODE_ACP_QUOTA_TIMEOUT_MS: String(opts.timeoutMs ?? 400),
        ZCODE_ACP_LOG_LEVEL: "debug",
        // The user's local time, fixed so the card's reset times can be checked.
        TZ: "Asia/Shanghai",
      },
    },
    (h) => fn(h, { log, trace }),
  );
}

/** MM-DD HH:MM in UTC+8, worked out without the bridge's code. */
function shanghai(ms: number): string {
  const d = new Date(ms + 8 * HOUR);
  const p = (n: number) => String(n).padStart(2, "0");
  return `${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())} ${p(d.getUTCHours())}:${p(d.getUTCMinutes())}`;
}

/** The key appears nowhere the user or a bug report could see it. */
function expectNoKey(h: Harness, files: { log: string; trace: string }): void {
  const wire = JSON.stringify(h.received.messages);
  for (const key of KEYS) {
    for (const [where, text] of Object.entries({
      wire,
      stderr: h.stderr,
      log: readFileSync(files.log, "utf8"),
      trace: readFileSync(files.trace, "utf8"),
    })) {
      expect({ where, leaked: text.includes(key) || text.includes(key.split(".")[0]!) }).toEqual({ where, leaked: false });
    }
  }
}

/** Service requests made for one bridge run. */
function requestsOf(behaviour: Behaviour): typeof requests {
  return requests.filter((r) => r.path === `/${behaviour}/${runs}`);
}

// ---------------------------------------------------------------- tests

describe("/quota against the quota service", () => {
  test("the card: bars, percentages, local reset times; the current model's key, bare as Z.ai's client sends it; the key shown nowhere", () =>
    quotaBridge("ok", async (h, files) => {
      const { sessionId } = await h.newSession();
      const out = await promptAndCollect(h, sessionId, "/quota");
      expect(out.response.stopReason).toBe("end_turn");
      // Bridge-only: not a single frame to ZCode.
      expect(out.frames).toEqual([]);
      const at = lastAnswerAt;
      expect(out.text).toBe(
        [
          "```text",
          "GLM Coding Plan · Pro",
          "───────────────────────────────────────",
          "5-hour  ██████████░░░░░░░░░░   48% used",
          `        resets ${shanghai(at + 2 * HOUR + 14 * MIN + 30_000)} (in 2h 14m) · 5,710 of 12,000`,
          "Weekly  ██░░░░░░░░░░░░░░░░░░   10% used",
          `        resets ${shanghai(at + 4 * DAY + 3 * HOUR + 30_000)} (in 4d 3h) · 5,710 of 60,000`,
          "MCP     █░░░░░░░░░░░░░░░░░░░    3% used",
          `        resets ${shanghai(at + 30 * DAY + 30_000)} (in 30d) · 125 of 4,000`,
          "        ├ search-prime  100",
          "        └ web-reader     25",
          "```",
        ].join("\n"),
      );
      expect(requestsOf("ok")).toEqual([{ method: "GET", path: `/ok/${runs}`, authorization: ZAI_KEY }]);
      // The log says what was asked, for whom; never with what.
      expect(readFileSync(files.log, "utf8")).toContain(
        `GET http://127.0.0.1:${server.port}/ok/${runs} with the key of builtin:zai-coding-plan`,
      );
      expectNoKey(h, files);
    }));

  test("a second /quota within 10 s makes no second request; another plan's key is its own cache slot", () =>
    quotaBridge("ok", async (h, files) => {
      const { sessionId } = await h.newSession();
      const first = await promptAndCollect(h, sessionId, "/quota");
      const second = await promptAndCollect(h, sessionId, "/quota");
      expect(second.text).toBe(first.text);
      // Another session of the same bridge shares the cache too.
      const other = await h.newSession();
      expect((await promptAndCollect(h, other.sessionId, "/quota")).text).toBe(first.text);
      expect(requestsOf("ok")).toHaveLength(1);

      // Switched to a BigModel plan model: that plan's key, asked once.
      await h.agent.request(acp.methods.agent.session.setConfigOption, {
        sessionId,
        configId: "model",
        value: "account:bigmodel-individual-coding-plan/GLM-5.3",
      });
      await promptAndCollect(h, sessionId, "/quota");
      expect(requestsOf("ok").map((r) => r.authorization)).toEqual([ZAI_KEY, BIGMODEL_KEY]);
      expectNoKey(h, files);
    }));

  test("the ZCode child dead: /quota still answers, and does not restart it", () =>
    quotaBridge("ok", async (h) => {
      const { sessionId } = await h.newSession();
      // Failed by the child's exit: the bridge knows it is dead.
      expect((await rejection(h.prompt(sessionId, "#scenario:crash"))).message).toMatch(/died|exited/);
      const framesBefore = h.simFrames().length;
      const out = await promptAndCollect(h, sessionId, "/quota");
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.text).toStartWith("```text\nGLM Coding Plan · Pro\n");
      expect(h.simFrames().length).toBe(framesBefore);
      // The next ordinary prompt still brings ZCode back.
      const after = await promptAndCollect(h, sessionId, "hello again");
      expect(after.text).toContain("Echo: hello again");
    }));
});

describe("/quota when the service says no", () => {
  const cases: Array<[Behaviour, string]> = [
    [
      "expired",
      "Not signed in, or the sign-in expired: the GLM Coding Plan refused the key the ZCode app stored for Z.ai Coding Plan. Sign in again in the ZCode app (Settings → Models), then run `/quota` again.",
    ],
    [
      "unauthorized",
      "Not signed in, or the sign-in expired: the GLM Coding Plan refused the key the ZCode app stored for Z.ai Coding Plan. Sign in again in the ZCode app (Settings → Models), then run `/quota` again.",
    ],
    ["busy", "The quota service is rate-limiting requests right now. Wait a minute, then run `/quota` again."],
    ["garbage", "Quota information is unavailable right now: the quota service's answer could not be read. Try `/quota` again later."],
    ["error", "Quota information is unavailable right now: the quota service answered HTTP 500. Try `/quota` again later."],
  ];
  for (const [behaviour, message] of cases) {
    test(`${behaviour}: says what happened and what to do`, () =>
      quotaBridge(behaviour, async (h, files) => {
        const { sessionId } = await h.newSession();
        const out = await promptAndCollect(h, sessionId, "/quota");
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.text).toBe(message);
        // A refused key is asked once more in the Bearer form.
        expect(requestsOf(behaviour).map((r) => r.authorization)).toEqual(
          behaviour === "expired" || behaviour === "unauthorized" ? [ZAI_KEY, `Bearer ${ZAI_KEY}`] : [ZAI_KEY],
        );
        expectNoKey(h, files);
      }));
  }

  // The cap, not the timeout, ends these: the timeout is long enough to read them whole.
  const tooLarge: Array<[Behaviour, string]> = [
    ["gzip-bomb", "a 250 KB gzip answer that unpacks to 256 MiB"],
    ["huge", "a 512 MiB answer"],
  ];
  for (const [behaviour, what] of tooLarge) {
    test(`${behaviour}: ${what} is cut off at the cap and said so; the bridge's memory stays bounded`, () =>
      quotaBridge(
        behaviour,
        async (h) => {
          const { sessionId } = await h.newSession();
          const before = peakRssKiB(h.proc.pid);
          const out = await promptAndCollect(h, sessionId, "/quota");
          expect(out.text).toBe(
            "Quota information is unavailable right now: the quota service's answer was larger than 256 KB, far more than a quota answer, so it was not read. Try `/quota` again later.",
          );
          // Reading either whole takes the bridge past 500 MiB.
          expect(peakRssKiB(h.proc.pid) - before).toBeLessThan(64 * 1024);
        },
        { timeoutMs: 30_000, memoryMeasured: true },
      ));
  }

  test("slow: past the timeout, 'unavailable' soon after it, and the next /quota asks again", () =>
    quotaBridge("slow", async (h, files) => {
      const { sessionId } = await h.newSession();
      const slowBefore = slowAnswers;
      const out = await promptAndCollect(h, sessionId, "/quota");
      // Answered on the bridge's timeout, before the service's own (late) answer.
      expect(slowAnswers).toBe(slowBefore);
      expect(out.text).toBe(
        "Quota information is unavailable right now: the quota service did not answer within 0.4 s. Try `/quota` again later.",
      );
      // A timeout is not cached: trying again is the point.
      await promptAndCollect(h, sessionId, "/quota");
      expect(requestsOf("slow")).toHaveLength(2);
      expectNoKey(h, files);
    }));
});

describe("/quota with credentials in ZCODE_ACP_QUOTA_URL", () => {
  test("user:password@ in the URL never reaches the log or the trace", () =>
    quotaBridge(
      "ok",
      async (h, files) => {
        const { sessionId } = await h.newSession();
        const out = await promptAndCollect(h, sessionId, "/quota");
        expect(out.text).toStartWith("```text\nGLM Coding Plan · Pro\n");
        const log = readFileSync(files.log, "utf8");
        expect(log).toContain(`GET http://[REDACTED]@127.0.0.1:${server.port}/ok/${runs}`);
        for (const [where, text] of Object.entries({
          log,
          stderr: h.stderr,
          trace: readFileSync(files.trace, "utf8"),
          wire: JSON.stringify(h.received.messages),
        })) {
          expect({ where, leaked: text.includes("Pa55w0rd-quota") || text.includes("quotauser") }).toEqual({ where, leaked: false });
        }
        expectNoKey(h, files);
      },
      { userInfo: "quotauser:Pa55w0rd-quota" },
    ));
});

describe("/quota without a sign-in", () => {
  test("no GLM provider with a key: says so and sends nothing", async () => {
    const home = join(tmp, "home-unsigned");
    mkdirSync(join(home, ".zcode", "v2"), { recursive: true });
    writeFileSync(
      join(home, ".zcode", "v2", "config.json"),
      JSON.stringify({ provider: { "builtin:zai-coding-plan": { options: { baseURL: "https://api.z.ai/v4" } } } }),
    );
    const before = requests.length;
    await withBridge({ env: { HOME: home, ZCODE_ACP_QUOTA_URL: `http://127.0.0.1:${server.port}/ok/unsigned` } }, async (h) => {
      const { sessionId } = await h.newSession();
      const out = await promptAndCollect(h, sessionId, "/quota");
      expect(out.text).toStartWith("Not signed in: the ZCode app has no GLM Coding Plan sign-in");
    });
    expect(requests.length).toBe(before);
  });
});
