// `zcode-acp-server upgrade` run by the real compiled binary (a copy in a
// temp dir) against a fake release served on 127.0.0.1.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { endsSoon } from "../support/acp-harness.ts";
import { BRIDGE_BIN, fakeBinary, run, serveFiles, sha256, tarGz } from "./cli-support.ts";
import { pollUntil } from "../support/poll.ts";
import { sharedBuildBudget, sharedHostArchive } from "./release-support.ts";

// The host build detects its flavour at run time; offer every Linux flavour.
const LINUX_ASSETS = ["linux-x64", "linux-x64-baseline", "linux-x64-musl", "linux-arm64", "linux-arm64-musl"].map(
  (id) => `zcode-acp-server-${id}.tar.gz`,
);

const files = new Map<string, Uint8Array>();
const redirects = new Map<string, string>();
let srv: ReturnType<typeof serveFiles>;
let tmp: string;

function publish(prefix: string, archive: Uint8Array, sums?: string) {
  const text = sums ?? LINUX_ASSETS.map((a) => `${sha256(archive)}  ${a}\n`).join("");
  files.set(`${prefix}/SHA256SUMS`, new TextEncoder().encode(text));
  for (const a of LINUX_ASSETS) files.set(`${prefix}/${a}`, archive);
}

beforeAll(async () => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-upgrade-"));
  publish("/download/v9.9.9", await tarGz("zcode-acp-server", fakeBinary("9.9.9")));
  // The real bridge: under `npm test` the run's release archive for this host (release-support.ts), alone archived here.
  const real = (await sharedHostArchive()) ?? (await tarGz("zcode-acp-server", await Bun.file(BRIDGE_BIN).bytes()));
  publish("/latest/download", real);
  const good = await tarGz("zcode-acp-server", fakeBinary("6.6.6"));
  const evil = await tarGz("zcode-acp-server", fakeBinary("6.6.6-evil"));
  publish("/download/v6.6.6", evil, LINUX_ASSETS.map((a) => `${sha256(good)}  ${a}\n`).join(""));
  publish("/download/v7.7.7", good, `${sha256(good)}  zcode-acp-server-darwin-arm64.tar.gz\n`);
  publish("/download/v0.0.1", await tarGz("zcode-acp-server", fakeBinary("0.0.1")));
  // Hangs on --version, with a child in its process group.
  // (upgrade runs it with PATH alone: where to write its child's pid is baked in.)
  const hang = `#!/bin/sh\nsleep 600 & echo $! > "${hangPidFile()}"\nwait\n`;
  publish("/download/v5.5.5", await tarGz("zcode-acp-server", hang));
  // 4 MiB of zeros: a few KiB gzipped; over the limit the test sets.
  publish("/download/v4.4.4", await tarGz("zcode-acp-server", new Uint8Array(4 * 1024 * 1024)));
  // GitHub's `latest` redirects to the release's own URL, which names its version.
  publish(`/download/v${pkg.version}`, real);
  for (const f of ["SHA256SUMS", ...LINUX_ASSETS]) redirects.set(`/current/latest/download/${f}`, `/download/v${pkg.version}/${f}`);
  srv = serveFiles(files, redirects);
}, sharedBuildBudget(60_000)); // may wait for the shared release build
afterAll(() => {
  srv?.server.stop(true);
  rmSync(tmp, { recursive: true, force: true });
});

function installedCopy(): string {
  const dir = mkdtempSync(join(tmp, "bin-"));
  const bin = join(dir, "zcode-acp-server");
  copyFileSync(BRIDGE_BIN, bin);
  return bin;
}

const hangPidFile = () => join(tmp, "hang.pid");

const env = () => ({ PATH: process.env.PATH, HOME: tmp, ZCODE_ACP_DOWNLOAD_BASE: srv.base });

test("upgrade <version> verifies the checksum and replaces the binary in place", async () => {
  const bin = installedCopy();
  const r = await run([bin, "upgrade", "9.9.9"], { env: env() });
  expect(r.stderr).toBe("");
  expect(r.stdout).toContain("Checksum verified");
  expect(r.stdout).toContain(`${pkg.version} -> 9.9.9`);
  expect(r.code).toBe(0);
  expect((await run([bin, "--version"])).stdout.trim()).toBe("9.9.9");
  // No staging files left behind.
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
});

test("upgrade with no version takes the latest; the same version is left alone", async () => {
  const bin = installedCopy();
  // Downloads, checks and unpacks the real ~100 MB archive: more than run()'s default 20 s on a busy machine.
  const r = await run([bin, "upgrade"], { env: env(), timeoutMs: 50_000 });
  expect(srv.requests.some((p) => p.startsWith("/latest/download/zcode-acp-server-linux-"))).toBe(true);
  expect(r.stdout).toContain(`Already at ${pkg.version}`);
  expect(r.code).toBe(0);
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
}, 60_000);

test("a tampered archive is refused and the binary is untouched", async () => {
  const bin = installedCopy();
  const r = await run([bin, "upgrade", "v6.6.6"], { env: env() });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("checksum mismatch");
  expect((await run([bin, "--version"])).stdout.trim()).toBe(pkg.version);
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
});

