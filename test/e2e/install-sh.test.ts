// install.sh against a fake release served on 127.0.0.1: the right asset for
// each platform, checksum verification, atomic install, and the real binary
// driven through `initialize` after installing it. Runs under bash and dash
// (and busybox sh when present).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { assetName, RELEASE_TARGETS, targetId } from "../../src/cli/release-targets.ts";
import { stampInstaller } from "../../scripts/release/stamp-installers.ts";
import { BRIDGE_BIN, fakeBinary, INITIALIZE_LINE, initializeRoundTrip, ROOT, run, serveFiles, sha256, tarGz } from "./cli-support.ts";
import { sharedBuildBudget, sharedHostArchive } from "./release-support.ts";

const INSTALL_SH = join(ROOT, "install.sh");
const unixTargets = RELEASE_TARGETS.filter((t) => t.os !== "windows");

const files = new Map<string, Uint8Array>();
let tmp: string;
let srv: ReturnType<typeof serveFiles>;
let cpuWithAvx2: string;
let cpuWithoutAvx2: string;

/** Publish `assets` under a tag (and under latest when asked), with SHA256SUMS. */
function publish(tag: string, assets: Map<string, Uint8Array>, opts: { latest?: boolean; sums?: string } = {}) {
  const sums = opts.sums ?? [...assets].map(([name, bytes]) => `${sha256(bytes)}  ${name}\n`).join("");
  const put = (prefix: string) => {
    files.set(`${prefix}/SHA256SUMS`, new TextEncoder().encode(sums));
    for (const [name, bytes] of assets) files.set(`${prefix}/${name}`, bytes);
  };
  put(`/download/${tag}`);
  if (opts.latest) put("/latest/download");
}

/** A bin dir whose `uname` (and optionally `ldd`, `sysctl`) pretend to be another machine. */
function fakeMachine(name: string, s: string, m: string, extra: Record<string, string> = {}): string {
  const dir = join(tmp, `machine-${name}`);
  mkdirSync(dir, { recursive: true });
  const scripts: Record<string, string> = {
    uname: `#!/bin/sh\ncase "$1" in -s) echo ${s} ;; -m) echo ${m} ;; *) echo ${s} ;; esac\n`,
    ...extra,
  };
  for (const [cmd, body] of Object.entries(scripts)) {
    writeFileSync(join(dir, cmd), body);
    chmodSync(join(dir, cmd), 0o755);
  }
  return dir;
}

// The strictest POSIX shell at hand for the tests that are not per-shell.
const SH = Bun.which("dash") ? "dash" : "bash";

const GLIBC_LDD = `#!/bin/sh\necho "ldd (GNU libc) 2.36"\n`;
const MUSL_LDD = `#!/bin/sh\necho "musl libc (aarch64)" >&2\nexit 1\n`;

function shells(): string[] {
  const found = ["bash", "dash"].filter((s) => Bun.which(s));
  if (Bun.which("busybox")) found.push("busybox");
  return found;
}

