// Security properties as tests: permissions are never answered on the user's
// behalf; spawning never goes through a shell (paths with spaces, quotes and
// shell syntax work and run nothing); log and trace files are 0600 and carry
// no secret.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SIM_BIN, withBridge } from "../support/acp-harness.ts";

describe("permissions are the user's", () => {
  test("every ZCode permission request reaches the editor, and ZCode gets an answer only after the editor gave one", async () => {
    const answeredAt: number[] = [];
    await withBridge(
      {
        record: true,
        // Re-sent often, so copies arrive while the user is still thinking.
        env: { ZCODE_SIM_RESEND_MS: "100" },
        onPermission: async (req) => {
          await Bun.sleep(400);
          answeredAt.push(Date.now());
          const deny = req.options.find((o) => o.kind === "reject_once")!;
          return { outcome: { outcome: "selected", optionId: deny.optionId } };
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        for (const p of ["#scenario:permission", "#scenario:permission again"]) {
          expect((await h.prompt(sessionId, p)).stopReason).toBe("end_turn");
        }
        // One editor prompt per ZCode request (re-sends are the same request).
        expect(h.received.permissionRequests.length).toBe(2);
        const frames = h.simFrames() as Array<Record<string, any>>;
        const asked = new Set<string>();
        const answers = frames.filter((f) => f.method === undefined && f.id !== undefined && f.result && "decision" in f.result);
        expect(answers.length).toBeGreaterThanOrEqual(2);
        // The user denied: no copy of any request was answered otherwise.
        for (const a of answers) expect(a.result.decision).toBe("deny");
        for (const f of frames) if (f.method === "session/send") asked.add(f.params.content);
        expect(asked.size).toBe(2);
        // Nothing reached ZCode before the user answered (the record's receive times).
        expect(answeredAt.length).toBe(2);
        const times = readFileSync(h.recordFile!, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => JSON.parse(l) as { t: number; line: string })
          .filter((r) => r.line.includes('"decision"'))
          .map((r) => r.t);
        expect(times.length).toBe(answers.length);
        const [first, second] = answeredAt as [number, number];
        // Clocks are the same machine's; allow a few ms of rounding.
        expect(Math.min(...times)).toBeGreaterThanOrEqual(first - 5);
        expect(times.filter((t) => t < first - 5 || (t > first + 300 && t < second - 5))).toEqual([]);
      },
    );
  });

  test("in the default mode nothing is auto-allowed: an unanswered permission keeps the tool waiting", async () => {
    let release: () => void = () => {};
    const released = new Promise<void>((r) => (release = r));
    await withBridge(
      {
        record: true,
        env: { ZCODE_SIM_RESEND_MS: "100" },
        onPermission: async (req) => {
          await released;
          const allow = req.options.find((o) => o.kind === "allow_once")!;
          return { outcome: { outcome: "selected", optionId: allow.optionId } };
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        const p = h.prompt(sessionId, "#scenario:permission");
        await h.waitFor(() => h.received.permissionRequests.length === 1, "the permission request");
        // Several re-sends come and go while the user does nothing...
        await Bun.sleep(600);
        const answered = () =>
          (h.simFrames() as Array<Record<string, any>>).filter((f) => f.method === undefined && f.result && "decision" in f.result);
        expect(answered()).toEqual([]);
        expect(h.updatesOfKind(sessionId, "tool_call_update").some((u) => u.status === "completed")).toBe(false);
        // ...and only the user's answer lets the tool run.
        release();
        expect((await p).stopReason).toBe("end_turn");
        expect(answered().every((f) => f.result.decision === "allow")).toBe(true);
        expect(answered().length).toBeGreaterThan(0);
      },
    );
  });
});

describe("no shell anywhere", () => {
  test('ZCODE_BIN in a directory named `it\'s a "dir" $(touch pwned); x` and a cwd like it work and run nothing', async () => {
    const base = mkdtempSync(join(tmpdir(), "sec-spawn-"));
    const evil = `it's a "dir" $(touch pwned); \`touch pwned2\` x`;
    const binDir = join(base, evil);
    mkdirSync(binDir);
    const bin = join(binDir, "zcode sim");
    copyFileSync(SIM_BIN, bin);
    chmodSync(bin, 0o755);
    const cwd = join(base, `work ${evil}`);
    mkdirSync(cwd);
    try {
      await withBridge({ env: { ZCODE_BIN: bin } }, async (h) => {
        const { sessionId } = await h.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
        const r = await h.prompt(sessionId, "hello from a strange path");
        expect(r.stopReason).toBe("end_turn");
        expect(h.text(sessionId)).toContain("Echo: hello from a strange path");
        const listed = await h.agent.request(acp.methods.agent.session.list, { cwd });
        expect(listed.sessions.map((s) => s.cwd)).toContain(cwd);
      });
      // Had anything gone through a shell, `touch` would have left files behind.
      const found: string[] = [];
      const walk = (d: string) => {
        for (const e of readdirSync(d, { withFileTypes: true })) {
          if (e.name.startsWith("pwned")) found.push(join(d, e.name));
          if (e.isDirectory()) walk(join(d, e.name));
        }
      };
      walk(base);
      expect(found).toEqual([]);
      expect(existsSync("pwned")).toBe(false);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});

describe("log and trace files", () => {
  test("--log-file and --trace are 0600 (also when they existed world-readable) and hold no secret", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sec-files-"));
    const logFile = join(dir, "bridge.log");
    const traceFile = join(dir, "bridge.trace");
    for (const f of [logFile, traceFile]) {
      writeFileSync(f, "");
      chmodSync(f, 0o644);
    }
    const secret = "sk-ant-secretvalue-9f8e7d";
    try {
      await withBridge({ args: ["--log-file", logFile, "--log-level", "debug", "--trace", traceFile] }, async (h) => {
        const { sessionId } = await h.agent.request(acp.methods.agent.session.new, {
          cwd: h.stateDir,
          mcpServers: [{ name: "x", command: "/bin/x", args: [], env: [{ name: "ANTHROPIC_API_KEY", value: secret }] }],
        });
        await h.agent.request(acp.methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: "text", text: "hi" }],
          _meta: { password: secret },
        });
        // The log writes as it goes; make sure a debug line made it.
        await h.waitFor(() => readFileSync(logFile, "utf8").length > 0, "a log line");
      });
      for (const f of [logFile, traceFile]) {
        expect(statSync(f).mode & 0o777).toBe(0o600);
        expect(readFileSync(f, "utf8")).not.toContain(secret);
      }
      expect(readFileSync(traceFile, "utf8")).toContain("[REDACTED]");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("what ZCode writes is redacted in our log", () => {
  test("a junk line and a bad frame carrying secrets are logged as skipped, with the secrets redacted", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sec-log-"));
    const logFile = join(dir, "bridge.log");
    const secret = "sk-live-leak0123456789";
    // The committed fixture with two bad frames from "ZCode" right at the start.
    const fixture = readFileSync(join(import.meta.dir, "../fixtures/trace-basic.jsonl"), "utf8")
      .split("\n")
      .filter(Boolean);
    const firstToZcode = fixture.findIndex((l) => JSON.parse(l).dir === "bridge->zcode");
    const bad = [
      JSON.stringify({ t: 0, dir: "zcode->bridge", raw: `warning: token=${secret} Authorization: Bearer ${secret}` }),
      JSON.stringify({
        t: 0,
        dir: "zcode->bridge",
        msg: { method: "session/event", params: { seq: "bad", apiKey: secret, nested: { password: secret } } },
      }),
    ];
    fixture.splice(firstToZcode + 1, 0, ...bad);
    const replay = join(dir, "replay.jsonl");
    writeFileSync(replay, `${fixture.join("\n")}\n`);
    try {
      await withBridge(
        { args: ["--log-file", logFile], env: { ZCODE_SIM_REPLAY: replay, ZCODE_SIM_REPLAY_WAIT_MS: "2000" } },
        async (h) => {
          await h.agent.request(acp.methods.agent.session.new, { cwd: "/tmp/zcode-fixture-workspace", mcpServers: [] });
          await h.waitFor(() => h.stderr.includes("REDACTED"), "the skipped lines in the log");
        },
      );
      const log = readFileSync(logFile, "utf8");
      expect(log).toContain("[REDACTED]");
      expect(log).not.toContain(secret);
      expect(statSync(logFile).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
