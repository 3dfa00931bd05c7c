// Signing in without the ZCode app: `zcode login`'s credentials.json and
// ZCODE_API_KEY answer ZCode's credential requests; `login` / `logout` (CLI
// and ACP) run ZCode's own commands; doctor says which sign-in is in use; no
// key reaches a log, a trace or the editor.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { chmodSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, rejection, withBridge } from "../support/acp-harness.ts";
import { writeCliCredentials } from "../support/zcode-credentials.ts";

const BIG = "account:bigmodel-individual-coding-plan";
const accountModel = { ZCODE_SIM_DEFAULT_MODEL: `${BIG}/GLM-5.3@max` };
const CLI_KEY = "cli-stored-plan-key-0123456789abcdef";
const ENV_KEY = "env-plan-key-0123456789abcdef";

const tempDir = (name: string) => mkdtempSync(join(tmpdir(), `signin-${name}-`));

/** A stand-in `zcode` for login/logout only: records its arguments, says something, exits with `code`. */
function fakeZCode(dir: string, code: number): { bin: string; argsFile: string } {
  const bin = join(dir, "zcode");
  const argsFile = join(dir, "args.txt");
  writeFileSync(bin, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${argsFile}'\necho "fake zcode: $1 done"\nexit ${code}\n`);
  chmodSync(bin, 0o755);
  return { bin, argsFile };
}

describe("a turn signed by `zcode login` or ZCODE_API_KEY, with no ZCode app", () => {
  test("the API key `zcode login` stored answers; it reaches neither the log, the trace nor the editor", async () => {
    const home = tempDir("cli-key");
    writeCliCredentials(home, [{ providerId: BIG, source: "manual", key: CLI_KEY }]);
    const log = join(home, "bridge.log");
    const trace = join(home, "trace.jsonl");
    await withBridge(
      { env: { ...accountModel, HOME: home, ZCODE_ACP_LOG_LEVEL: "debug" }, args: ["--log-file", log, "--trace", trace] },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "signed")).stopReason).toBe("end_turn");
        expect(h.text(sessionId)).toContain("auth: apiKey");
        expect(h.stderr).not.toContain(CLI_KEY);
        expect(JSON.stringify(h.received.messages)).not.toContain(CLI_KEY);
      },
    );
    const logged = readFileSync(log, "utf8");
    expect(logged).toContain("zcode login's credentials");
    expect(logged).not.toContain(CLI_KEY);
    const traced = readFileSync(trace, "utf8");
    expect(traced).toContain("requestProviderRuntimeHeaders");
    expect(traced).not.toContain(CLI_KEY);
  }, 30_000);

  test("ZCODE_API_KEY answers with no sign-in stored anywhere, and stays out of every log", async () => {
    const home = tempDir("env-key");
    const log = join(home, "bridge.log");
    const trace = join(home, "trace.jsonl");
    await withBridge(
      {
        env: { ...accountModel, HOME: home, ZCODE_API_KEY: ENV_KEY, ZCODE_ACP_LOG_LEVEL: "trace" },
        args: ["--log-file", log, "--trace", trace],
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "signed")).stopReason).toBe("end_turn");
        expect(h.text(sessionId)).toContain("auth: apiKey");
        expect(h.stderr).not.toContain(ENV_KEY);
        expect(JSON.stringify(h.received.messages)).not.toContain(ENV_KEY);
      },
    );
    expect(readFileSync(log, "utf8")).not.toContain(ENV_KEY);
    expect(readFileSync(trace, "utf8")).not.toContain(ENV_KEY);
  }, 30_000);

  test("a browser sign-in of `zcode login`: the turn fails saying why and what to do instead", async () => {
    const home = tempDir("oauth");
    writeCliCredentials(home, [{ providerId: BIG, source: "oauth" }]);
    await withBridge({ env: { ...accountModel, HOME: home } }, async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "unsigned"));
      expect(e.message).toContain("through the browser");
      expect(e.message).toContain("ZCODE_API_KEY");
      expect(e.message).not.toContain("zai-oauth-access-token");
    });
  }, 30_000);
});