async function install(
  shell: string,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<Awaited<ReturnType<typeof run>> & { dir: string }> {
  const dir = mkdtempSync(join(tmp, "inst-"));
  const exe = Bun.which(shell) ?? shell;
  const cmd = shell === "busybox" ? [exe, "sh", INSTALL_SH, ...args] : [exe, INSTALL_SH, ...args];
  const r = await run(cmd, {
    env: {
      PATH: process.env.PATH,
      HOME: tmp,
      ZCODE_ACP_DOWNLOAD_BASE: srv.base,
      ZCODE_ACP_INSTALL_DIR: dir,
      ZCODE_ACP_CPUINFO: cpuWithAvx2,
      ...env,
    },
    timeoutMs: 50_000, // the real ~100 MB archive, on a busy machine
  });
  return { ...r, dir };
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-install-"));
  cpuWithAvx2 = join(tmp, "cpuinfo-avx2");
  cpuWithoutAvx2 = join(tmp, "cpuinfo-sse4");
  writeFileSync(cpuWithAvx2, "processor\t: 0\nflags\t\t: fpu sse sse2 sse4_1 sse4_2 avx avx2 bmi2\n");
  writeFileSync(cpuWithoutAvx2, "processor\t: 0\nflags\t\t: fpu sse sse2 sse4_1 sse4_2 popcnt\n");

  // v9.9.9 (also "latest"): a fake binary per platform that names its target.
  const fakes = new Map<string, Uint8Array>();
  for (const t of unixTargets) {
    fakes.set(assetName(t), await tarGz("zcode-acp-server", fakeBinary(`9.9.9+${targetId(t)}`)));
  }
  publish("v9.9.9", fakes, { latest: true });

  // v1.0.0: the real bridge as this Linux machine's asset: under `npm test`
  // the run's release archive for this host (release-support.ts), alone the
  // compiled bridge archived here.
  const real = new Map<string, Uint8Array>();
  const bytes =
    (await sharedHostArchive()) ?? (existsSync(BRIDGE_BIN) ? await tarGz("zcode-acp-server", readFileSync(BRIDGE_BIN)) : undefined);
  if (bytes) {
    real.set("zcode-acp-server-linux-x64.tar.gz", bytes);
    real.set("zcode-acp-server-linux-arm64.tar.gz", bytes);
  }
  publish("v1.0.0", real);

  // v3.3.3: an older release, for the installer stamped with its version.
  const older = new Map<string, Uint8Array>();
  for (const t of unixTargets) older.set(assetName(t), await tarGz("zcode-acp-server", fakeBinary(`3.3.3+${targetId(t)}`)));
  publish("v3.3.3", older);

  // v5.5.5: binaries that do not start (a musl build on an Alpine without libstdc++).
  const dead = new Map<string, Uint8Array>();
  for (const t of unixTargets) dead.set(assetName(t), await tarGz("zcode-acp-server", "#!/bin/sh\nexit 127\n"));
  publish("v5.5.5", dead);

  // v6.6.6: the archive was swapped after SHA256SUMS was written.
  const good = await tarGz("zcode-acp-server", fakeBinary("6.6.6"));
  const evil = await tarGz("zcode-acp-server", fakeBinary("6.6.6-evil"));
  publish("v6.6.6", new Map([["zcode-acp-server-linux-x64.tar.gz", evil]]), {
    sums: `${sha256(good)}  zcode-acp-server-linux-x64.tar.gz\n`,
  });
  // v7.7.7: SHA256SUMS lists other assets but not ours.
  publish("v7.7.7", new Map([["zcode-acp-server-linux-x64.tar.gz", good]]), {
    sums: `${sha256(good)}  zcode-acp-server-darwin-arm64.tar.gz\n`,
  });

  srv = serveFiles(files);
}, sharedBuildBudget(120_000)); // may wait for the shared release build; alone, gzips the real ~100 MB bridge

afterAll(() => {
  srv?.server.stop(true);
  if (tmp) rmSync(tmp, { recursive: true, force: true });
});

test("install.sh is POSIX sh that shellcheck accepts", async () => {
  if (!Bun.which("shellcheck")) {
    console.warn("SKIP shellcheck: not installed");
    return;
  }
  const r = await run(["shellcheck", "-s", "sh", INSTALL_SH]);
  expect(r.stdout + r.stderr).toBe("");
  expect(r.code).toBe(0);
  // Everything runs from main, called on the last line.
  const lines = readFileSync(INSTALL_SH, "utf8").trimEnd().split("\n");
  expect(lines.at(-1)).toBe('main "$@"');
});

