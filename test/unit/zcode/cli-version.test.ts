// `zcode --version`: the bare version out of what the CLI prints, its stderr
// in the error when it fails, and a fresh answer for every child.
//
// The probe runs before every ZCode child (so before session/new answers):
// its time limit must hold whatever the probe's process tree does. A wrapper
// script that does not `exec` leaves the real CLI as a grandchild holding our
// pipes; killing the wrapper alone, and waiting for the pipes' end, waited as
// long as that grandchild lived.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { detectVersion } from "../../../src/zcode/cli-version.ts";
import { SECRET_LINES, expectNoSecret } from "../support/child-secrets.ts";

const TIMEOUT_MS = 800;
let tmp: string;
const strays: number[] = [];

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "cli-version-"));
});
afterAll(() => {
  for (const pid of strays) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone, as it should be
    }
  }
  rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
function probe(body: string): { launch: { command: string[]; entry: string; source: "env" }; pidFile: string } {
  const bin = join(tmp, `zcode-${++n}`);
  const pidFile = join(tmp, `grandchild-${n}.pid`);
  writeFileSync(bin, `#!/bin/sh\nPIDFILE='${pidFile}'\n${body}\n`);
  chmodSync(bin, 0o755);
  return { launch: { command: [bin], entry: bin, source: "env" }, pidFile };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  // A zombie is dead for our purpose.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    return false;
  }
}

async function grandchild(pidFile: string): Promise<number> {
  for (let i = 0; i < 100 && !existsSync(pidFile); i++) await Bun.sleep(20);
  const pid = Number(readFileSync(pidFile, "utf8").trim());
  strays.push(pid);
  return pid;
}

async function timed<T>(p: Promise<T>): Promise<{ ms: number; value?: T; error?: Error }> {
  const t0 = performance.now();
  try {
    const value = await p;
    return { ms: performance.now() - t0, value };
  } catch (e) {
    return { ms: performance.now() - t0, error: e as Error };
  }
}

describe("detectVersion", () => {
  test("runs `<command> --version` and extracts the bare version; asked afresh every time (a CLI updated in place is seen)", async () => {
    // Spaces and quotes in the path: the probe never goes through a shell.
    const d = join(tmp, "my bin 'q\" ");
    mkdirSync(d);
    const bin = join(d, "zcode");
    const counter = join(d, "count");
    writeFileSync(bin, `#!/bin/sh\necho x >> "$COUNTER"\n[ "$1" = "--version" ] && echo "ZCode $(wc -l < "$COUNTER" | tr -d ' ').16.2" && exit 0\nexit 2\n`);
    chmodSync(bin, 0o755);
    const launch = { command: [bin], entry: bin, source: "env" as const };
    const env = { PATH: process.env.PATH, COUNTER: counter };
    expect(await detectVersion(launch, env)).toBe("1.16.2");
    expect(await detectVersion(launch, env)).toBe("2.16.2");
    expect(readFileSync(counter, "utf8").trim().split("\n").length).toBe(2);
  });

  test("a CLI that fails --version is an error quoting its stderr, every time", async () => {
    const { launch } = probe('echo "boom: no config" >&2\nexit 3');
    await expect(detectVersion(launch, {})).rejects.toThrow(/exited with code 3.*boom: no config/);
    await expect(detectVersion(launch, {})).rejects.toThrow(/boom/);
  });

  test("the --version probe's stderr is redacted in its error", async () => {
    const bin = join(tmp, "zcode-leaky");
    writeFileSync(bin, `#!/bin/sh\n${SECRET_LINES.map((l) => `echo ${shellQuote(l)} >&2`).join("\n")}\nexit 4\n`);
    chmodSync(bin, 0o755);
    const launch = { command: [bin], entry: bin, source: "env" as const };
    const err = await detectVersion(launch, { PATH: process.env.PATH }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("exited with code 4");
    expectNoSecret((err as Error).message);
  });
});

describe("the probe is bounded whatever its process tree does", () => {
  test("a wrapper that does not exec and hangs: the limit holds, and its grandchild is ended", async () => {
    const { launch, pidFile } = probe('sleep 30 &\necho $! > "$PIDFILE"\nwait\necho 0.15.3');
    const r = await timed(detectVersion(launch, { PATH: process.env.PATH }, TIMEOUT_MS));
    expect(r.error?.message).toMatch(/did not finish within 0\.8 s/);
    // Generous margin for a loaded 2-core machine; the bug waited 30 s.
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 4000);
    const pid = await grandchild(pidFile);
    for (let i = 0; i < 50 && alive(pid); i++) await Bun.sleep(20);
    expect(alive(pid)).toBe(false);
  }, 15_000);

  test("a grandchild that left the process group and holds the pipes cannot stretch the limit", async () => {
    // The wrapper hangs too, so only the deadline can end the wait.
    const { launch, pidFile } = probe('setsid sleep 30 &\necho $! > "$PIDFILE"\nsleep 30');
    const r = await timed(detectVersion(launch, { PATH: process.env.PATH }, TIMEOUT_MS));
    expect(r.error?.message).toMatch(/did not finish within/);
    expect(r.ms).toBeLessThan(TIMEOUT_MS + 4000);
    await grandchild(pidFile);
  }, 15_000);

  test("a probe that prints its version and exits, leaving a process behind on its pipes: the version, at once", async () => {
    const { launch, pidFile } = probe('setsid sleep 30 &\necho $! > "$PIDFILE"\necho "ZCode 0.15.3"');
    const r = await timed(detectVersion(launch, { PATH: process.env.PATH }, 10_000));
    expect(r.error).toBeUndefined();
    expect(r.value).toBe("0.15.3");
    expect(r.ms).toBeLessThan(4000);
    await grandchild(pidFile);
  }, 15_000);
});

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}
