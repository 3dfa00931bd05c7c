import { chmodSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import { t } from "../i18n/index.ts";
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
import { describeOrigin, howToUpdate, installOriginOf, realPath } from "./install-origin.ts";
import { isCompiledBinary } from "./self.ts";

// `zcode-acp-server upgrade [version]`: the installer's download and checksum
// verification, from inside the binary, then an atomic self-replace. An
// editor running the old binary keeps its open inode; the next launch gets
// the new one. What it says is the cli.upgrade table's; UpgradeError
// messages are already in the language in use.

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
  const say = t().cli.upgrade;
  if (!isCompiledBinary()) throw new UpgradeError(say.fromSource);
  const target = process.execPath;
  const origin = installOriginOf(realPath(target));
  if (origin.kind !== "standalone") {
    // Replacing a copy npm, Homebrew or an editor tracks would be undone or
    // break their bookkeeping; their own update is the right one.
    const how = howToUpdate(origin);
    const action = origin.kind === "editor-registry" ? how : say.upgradeWith(how);
    throw new UpgradeError(say.ownedBy(realPath(target), describeOrigin(origin), action));
  }
  // release-targets.ts stays free of the message tables (the release scripts
  // use it too): its refusals are reworded here.
  let tag: string;
  try {
    tag = releaseTag(o.version);
  } catch {
    throw new UpgradeError(say.notAVersion(o.version ?? ""));
  }
  let host: ReleaseTarget;
  try {
    host = hostTarget();
  } catch {
    throw new UpgradeError(say.noRelease(`${process.platform}-${process.arch}`));
  }
  const base = o.downloadBase || DEFAULT_DOWNLOAD_BASE;
  const asset = assetName(host);
  const release = tag === "latest" ? say.latestRelease : tag;

  o.out(say.downloading(asset, release, base));
  const sums = parseSha256Sums(new TextDecoder().decode(await fetchBytes(downloadUrl(base, tag, "SHA256SUMS"))));
  const expected = sums.get(asset);
  if (!expected) throw new UpgradeError(say.noChecksum(release, asset));
  const archive = await fetchBytes(downloadUrl(base, tag, asset));
  const actual = sha256Hex(archive);
  if (actual !== expected) throw new UpgradeError(say.checksumMismatch(asset, expected, actual));
  o.out(say.checksumVerified(actual));

  const binary = await extractBinary(archive, host);

  // Same directory as the target so the final rename is atomic (same filesystem).
  const dir = dirname(target);
  const staged = join(dir, `.${basename(target)}.upgrade-${process.pid}`);
  try {
    writeFileSync(staged, binary, { mode: 0o755 });
    chmodSync(staged, 0o755);
  } catch (e) {
    rmSync(staged, { force: true });
    throw new UpgradeError(say.cannotWrite(dir, (e as Error).message));
  }

  const newVersion = versionOf(staged);
  if (!newVersion) {
    rmSync(staged, { force: true });
    throw new UpgradeError(say.doesNotRun(asset));
  }
  if (newVersion === VERSION) {
    rmSync(staged, { force: true });
    o.out(say.alreadyAt(VERSION));
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
    throw new UpgradeError(say.cannotReplace(target, (e as Error).message));
  }

  const installed = versionOf(target);
  if (installed !== newVersion) {
    throw new UpgradeError(say.replacedBadVersion(target, JSON.stringify(installed)));
  }
  o.out(say.upgraded(target, VERSION, installed));
}

async function fetchBytes(url: string): Promise<Uint8Array> {
  const say = t().cli.upgrade;
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (e) {
    throw new UpgradeError(say.downloadFailed(url, (e as Error).message));
  }
  if (res.status === 404) throw new UpgradeError(say.notFound(url));
  if (!res.ok) throw new UpgradeError(say.httpFailed(url, res.status));
  return new Uint8Array(await res.arrayBuffer());
}

async function extractBinary(archive: Uint8Array, target: ReleaseTarget): Promise<Uint8Array> {
  const want = binaryName(target);
  if (target.os === "windows") return extractWithTar(archive, want);
  const files = await new Bun.Archive(archive).files();
  for (const [path, file] of files) {
    if (basename(path) === want) return new Uint8Array(await file.arrayBuffer());
  }
  throw new UpgradeError(t().cli.upgrade.noBinaryInArchive(want));
}

/** Windows 10+ ships bsdtar, which also reads .zip. */
async function extractWithTar(archive: Uint8Array, want: string): Promise<Uint8Array> {
  const tmp = mkdtempSync(join(dirname(process.execPath), ".zcode-acp-upgrade-"));
  try {
    const zip = join(tmp, "a.zip");
    writeFileSync(zip, archive);
    const p = Bun.spawnSync(["tar", "-xf", zip, "-C", tmp], { stdout: "ignore", stderr: "pipe" });
    if (p.exitCode !== 0) throw new UpgradeError(t().cli.upgrade.tarFailed(p.stderr.toString().trim()));
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
