// The ZCode CLI's version without a second boot on the way to the first
// session: `--version` runs beside the app-server child (not before it), a JS
// entry's package.json replaces the probe, and a file already asked is not
// asked again. A child started before its version is known never serves a
// CLI that is too old, and leaves no process behind.
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isAlive } from "../support/acp-harness.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../src/config.ts";
import { ZCodeConnection } from "../../src/zcode/connection.ts";
import { ZCodeUnsupportedError } from "../../src/zcode/errors.ts";
import { clearVersionCache } from "../../src/zcode/cli-version.ts";
import { SIM_BIN } from "./cli-support.ts";
import { pollUntil } from "../support/poll.ts";

let tmp: string;
const open: ZCodeConnection[] = [];
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "wire-version-"));
});
beforeEach(() => clearVersionCache());
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

let n = 0;
/**
 * A ZCode CLI (a shell script in front of the simulator) that logs, with a
 * time stamp in ms, every start: `version <t>` / `version-done <t>` for the
 * probe, which takes `probeMs`, and `server <t> <pid>` for app-server.
 */
function cli(opts: { version?: string; probeMs?: number } = {}): { bin: string; log: string; events(): string[][] } {
  const d = join(tmp, `cli-${++n}`);
  mkdirSync(d);
  const log = join(d, "starts.log");
  const bin = join(d, "zcode");
  const ms = "echo $(( $(date +%s%N) / 1000000 ))";
  writeFileSync(
    bin,
    `#!/bin/sh
if [ "$1" = "--version" ]; then
  echo "version $(${ms})" >> '${log}'
  sleep ${(opts.probeMs ?? 0) / 1000}
  echo "version-done $(${ms})" >> '${log}'
  echo "zcode ${opts.version ?? "0.16.9"}"
  exit 0
fi
echo "server $(${ms}) $$" >> '${log}'
exec '${SIM_BIN}' --sim-version ${opts.version ?? "0.16.9"} "$@"
`,
  );
  chmodSync(bin, 0o755);
  return { bin, log, events: () => readLog(log) };
}

function readLog(log: string): string[][] {
  try {
    return readFileSync(log, "utf8")
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => l.split(" "));
  } catch {
    return [];
  }
}

function connect(bin: string, extraEnv: Record<string, string> = {}): ZCodeConnection {
  const c = new ZCodeConnection(
    defaultConfig({ zcodeBin: bin, env: { PATH: process.env.PATH, HOME: tmp, ZCODE_SIM_STATE_DIR: join(tmp, "state"), ...extraEnv } }),
    { killGraceMs: 500 },
  );
  open.push(c);
  return c;
}

async function gone(pid: number): Promise<boolean> {
  return pollUntil(() => !isAlive(pid), 2_000, 20);
}

describe("the version probe beside the child", () => {
  test("app-server starts while `--version` is still running, and serves once the version is known", async () => {
    const z = cli({ probeMs: 400 });
    const c = connect(z.bin);
    const info = await c.start();
    expect(info.version).toBe("0.16.9");
    const ev = z.events();
    const at = (kind: string) => Number(ev.find((e) => e[0] === kind)?.[1]);
    // The child was started before the probe had finished, not after it.
    expect(at("server")).toBeLessThan(at("version-done"));
    expect(await c.request("session/list", {})).toBeDefined();
  });

  test("a CLI too old: the child started beside the probe is stopped, with the same error as before, and serves nothing", async () => {
    const z = cli({ version: "0.14.7", probeMs: 100 });
    const c = connect(z.bin);
    const err = await c.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ZCodeUnsupportedError);
    expect((err as Error).message).toContain("0.14.7");
    expect((err as Error).message).toContain("0.14.8");
    expect(c.generation).toBe(0);
    expect(c.pid).toBeUndefined();
    const server = z.events().find((e) => e[0] === "server");
    expect(server).toBeDefined();
    expect(await gone(Number(server![2]))).toBe(true);
    // The same file is not asked again: refused before anything starts.
    const again = await c.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(ZCodeUnsupportedError);
    expect(z.events().filter((e) => e[0] === "server")).toHaveLength(1);
    expect(z.events().filter((e) => e[0] === "version")).toHaveLength(1);
  });

  test("the next child of the same, unchanged CLI file is not probed again", async () => {
    const z = cli();
    const c = connect(z.bin);
    const first = await c.start();
    await c.request("session/list", {});
    process.kill(-first.pid, "SIGKILL");
    await pollUntil(() => c.pid === undefined, 2_000, 20);
    const second = await c.start();
    expect(second.generation).toBe(2);
    // Known already: start() resolved at the spawn, before the script ran.
    await c.request("session/list", {});
    expect(z.events().filter((e) => e[0] === "server")).toHaveLength(2);
    expect(z.events().filter((e) => e[0] === "version")).toHaveLength(1);
  });

  test("close() during a start ends the probe and the child at once", async () => {
    const z = cli({ probeMs: 5000 });
    const c = connect(z.bin);
    const starting = c.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    await pollUntil(() => z.events().some((e) => e[0] === "server"), 2_000, 20);
    await c.close();
    // Closed before the 5 s probe could finish: close() did not wait for it.
    expect(z.events().some((e) => e[0] === "version-done")).toBe(false);
    expect(await starting).toBeInstanceOf(Error);
    const server = z.events().find((e) => e[0] === "server")!;
    expect(await gone(Number(server[2]))).toBe(true);
  });
});

describe("a JS entry's package metadata instead of the probe", () => {
  /** An app bundle: zcode.cjs with its package.json, run by a stand-in Node that logs its arguments and runs the simulator. */
  function bundle(version: string): { entry: string; node: string; runs(): string[] } {
    const d = join(tmp, `bundle-${++n}`);
    mkdirSync(join(d, "glm"), { recursive: true });
    const entry = join(d, "glm", "zcode.cjs");
    writeFileSync(entry, "// stand-in for the bundled CLI\n");
    writeFileSync(join(d, "glm", "package.json"), JSON.stringify({ name: "@zcode/cli", version, bin: { zcode: "zcode.cjs" } }));
    const runs = join(d, "node-runs.log");
    const node = join(d, "node");
    writeFileSync(
      node,
      `#!/bin/sh\nif [ "$1" = "--version" ]; then echo v22.11.0; exit 0; fi\necho "$*" >> '${runs}'\nshift\nexec '${SIM_BIN}' --sim-version ${version} "$@"\n`,
    );
    chmodSync(node, 0o755);
    return { entry, node, runs: () => readLog(runs).map((r) => r.join(" ")) };
  }

  test("the version comes from package.json: the CLI is never run with --version", async () => {
    const b = bundle("0.15.3");
    const c = connect(b.entry, { ZCODE_NODE: b.node });
    const info = await c.start();
    expect(info.version).toBe("0.15.3");
    expect(info.capabilities.supports("session/steer")).toBe(true);
    await c.request("session/list", {});
    expect(b.runs()).toEqual([`${b.entry} app-server --stdio`]);
  });

  test("a package too old is refused before any child starts", async () => {
    const b = bundle("0.14.7");
    const c = connect(b.entry, { ZCODE_NODE: b.node });
    const err = await c.start().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ZCodeUnsupportedError);
    expect((err as Error).message).toContain("0.14.7");
    expect(b.runs()).toEqual([]);
  });
});
