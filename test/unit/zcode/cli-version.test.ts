// `zcode --version`: the bare version out of what the CLI prints, its stderr
// in the error when it fails; and knowing it without paying a second boot of
// the CLI: a JS entry's own package.json, and a probe's answer kept per entry
// file (path, inode, size, times), asked again only when the file changes.
//
// The probe runs beside a new ZCode child (so before session/new answers):
// its time limit must hold whatever the probe's process tree does. A wrapper
// script that does not `exec` leaves the real CLI as a grandchild holding our
// pipes; killing the wrapper alone, and waiting for the pipes' end, waited as
// long as that grandchild lived.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { isAlive } from "../../support/acp-harness.ts";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearVersionCache, detectVersion, knownVersion, packageVersion, stopVersionProbe } from "../../../src/zcode/cli-version.ts";
import type { ZCodeLaunch } from "../../../src/zcode/resolve.ts";
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
beforeEach(() => clearVersionCache());

let n = 0;
function probe(body: string): { launch: { command: string[]; entry: string; source: "env" }; pidFile: string } {
  const bin = join(tmp, `zcode-${++n}`);
  const pidFile = join(tmp, `grandchild-${n}.pid`);
  writeFileSync(bin, `#!/bin/sh\nPIDFILE='${pidFile}'\n${body}\n`);
  chmodSync(bin, 0o755);
  return { launch: { command: [bin], entry: bin, source: "env" }, pidFile };
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
  test("runs `<command> --version` and extracts the bare version; asked again once the file changes (a CLI updated in place is seen)", async () => {
    // Spaces and quotes in the path: the probe never goes through a shell.
    const d = join(tmp, "my bin 'q\" ");
    mkdirSync(d);
    const bin = join(d, "zcode");
    const counter = join(d, "count");
    writeFileSync(
      bin,
      `#!/bin/sh\necho x >> "$COUNTER"\n[ "$1" = "--version" ] && echo "ZCode $(wc -l < "$COUNTER" | tr -d ' ').16.2" && exit 0\nexit 2\n`,
    );
    chmodSync(bin, 0o755);
    const launch = { command: [bin], entry: bin, source: "env" as const };
    const env = { PATH: process.env.PATH, COUNTER: counter };
    expect(await detectVersion(launch, env)).toBe("1.16.2");
    expect(await detectVersion(launch, env)).toBe("1.16.2");
    const later = new Date(Date.now() + 5000);
    utimesSync(bin, later, later);
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
    for (let i = 0; i < 50 && isAlive(pid); i++) await Bun.sleep(20);
    expect(isAlive(pid)).toBe(false);
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

let cases = 0;
function dir(): string {
  const d = join(tmp, `case-${++cases}`);
  mkdirSync(d, { recursive: true });
  return d;
}

function write(path: string, text: string, mode = 0o644): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, text);
  chmodSync(path, mode);
  return path;
}

const pkg = (d: string, body: Record<string, unknown>) => write(join(d, "package.json"), JSON.stringify(body));

/** A `zcode` that counts its runs in `count` and prints `version`. */
function countingCli(d: string, version: string): { launch: ZCodeLaunch; runs(): number } {
  const count = join(d, "count");
  const bin = write(join(d, "zcode"), `#!/bin/sh\necho x >> '${count}'\necho "zcode ${version}"\n`, 0o755);
  return {
    launch: { command: [bin], entry: bin, source: "env" },
    runs: () => {
      try {
        return readFileSync(count, "utf8").trim().split("\n").length;
      } catch {
        return 0;
      }
    },
  };
}

describe("packageVersion: a JS entry's own package metadata", () => {
  test("the package whose bin names the entry gives its version", () => {
    const d = dir();
    const e = write(join(d, "bin", "zcode.cjs"), "// cli\n");
    pkg(d, { name: "@zcode/cli", version: "0.16.9", bin: { zcode: "bin/zcode.cjs" } });
    expect(packageVersion(e)).toBe("0.16.9");
  });

  test("bin as a string, or main, count too; an entry reached through a symlink is the same entry", () => {
    const a = dir();
    write(join(a, "cli.cjs"), "");
    pkg(a, { name: "zcode", version: "0.15.3", bin: "./cli.cjs" });
    expect(packageVersion(join(a, "cli.cjs"))).toBe("0.15.3");
    const b = dir();
    const e = write(join(b, "dist", "zcode.cjs"), "");
    pkg(b, { name: "zcode", version: "v0.16.2", main: "dist/zcode.cjs" });
    const link = join(b, "zcode-link.cjs");
    symlinkSync(e, link);
    expect(packageVersion(link)).toBe("0.16.2");
  });

  test("a package.json that does not name the entry is someone else's: no version (the desktop app's own 3.x must not pass for the CLI's)", () => {
    const d = dir();
    pkg(d, { name: "zcode-desktop", version: "3.14.1", main: "main.js" });
    const e = write(join(d, "resources", "glm", "zcode.cjs"), "");
    expect(packageVersion(e)).toBeUndefined();
  });

  test("the nearest package.json decides; none, a broken one, or one without a version: no version", () => {
    const d = dir();
    pkg(d, { name: "outer", version: "9.9.9", bin: "inner/zcode.cjs" });
    // The nearest one (a type marker, as bundles often carry) has no version.
    const e = write(join(d, "inner", "zcode.cjs"), "");
    write(join(d, "inner", "package.json"), JSON.stringify({ type: "commonjs" }));
    expect(packageVersion(e)).toBeUndefined();
    const broken = dir();
    write(join(broken, "package.json"), "{ not json");
    expect(packageVersion(write(join(broken, "zcode.cjs"), ""))).toBeUndefined();
    expect(packageVersion(join(dir(), "missing.cjs"))).toBeUndefined();
  });

  test("the search stops at the node_modules the package sits in", () => {
    const d = dir();
    pkg(d, { name: "app", version: "1.2.3", bin: "node_modules/zcode/cli.cjs" });
    const e = write(join(d, "node_modules", "zcode", "sub", "cli.cjs"), "");
    expect(packageVersion(e)).toBeUndefined();
  });
});

describe("knownVersion and the probe cache", () => {
  test("a JS entry (run by Node) with package metadata is known without running anything", () => {
    const d = dir();
    const e = write(join(d, "zcode.cjs"), "");
    pkg(d, { name: "zcode", version: "0.16.9", bin: { zcode: "zcode.cjs" } });
    const launch: ZCodeLaunch = {
      command: ["/nonexistent/node", e],
      entry: e,
      source: "env",
      node: "/nonexistent/node",
      nodeVersion: "22.1.0",
    };
    expect(knownVersion(launch, {})).toBe("0.16.9");
    // A native binary's directory is not a package: metadata is read for JS entries only.
    expect(knownVersion({ command: [e], entry: e, source: "env" }, {})).toBeUndefined();
  });

  test("unknown until probed; then known for the same file, without running it again", async () => {
    const cli = countingCli(dir(), "0.16.2");
    expect(knownVersion(cli.launch, {})).toBeUndefined();
    expect(await detectVersion(cli.launch, {})).toBe("0.16.2");
    expect(knownVersion(cli.launch, {})).toBe("0.16.2");
    expect(await detectVersion(cli.launch, {})).toBe("0.16.2");
    expect(cli.runs()).toBe(1);
    // Another environment may run something else (PATH, a simulator personality).
    expect(knownVersion(cli.launch, { OTHER: "1" })).toBeUndefined();
  });

  test("a file replaced or updated in place is asked again", async () => {
    const d = dir();
    const cli = countingCli(d, "0.15.3");
    expect(await detectVersion(cli.launch, {})).toBe("0.15.3");
    // Replaced (a new file renamed over it, as installers do).
    write(`${cli.launch.entry}.new`, readFileSync(cli.launch.entry, "utf8").replace("0.15.3", "0.14.7"), 0o755);
    renameSync(`${cli.launch.entry}.new`, cli.launch.entry);
    expect(knownVersion(cli.launch, {})).toBeUndefined();
    expect(await detectVersion(cli.launch, {})).toBe("0.14.7");
    // Updated in place, same size: only its times change.
    writeFileSync(cli.launch.entry, readFileSync(cli.launch.entry, "utf8").replace("0.14.7", "0.16.9"));
    const later = new Date(Date.now() + 5000);
    utimesSync(cli.launch.entry, later, later);
    expect(knownVersion(cli.launch, {})).toBeUndefined();
    expect(await detectVersion(cli.launch, {})).toBe("0.16.9");
    expect(cli.runs()).toBe(3);
  });

  test("a failed probe is not remembered", async () => {
    const d = dir();
    const bin = write(join(d, "zcode"), "#!/bin/sh\necho broken >&2\nexit 3\n", 0o755);
    const launch: ZCodeLaunch = { command: [bin], entry: bin, source: "env" };
    await expect(detectVersion(launch, {})).rejects.toThrow(/exited with code 3/);
    expect(knownVersion(launch, {})).toBeUndefined();
  });

  test("stopVersionProbe ends a probe still running, with what it started; its failure is not remembered", async () => {
    const d = dir();
    const pidFile = join(d, "sleeper.pid");
    // A wrapper that does not exec: the sleeper is a grandchild.
    const bin = write(join(d, "zcode"), `#!/bin/sh\nsleep 30 &\necho $! > '${pidFile}'\nwait\necho 0.16.9\n`, 0o755);
    const launch: ZCodeLaunch = { command: [bin], entry: bin, source: "env" };
    const probe = detectVersion(launch, {});
    for (let i = 0; i < 100 && !(await Bun.file(pidFile).exists()); i++) await Bun.sleep(20);
    const sleeper = Number(readFileSync(pidFile, "utf8"));
    stopVersionProbe(launch, {});
    await expect(probe).rejects.toThrow(/killed by SIGKILL/);
    expect(knownVersion(launch, {})).toBeUndefined();
    let alive = true;
    for (let i = 0; i < 50 && alive; i++) {
      try {
        process.kill(sleeper, 0);
        alive = !/^State:\s+Z/m.test(readFileSync(`/proc/${sleeper}/status`, "utf8"));
      } catch {
        alive = false;
      }
      if (alive) await Bun.sleep(20);
    }
    expect(alive).toBe(false);
  });

  test("the printed version is the answer: a probe slow to exit is not waited for, and is still ended at the limit", async () => {
    const d = dir();
    const pidFile = join(d, "probe.pid");
    const bin = write(join(d, "zcode"), `#!/bin/sh\necho $$ > '${pidFile}'\necho "zcode 0.16.9"\nsleep 30\n`, 0o755);
    const launch: ZCodeLaunch = { command: [bin], entry: bin, source: "env" };
    // Before the limit (1.5 s) is even near: the exit was not waited for.
    const version = await Promise.race([detectVersion(launch, {}, 1500), Bun.sleep(1200).then(() => "waited for the exit")]);
    expect(version).toBe("0.16.9");
    expect(knownVersion(launch, {})).toBe("0.16.9");
    const pid = Number(readFileSync(pidFile, "utf8"));
    let alive = true;
    for (let i = 0; i < 150 && alive; i++) {
      try {
        process.kill(pid, 0);
        alive = !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
      } catch {
        alive = false;
      }
      if (alive) await Bun.sleep(20);
    }
    expect(alive).toBe(false);
  });
});
