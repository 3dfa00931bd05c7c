import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { VERSION } from "../version.ts";
import { parseSha256Sums, sha256Hex } from "./checksums.ts";
import {
  assetName,
  binaryName,
  DEFAULT_DOWNLOAD_BASE,
  downloadUrl,
  hostTarget,
  releaseTag,
  type ReleaseTarget,
} from "./release-targets.ts";
import { describeOrigin, installOriginOf, realPath } from "./install-origin.ts";
import { isCompiledBinary } from "./self.ts";

// `zcode-acp-server upgrade [version]`: the installer's download and checksum
// verification, from inside the binary, then an atomic self-replace. An
// editor running the old binary keeps its open inode; the next launch gets
// the new one.

export interface UpgradeOptions {
  version?: string;
  /** ZCODE_ACP_DOWNLOAD_BASE, resolved by the CLI. */
  downloadBase?: string;
  out: (line: string) => void;
}

export class UpgradeError extends Error {
  override readonly name = "UpgradeError";
}

const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;

export async function runUpgrade(o: UpgradeOptions): Promise<void> {
  if (!isCompiledBinary()) {
    throw new UpgradeError(
      "upgrade replaces an installed zcode-acp-server binary; this is running from source. Use git pull && bun run build instead.",
    );
  }
  const target = process.execPath;
  const origin = installOriginOf(realPath(target));
  if (origin.kind !== "standalone") {
    // Replacing a copy npm, Homebrew or an editor tracks would be undone or
    // break their bookkeeping; their own update is the right one.
    const action = origin.kind === "editor-registry" ? origin.how : `upgrade with: ${origin.how}`;
    throw new UpgradeError(`${realPath(target)} was ${describeOrigin(origin)}; ${action}`);
  }
  let tag: string;
  let t: ReleaseTarget;
  try {
    tag = releaseTag(o.version);
    t = hostTarget();
  } catch (e) {
    throw new UpgradeError((e as Error).message);
  }
  const base = o.downloadBase || DEFAULT_DOWNLOAD_BASE;
  const asset = assetName(t);

  o.out(`Downloading ${asset} (${tag === "latest" ? "latest release" : tag}) from ${base}`);
  const sums = parseSha256Sums(new TextDecoder().decode(await fetchBytes(downloadUrl(base, tag, "SHA256SUMS"))));
  const expected = sums.get(asset);
  if (!expected) {
    throw new UpgradeError(`SHA256SUMS of ${tag} has no entry for ${asset}; refusing to install an unverified file`);
  }
  const archive = await fetchBytes(downloadUrl(base, tag, asset));
  const actual = sha256Hex(archive);
  if (actual !== expected) {
    throw new UpgradeError(
      `checksum mismatch for ${asset}: expected ${expected}, got ${actual}; the download is corrupt or tampered with, nothing was installed`,
    );
  }
  o.out(`Checksum verified (sha256 ${actual})`);

  const binary = await extractBinary(archive, t);

  // Same directory as the target so the final rename is atomic (same filesystem).
  const dir = dirname(target);
  const staged = join(dir, `.${basename(target)}.upgrade-${process.pid}`);
  try {
    writeFileSync(staged, binary, { mode: 0o755 });
    chmodSync(staged, 0o755);
  } catch (e) {
    rmSync(staged, { force: true });
    throw new UpgradeError(
      `cannot write to ${dir}: ${(e as Error).message}. Re-run with permission to write there, or reinstall with install.sh.`,
    );
  }

  const newVersion = versionOf(staged);
  if (!newVersion) {
    rmSync(staged, { force: true });
    throw new UpgradeError(`the downloaded ${asset} does not run on this machine (--version failed); nothing was installed`);
  }
  if (newVersion === VERSION) {
    rmSync(staged, { force: true });
    o.out(`Already at ${VERSION}; nothing to do.`);
    return;
  }

  try {
    if (process.platform === "win32") {
      // Windows cannot replace a running .exe, but it can rename it away.
      const old = `${target}.old`;
      rmSync(old, { force: true });
      renameSync(target, old);
    }
    renameSync(staged, target);
  } catch (e) {
    rmSync(staged, { force: true });
    throw new UpgradeError(`cannot replace ${target}: ${(e as Error).message}`);
  }

  const installed = versionOf(target);
  if (installed !== newVersion) {
    throw new UpgradeError(`${target} was replaced but its --version printed ${JSON.stringify(installed)}`);
  }
  o.out(`Upgraded ${target}: ${VERSION} -> ${installed}`);
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (e) {
    throw new UpgradeError(`download of ${url} failed: ${(e as Error).message}`);
  }
  if (res.status === 404) {
    throw new UpgradeError(`${url} not found (404): is that version released for this platform?`);
  }
  if (!res.ok) throw new UpgradeError(`download of ${url} failed: HTTP ${res.status}`);
  return new Uint8Array(await res.arrayBuffer());
}

async function extractBinary(archive: Uint8Array, t: ReleaseTarget): Promise<Uint8Array> {
  const want = binaryName(t);
  if (t.os === "windows") return extractWithTar(archive, want);
  const files = await new Bun.Archive(archive).files();
  for (const [path, file] of files) {
    if (basename(path) === want) return new Uint8Array(await file.arrayBuffer());
  }
  throw new UpgradeError(`the archive has no ${want}`);
}

/** Windows 10+ ships bsdtar, which also reads .zip. */
async function extractWithTar(archive: Uint8Array, want: string): Promise<Uint8Array> {
  const tmp = mkdtempSync(join(dirname(process.execPath), ".zcode-acp-upgrade-"));
  try {
    const zip = join(tmp, "a.zip");
    writeFileSync(zip, archive);
    const p = Bun.spawnSync(["tar", "-xf", zip, "-C", tmp], { stdout: "ignore", stderr: "pipe" });
    if (p.exitCode !== 0) throw new UpgradeError(`tar could not extract the archive: ${p.stderr.toString().trim()}`);
    return new Uint8Array(await Bun.file(join(tmp, want)).arrayBuffer());
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

function versionOf(path: string): string | undefined {
  try {
    const p = Bun.spawnSync([path, "--version"], { stdout: "pipe", stderr: "ignore", stdin: "ignore", env: { PATH: process.env.PATH ?? "" } });
    const v = p.stdout.toString().trim();
    return p.exitCode === 0 && v ? v : undefined;
  } catch {
    return undefined;
  }
}
