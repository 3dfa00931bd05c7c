// What `build:release` produces, checked on one real build: archives and
// SHA256SUMS, the ACP registry entry (against the registry's schema, every
// archive it names built here with the same checksum), the Homebrew formula,
// the npm packages (packed with `npm pack`, installed from a local registry:
// npm i -g, npx, skipped optional dependencies, a CPU without AVX2) and the
// version-stamped installers. (With Bun 1.4 a -baseline build embeds the same
// runtime as its default twin; what differs is the flavour it reports.)
//
// One build serves every test: the targets the registry entry and the
// formula name, plus this host's (for npm) (release-support.ts). Under
// `npm test` it is the run's shared build, made once beside the unit tests;
// alone, this file makes it (~40 s of CPU; all 12 targets would add ~20 s). Each
// archive is unpacked once, right after the build (within its budget): the
// tests read what was kept of it (names, first bytes, SHA-256, and the
// host's binaries on disk), so no test waits on ~100 MB of gunzip, and the
// archives' contents are not held in memory.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { parseSha256Sums, sha256Hex } from "../../src/cli/checksums.ts";
import {
  HOMEBREW_FORMULA,
  HOMEBREW_TAP_REPO,
  HOMEBREW_TARGETS,
  NPM_OPTIONAL_TARGETS,
  NPM_PACKAGE,
  npmPlatformFields,
  npmPlatformPackage,
  REGISTRY_AGENT_ID,
  REGISTRY_PLATFORMS,
} from "../../src/cli/distribution.ts";
import {
  assetName,
  binaryName,
  DEFAULT_DOWNLOAD_BASE,
  parseTargetId,
  type ReleaseTarget,
  targetId,
} from "../../src/cli/release-targets.ts";
import { npmDirName } from "../../scripts/release/npm-packages.ts";
import { registrySchemaErrors } from "../support/registry-schema.ts";
import { archiveEntries, sha256OfFile } from "./archive-support.ts";
import { initializeRoundTrip, ROOT, run, serveFiles } from "./cli-support.ts";
import { isolatedNpmEnv, npmPack, serveRegistry, type PackedPackage } from "./npm-registry-support.ts";
import { buildRelease, HOST, HOST_BASELINE, RELEASE_TEST_TARGETS, sharedBuildBudget, sharedReleaseOut } from "./release-support.ts";

const host = HOST;
const hostBaseline = HOST_BASELINE;
const TARGETS = RELEASE_TEST_TARGETS;

let tmp: string;
let out: string;
let sums: Map<string, string>;

/** What a target's archive holds, read once. */
interface Archived {
  names: string[];
  /** The first 64 KiB of its executable: magic number and PE header. */
  head: Uint8Array;
  sha256: string;
  /** The executable unpacked to disk (only for the builds this host can run). */
  path?: string;
}
const archived = new Map<string, Archived>();