describe("doctor says which sign-in is in use", () => {
  const doctor = (env: Record<string, string>) =>
    Bun.spawnSync([BRIDGE_BIN, "doctor"], { env: { PATH: process.env.PATH ?? "/usr/bin:/bin", ZCODE_ACP_LANG: "en", ...env } });

  test("zcode login's key, ZCODE_API_KEY first, a browser-only sign-in and nothing", () => {
    const cli = tempDir("doctor-cli");
    writeCliCredentials(cli, [{ providerId: BIG, source: "manual", key: CLI_KEY }]);
    const a = doctor({ HOME: cli }).stdout.toString();
    expect(a).toContain(`signed in with \`zcode login\` to ${BIG}`);
    expect(a).not.toContain(CLI_KEY);
    const b = doctor({ HOME: cli, ZCODE_API_KEY: ENV_KEY }).stdout.toString();
    expect(b).toContain("the API key in ZCODE_API_KEY");
    expect(b).not.toContain(ENV_KEY);
    const oauth = tempDir("doctor-oauth");
    writeCliCredentials(oauth, [{ providerId: BIG, source: "oauth" }]);
    expect(doctor({ HOME: oauth }).stdout.toString()).toContain("through the browser");
    const none = doctor({ HOME: tempDir("doctor-none") }).stdout.toString();
    expect(none).toContain("no sign-in");
    expect(none).toContain("zcode-acp-server login");
  });
});

describe("login and logout run ZCode's own commands", () => {
  test("`login` / `logout` run `zcode login` / `zcode logout` at this terminal and exit as they do", () => {
    const dir = tempDir("cli-auth");
    const { bin, argsFile } = fakeZCode(dir, 3);
    const env = { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, ZCODE_BIN: bin, ZCODE_ACP_LANG: "en" };
    const login = Bun.spawnSync([BRIDGE_BIN, "login"], { env });
    expect(login.exitCode).toBe(3);
    expect(login.stdout.toString()).toContain("fake zcode: login done");
    const logout = Bun.spawnSync([BRIDGE_BIN, "logout"], { env });
    expect(logout.exitCode).toBe(3);
    expect(readFileSync(argsFile, "utf8")).toBe("login\nlogout\n");
  });

  test("no ZCode CLI: a clear error and exit 1", () => {
    const dir = tempDir("cli-auth-none");
    const r = Bun.spawnSync([BRIDGE_BIN, "login"], {
      env: { PATH: "/nonexistent", HOME: dir, ZCODE_BIN: join(dir, "missing-zcode"), ZCODE_ACP_LANG: "en" },
    });
    expect(r.exitCode).toBe(1);
    expect(r.stderr.toString()).toContain("missing-zcode");
  });

  test("ACP: terminal auth offered only to clients that run it; logout runs `zcode logout`", async () => {
    const dir = tempDir("acp-auth");
    const ok = fakeZCode(dir, 0);
    await withBridge(
      { env: { ZCODE_BIN: ok.bin, ZCODE_ACP_PREWARM: "0" }, clientCapabilities: { auth: { terminal: true } } },
      async (h) => {
        const methods = h.initializeResponse?.authMethods ?? [];
        expect(methods).toContainEqual(expect.objectContaining({ id: "zcode-login", type: "terminal", args: ["login"] }));
        expect(h.initializeResponse?.agentCapabilities?.auth?.logout).toEqual({});
        expect(await h.agent.request(acp.methods.agent.logout, {})).toEqual({});
        expect(readFileSync(ok.argsFile, "utf8")).toBe("logout\n");
        // The terminal method is the client's to run, never `authenticate`'s.
        const e = await rejection(h.agent.request(acp.methods.agent.authenticate, { methodId: "zcode-login" }));
        expect(e.code).toBe(-32602);
      },
    );
    await withBridge({ env: { ZCODE_BIN: ok.bin, ZCODE_ACP_PREWARM: "0" } }, async (h) => {
      expect((h.initializeResponse?.authMethods ?? []).map((m) => m.id)).toEqual(["zcode-app"]);
    });
  }, 30_000);

  test("ACP logout that ZCode fails: an error carrying ZCode's words", async () => {
    const dir = tempDir("acp-auth-fail");
    const bad = fakeZCode(dir, 2);
    await withBridge({ env: { ZCODE_BIN: bad.bin, ZCODE_ACP_PREWARM: "0" } }, async (h) => {
      const e = await rejection(h.agent.request(acp.methods.agent.logout, {}));
      expect(e.message).toContain("`zcode logout` exited with code 2");
      expect(e.message).toContain("fake zcode: logout done");
      expect(existsSync(bad.argsFile)).toBe(true);
    });
  }, 30_000);
});