test("a missing SHA256SUMS entry, a missing version and a malformed one are refused", async () => {
  const bin = installedCopy();
  const noEntry = await run([bin, "upgrade", "7.7.7"], { env: env() });
  expect(noEntry.code).toBe(1);
  expect(noEntry.stderr).toContain("has no entry for zcode-acp-server-linux-");
  const missing = await run([bin, "upgrade", "8.8.8"], { env: env() });
  expect(missing.code).toBe(1);
  expect(missing.stderr).toContain("not found (404)");
  const bad = await run([bin, "upgrade", "../../etc"], { env: env() });
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain("is not a version");
  expect((await run([bin, "--version"])).stdout.trim()).toBe(pkg.version);
});

test("upgrade to the version running: said at once, nothing downloaded", async () => {
  const bin = installedCopy();
  const before = srv.requests.length;
  const r = await run([bin, "upgrade", pkg.version], { env: env() });
  expect(r).toEqual({ code: 0, stdout: `Already at ${pkg.version}; nothing to do.\n`, stderr: "" });
  expect(srv.requests.length).toBe(before);
});

test("latest redirecting to the version running: only SHA256SUMS is asked for, no archive", async () => {
  const bin = installedCopy();
  const before = srv.requests.length;
  const r = await run([bin, "upgrade"], { env: { ...env(), ZCODE_ACP_DOWNLOAD_BASE: `${srv.base}/current` } });
  expect(r.stdout).toBe(`Already at ${pkg.version}; nothing to do.\n`);
  expect(r.code).toBe(0);
  expect(srv.requests.slice(before)).toEqual(["/current/latest/download/SHA256SUMS", `/download/v${pkg.version}/SHA256SUMS`]);
});

test("an older version is a downgrade, and says so", async () => {
  const bin = installedCopy();
  const r = await run([bin, "upgrade", "0.0.1"], { env: env() });
  expect(r.stdout).toContain(`Downgraded ${bin}: ${pkg.version} -> 0.0.1`);
  expect(r.stdout).not.toContain("Upgraded");
  expect(r.code).toBe(0);
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
});

test("a downloaded binary that hangs on --version: stopped with its children, nothing installed, no staged copy", async () => {
  const bin = installedCopy();
  const pidFile = hangPidFile();
  rmSync(pidFile, { force: true });
  const r = await run([bin, "upgrade", "5.5.5"], { env: { ...env(), ZCODE_ACP_UPGRADE_PROBE_MS: "500" } });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("did not answer --version within 0.5 s (it was stopped); nothing was installed");
  expect(await endsSoon(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  expect((await run([bin, "--version"])).stdout.trim()).toBe(pkg.version);
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
});

test("a tar.gz bomb: extraction stops at the limit, nothing installed", async () => {
  const bin = installedCopy();
  const r = await run([bin, "upgrade", "4.4.4"], { env: { ...env(), ZCODE_ACP_UPGRADE_MAX_EXTRACTED_BYTES: String(1024 * 1024) } });
  expect(r.code).toBe(1);
  expect(r.stderr).toContain("the archive expands to more than 1 MiB");
  expect((await run([bin, "--version"])).stdout.trim()).toBe(pkg.version);
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
});

test("stopped while the new binary is checked: the staged copy is removed", async () => {
  const bin = installedCopy();
  const dir = join(bin, "..");
  const pidFile = hangPidFile();
  rmSync(pidFile, { force: true });
  const p = Bun.spawn([bin, "upgrade", "5.5.5"], {
    env: env(),
    stdout: "pipe",
    stderr: "pipe",
  });
  // The staged copy is being probed once the hanging --version has written its pid.
  await pollUntil(() => existsSync(pidFile), 20_000);
  expect(readdirSync(dir).some((f) => f.includes(".upgrade-"))).toBe(true);
  p.kill("SIGTERM");
  expect(await p.exited).toBe(143);
  expect(readdirSync(dir)).toEqual(["zcode-acp-server"]);
  // The probe's process group went with it.
  expect(await endsSoon(Number(readFileSync(pidFile, "utf8")))).toBe(true);
  expect((await run([bin, "--version"])).stdout.trim()).toBe(pkg.version);
});

test("in a terminal, upgrade shows a progress line for the download", async () => {
  const bin = installedCopy();
  const cmd = [bin, "upgrade", "9.9.9"].map((a) => `'${a}'`).join(" ");
  const r = await run(["script", "-qec", cmd, "/dev/null"], { env: env() });
  expect(r.code).toBe(0);
  expect(r.stdout).toMatch(/\r {2}[\d.]+ of [\d.]+ MB \(100%\)/);
  expect(r.stdout).toContain(`${pkg.version} -> 9.9.9`);
  // In a pipe, no progress line.
  const piped = await run([installedCopy(), "upgrade", "9.9.9"], { env: env() });
  expect(piped.stdout + piped.stderr).not.toContain(" MB");
});