/** Unpacks each archive once, one at a time (each executable is ~100 MB). */
async function unpackAll(): Promise<void> {
  const runnable = new Set([targetId(host), ...(hostBaseline ? [targetId(hostBaseline)] : [])]);
  for (const id of TARGETS) {
    const t = parseTargetId(id)!;
    const entries = await archiveEntries(releaseFile(assetName(t)));
    const bin = entries.get(binaryName(t)) ?? new Uint8Array();
    let path: string | undefined;
    if (runnable.has(id)) {
      path = join(mkdtempSync(join(tmp, "unpacked-")), binaryName(t));
      writeFileSync(path, bin, { mode: 0o755 });
    }
    archived.set(id, { names: [...entries.keys()], head: bin.slice(0, 64 * 1024), sha256: sha256Hex(bin), path });
  }
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-release-"));
  // `npm test` built it once for every install test (release-support.ts); alone, this file builds it.
  const shared = await sharedReleaseOut();
  if (shared) out = shared;
  else {
    out = join(tmp, "out");
    const started = performance.now();
    const r = await buildRelease(out);
    if (r.code !== 0) throw new Error(`build:release failed (exit ${r.code}):\n${r.stderr}`);
    console.log(`build:release of ${TARGETS.length} targets: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  sums = parseSha256Sums(readFileSync(join(out, "release/SHA256SUMS"), "utf8"));
  await unpackAll();
}, sharedBuildBudget(600_000)); // may wait for the shared release build; alone, builds it

afterAll(() => {
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

const releaseFile = (name: string) => join(out, "release", name);

/** What the target's archive holds, which must be its one executable. */
function archivedBinary(t: ReleaseTarget): Archived {
  const a = archived.get(targetId(t));
  if (!a) throw new Error(`${targetId(t)}: not unpacked (did the build fail?)`);
  expect(a.names).toEqual([binaryName(t)]);
  return a;
}

describe("archives", () => {
  test("SHA256SUMS lists exactly the built archives, each with its file's SHA-256", () => {
    const archives = readdirSync(join(out, "release")).filter((f) => f.endsWith(".tar.gz") || f.endsWith(".zip"));
    expect(archives.sort()).toEqual(TARGETS.map((id) => assetName(parseTargetId(id)!)).sort());
    expect([...sums.keys()].sort()).toEqual(archives.sort());
    for (const a of archives) expect(sums.get(a)).toBe(sha256OfFile(releaseFile(a)));
  }, 60_000);

  test("each archive holds one executable for its OS and CPU", async () => {
    for (const id of TARGETS) {
      const t = parseTargetId(id)!;
      const bin = archivedBinary(t).head;
      // ELF, Mach-O (64-bit) or PE, as the target's OS needs.
      const magic = Buffer.from(bin.subarray(0, 4)).toString("hex");
      expect(magic).toStartWith(t.os === "linux" ? "7f454c46" : t.os === "darwin" ? "cffaedfe" : "4d5a");
      if (t.os === "windows") {
        // The PE machine field: 0x8664 for x64, 0xaa64 for ARM64.
        const pe = new DataView(bin.buffer, bin.byteOffset).getUint32(0x3c, true);
        expect(new DataView(bin.buffer, bin.byteOffset).getUint16(pe + 4, true)).toBe(t.arch === "x64" ? 0x8664 : 0xaa64);
      }
    }
  }, 30_000);

  test("each build knows its flavour: `upgrade` asks for its own archive (baseline stays baseline)", async () => {
    // SHA256SUMS without entries: upgrade names the archive it wanted and stops.
    const srv = serveFiles(new Map([["/download/v9.9.9/SHA256SUMS", new Uint8Array()]]));
    try {
      for (const t of [host, ...(hostBaseline ? [hostBaseline] : [])]) {
        const copy = join(mkdtempSync(join(tmp, "flavour-")), binaryName(t));
        copyFileSync(archivedBinary(t).path!, copy);
        const r = await run([copy, "upgrade", "9.9.9"], { env: { PATH: process.env.PATH, HOME: tmp, ZCODE_ACP_DOWNLOAD_BASE: srv.base } });
        expect(r.code).toBe(1);
        expect(r.stderr).toContain(`SHA256SUMS of v9.9.9 has no entry for ${assetName(t)}`);
      }
    } finally {
      srv.server.stop(true);
    }
  }, 60_000);
});

describe("ACP registry entry", () => {
  const entryPath = () => join(out, "registry", REGISTRY_AGENT_ID, "agent.json");
  const entry = () => JSON.parse(readFileSync(entryPath(), "utf8"));

  test("is valid under the registry's schema, for this version", () => {
    expect(registrySchemaErrors(entry())).toEqual([]);
    expect(entry().version).toBe(pkg.version);
    expect(entry().id).toBe(REGISTRY_AGENT_ID);
  });

  test("names only archives this build produced, with the checksum of SHA256SUMS and of the file", () => {
    const binary = entry().distribution.binary as Record<string, { archive: string; sha256: string }>;
    expect(Object.keys(binary).sort()).toEqual(Object.keys(REGISTRY_PLATFORMS).sort());
    for (const [platform, e] of Object.entries(binary)) {
      const asset = e.archive.split("/").at(-1)!;
      expect(asset).toBe(assetName(parseTargetId(REGISTRY_PLATFORMS[platform]!)!));
      expect(e.archive).toBe(`${DEFAULT_DOWNLOAD_BASE}/download/v${pkg.version}/${asset}`);
      expect(e.sha256).toBe(sums.get(asset)!);
      expect(e.sha256).toBe(sha256OfFile(releaseFile(asset)));
    }
  }, 60_000);

  test("is the committed registry/agent.json plus checksums; the icon comes along", () => {
    const committed = JSON.parse(readFileSync(join(ROOT, "registry/agent.json"), "utf8"));
    const generated = entry();
    for (const e of Object.values(generated.distribution.binary) as Array<{ sha256?: string }>) delete e.sha256;
    expect(generated).toEqual(committed);
    expect(readFileSync(join(out, "registry", REGISTRY_AGENT_ID, "icon.svg"))).toEqual(readFileSync(join(ROOT, "registry/icon.svg")));
  });
});

describe("Homebrew formula", () => {
  const formulaPath = () => join(out, "homebrew", `${HOMEBREW_FORMULA}.rb`);

  test("points at this release's archives with their SHA256SUMS checksums; test block and caveats", () => {
    const rb = readFileSync(formulaPath(), "utf8");
    expect(rb).toContain("class ZcodeAcpServer < Formula");
    // The release workflow reads the tap to publish to from this line.
    expect(rb).toMatch(new RegExp(`^# Published to https://github.com/${HOMEBREW_TAP_REPO} by \\.github/workflows/release\\.yml\\.$`, "m"));
    expect(rb).toContain(`version "${pkg.version}"`);
    expect(rb).toContain('license "MIT"');
    for (const o of Object.values(HOMEBREW_TARGETS)) {
      for (const id of [o.arm, o.intel]) {
        const asset = assetName(parseTargetId(id)!);
        expect(rb).toContain(`url "${DEFAULT_DOWNLOAD_BASE}/download/v${pkg.version}/${asset}"\n      sha256 "${sums.get(asset)}"`);
      }
    }
    expect(rb).toContain('bin.install "zcode-acp-server"');
    expect(rb).toContain('shell_output("#{bin}/zcode-acp-server --version")');
    expect(rb).toContain('pipe_output(bin/"zcode-acp-server"');
    expect(rb).toContain('"command": "#{opt_bin}/zcode-acp-server"');
  });

  test("Ruby accepts it, and each platform block selects its own archive (when ruby is installed)", async () => {
    const ruby = Bun.which("ruby");
    if (!ruby) {
      console.warn("SKIP formula under Ruby: ruby is not installed (apt-get install ruby)");
      return;
    }
    expect((await run([ruby, "-c", formulaPath()])).stdout).toContain("Syntax OK");
    // A stand-in for Homebrew's DSL that records the url/sha256 reached for one platform.
    const harness = join(tmp, "formula-harness.rb");
    writeFileSync(
      harness,
      `class Formula
  OS_, CPU_ = ARGV[1], ARGV[2]
  # A global: the formula's class body runs on the subclass, not on Formula.
  def self.picked; $picked ||= {}; end
  %w[desc homepage version license].each { |m| define_singleton_method(m) { |v| picked[m] = v } }
  def self.url(v); picked["url"] = v; end
  def self.sha256(v); picked["sha256"] = v; end
  def self.on_macos; yield if OS_ == "macos"; end
  def self.on_linux; yield if OS_ == "linux"; end
  def self.on_arm; yield if CPU_ == "arm"; end
  def self.on_intel; yield if CPU_ == "intel"; end
  def self.test(&_b); end
end
load ARGV[0]
puts $picked["url"], $picked["sha256"]
`,
    );
    for (const [os, cpus] of Object.entries(HOMEBREW_TARGETS)) {
      for (const [cpu, id] of Object.entries(cpus)) {
        const r = await run([ruby, harness, formulaPath(), os, cpu]);
        expect(r.stderr).toBe("");
        const asset = assetName(parseTargetId(id)!);
        expect(r.stdout.trim().split("\n")).toEqual([`${DEFAULT_DOWNLOAD_BASE}/download/v${pkg.version}/${asset}`, sums.get(asset)!]);
      }
    }
  });
});

