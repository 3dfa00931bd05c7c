// Serve mode starts the ZCode child once initialize is answered, before any
// session is asked for, so that ZCode's boot overlaps with the editor's and
// the agent's own work. Turned off by --no-prewarm / ZCODE_ACP_PREWARM=0;
// never done by doctor, --version or upgrade; harmless when it fails; and an
// editor that only initializes and leaves leaves no process behind.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAlive } from "../support/acp-harness.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, INITIALIZE_LINE, run, SIM_BIN } from "./cli-support.ts";
import { pollUntil } from "../support/poll.ts";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-prewarm-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const line = (msg: unknown) => `${JSON.stringify(msg)}\n`;
const newSession = (id: number) => line({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: tmp, mcpServers: [] } });

interface Cli {
  bin: string;
  /** Every start of the CLI: [kind, pid], kind "version" or "server". */
  starts(): Array<[string, number]>;
  /** A --version probe ran to its end (slept its boot time and answered). */
  probeFinished(): boolean;
}

let n = 0;
/** A ZCode CLI in front of the simulator that logs each start; `server` is what app-server does instead (default: run the simulator). */
function cli(server = `exec '${SIM_BIN}' "$@"`, opts: { bootMs?: number } = {}): Cli {
  const d = join(tmp, `cli-${++n}`);
  mkdirSync(d);
  const log = join(d, "starts.log");
  const bin = join(d, "zcode");
  writeFileSync(
    bin,
    `#!/bin/sh
if [ "$1" = "--version" ]; then echo "version $$" >> '${log}'; sleep ${(opts.bootMs ?? 0) / 1000}; echo "$$" >> '${join(d, "probe-finished")}'; echo 0.16.9; exit 0; fi
echo "server $$" >> '${log}'
${server}
`,
  );
  chmodSync(bin, 0o755);
  return {
    bin,
    probeFinished: () => existsSync(join(d, "probe-finished")),
    starts: () => {
      try {
        return readFileSync(log, "utf8")
          .trim()
          .split("\n")
          .filter(Boolean)
          .map((l) => {
            const [kind, pid] = l.split(" ");
            return [kind as string, Number(pid)];
          });
      } catch {
        return [];
      }
    },
  };
}

const env = (bin: string, extra: Record<string, string> = {}) => ({
  PATH: process.env.PATH,
  HOME: tmp,
  ZCODE_BIN: bin,
  ZCODE_SIM_STATE_DIR: join(tmp, "state"),
  ...extra,
});

async function until(cond: () => boolean, ms = 5000): Promise<boolean> {
  return pollUntil(cond, ms, 20);
}

