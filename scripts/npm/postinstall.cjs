// Postinstall of the zcode-acp-server npm package (shipped as install.js).
//
// npm links the command `zcode-acp-server` to bin/zcode-acp-server.exe, a
// placeholder. This script puts the native binary for this machine in its
// place, so the command starts the binary itself: no Node process per launch
// (an editor starts the bridge for every agent session). On Windows the
// `.exe` name lets the shims (rewritten below once the binary is in place)
// start it directly; on Unix the name does not matter. The binary comes from:
//   1. the platform package npm installed as an optional dependency
//      (os, cpu and libc select it), or
//   2. when optional dependencies were skipped (--omit=optional,
//      --no-optional, some lockfile or mirror setups), or the CPU needs the
//      baseline build that is not an optional dependency: `npm install` of
//      that platform package into a temporary directory, with the user's npm
//      configuration (registry, proxy, cache).
// Every candidate must answer `--version` with this package's version before
// it is put in place: should the default build not start on this CPU (Bun
// before 1.4 built it for AVX2), the baseline build is tried next.
//
// Plain CommonJS for any Node npm runs on; no dependencies.
"use strict";

const fs = require("fs");
const os = require("os");
const path = require("path");
const { spawnSync } = require("child_process");

const pkg = require("./package.json");
const DEST = path.join(__dirname, "bin", "zcode-acp-server.exe");
const RELEASES = `${String(pkg.homepage || "").replace(/#.*$/, "")}/releases`;

function log(line) {
  process.stderr.write(`${pkg.name}: ${line}\n`);
}

/** Release target ids to try, best first (the naming of src/cli/release-targets.ts). */
function candidateTargets() {
  const platform = process.platform === "win32" ? "windows" : process.platform;
  if (platform !== "linux" && platform !== "darwin" && platform !== "windows") {
    throw new Error(`no zcode-acp-server build exists for ${process.platform}`);
  }
  const arch = process.arch;
  if (arch !== "x64" && arch !== "arm64") throw new Error(`no zcode-acp-server build exists for ${process.arch}`);
  let id = `${platform}-${arch}`;
  if (platform === "linux" && isMusl()) id += "-musl";
  if (arch !== "x64") return [id];
  // Without AVX2, the baseline build, the one meant for such CPUs; when we
  // cannot tell, the default first and the --version check decides.
  return hasAvx2(platform) === false ? [`${id}-baseline`] : [id, `${id}-baseline`];
}

function isMusl() {
  try {
    const report = process.report && process.report.getReport();
    if (report && report.header) return !report.header.glibcVersionRuntime;
  } catch {}
  try {
    return fs.readdirSync("/lib").some((f) => f.startsWith("ld-musl-"));
  } catch {
    return false;
  }
}

/** true, false, or undefined when this machine cannot be asked cheaply. */
function hasAvx2(platform) {
  try {
    if (platform === "linux") {
      // ZCODE_ACP_CPUINFO lets tests stand in another CPU, as for install.sh.
      const info = fs.readFileSync(process.env.ZCODE_ACP_CPUINFO || "/proc/cpuinfo", "latin1");
      return /\bavx2\b/.test(info);
    }
    if (platform === "darwin") {
      const r = spawnSync("sysctl", ["-n", "hw.optional.avx2_0"], { encoding: "utf8" });
      return r.status === 0 ? r.stdout.trim() === "1" : undefined;
    }
    // PF_AVX2_INSTRUCTIONS_AVAILABLE is 40; Windows PowerShell 5.1 ships everywhere.
    const probe =
      "(Add-Type -MemberDefinition '[DllImport(\"kernel32.dll\")] public static extern bool IsProcessorFeaturePresent(int f);' -Name K32 -Namespace ZCodeAcpNpm -PassThru)::IsProcessorFeaturePresent(40)";
    const r = spawnSync("powershell.exe", ["-NoProfile", "-NonInteractive", "-Command", probe], {
      encoding: "utf8",
      timeout: 10000,
      windowsHide: true,
    });
    if (r.status !== 0) return undefined;
    const out = r.stdout.trim();
    return out === "True" ? true : out === "False" ? false : undefined;
  } catch {
    return undefined;
  }
}

function binaryIn(packageDir) {
  return path.join(packageDir, "bin", process.platform === "win32" ? "zcode-acp-server.exe" : "zcode-acp-server");
}

/** The platform package as npm installed it, if it did. */
function installedPackage(name) {
  try {
    return path.dirname(require.resolve(`${name}/package.json`, { paths: [__dirname] }));
  } catch {
    return undefined;
  }
}

/** `npm install <name>@<version>` into a temporary directory; returns the package directory. */
function npmInstall(name, tmp) {
  const npmCli = process.env.npm_execpath;
  const args = [
    "install",
    `${name}@${pkg.version}`,
    "--prefix",
    tmp,
    "--no-save",
    "--no-package-lock",
    "--ignore-scripts",
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ];
  const env = { ...process.env };
  // Inside `npm install -g` these would make the nested install global too
  // and wait forever on the global install's lock.
  delete env.npm_config_global;
  delete env.npm_config_location;
  const run =
    npmCli && /npm-cli\.c?js$/.test(npmCli)
      ? spawnSync(process.execPath, [npmCli, ...args], { encoding: "utf8", env, cwd: tmp })
      : spawnSync(process.platform === "win32" ? "npm.cmd" : "npm", args, {
          encoding: "utf8",
          env,
          cwd: tmp,
          shell: process.platform === "win32",
        });
  if (run.status !== 0) {
    throw new Error(`npm install ${name}@${pkg.version} failed: ${(run.stderr || run.error || "").toString().trim()}`);
  }
  return path.join(tmp, "node_modules", ...name.split("/"));
}