describe("npm packages", () => {
  const npmDir = (name: string) => join(out, "npm", npmDirName(name));

  test("the main package and one per built target, each with npm's os/cpu/libc and the archived binary", async () => {
    expect(readdirSync(join(out, "npm")).sort()).toEqual(
      [npmDirName(NPM_PACKAGE), ...TARGETS.map((id) => npmDirName(npmPlatformPackage(parseTargetId(id)!)))].sort(),
    );
    for (const id of TARGETS) {
      const t = parseTargetId(id)!;
      const dir = npmDir(npmPlatformPackage(t));
      const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
      expect(manifest.name).toBe(npmPlatformPackage(t));
      expect(manifest.version).toBe(pkg.version);
      expect({ os: manifest.os, cpu: manifest.cpu, libc: manifest.libc }).toEqual({ libc: undefined, ...npmPlatformFields(t) });
      expect(manifest.bin).toBeUndefined();
      expect(sha256OfFile(join(dir, "bin", binaryName(t)))).toBe(archivedBinary(t).sha256);
      expect(statSync(join(dir, "bin", binaryName(t))).mode & 0o111).not.toBe(0);
    }
  }, 60_000);

  test("the main package: one optional dependency per os/cpu/libc, a .exe bin the postinstall replaces, a #!/bin/sh placeholder", () => {
    const dir = npmDir(NPM_PACKAGE);
    const manifest = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(manifest.name).toBe(NPM_PACKAGE);
    expect(manifest.version).toBe(pkg.version);
    expect(manifest.license).toBe("MIT");
    expect(manifest.bin).toEqual({ "zcode-acp-server": "bin/zcode-acp-server.exe" });
    expect(manifest.scripts).toEqual({ postinstall: "node install.js" });
    expect(manifest.optionalDependencies).toEqual(
      Object.fromEntries(NPM_OPTIONAL_TARGETS.map((t) => [npmPlatformPackage(t), pkg.version])),
    );
    // One per os/cpu/libc: npm would otherwise install two binaries somewhere.
    const keys = NPM_OPTIONAL_TARGETS.map((t) => JSON.stringify(npmPlatformFields(t)));
    expect(new Set(keys).size).toBe(keys.length);
    expect(readFileSync(join(dir, "install.js"), "utf8")).toBe(readFileSync(join(ROOT, "scripts/npm/postinstall.cjs"), "utf8"));
    expect(readFileSync(join(dir, "bin/zcode-acp-server.exe"), "utf8")).toStartWith("#!/bin/sh\n");
    expect(existsSync(join(dir, "LICENSE"))).toBe(true);
  });

  describe("installed with npm from a local registry", () => {
    let packs: PackedPackage[];
    let registry: ReturnType<typeof serveRegistry>;
    let npmEnv: Record<string, string | undefined>;

    beforeAll(async () => {
      const packDir = mkdtempSync(join(tmp, "packs-"));
      const names = [NPM_PACKAGE, npmPlatformPackage(host), ...(hostBaseline ? [npmPlatformPackage(hostBaseline)] : [])];
      const packEnv = isolatedNpmEnv(tmp, "http://127.0.0.1:9/");
      packs = await Promise.all(names.map((n) => npmPack(npmDir(n), packDir, packEnv)));
      registry = serveRegistry(packs);
      npmEnv = isolatedNpmEnv(tmp, registry.url);
    }, 120_000);
    afterAll(() => registry?.server.stop(true));

    const installedBinarySha = (root: string) => sha256OfFile(join(root, "node_modules", NPM_PACKAGE, "bin/zcode-acp-server.exe"));

    test("npm i -g: the command is the native binary; --version, initialize; upgrade points back to npm", async () => {
      const prefix = join(tmp, "global");
      const r = await run(["npm", "install", "-g", "--prefix", prefix, `${NPM_PACKAGE}@${pkg.version}`], {
        env: npmEnv,
        timeoutMs: 120_000,
      });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const cmd = join(prefix, "bin", "zcode-acp-server");
      // Not a Node script: the ELF/Mach-O binary itself answers.
      expect(readFileSync(cmd).subarray(0, 2).toString("latin1")).not.toBe("#!");
      expect(installedBinarySha(join(prefix, "lib"))).toBe(archivedBinary(host).sha256);
      expect((await run([cmd, "--version"], { env: { PATH: "/usr/bin:/bin" } })).stdout.trim()).toBe(pkg.version);
      const init = await initializeRoundTrip(cmd, { HOME: tmp });
      expect((init.response.result as { protocolVersion?: number }).protocolVersion).toBe(1);
      expect(init.code).toBe(0);
      const up = await run([cmd, "upgrade"], { env: { PATH: process.env.PATH, HOME: tmp } });
      expect(up.code).toBe(1);
      expect(up.stderr).toContain(`npm install -g ${NPM_PACKAGE}@latest`);
    }, 120_000);

    test("optional dependencies skipped (--omit=optional): the postinstall installs the platform package itself", async () => {
      const project = join(tmp, "project");
      mkdirSync(project, { recursive: true });
      writeFileSync(join(project, "package.json"), "{}");
      const before = registry.requests.length;
      // A fresh npm cache, so the platform package's download shows on the registry.
      const r = await run(["npm", "install", "--omit=optional", `${NPM_PACKAGE}@${pkg.version}`], {
        env: isolatedNpmEnv(tmp, registry.url),
        cwd: project,
        timeoutMs: 120_000,
      });
      expect(r.code).toBe(0);
      expect(existsSync(join(project, "node_modules", npmPlatformPackage(host)))).toBe(false);
      // The postinstall's own `npm install` fetched it.
      expect(registry.requests.slice(before)).toContain(`/-/${npmPlatformPackage(host)}-${pkg.version}.tgz`);
      expect(installedBinarySha(project)).toBe(archivedBinary(host).sha256);
      expect((await run([join(project, "node_modules/.bin/zcode-acp-server"), "--version"])).stdout.trim()).toBe(pkg.version);
    }, 120_000);

    test("a CPU without AVX2 gets the baseline package", async () => {
      if (!hostBaseline || host.os !== "linux") {
        console.warn(`SKIP baseline npm install: ${targetId(host)} has no baseline twin or no /proc/cpuinfo to stand in`);
        return;
      }
      const cpuinfo = join(tmp, "cpuinfo-no-avx2");
      writeFileSync(cpuinfo, "processor\t: 0\nflags\t\t: fpu sse sse2 sse4_1 sse4_2 popcnt\n");
      const prefix = join(tmp, "global-baseline");
      const r = await run(["npm", "install", "-g", "--prefix", prefix, `${NPM_PACKAGE}@${pkg.version}`], {
        env: { ...npmEnv, ZCODE_ACP_CPUINFO: cpuinfo },
        timeoutMs: 120_000,
      });
      expect(r.code).toBe(0);
      expect(installedBinarySha(join(prefix, "lib"))).toBe(archivedBinary(hostBaseline).sha256);
      expect((await run([join(prefix, "bin/zcode-acp-server"), "--version"])).stdout.trim()).toBe(pkg.version);
    }, 120_000);

    test("npx -y runs it", async () => {
      const r = await run(["npx", "-y", `${NPM_PACKAGE}@${pkg.version}`, "--version"], {
        env: npmEnv,
        cwd: tmp,
        timeoutMs: 120_000,
      });
      expect(r.stdout.trim()).toBe(pkg.version);
      expect(r.code).toBe(0);
    }, 120_000);
  });
});

describe("installers attached to the release", () => {
  test("install.sh and install.ps1 are stamped with this version, the rest unchanged", async () => {
    for (const [name, from, to] of [
      ["install.sh", 'PINNED_VERSION=""', `PINNED_VERSION="${pkg.version}"`],
      ["install.ps1", '$PinnedVersion = ""', `$PinnedVersion = "${pkg.version}"`],
    ] as const) {
      const repo = readFileSync(join(ROOT, name), "utf8");
      expect(readFileSync(releaseFile(name), "utf8")).toBe(repo.replace(from, to));
    }
    expect((await run(["sh", "-n", releaseFile("install.sh")])).code).toBe(0);
    if (Bun.which("shellcheck")) expect((await run(["shellcheck", "-s", "sh", releaseFile("install.sh")])).code).toBe(0);
    else console.warn("SKIP shellcheck of the stamped install.sh: not installed");
  });
});