/** A bridge with stdin open: its stdout lines, parsed, as they come. */
function bridge(args: string[], processEnv: Record<string, string | undefined>) {
  const p = Bun.spawn([BRIDGE_BIN, ...args], { env: processEnv, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const messages: Array<Record<string, any>> = [];
  const reading = (async () => {
    let buf = "";
    const dec = new TextDecoder();
    for await (const chunk of p.stdout) {
      buf += dec.decode(chunk, { stream: true });
      for (let i = buf.indexOf("\n"); i !== -1; i = buf.indexOf("\n")) {
        messages.push(JSON.parse(buf.slice(0, i)));
        buf = buf.slice(i + 1);
      }
    }
  })();
  const stderr = new Response(p.stderr).text();
  return {
    p,
    messages,
    async send(text: string) {
      p.stdin.write(text);
      await p.stdin.flush();
    },
    answer: async (id: number) => {
      await until(() => messages.some((m) => m.id === id && !("method" in m)), 15_000);
      return messages.find((m) => m.id === id && !("method" in m));
    },
    async end(): Promise<{ code: number; stderr: string }> {
      p.stdin.end();
      const code = await p.exited;
      await reading;
      clearTimeout(killer);
      return { code, stderr: await stderr };
    },
  };
}

describe("prewarm", () => {
  test("after initialize, before any session, ZCode's app-server is running; session/new then uses that child", async () => {
    const z = cli();
    const b = bridge([], env(z.bin));
    await b.send(INITIALIZE_LINE);
    expect(await until(() => z.starts().some(([k]) => k === "server"))).toBe(true);
    const [, pid] = z.starts().find(([k]) => k === "server")!;
    expect(isAlive(pid)).toBe(true);
    await b.send(newSession(2));
    expect((await b.answer(2))?.result?.sessionId).toBeString();
    // The session went to the child started ahead: no second one.
    expect(z.starts().filter(([k]) => k === "server")).toHaveLength(1);
    const { code } = await b.end();
    expect(code).toBe(0);
    expect(await until(() => !isAlive(pid))).toBe(true);
  });

  test("initialize only, then EOF while ZCode is still starting: exit 0, and neither the child nor the --version probe is left", async () => {
    // The probe takes a while, so EOF arrives in the middle of the start.
    const z = cli(undefined, { bootMs: 3000 });
    const b = bridge([], env(z.bin));
    await b.send(INITIALIZE_LINE);
    expect(await until(() => z.starts().length >= 2)).toBe(true);
    const { code } = await b.end();
    expect(code).toBe(0);
    // EOF does not wait for the slow probe: the bridge is gone before the probe's boot is over.
    expect(z.probeFinished()).toBe(false);
    // Ended, not left to finish its 3 s on its own.
    for (const [, pid] of z.starts()) expect(await until(() => !isAlive(pid), 1000)).toBe(true);
    expect(b.messages).toHaveLength(1);
  });

  test("SIGTERM right after initialize: exit 0 and no child left", async () => {
    const z = cli();
    const b = bridge([], env(z.bin));
    await b.send(INITIALIZE_LINE);
    expect(await until(() => z.starts().some(([k]) => k === "server"))).toBe(true);
    b.p.kill("SIGTERM");
    const { code } = await b.end();
    expect(code).toBe(0);
    for (const [, pid] of z.starts()) expect(await until(() => !isAlive(pid))).toBe(true);
  });

  for (const [how, args, extra] of [
    ["--no-prewarm", ["--no-prewarm"], {}],
    ["ZCODE_ACP_PREWARM=0", [], { ZCODE_ACP_PREWARM: "0" }],
  ] as const) {
    test(`${how}: nothing starts until session/new asks for it`, async () => {
      const z = cli();
      const b = bridge([...args], env(z.bin, extra));
      await b.send(INITIALIZE_LINE);
      await b.answer(1);
      // Long enough for a prewarm to have started the CLI (the test above sees it well within this).
      await Bun.sleep(400);
      expect(z.starts()).toEqual([]);
      await b.send(newSession(2));
      expect((await b.answer(2))?.result?.sessionId).toBeString();
      expect(z.starts().filter(([k]) => k === "server")).toHaveLength(1);
      expect((await b.end()).code).toBe(0);
    });
  }

  test("ZCODE_ACP_PREWARM with a value that is neither on nor off is a usage error", async () => {
    const r = await run([BRIDGE_BIN], { env: { ...env(cli().bin), ZCODE_ACP_PREWARM: "maybe" } });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain("ZCODE_ACP_PREWARM");
  });

  test("a child that dies at boot in the background breaks nothing: session/new reports its exit as before", async () => {
    const z = cli(`echo "boot failed: no provider config" >&2; exit 1`);
    const b = bridge([], env(z.bin));
    await b.send(INITIALIZE_LINE);
    expect(await until(() => z.starts().some(([k]) => k === "server"))).toBe(true);
    // The background child has died before session/new asks for one.
    expect(await until(() => z.starts().every(([, pid]) => !isAlive(pid)))).toBe(true);
    await b.send(newSession(2));
    const err = (await b.answer(2))?.error;
    expect(err?.message).toContain("exited with code 1");
    expect(err?.message).toContain("boot failed: no provider config");
    // Still serving: another request is answered.
    await b.send(newSession(3));
    expect((await b.answer(3))?.error?.message).toContain("boot failed");
    expect((await b.end()).code).toBe(0);
  });

  test("a CLI too old, found in the background: session/new names both versions, and no child of it is left", async () => {
    const z = cli(`exec '${SIM_BIN}' --sim-version 0.14.7 "$@"`);
    writeFileSync(z.bin, readFileSync(z.bin, "utf8").replace("echo 0.16.9", "echo 0.14.7"));
    const b = bridge([], env(z.bin));
    await b.send(INITIALIZE_LINE);
    expect(await until(() => z.starts().some(([k]) => k === "version"))).toBe(true);
    await b.send(newSession(2));
    const err = (await b.answer(2))?.error;
    expect(err?.message).toContain("0.14.7");
    expect(err?.message).toContain("0.14.8");
    for (const [, pid] of z.starts()) expect(await until(() => !isAlive(pid))).toBe(true);
    expect((await b.end()).code).toBe(0);
  });
});

describe("never outside serve mode", () => {
  test("doctor asks the version and starts one app-server for the protocol probe, gone when it exits; --version and upgrade run nothing", async () => {
    const z = cli();
    const doctor = await run([BRIDGE_BIN, "doctor"], { env: env(z.bin) });
    expect(doctor.stdout).toContain("ZCode version");
    // Which protocol the sessions get can only be asked of a running app-server (cli/doctor-protocol.ts).
    expect(z.starts().map(([k]) => k)).toEqual(["version", "server"]);
    for (const [, pid] of z.starts()) expect(await until(() => !isAlive(pid))).toBe(true);
    await run([BRIDGE_BIN, "--version"], { env: env(z.bin) });
    // A download base nothing listens on: upgrade fails at once, and ZCode is not its business anyway.
    await run([BRIDGE_BIN, "upgrade"], { env: { ...env(z.bin), ZCODE_ACP_DOWNLOAD_BASE: "http://127.0.0.1:9" }, timeoutMs: 10_000 });
    await Bun.sleep(200);
    expect(z.starts().map(([k]) => k)).toEqual(["version", "server"]);
  });
});
