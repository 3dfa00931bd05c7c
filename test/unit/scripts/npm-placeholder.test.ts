// The npm main package's placeholder command: a `#!/bin/sh` script, so a
// client that execs it directly (no shell; Python's subprocess) gets its
// message, with no Node on PATH too; the postinstall still puts the native
// binary in its place, and on Windows rewrites npm's shims, made from the
// placeholder's `#!` line, to start the .exe directly.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../../package.json" with { type: "json" };
import { NPM_PACKAGE, npmPlatformPackage } from "../../../src/cli/distribution.ts";
import { hostTarget } from "../../../src/cli/release-targets.ts";
import { npmDirName, PLACEHOLDER, writeNpmPackages } from "../../../scripts/release/npm-packages.ts";

let tmp: string;
let main: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "npm-placeholder-"));
  writeNpmPackages(join(tmp, "out"), pkg.version, new Map());
  main = join(tmp, "out", npmDirName(NPM_PACKAGE));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test("the placeholder is a #!/bin/sh script", () => {
  const text = readFileSync(join(main, "bin/zcode-acp-server.exe"), "utf8");
  expect(text).toBe(PLACEHOLDER);
  expect(text).toStartWith("#!/bin/sh\n");
});

test("exec'd directly (no shell), with no Node on PATH: its message on stderr, exit 1", async () => {
  const p = Bun.spawn([join(main, "bin/zcode-acp-server.exe"), "--version"], {
    env: { PATH: "/nonexistent" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  expect(code).toBe(1);
  expect(out).toBe("");
  expect(err).toContain("zcode-acp-server: this is a placeholder");
  expect(err).toContain("--ignore-scripts");
  // As Python's subprocess.run does it (execve, no shell), when python3 is here.
  const python = Bun.which("python3");
  if (python) {
    const py = Bun.spawnSync([
      python,
      "-c",
      "import subprocess,sys; r=subprocess.run([sys.argv[1]], capture_output=True, text=True); print(r.returncode); print(r.stderr)",
      join(main, "bin/zcode-acp-server.exe"),
    ]);
    expect(py.stdout.toString()).toStartWith("1\nzcode-acp-server: this is a placeholder");
  }
});

test("the postinstall still replaces it with the platform package's binary", async () => {
  // A project with the main package and the host's platform package (a stand-in binary of the same version).
  const project = join(tmp, "project");
  const scoped = join(project, "node_modules", ...NPM_PACKAGE.split("/"));
  mkdirSync(join(scoped, ".."), { recursive: true });
  Bun.spawnSync(["cp", "-R", main, scoped]);
  const platform = join(project, "node_modules", ...npmPlatformPackage(hostTarget()).split("/"));
  mkdirSync(join(platform, "bin"), { recursive: true });
  writeFileSync(join(platform, "package.json"), JSON.stringify({ name: npmPlatformPackage(hostTarget()), version: pkg.version }));
  const stand = `#!/bin/sh\necho ${pkg.version}\n`;
  writeFileSync(join(platform, "bin/zcode-acp-server"), stand);
  chmodSync(join(platform, "bin/zcode-acp-server"), 0o755);
  const node = Bun.which("node");
  if (!node) throw new Error("node is needed to run the postinstall");
  const r = Bun.spawnSync([node, "install.js"], { cwd: scoped, env: { PATH: process.env.PATH } });
  expect(r.stderr.toString()).toBe("");
  expect(r.exitCode).toBe(0);
  expect(readFileSync(join(scoped, "bin/zcode-acp-server.exe"), "utf8")).toBe(stand);
});

test("Windows shims npm made from the placeholder's #! line are rewritten to start the .exe; others are left alone", () => {
  const { rewriteWindowsShims } = require(join(main, "install.js")) as {
    rewriteWindowsShims: (packageDir: string, dest: string) => string[];
  };
  const prefix = join(tmp, "winproject");
  const packageDir = join(prefix, "node_modules", "@zcode-acp", "server");
  const bin = join(prefix, "node_modules", ".bin");
  mkdirSync(bin, { recursive: true });
  mkdirSync(packageDir, { recursive: true });
  // What npm's cmd-shim writes for a `#!/bin/sh` target.
  const viaSh =
    '@ECHO off\r\nSETLOCAL\r\nIF EXIST "%dp0%\\/bin/sh.exe" (\r\n  SET "_prog=%dp0%\\/bin/sh.exe"\r\n) ELSE (\r\n  SET "_prog=/bin/sh"\r\n)\r\n"%_prog%"  "%dp0%\\..\\@zcode-acp\\server\\bin\\zcode-acp-server.exe" %*\r\n';
  writeFileSync(join(bin, "zcode-acp-server.cmd"), viaSh);
  writeFileSync(
    join(bin, "zcode-acp-server.ps1"),
    'exe="/bin/sh"\n& "$basedir//bin/sh$exe"  "$basedir/../@zcode-acp/server/bin/zcode-acp-server.exe" $args\n',
  );
  writeFileSync(join(bin, "other.cmd"), viaSh.replaceAll("zcode-acp-server", "other"));
  const done = rewriteWindowsShims(packageDir, join(packageDir, "bin", "zcode-acp-server.exe"));
  expect(done.sort()).toEqual([join(bin, "zcode-acp-server.cmd"), join(bin, "zcode-acp-server.ps1")]);
  const cmd = readFileSync(join(bin, "zcode-acp-server.cmd"), "utf8");
  expect(cmd).not.toContain("/bin/sh");
  expect(cmd).toContain('"%dp0%\\..\\@zcode-acp\\server\\bin\\zcode-acp-server.exe" %*');
  expect(readFileSync(join(bin, "zcode-acp-server.ps1"), "utf8")).toContain(
    '& "$basedir/../@zcode-acp/server/bin/zcode-acp-server.exe" $args',
  );
  expect(readFileSync(join(bin, "other.cmd"), "utf8")).toBe(viaSh.replaceAll("zcode-acp-server", "other"));
  // Once rewritten, nothing more to do.
  expect(rewriteWindowsShims(packageDir, join(packageDir, "bin", "zcode-acp-server.exe"))).toEqual([]);
});
