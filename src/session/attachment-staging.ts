import { randomUUID } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, rmSync, unlinkSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { internalError } from "../translate/errors.ts";

// Files of a prompt that ZCode takes by path (anything but images and PDFs)
// are written to a private folder first. Every level of it we create is ours
// alone (0700, never a symlink, owned by us); a level someone else made or
// opened to others is never used: this process then stages into a fresh
// private folder of its own instead. Each file is new (created exclusively,
// 0600), so nothing planted in its place is followed or read.
//
// Lifetime: a staged file lives as long as ZCode may read it, i.e. while its
// session is open here. It is removed at once when its prompt never reaches
// ZCode (a slash command, a prompt withdrawn or cancelled before it was
// sent, a failed write), and with its session (session/close, the editor
// leaving). Files left by a bridge that was killed are pruned: older than a
// day, or past a size bound, oldest first.

const logger = log.withTag("attachments");

/** Staged files older than this are a dead bridge's leftovers. */
const STALE_MS = 24 * 60 * 60 * 1000;
/** The cache holds at most this much; older files go first (a live bridge's only after a day's grace is not kept). */
const CACHE_MAX_BYTES = 512 * 1024 * 1024;

/** The shared staging folder for this user: `<cache or temp>/zcode-acp-server-<uid>/attachments`. */
export function stagingDirFor(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : tmpdir();
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  return path.join(base, `zcode-acp-server-${uid}`, "attachments");
}

/** Whether `dir` is a real directory of ours that nobody else can enter or change. */
function isPrivate(dir: string): boolean {
  const st = lstatSync(dir);
  const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
  return st.isDirectory() && !st.isSymbolicLink() && mine && (process.platform === "win32" || (st.mode & 0o077) === 0);
}

/** Creates `dir` and its parent (our per-user folder) 0700; both must then be private. */
function ensurePrivate(dir: string): boolean {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  return isPrivate(path.dirname(dir)) && isPrivate(dir);
}

let fallback: string | undefined;

/** A folder of this process alone, used when the shared one is not private. */
function fallbackDir(shared: string): string {
  if (!fallback) {
    fallback = mkdtempSync(path.join(tmpdir(), "zcode-acp-server-"));
    logger.warn(
      `${path.dirname(shared)} is not private to this user (another owner, or open to others): attachments are staged in ${fallback} instead`,
    );
    process.once("exit", () => rmSync(fallback!, { recursive: true, force: true }));
  }
  if (!isPrivate(fallback)) throw internalError(t().errors.attachmentDirNotPrivate(fallback));
  return fallback;
}

const pruned = new Set<string>();

/** Once per folder and process: a dead bridge's leftovers go, and the cache stays bounded. */
function pruneOnce(dir: string, keep: ReadonlySet<string>): void {
  if (pruned.has(dir)) return;
  pruned.add(dir);
  try {
    const now = Date.now();
    const files = readdirSync(dir)
      .map((name) => {
        const file = path.join(dir, name);
        const st = lstatSync(file);
        return { file, size: st.size, mtime: st.mtimeMs, isFile: st.isFile() };
      })
      .filter((f) => f.isFile && !keep.has(f.file))
      .sort((a, b) => a.mtime - b.mtime);
    let total = files.reduce((n, f) => n + f.size, 0);
    for (const f of files) {
      if (now - f.mtime < STALE_MS && total <= CACHE_MAX_BYTES) break;
      unlinkSync(f.file);
      total -= f.size;
    }
  } catch (err) {
    logger.debug("pruning staged attachments failed:", err);
  }
}

/** Writes `bytes` to a new file in `dir`; returns its path. A failed write leaves nothing. */
export function stageFile(dir: string, filename: string, bytes: Uint8Array): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  if (!isPrivate(dir)) throw internalError(t().errors.attachmentDirNotPrivate(dir));
  const safe = filename.replace(/[^A-Za-z0-9._-]+/g, "_").slice(-100) || "file";
  const file = path.join(dir, `${randomUUID()}-${safe}`);
  const fd = openSync(file, "wx", 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off);
    closeSync(fd);
  } catch (err) {
    try {
      closeSync(fd);
    } catch {
      // closed already
    }
    unlinkSync(file);
    throw internalError(t().errors.attachmentWriteFailed(filename, (err as Error).message ?? String(err)));
  }
  return file;
}

/**
 * The files one session staged. `batch()` gives a prompt its own list, so
 * that what never reaches ZCode goes at once; the rest goes with the session.
 */
export class StagedAttachments {
  private readonly files = new Set<string>();

  constructor(private readonly env: Record<string, string | undefined>) {}

  /** A stage callback for one prompt, and the paths it wrote. */
  batch(): { stage: (filename: string, bytes: Uint8Array) => string; paths: string[] } {
    const paths: string[] = [];
    const stage = (filename: string, bytes: Uint8Array) => {
      const shared = stagingDirFor(this.env);
      const dir = ensurePrivate(shared) ? shared : fallbackDir(shared);
      pruneOnce(dir, this.files);
      const file = stageFile(dir, filename, bytes);
      paths.push(file);
      this.files.add(file);
      return file;
    };
    return { stage, paths };
  }

  /** Removes `paths` (default: everything this session staged). */
  discard(paths: Iterable<string> = [...this.files]): void {
    for (const file of paths) {
      this.files.delete(file);
      try {
        unlinkSync(file);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== "ENOENT") logger.debug(`could not remove ${file}:`, err);
      }
    }
  }
}
