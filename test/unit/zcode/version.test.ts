// Knowing the ZCode CLI's version without paying a second boot of it: a JS
// entry's own package.json, and a probe's answer kept per entry file (path,
// inode, size, times), asked again only when the file changes.
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { clearVersionCache, detectVersion, knownVersion, packageVersion, stopVersionProbe, type ZCodeLaunch } from "../../../src/zcode/resolve.ts";

let root: string;
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), "zcode-version-"));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));
beforeEach(() => clearVersionCache());

let n = 0;
function dir(): string {
  const d = join(root, `case-${++n}`);
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
    const launch: ZCodeLaunch = { command: ["/nonexistent/node", e], entry: e, source: "env", node: "/nonexistent/node", nodeVersion: "22.1.0" };
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
