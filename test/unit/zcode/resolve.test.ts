import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LOCAL_ERR, NodeMissingError, ZCodeNotFoundError } from "../../../src/zcode/errors.ts";
import { resolveCmdShim, resolveZCode } from "../../../src/zcode/resolve.ts";

// Every case builds its own little world in a temp dir: fake `zcode` binaries,
// fake `node`s that print a version, a fake home with nvm or an app bundle.

let root: string;

beforeAll(() => {
  // Spaces and quotes in every path: the launch must never go through a shell.
  root = mkdtempSync(join(tmpdir(), "zcode resolve 'q\" "));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
function dir(): string {
  const d = join(root, `case ${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
}

function script(path: string, body: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const fakeNode = (path: string, version: string) => script(path, `[ "$1" = "--version" ] && echo v${version} && exit 0\nexit 1`);
const fakeZCode = (path: string, version = "0.15.3") => script(path, `[ "$1" = "--version" ] && echo "zcode ${version}" && exit 0\nexit 2`);
function entry(path: string): string {
  mkdirSync(join(path, ".."), { recursive: true });
  writeFileSync(path, "console.log('zcode')\n");
  return path;
}

describe("ZCODE_BIN", () => {
  test("a binary, run directly (path with spaces and quotes)", () => {
    const bin = fakeZCode(join(dir(), "my bin", "zcode"));
    const l = resolveZCode({ env: { ZCODE_BIN: bin, PATH: "" } });
    expect(l).toEqual({ command: [bin], entry: bin, source: "env" });
  });

  test("the bin option wins over env.ZCODE_BIN", () => {
    const a = fakeZCode(join(dir(), "a"));
    const b = fakeZCode(join(dir(), "b"));
    expect(resolveZCode({ bin: a, env: { ZCODE_BIN: b, PATH: "" } }).entry).toBe(a);
  });

  for (const ext of ["cjs", "mjs", "js"]) {
    test(`a .${ext} entry runs with the explicitly given Node >= 22`, () => {
      const d = dir();
      const e = entry(join(d, `zcode.${ext}`));
      const node = fakeNode(join(d, "node dir", "node"), "22.3.0");
      const l = resolveZCode({ env: { ZCODE_BIN: e, ZCODE_NODE: node, PATH: "" }, homedir: d });
      expect(l).toEqual({ command: [node, e], entry: e, source: "env", node, nodeVersion: "22.3.0" });
    });
  }

  test("Node < 22 is rejected with a clear message, naming the CLI that was found", () => {
    const d = dir();
    const e = entry(join(d, "zcode.cjs"));
    const node = fakeNode(join(d, "node"), "20.11.1");
    let err: unknown;
    try {
      resolveZCode({ env: { ZCODE_BIN: e, ZCODE_NODE: node, PATH: "" }, homedir: d });
    } catch (x) {
      err = x;
    }
    // The CLI was found: doctor reports it as found and Node as the problem.
    expect(err).toBeInstanceOf(NodeMissingError);
    expect(err).toMatchObject({ entry: e, source: "env", reason: "too-old", code: LOCAL_ERR.unsupported });
    expect((err as Error).message).toContain("Node.js >= 22");
    expect((err as Error).message).toContain("v20.11.1");
    expect((err as Error).message).toContain("ZCODE_NODE");
  });

  test("a ZCODE_NODE that is not a Node is named in the error", () => {
    const d = dir();
    const e = entry(join(d, "zcode.cjs"));
    expect(() => resolveZCode({ env: { ZCODE_BIN: e, ZCODE_NODE: join(d, "nope"), PATH: "" } })).toThrow(/ZCODE_NODE points at/);
    let err: unknown;
    try {
      resolveZCode({ env: { ZCODE_BIN: e, ZCODE_NODE: join(d, "nope"), PATH: "" } });
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(NodeMissingError);
    expect(err).toMatchObject({
      entry: e,
      source: "env",
      reason: "not-found",
      code: LOCAL_ERR.notFound,
      tried: [`ZCODE_NODE=${join(d, "nope")}`],
    });
    // Read like a CLI that was not found: where it looked, and how to point at it.
    expect((err as Error).message).toContain(`Searched:\n  - ZCODE_NODE=${join(d, "nope")}`);
    expect((err as Error).message).toContain("doctor");
  });

  test("a missing ZCODE_BIN is a ZCodeNotFoundError that says how to fix it", () => {
    let err: unknown;
    try {
      resolveZCode({ env: { ZCODE_BIN: join(dir(), "missing"), PATH: "" } });
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(ZCodeNotFoundError);
    expect((err as Error).message).toContain("ZCODE_BIN");
    expect((err as Error).message).toContain("doctor");
  });

  test("a bare name in ZCODE_BIN is looked up on PATH", () => {
    const d = dir();
    const bin = fakeZCode(join(d, "zcode-nightly"));
    expect(resolveZCode({ env: { ZCODE_BIN: "zcode-nightly", PATH: d } }).entry).toBe(bin);
  });
});

describe("PATH", () => {
  test("zcode on PATH, first directory wins, non-executables skipped", () => {
    const a = dir();
    const b = dir();
    const c = dir();
    writeFileSync(join(a, "zcode"), "not executable");
    const bin = fakeZCode(join(b, "zcode"));
    fakeZCode(join(c, "zcode"));
    expect(resolveZCode({ env: { PATH: [a, b, c].join(":") }, platform: "linux", homedir: dir() })).toEqual({
      command: [bin],
      entry: bin,
      source: "path",
    });
  });

  test("an npm-style symlink to a .js entry runs under the newest nvm Node >= 22, not `env node`", () => {
    const home = dir();
    const bindir = dir();
    const e = entry(join(home, "lib", "node_modules", "zcode", "bin", "zcode.js"));
    symlinkSync(e, join(bindir, "zcode"));
    chmodSync(e, 0o755);
    fakeNode(join(home, ".nvm/versions/node/v20.1.0/bin/node"), "20.1.0");
    fakeNode(join(home, ".nvm/versions/node/v22.1.0/bin/node"), "22.1.0");
    const newest = fakeNode(join(home, ".nvm/versions/node/v23.4.0/bin/node"), "23.4.0");
    const l = resolveZCode({ env: { PATH: bindir }, platform: "linux", homedir: home });
    expect(l.source).toBe("path");
    expect(l.entry).toBe(e);
    expect(l.command).toEqual([newest, e]);
  });

  test("a script with a node shebang is also run under the resolved Node", () => {
    const home = dir();
    const bindir = dir();
    const bin = join(bindir, "zcode");
    writeFileSync(bin, "#!/usr/bin/env node\nconsole.log(1)\n");
    chmodSync(bin, 0o755);
    const node = fakeNode(join(home, ".volta/bin/node"), "22.9.0");
    expect(resolveZCode({ env: { PATH: bindir }, platform: "linux", homedir: home }).command).toEqual([node, bin]);
  });

  test("node on PATH is the last resort", () => {
    const home = dir();
    const zdir = dir();
    const ndir = dir();
    const e = entry(join(zdir, "zcode.cjs"));
    const node = fakeNode(join(ndir, "node"), "24.0.0");
    // /usr/bin/node may exist on the test machine; it is either < 22 (skipped) or fine.
    const l = resolveZCode({ bin: e, env: { PATH: ndir }, platform: "linux", homedir: home });
    expect([node, "/usr/bin/node", "/usr/local/bin/node", "/opt/homebrew/bin/node"]).toContain(l.node!);
  });
});

describe("app bundle", () => {
  test("macOS: ~/Applications/ZCode.app, with Node from fnm", () => {
    const home = dir();
    const e = entry(join(home, "Applications/ZCode.app/Contents/Resources/glm/zcode.cjs"));
    const node = fakeNode(join(home, ".local/share/fnm/node-versions/v22.12.0/installation/bin/node"), "22.12.0");
    const l = resolveZCode({ env: { PATH: dir() }, platform: "darwin", homedir: home });
    expect(l.source).toBe("app-bundle");
    expect(l.entry).toBe(e);
    // /opt/homebrew/bin/node or /usr/local/bin/node would come first if present on this machine.
    if (l.node === node) expect(l.command).toEqual([node, e]);
  });

  test("Windows: %LOCALAPPDATA%\\Programs\\ZCode, Node from %ProgramFiles%\\nodejs", () => {
    const home = dir();
    const local = dir();
    const pf = dir();
    const e = entry(join(local, "Programs", "ZCode", "resources", "glm", "zcode.cjs"));
    const node = fakeNode(join(pf, "nodejs", "node.exe"), "22.0.0");
    const l = resolveZCode({ env: { Path: dir(), LOCALAPPDATA: local, ProgramFiles: pf }, platform: "win32", homedir: home });
    expect(l).toEqual({ command: [node, e], entry: e, source: "app-bundle", node, nodeVersion: "22.0.0" });
  });

  test("nothing anywhere: ZCodeNotFoundError listing what was searched", () => {
    const home = dir();
    let err: unknown;
    try {
      resolveZCode({ env: { PATH: dir() }, platform: "linux", homedir: home });
    } catch (x) {
      err = x;
    }
    expect(err).toBeInstanceOf(ZCodeNotFoundError);
    const msg = (err as Error).message;
    expect(msg).toContain("zcode on PATH");
    expect(msg).toContain("/opt/ZCode/resources/glm/zcode.cjs");
    expect(msg).toContain("ZCODE_BIN");
  });
});

describe("an empty HOME", () => {
  test("never makes the home-relative candidates relative to the working directory (the user's project)", () => {
    // A project that plants a ZCode entry and a `node` where `$HOME/...` would
    // point if HOME="" were taken literally.
    const project = dir();
    const marker = join(project, "node-was-run");
    script(join(project, ".volta/bin/node"), `touch '${marker}'; echo v22.9.0`);
    mkdirSync(join(project, ".local/share/zcode/resources/glm"), { recursive: true });
    writeFileSync(join(project, ".local/share/zcode/resources/glm/zcode.cjs"), "// planted\n");
    const cwd = process.cwd();
    process.chdir(project);
    let result: unknown;
    try {
      result = resolveZCode({ env: { HOME: "", USERPROFILE: "", PATH: "" }, platform: "linux" });
    } catch (e) {
      result = e;
    } finally {
      process.chdir(cwd);
    }
    expect(result).toBeInstanceOf(ZCodeNotFoundError);
    expect((result as Error).message).not.toContain("\n  - .local/share");
    expect(existsSync(marker)).toBe(false);
  });
});

describe("Windows .cmd shims", () => {
  test("resolved to the real entry, which then runs under Node", () => {
    const home = dir();
    const bindir = dir();
    const pf = dir();
    const e = entry(join(bindir, "node_modules", "zcode", "bin", "zcode.cjs"));
    writeFileSync(
      join(bindir, "zcode.cmd"),
      '@ECHO off\r\nSETLOCAL\r\nIF EXIST "%dp0%\\node.exe" (\r\n  SET "_prog=%dp0%\\node.exe"\r\n)\r\n"%_prog%"  "%dp0%\\node_modules\\zcode\\bin\\zcode.cjs" %*\r\n',
    );
    expect(resolveCmdShim(join(bindir, "zcode.cmd"))).toBe(e);
    const node = fakeNode(join(pf, "nodejs", "node.exe"), "22.5.0");
    const l = resolveZCode({ env: { Path: bindir, ProgramFiles: pf }, platform: "win32", homedir: home });
    expect(l).toEqual({ command: [node, e], entry: e, source: "path", node, nodeVersion: "22.5.0" });
  });

  test("a shim without a readable target is a clear error", () => {
    const bindir = dir();
    writeFileSync(join(bindir, "zcode.cmd"), "@ECHO off\r\necho nothing\r\n");
    expect(() => resolveZCode({ env: { Path: bindir }, platform: "win32", homedir: dir() })).toThrow(/\.cmd shim/);
  });
});