for (const shell of ["bash", "dash", "busybox"]) {
  describe(`under ${shell}`, () => {
    const available = () => {
      if (shells().includes(shell)) return true;
      console.warn(`SKIP install.sh under ${shell}: ${shell} is not installed`);
      return false;
    };

    test("installs the real binary for this machine, which answers initialize", async () => {
      if (!available()) return;
      if (!existsSync(BRIDGE_BIN)) throw new Error(`${BRIDGE_BIN} missing: run bun run build`);
      const machine = fakeMachine(`host-${shell}`, "Linux", process.arch === "arm64" ? "aarch64" : "x86_64", {
        ldd: GLIBC_LDD,
      });
      const r = await install(shell, ["1.0.0"], { PATH: `${machine}:${process.env.PATH}` });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      const bin = join(r.dir, "zcode-acp-server");
      expect(r.stdout).toContain("Verified SHA-256");
      expect(r.stdout).toContain(`Installed zcode-acp-server`);
      expect(r.stdout).toContain(`"command": "${bin}"`); // the Zed snippet
      expect(r.stdout).toContain(`rm ${bin}`); // how to uninstall
      expect(r.stdout).toContain("is not on your PATH");
      expect((await run([bin, "--version"])).stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
      const init = await initializeRoundTrip(bin, { PATH: process.env.PATH, HOME: tmp });
      expect(init.response.id).toBe(1);
      expect((init.response.result as { protocolVersion?: number }).protocolVersion).toBe(1);
    }, 60_000);

    test("latest by default; re-installing replaces the binary in place", async () => {
      if (!available()) return;
      const machine = fakeMachine(`x64-${shell}`, "Linux", "x86_64", { ldd: GLIBC_LDD });
      const env = { PATH: `${machine}:${process.env.PATH}` };
      const first = await install(shell, [], env);
      expect(first.code).toBe(0);
      const bin = join(first.dir, "zcode-acp-server");
      expect((await run([bin, "--version"])).stdout.trim()).toBe("9.9.9+linux-x64");
      // Second install into the same dir, with the dir on PATH: no PATH hint.
      const exe = Bun.which(shell) ?? shell;
      const again = await run([exe, ...(shell === "busybox" ? ["sh"] : []), INSTALL_SH, "v9.9.9"], {
        env: {
          PATH: `${first.dir}:${machine}:${process.env.PATH}`,
          HOME: tmp,
          ZCODE_ACP_DOWNLOAD_BASE: srv.base,
          ZCODE_ACP_INSTALL_DIR: first.dir,
          ZCODE_ACP_CPUINFO: cpuWithAvx2,
        },
      });
      expect(again.code).toBe(0);
      expect(again.stdout).not.toContain("is not on your PATH");
      expect((await run([bin, "--version"])).stdout.trim()).toBe("9.9.9+linux-x64");
    });
  });
}

test("re-installing while an editor runs the old binary: the running one keeps serving, the new one is in place", async () => {
  if (!existsSync(BRIDGE_BIN)) throw new Error(`${BRIDGE_BIN} missing: run bun run build`);
  const machine = fakeMachine("x64-running", "Linux", "x86_64", { ldd: GLIBC_LDD });
  const env = { PATH: `${machine}:${process.env.PATH}` };
  const first = await install(SH, ["1.0.0"], env);
  expect(first.code).toBe(0);
  const bin = join(first.dir, "zcode-acp-server");
  // The "editor": the old binary serving ACP, started before the upgrade and
  // spoken to only after it (writing over a running executable fails with ETXTBSY).
  const running = Bun.spawn([bin], { env: { PATH: process.env.PATH, HOME: tmp }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => running.kill("SIGKILL"), 20_000);
  try {
    const again = await run([Bun.which(SH) ?? SH, INSTALL_SH, "9.9.9"], {
      env: { ...env, HOME: tmp, ZCODE_ACP_DOWNLOAD_BASE: srv.base, ZCODE_ACP_INSTALL_DIR: first.dir, ZCODE_ACP_CPUINFO: cpuWithAvx2 },
    });
    expect(again.stderr).toBe("");
    expect(again.code).toBe(0);
    expect((await run([bin, "--version"])).stdout.trim()).toBe("9.9.9+linux-x64");
    expect(readdirSync(first.dir)).toEqual(["zcode-acp-server"]); // no staging file left
    running.stdin.write(INITIALIZE_LINE);
    running.stdin.end();
    const out = await new Response(running.stdout).text();
    expect(JSON.parse(out.split("\n")[0]!).result.protocolVersion).toBe(1);
    expect(await running.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    running.kill("SIGKILL");
  }
}, 60_000);

/** A `sysctl -n <key>` that knows the keys install.sh asks (an Intel Mac, natively). */
function fakeSysctl(values: Record<string, string>): string {
  const cases = Object.entries(values)
    .map(([k, v]) => `  ${k}) echo ${v} ;;`)
    .join("\n");
  return `#!/bin/sh\n[ "$1" = -n ] && shift\ncase "$1" in\n${cases}\n  *) exit 1 ;;\nesac\n`;
}

describe("platform detection (fake uname)", () => {
  const cases: Array<{ name: string; s: string; m: string; extra?: Record<string, string>; cpu?: "no-avx2"; want: string }> = [
    { name: "darwin-arm64", s: "Darwin", m: "arm64", want: "darwin-arm64" },
    {
      name: "darwin-x64 with AVX2",
      s: "Darwin",
      m: "x86_64",
      extra: { sysctl: fakeSysctl({ "sysctl.proc_translated": "0", "hw.optional.avx2_0": "1" }) },
      want: "darwin-x64",
    },
    {
      name: "darwin-x64 without AVX2",
      s: "Darwin",
      m: "x86_64",
      extra: { sysctl: fakeSysctl({ "sysctl.proc_translated": "0", "hw.optional.avx2_0": "0" }) },
      want: "darwin-x64-baseline",
    },
    {
      name: "darwin under Rosetta",
      s: "Darwin",
      m: "x86_64",
      extra: { sysctl: '#!/bin/sh\n[ "$2" = sysctl.proc_translated ] && echo 1\n' },
      want: "darwin-arm64",
    },
    { name: "linux-arm64 musl", s: "Linux", m: "aarch64", extra: { ldd: MUSL_LDD }, want: "linux-arm64-musl" },
    { name: "linux-arm64 glibc", s: "Linux", m: "aarch64", extra: { ldd: GLIBC_LDD }, want: "linux-arm64" },
    { name: "linux-x64 without AVX2", s: "Linux", m: "x86_64", extra: { ldd: GLIBC_LDD }, cpu: "no-avx2", want: "linux-x64-baseline" },
    { name: "linux-x64 musl", s: "Linux", m: "x86_64", extra: { ldd: MUSL_LDD }, want: "linux-x64-musl" },
    {
      name: "linux-x64 musl without AVX2",
      s: "Linux",
      m: "x86_64",
      extra: { ldd: MUSL_LDD },
      cpu: "no-avx2",
      want: "linux-x64-musl-baseline",
    },
  ];
  for (const c of cases) {
    test(`${c.name} gets ${c.want}`, async () => {
      const machine = fakeMachine(c.name.replace(/\W+/g, "-"), c.s, c.m, c.extra);
      const r = await install(SH, [], {
        PATH: `${machine}:${process.env.PATH}`,
        ZCODE_ACP_CPUINFO: c.cpu === "no-avx2" ? cpuWithoutAvx2 : cpuWithAvx2,
      });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(srv.requests).toContain(`/latest/download/zcode-acp-server-${c.want}.tar.gz`);
      expect((await run([join(r.dir, "zcode-acp-server"), "--version"])).stdout.trim()).toBe(`9.9.9+${c.want}`);
    });
  }

  test("unsupported OS and architecture are refused clearly", async () => {
    const bsd = fakeMachine("freebsd", "FreeBSD", "x86_64");
    const r1 = await install(SH, [], { PATH: `${bsd}:${process.env.PATH}` });
    expect(r1.code).not.toBe(0);
    expect(r1.stderr).toContain("unsupported operating system 'FreeBSD'");
    const mips = fakeMachine("mips", "Linux", "mips64");
    const r2 = await install(SH, [], { PATH: `${mips}:${process.env.PATH}` });
    expect(r2.code).not.toBe(0);
    expect(r2.stderr).toContain("unsupported CPU architecture 'mips64'");
  });
});

describe("verification", () => {
  const x64 = () => fakeMachine("verify-x64", "Linux", "x86_64", { ldd: GLIBC_LDD });

  test("a tampered archive is refused and nothing is installed", async () => {
    const r = await install(SH, ["6.6.6"], { PATH: `${x64()}:${process.env.PATH}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("checksum mismatch for zcode-acp-server-linux-x64.tar.gz");
    expect(existsSync(join(r.dir, "zcode-acp-server"))).toBe(false);
    expect(readdir(r.dir)).toEqual([]);
  });

  test("a missing SHA256SUMS entry is refused and nothing is installed", async () => {
    const r = await install("bash", ["v7.7.7"], { PATH: `${x64()}:${process.env.PATH}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("SHA256SUMS has no entry for zcode-acp-server-linux-x64.tar.gz");
    expect(readdir(r.dir)).toEqual([]);
  });

  test("ZCODE_ACP_VERSION picks the version; an argument wins over it", async () => {
    const fromEnv = await install(SH, [], { PATH: `${x64()}:${process.env.PATH}`, ZCODE_ACP_VERSION: "8.8.8" });
    expect(fromEnv.code).not.toBe(0);
    expect(fromEnv.stderr).toContain("does version 8.8.8 exist");
    const argWins = await install(SH, ["9.9.9"], { PATH: `${x64()}:${process.env.PATH}`, ZCODE_ACP_VERSION: "8.8.8" });
    expect(argWins.code).toBe(0);
    expect((await run([join(argWins.dir, "zcode-acp-server"), "--version"])).stdout.trim()).toBe("9.9.9+linux-x64");
  });

  test("a version that does not exist says so", async () => {
    const r = await install(SH, ["8.8.8"], { PATH: `${x64()}:${process.env.PATH}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("does version 8.8.8 exist for linux-x64");
  });

  test("a malformed version is refused before any download", async () => {
    const before = srv.requests.length;
    const r = await install(SH, ["1.2; rm -rf /"], { PATH: `${x64()}:${process.env.PATH}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("is not a version");
    expect(srv.requests.length).toBe(before);
  });

  /** A PATH with only the tools install.sh needs, plus `extra` (downloader, hash tool). */
  const minimalPath = (name: string, extra: string[]) => {
    const bin = join(tmp, name);
    mkdirSync(bin, { recursive: true });
    for (const tool of ["uname", "ldd", "grep", "mktemp", "rm", "tar", "gzip", "awk", "cut", "mkdir", "cp", "chmod", "mv", ...extra]) {
      const real = Bun.which(tool);
      if (real) Bun.spawnSync(["ln", "-sf", real, join(bin, tool)]);
    }
    return bin;
  };

  for (const [downloader, hasher] of [
    ["wget", "shasum"],
    ["curl", "openssl"],
  ] as const) {
    test(`${downloader} alone and ${hasher} alone (no sha256sum) still install a verified binary`, async () => {
      if (!Bun.which(downloader) || !Bun.which(hasher)) {
        console.warn(`SKIP: ${downloader} or ${hasher} is not installed`);
        return;
      }
      const machine = fakeMachine(`x64-${downloader}`, "Linux", "x86_64", { ldd: GLIBC_LDD });
      const r = await install(SH, ["9.9.9"], { PATH: `${machine}:${minimalPath(`only-${downloader}-${hasher}`, [downloader, hasher])}` });
      expect(r.stderr).toBe("");
      expect(r.code).toBe(0);
      expect(r.stdout).toContain("Verified SHA-256");
      expect((await run([join(r.dir, "zcode-acp-server"), "--version"])).stdout.trim()).toBe("9.9.9+linux-x64");
    });
  }

  test("no curl and no wget: a clear error", async () => {
    const bin = minimalPath("no-downloader", ["sha256sum"]);
    const r = await install(SH, [], { PATH: bin });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("neither curl nor wget is installed");
  });
});

function readdir(dir: string): string[] {
  return [...new Bun.Glob("*").scanSync({ cwd: dir, dot: true })];
}

/** Run install.sh (`script`, default the repository's) with exactly `env` plus PATH and HOME. */
async function installWith(env: Record<string, string | undefined>, args: string[] = [], script = INSTALL_SH) {
  const machine = fakeMachine("x64-env", "Linux", "x86_64", { ldd: GLIBC_LDD });
  const full: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    PATH: `${machine}:${process.env.PATH}`,
    HOME: tmp,
    ZCODE_ACP_DOWNLOAD_BASE: srv.base,
    ZCODE_ACP_CPUINFO: cpuWithAvx2,
    ...env,
  })) {
    if (v !== undefined) full[k] = v;
  }
  return run([Bun.which(SH) ?? SH, script, ...args], { env: full });
}

describe("where and what it installs", () => {
  test("XDG_BIN_HOME is the install directory when ZCODE_ACP_INSTALL_DIR is not set", async () => {
    const xdg = mkdtempSync(join(tmp, "xdg-bin-"));
    const r = await installWith({ XDG_BIN_HOME: xdg });
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    expect(readdir(xdg)).toEqual(["zcode-acp-server"]);
    expect(r.stdout).toContain(`to ${xdg}/zcode-acp-server`);
    // ZCODE_ACP_INSTALL_DIR still wins; a relative XDG_BIN_HOME is invalid and ignored.
    const own = mkdtempSync(join(tmp, "own-bin-"));
    const wins = await installWith({ XDG_BIN_HOME: xdg, ZCODE_ACP_INSTALL_DIR: own });
    expect(wins.stdout).toContain(`to ${own}/zcode-acp-server`);
    const home = mkdtempSync(join(tmp, "home-"));
    const relative = await installWith({ XDG_BIN_HOME: "bin", HOME: home });
    expect(relative.code).toBe(0);
    expect(readdir(join(home, ".local/bin"))).toEqual(["zcode-acp-server"]);
  });

  test("GITHUB_PATH gets the install directory appended (GitHub Actions)", async () => {
    const dir = mkdtempSync(join(tmp, "gh-bin-"));
    const ghPath = join(tmp, "github_path");
    writeFileSync(ghPath, "/already/there\n");
    const r = await installWith({ ZCODE_ACP_INSTALL_DIR: dir, GITHUB_PATH: ghPath });
    expect(r.code).toBe(0);
    expect(readFileSync(ghPath, "utf8")).toBe(`/already/there\n${dir}\n`);
  });

  test("the copy stamped for a release installs that release by default; an argument, ZCODE_ACP_VERSION and 'latest' still choose", async () => {
    const stamped = join(tmp, "install-3.3.3.sh");
    writeFileSync(stamped, stampInstaller("install.sh", readFileSync(INSTALL_SH, "utf8"), "3.3.3"));
    const version = async (env: Record<string, string | undefined>, args: string[] = []) => {
      const dir = mkdtempSync(join(tmp, "stamped-"));
      const r = await installWith({ ZCODE_ACP_INSTALL_DIR: dir, ...env }, args, stamped);
      expect(r.stderr).toBe("");
      return (await run([join(dir, "zcode-acp-server"), "--version"])).stdout.trim();
    };
    expect(await version({})).toBe("3.3.3+linux-x64");
    expect(srv.requests).toContain("/download/v3.3.3/zcode-acp-server-linux-x64.tar.gz");
    expect(await version({}, ["9.9.9"])).toBe("9.9.9+linux-x64");
    expect(await version({ ZCODE_ACP_VERSION: "9.9.9" })).toBe("9.9.9+linux-x64");
    expect(await version({}, ["latest"])).toBe("9.9.9+linux-x64");
    // The repository's own copy is not stamped: latest.
    expect(readFileSync(INSTALL_SH, "utf8")).toContain('\nPINNED_VERSION=""\n');
  });

  test("on musl, a binary that does not start gets the Alpine fix (apk add libstdc++ libgcc)", async () => {
    const musl = fakeMachine("musl-dead", "Linux", "x86_64", { ldd: MUSL_LDD });
    const r = await install(SH, ["5.5.5"], { PATH: `${musl}:${process.env.PATH}` });
    expect(r.code).not.toBe(0);
    expect(r.stderr).toContain("does not run on this machine (linux-x64-musl)");
    expect(r.stderr).toContain("apk add libstdc++ libgcc");
    expect(readdir(r.dir)).toEqual([]);
    const glibc = fakeMachine("glibc-dead", "Linux", "x86_64", { ldd: GLIBC_LDD });
    const g = await install(SH, ["5.5.5"], { PATH: `${glibc}:${process.env.PATH}` });
    expect(g.code).not.toBe(0);
    expect(g.stderr).toContain("does not run on this machine (linux-x64)");
    expect(g.stderr).not.toContain("apk add");
  });
});

describe("first-run output", () => {
  test("the PATH hint names the file the login shell reads: zsh ~/.zshrc, bash ~/.bashrc (macOS ~/.bash_profile), fish config.fish, else ~/.profile", async () => {
    const hint = async (shell: string, machine?: string) => {
      const dir = mkdtempSync(join(tmp, "hint-"));
      const path = machine ? `${machine}:${process.env.PATH}` : process.env.PATH;
      const r = await installWith({ ZCODE_ACP_INSTALL_DIR: dir, SHELL: shell, PATH: path });
      expect(r.code).toBe(0);
      const lines = r.stdout.split("\n");
      const at = lines.findIndex((l) => l.includes("is not on your PATH"));
      return { head: lines[at] ?? "", line: (lines[at + 1] ?? "").replaceAll(dir, "DIR") };
    };
    const zsh = await hint("/bin/zsh");
    expect(zsh.head).toContain("Add it for zsh");
    expect(zsh.line).toBe(`  echo 'export PATH="DIR:$PATH"' >> ~/.zshrc`);
    expect((await hint("/usr/bin/bash")).line).toBe(`  echo 'export PATH="DIR:$PATH"' >> ~/.bashrc`);
    const mac = fakeMachine("hint-mac", "Darwin", "arm64", { sysctl: "#!/bin/sh\nexit 1\n" });
    expect((await hint("/bin/bash", mac)).line).toBe(`  echo 'export PATH="DIR:$PATH"' >> ~/.bash_profile`);
    expect((await hint("/usr/local/bin/fish")).line).toBe("  echo 'fish_add_path DIR' >> ~/.config/fish/config.fish");
    expect((await hint("/bin/dash")).line).toBe(`  echo 'export PATH="DIR:$PATH"' >> ~/.profile`);
  });

  test("in a terminal the archive download shows a progress bar; in a pipe it is silent", async () => {
    const dir = mkdtempSync(join(tmp, "tty-"));
    const env = `ZCODE_ACP_DOWNLOAD_BASE='${srv.base}' ZCODE_ACP_INSTALL_DIR='${dir}' ZCODE_ACP_CPUINFO='${cpuWithAvx2}'`;
    const r = await run(["script", "-qec", `env ${env} ${SH} '${INSTALL_SH}' 9.9.9`, "/dev/null"], {
      env: { PATH: process.env.PATH, HOME: tmp },
    });
    expect(r.code).toBe(0);
    // curl's bar ends at 100.0%; wget's at 100%.
    expect(r.stdout).toMatch(/100(\.0)?%/);
    expect(r.stdout).toContain("Installed zcode-acp-server 9.9.9");
    const piped = await installWith({ ZCODE_ACP_INSTALL_DIR: mkdtempSync(join(tmp, "pipe-")) }, ["9.9.9"]);
    expect(piped.code).toBe(0);
    expect(piped.stdout + piped.stderr).not.toContain("%");
  });
});
