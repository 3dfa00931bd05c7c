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
import { compareVersions, PROBE_TIMEOUT_MS, probeVersion, stopRunningProbes } from "./binary-probe.ts";
import { describeOrigin, howToUpdate, installOriginOf, realPath } from "./install-origin.ts";
import { ArchiveLimitError, MAX_ARCHIVE_BYTES, MAX_EXTRACTED_BYTES, readBounded, tarGzEntry, zipDeclaredSize } from "./release-archive.ts";
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
  /** Bytes of the archive received so far (and its size when announced); given when a person watches a terminal. */
  progress?: (received: number, total: number | undefined) => void;
  /** Limits, lowered by tests; the defaults otherwise. */
  limits?: { probeMs?: number; maxArchiveBytes?: number; maxExtractedBytes?: number };
}

export class UpgradeError extends Error {
  override readonly name = "UpgradeError";
}

const DOWNLOAD_TIMEOUT_MS = 5 * 60_000;
const MAX_SUMS_BYTES = 1024 * 1024;

/** The version a GitHub-style `latest` URL redirected to (`…/download/v1.2.3/<file>`), when it did. */
export function versionOfReleaseUrl(url: string): string | undefined {
  const m = /\/download\/v(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\/[^/]+$/.exec(new URL(url).pathname);
  return m?.[1];
}

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
  // Asked for the version already running: nothing to download.
  if (tag !== "latest" && tag.slice(1) === VERSION) {
    o.out(say.alreadyAt(VERSION));
    return;
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
  const limits = o.limits ?? {};

  const sumsResponse = await fetchOk(downloadUrl(base, tag, "SHA256SUMS"));
  // GitHub answers `latest` with a redirect to the release's own URL, which
  // names its version: when that is the one running, nothing is downloaded.
  const latest = tag === "latest" ? versionOfReleaseUrl(sumsResponse.url) : undefined;
  if (latest === VERSION) {
    await sumsResponse.body?.cancel();
    o.out(say.alreadyAt(VERSION));
    return;
  }
  const sums = parseSha256Sums(new TextDecoder().decode(await readAll(sumsResponse, MAX_SUMS_BYTES)));
  const expected = sums.get(asset);
  if (!expected) throw new UpgradeError(say.noChecksum(release, asset));

  o.out(say.downloading(asset, latest ? `v${latest}` : release, base));
  const archiveResponse = await fetchOk(downloadUrl(base, tag, asset));
  const maxArchive = limits.maxArchiveBytes ?? MAX_ARCHIVE_BYTES;
  const archive = await readAll(archiveResponse, maxArchive, o.progress);
  const actual = sha256Hex(archive);
  if (actual !== expected) throw new UpgradeError(say.checksumMismatch(asset, expected, actual));
  o.out(say.checksumVerified(actual));

  const binary = await extractBinary(archive, host, limits.maxExtractedBytes ?? MAX_EXTRACTED_BYTES);

  // Same directory as the target so the final rename is atomic (same filesystem).
  const dir = dirname(target);
  const staged = join(dir, `.${basename(target)}.upgrade-${process.pid}`);
  // The staged copy goes on every path out of here: a failure, a refusal, a
  // success (then it was renamed away already), Ctrl-C or a kill.
  const removeStaged = () => rmSync(staged, { force: true });
  const onSignal = (signal: NodeJS.Signals) => {
    stopRunningProbes();
    removeStaged();
    process.exit(signal === "SIGINT" ? 130 : 143);
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  process.once("SIGHUP", onSignal);
  try {
    try {
      writeFileSync(staged, binary, { mode: 0o755 });
      chmodSync(staged, 0o755);
    } catch (e) {
      throw new UpgradeError(say.cannotWrite(dir, (e as Error).message));
    }

    const probeMs = limits.probeMs ?? PROBE_TIMEOUT_MS;
    const probe = await probeVersion(staged, probeMs);
    if ("timedOut" in probe) throw new UpgradeError(say.probeTimedOut(asset, String(probeMs / 1000)));
    if ("failed" in probe) throw new UpgradeError(say.doesNotRun(asset));
    const newVersion = probe.version;
    if (newVersion === VERSION) {
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
      throw new UpgradeError(say.cannotReplace(target, (e as Error).message));
    }

    const after = await probeVersion(target, probeMs);
    const installed = "version" in after ? after.version : undefined;
    if (installed !== newVersion) {
      throw new UpgradeError(say.replacedBadVersion(target, JSON.stringify(installed)));
    }
    o.out(compareVersions(installed, VERSION) < 0 ? say.downgraded(target, VERSION, installed) : say.upgraded(target, VERSION, installed));
  } finally {
    removeStaged();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    process.off("SIGHUP", onSignal);
  }
}

async function fetchOk(url: string): Promise<Response> {
  const say = t().cli.upgrade;
  let res: Response;
  try {
    res = await fetch(url, { redirect: "follow", signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  } catch (e) {
    throw new UpgradeError(say.downloadFailed(url, (e as Error).message));
  }
  if (res.status === 404) throw new UpgradeError(say.notFound(url));
  if (!res.ok) throw new UpgradeError(say.httpFailed(url, res.status));
  return res;
}

async function readAll(res: Response, max: number, progress?: UpgradeOptions["progress"]): Promise<Uint8Array> {
  const say = t().cli.upgrade;
  try {
    return await readBounded(res, max, progress);
  } catch (e) {
    if (e instanceof ArchiveLimitError) throw new UpgradeError(say.downloadTooBig(res.url, mib(e.limit)));
    throw new UpgradeError(say.downloadFailed(res.url, (e as Error).message));
  }
}

const mib = (bytes: number) => Math.round(bytes / (1024 * 1024));

async function extractBinary(archive: Uint8Array, target: ReleaseTarget, maxExtracted: number): Promise<Uint8Array> {
  const say = t().cli.upgrade;
  const want = binaryName(target);
  if (target.os === "windows") {
    const declared = zipDeclaredSize(archive);
    if (declared === undefined || declared > maxExtracted) throw new UpgradeError(say.extractTooBig(mib(maxExtracted)));
    return extractWithTar(archive, want);
  }
  let found: Uint8Array | undefined;
  try {
    found = await tarGzEntry(archive, want, maxExtracted);
  } catch (e) {
    if (e instanceof ArchiveLimitError) throw new UpgradeError(say.extractTooBig(mib(e.limit)));
    throw new UpgradeError(say.tarFailed((e as Error).message));
  }
  if (!found) throw new UpgradeError(say.noBinaryInArchive(want));
  return found;
}

/** Windows 10+ ships bsdtar, which also reads .zip. */
async function extractWithTar(archive: Uint8Array, want: string): Promise<Uint8Array> {
  const tmp = mkdtempSync(join(dirname(process.execPath), ".zcode-acp-upgrade-"));
  try {
    const zip = join(tmp, "a.zip");
    writeFileSync(zip, archive);
    const p = Bun.spawnSync(["tar", "-xf", zip, "-C", tmp, want], { stdout: "ignore", stderr: "pipe" });
    if (p.exitCode !== 0) throw new UpgradeError(t().cli.upgrade.tarFailed(p.stderr.toString().trim()));
    return new Uint8Array(await Bun.file(join(tmp, want)).arrayBuffer());
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
