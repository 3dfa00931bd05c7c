// What a release is made of: the platform matrix, asset names and download
// URLs. Shared by `upgrade`, scripts/release.ts and the tests so the names can
// never drift apart. install.sh and install.ps1 repeat the naming rule in
// shell; test/e2e/install-*.test.ts checks they agree.
import { existsSync, readFileSync } from "node:fs";

/** Placeholder GitHub owner of the project: the one place to change it. */
export const RELEASE_OWNER = "zcode-acp";
export const RELEASE_REPO = `${RELEASE_OWNER}/zcode-acp-server`;
export const DEFAULT_DOWNLOAD_BASE = `https://github.com/${RELEASE_REPO}/releases`;

export interface ReleaseTarget {
  os: "linux" | "darwin" | "windows";
  arch: "x64" | "arm64";
  musl?: boolean;
  /** x64 build on Bun's `-baseline` runtime, the one meant for CPUs without AVX2. */
  baseline?: boolean;
}

// Every x64 build has a `-baseline` twin for CPUs without AVX2 (older ones,
// VMs that hide it): before Bun 1.4 the default x64 runtime was built for
// Haswell and died there with an illegal instruction. Since Bun 1.4.0 both
// names are one SSE4.2 (x86-64-v2) runtime with SIMD picked at run time
// (oven-sh/bun#36465; the 1.4.5 runtimes are byte-identical), so today the
// twins differ only in the flavour they report. They stay so installers, the
// registry entry and the npm packages keep a build that is meant to start
// without AVX2, whatever Bun builds a release. Windows on ARM gets its own
// native build (Bun 1.4 cross-compiles bun-windows-arm64).
export const RELEASE_TARGETS: readonly ReleaseTarget[] = [
  { os: "linux", arch: "x64" },
  { os: "linux", arch: "x64", baseline: true },
  { os: "linux", arch: "arm64" },
  { os: "linux", arch: "x64", musl: true },
  { os: "linux", arch: "x64", musl: true, baseline: true },
  { os: "linux", arch: "arm64", musl: true },
  { os: "darwin", arch: "x64" },
  { os: "darwin", arch: "x64", baseline: true },
  { os: "darwin", arch: "arm64" },
  { os: "windows", arch: "x64" },
  { os: "windows", arch: "x64", baseline: true },
  { os: "windows", arch: "arm64" },
];

/** `linux-x64-musl`, `linux-x64-baseline`, `darwin-arm64`, ... */
export function targetId(t: ReleaseTarget): string {
  return `${t.os}-${t.arch}${t.musl ? "-musl" : ""}${t.baseline ? "-baseline" : ""}`;
}

export function assetName(t: ReleaseTarget): string {
  return `zcode-acp-server-${targetId(t)}${t.os === "windows" ? ".zip" : ".tar.gz"}`;
}

export function binaryName(t: Pick<ReleaseTarget, "os">): string {
  return t.os === "windows" ? "zcode-acp-server.exe" : "zcode-acp-server";
}

/** The `--target` of `bun build --compile` (Bun's own runtime names, e.g. bun-linux-x64-musl-baseline). */
export function bunTarget(t: ReleaseTarget): string {
  return `bun-${targetId(t)}`;
}

export function parseTargetId(id: string): ReleaseTarget | undefined {
  return RELEASE_TARGETS.find((t) => targetId(t) === id);
}

/**
 * `v1.2.3` for a version, `latest` for none. Accepts `1.2.3` or `v1.2.3`;
 * anything else is refused before a URL is built from it.
 */
export function releaseTag(version: string | undefined): string {
  if (version === undefined || version === "" || version === "latest") return "latest";
  const v = version.startsWith("v") ? version.slice(1) : version;
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(v)) {
    throw new Error(`'${version}' is not a version (expected e.g. 0.2.0 or v0.2.0)`);
  }
  return `v${v}`;
}

/** GitHub's layout: releases/latest/download/<f> and releases/download/<tag>/<f>. */
export function downloadUrl(base: string, tag: string, file: string): string {
  const b = base.replace(/\/+$/, "");
  return tag === "latest" ? `${b}/latest/download/${file}` : `${b}/download/${tag}/${file}`;
}

// Release builds define this to their target id so `upgrade` fetches the same
// flavour (musl, baseline) that is running; host builds detect it.
declare const __RELEASE_TARGET__: string | undefined;

/** The release flavour for the machine we run on. */
export function hostTarget(): ReleaseTarget {
  if (typeof __RELEASE_TARGET__ === "string") {
    const t = parseTargetId(__RELEASE_TARGET__);
    if (t) return t;
  }
  const os = process.platform === "win32" ? "windows" : process.platform;
  if (os !== "linux" && os !== "darwin" && os !== "windows") {
    throw new Error(`no release is built for ${process.platform}`);
  }
  const arch = process.arch;
  if (arch !== "x64" && arch !== "arm64") throw new Error(`no release is built for ${process.arch}`);
  const t: ReleaseTarget = { os, arch };
  if (os === "linux" && isMusl()) t.musl = true;
  // Windows stays on the default x64 build here: this only decides for source
  // runs; release builds carry their flavour in __RELEASE_TARGET__.
  if (arch === "x64" && os !== "windows" && !hasAvx2(os)) t.baseline = true;
  const known = parseTargetId(targetId(t));
  if (!known) throw new Error(`no release is built for ${targetId(t)}`);
  return known;
}

function isMusl(): boolean {
  return existsSync("/lib/ld-musl-x86_64.so.1") || existsSync("/lib/ld-musl-aarch64.so.1");
}

function hasAvx2(os: "linux" | "darwin"): boolean {
  try {
    if (os === "darwin") {
      // Intel Macs report hw.optional.avx2_0 = 1 when AVX2 is there; the key
      // is missing on Apple Silicon, which never runs an x64 build natively.
      const p = Bun.spawnSync(["sysctl", "-n", "hw.optional.avx2_0"], { stdout: "pipe", stderr: "ignore" });
      return p.exitCode !== 0 || p.stdout.toString().trim() === "1";
    }
    return /\bavx2\b/.test(readFileSync("/proc/cpuinfo", "latin1"));
  } catch {
    return true;
  }
}