/** The version the binary prints, or why it printed none. */
function versionOf(bin) {
  const r = spawnSync(bin, ["--version"], { encoding: "utf8", timeout: 30000, windowsHide: true });
  if (r.error) return { error: r.error.message };
  if (r.status !== 0) return { error: `exit ${r.status === null ? r.signal : r.status} ${(r.stderr || "").trim()}`.trim() };
  return { version: r.stdout.trim() };
}

/** Replace the placeholder: link or copy next to it, then rename over it. */
function place(bin) {
  const staged = `${DEST}.${process.pid}.tmp`;
  fs.rmSync(staged, { force: true });
  try {
    fs.linkSync(bin, staged);
  } catch {
    fs.copyFileSync(bin, staged);
  }
  fs.chmodSync(staged, 0o755);
  fs.renameSync(staged, DEST);
}

/**
 * npm made its Windows shims (.cmd, .ps1, and an sh one for Git Bash) for
 * the command before this script ran, from the placeholder, whose `#!/bin/sh`
 * line makes them run it through /bin/sh. Now that the native .exe is there,
 * they start it directly, as npm's shims do for a file with no `#!` line.
 * Where npm puts them: node_modules/.bin for a project or npx, the prefix
 * itself for a global install (<prefix>/node_modules/<pkg>). Only shims that
 * point at this package's bin and go through an interpreter are rewritten.
 */
function rewriteWindowsShims(packageDir, dest) {
  const dirs = [path.resolve(packageDir, "..", "..", ".bin"), path.resolve(packageDir, "..", "..", "..")];
  // A scoped package sits one level deeper.
  if (path.basename(path.dirname(packageDir)).startsWith("@")) {
    dirs.push(path.resolve(packageDir, "..", "..", "..", ".bin"), path.resolve(packageDir, "..", "..", "..", ".."));
  }
  const rewritten = [];
  for (const dir of [...new Set(dirs)]) {
    const rel = path.relative(dir, dest);
    const win = rel.split(path.sep).join("\\");
    const fwd = rel.split(path.sep).join("/");
    const shims = {
      "zcode-acp-server.cmd": `@ECHO off\r\nGOTO start\r\n:find_dp0\r\nSET dp0=%~dp0\r\nEXIT /b\r\n:start\r\nSETLOCAL\r\nCALL :find_dp0\r\n"%dp0%\\${win}" %*\r\n`,
      "zcode-acp-server.ps1":
        `#!/usr/bin/env pwsh\n$basedir=Split-Path $MyInvocation.MyCommand.Definition -Parent\n` +
        `if ($MyInvocation.ExpectingInput) {\n  $input | & "$basedir/${fwd}" $args\n} else {\n  & "$basedir/${fwd}" $args\n}\nexit $LASTEXITCODE\n`,
      "zcode-acp-server": `#!/bin/sh\nbasedir=$(dirname "$(echo "$0" | sed -e 's,\\\\,/,g')")\nexec "$basedir/${fwd}" "$@"\n`,
    };
    for (const [name, text] of Object.entries(shims)) {
      const file = path.join(dir, name);
      let old;
      try {
        old = fs.readFileSync(file, "utf8");
      } catch {
        continue;
      }
      const ours = old.split("\\").join("/").includes("bin/zcode-acp-server.exe") && /\/bin\/sh/.test(old);
      if (!ours) continue;
      fs.writeFileSync(file, text);
      rewritten.push(file);
    }
  }
  return rewritten;
}

function main() {
  const reasons = [];
  for (const id of candidateTargets()) {
    const name = `${pkg.name}-${id}`;
    let tmp;
    try {
      let dir = installedPackage(name);
      if (!dir) {
        log(`${name} is not installed (optional dependencies skipped, or this CPU needs it); installing it with npm`);
        tmp = fs.mkdtempSync(path.join(os.tmpdir(), "zcode-acp-npm-"));
        dir = npmInstall(name, tmp);
      }
      const bin = binaryIn(dir);
      const v = versionOf(bin);
      if (v.version !== pkg.version) {
        reasons.push(
          `${name}: --version ${v.error ? `failed (${v.error})` : `printed ${JSON.stringify(v.version)}, expected ${pkg.version}`}`,
        );
        continue;
      }
      place(bin);
      const placed = versionOf(DEST);
      if (placed.version !== pkg.version) throw new Error(`${DEST} --version: ${placed.error || placed.version}`);
      if (process.platform === "win32") rewriteWindowsShims(__dirname, DEST);
      return;
    } catch (e) {
      reasons.push(`${name}: ${e && e.message ? e.message : e}`);
    } finally {
      if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
    }
  }
  log(`could not install the zcode-acp-server binary for this machine:\n  ${reasons.join("\n  ")}`);
  log(
    `Install it without npm instead: curl -fsSL ${RELEASES}/latest/download/install.sh | sh` +
      ` (Windows: irm ${RELEASES}/latest/download/install.ps1 | iex)`,
  );
  process.exit(1);
}

if (require.main === module) {
  try {
    main();
  } catch (e) {
    log(e && e.message ? e.message : String(e));
    process.exit(1);
  }
}

module.exports = { rewriteWindowsShims };
