// `zcode-acp-server upgrade` run by the real compiled binary (a copy in a
// temp dir) against a fake release served on 127.0.0.1.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { copyFileSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { BRIDGE_BIN, fakeBinary, run, serveFiles, sha256, tarGz } from "./cli-support.ts";

// The host build detects its flavour at run time; offer every Linux flavour.
const LINUX_ASSETS = ["linux-x64", "linux-x64-baseline", "linux-x64-musl", "linux-arm64", "linux-arm64-musl"].map(
  (id) => `zcode-acp-server-${id}.tar.gz`,
);

const files = new Map<string, Uint8Array>();
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
  const real = await tarGz("zcode-acp-server", await Bun.file(BRIDGE_BIN).bytes());
  publish("/latest/download", real);
  const good = await tarGz("zcode-acp-server", fakeBinary("6.6.6"));
  const evil = await tarGz("zcode-acp-server", fakeBinary("6.6.6-evil"));
  publish("/download/v6.6.6", evil, LINUX_ASSETS.map((a) => `${sha256(good)}  ${a}\n`).join(""));
  publish("/download/v7.7.7", good, `${sha256(good)}  zcode-acp-server-darwin-arm64.tar.gz\n`);
  srv = serveFiles(files);
});
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
  const r = await run([bin, "upgrade"], { env: env() });
  expect(srv.requests.some((p) => p.startsWith("/latest/download/zcode-acp-server-linux-"))).toBe(true);
  expect(r.stdout).toContain(`Already at ${pkg.version}`);
  expect(r.code).toBe(0);
  expect(readdirSync(join(bin, ".."))).toEqual(["zcode-acp-server"]);
});

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
