import { closeSync, constants, fstatSync, mkdirSync, openSync, renameSync, statSync, writeSync } from "node:fs";
import path from "node:path";
import { log } from "../log.ts";
import { readBounded } from "../read-bounded.ts";
import { homeDir, type Env } from "../zcode/host.ts";

// Sessions deleted through ACP session/delete. ZCode has no delete: its v4
// deleteSession (like legacy session/close) only closes the live session;
// the conversation stays in its store and in its session/list
// (jimpablo/ZCode@aac4755 session-mgmt.ts:164-181, "非真删 record——message
// 库无删除 API"). So the bridge remembers what the editor deleted and hides
// it itself: from session/list, load and resume, in this process and the
// next (one id a line, in the bridge's state folder).
//
// The file is ours but read as if it were not: it may be edited, truncated,
// replaced by a FIFO or a huge file. It is read bounded (src/read-bounded.ts),
// a line that is no session id is skipped, and it is rewritten (newest ids
// kept) once it holds more than MAX_IDS.

const logger = log.withTag("tombstones");

/** Deleted ids remembered; the oldest go first (an editor rarely lists sessions deleted that long ago). */
export const MAX_IDS = 5_000;
/** Read at most this much of the file (MAX_IDS ids of ZCode's length fit several times over). */
export const MAX_FILE_BYTES = 1024 * 1024;
const FILE_NAME = "deleted-sessions";

/** A session id as ZCode makes them (`sess_<uuid>`), or any printable word without spaces. */
const ID = /^[\x21-\x7e]{1,200}$/;

export function isStorableId(id: string): boolean {
  return ID.test(id);
}

/**
 * The bridge's state folder: `$XDG_STATE_HOME/zcode-acp-server`, else
 * `%LOCALAPPDATA%\zcode-acp-server` on Windows, else
 * `~/.local/state/zcode-acp-server`; undefined without an absolute base.
 */
export function stateDirFor(env: Env, platform: NodeJS.Platform = process.platform): string | undefined {
  const abs = (p: string | undefined) => (p && path.isAbsolute(p) ? p : undefined);
  const xdg = abs(env.XDG_STATE_HOME);
  if (xdg) return path.join(xdg, "zcode-acp-server");
  const local = platform === "win32" ? abs(env.LOCALAPPDATA) : undefined;
  if (local) return path.join(local, "zcode-acp-server");
  const home = homeDir(env);
  return home ? path.join(home, ".local", "state", "zcode-acp-server") : undefined;
}

const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;

export class Tombstones {
  /** Insertion order = deletion order (oldest first). */
  private ids = new Set<string>();
  /** The file as last read (size and mtime): another bridge's deletes show up when it changes. */
  private seen: string | undefined;

  private constructor(private readonly file: string | undefined) {
    this.reload();
  }

  /** Never throws: without a state folder the ids live in memory only. */
  static open(env: Env, opts: { file?: string } = {}): Tombstones {
    let file = opts.file;
    try {
      file ??= ((dir) => (dir ? path.join(dir, FILE_NAME) : undefined))(stateDirFor(env));
    } catch {
      file = undefined;
    }
    if (!file) logger.warn("no state folder (no absolute HOME or XDG_STATE_HOME): deleted sessions are hidden until the bridge exits");
    return new Tombstones(file);
  }

  /** Whether the editor deleted `id` (here, in an earlier run, or through another bridge). */
  has(id: string): boolean {
    return this.current().has(id);
  }

  /** Every id deleted so far (the file looked at once, for a whole list). */
  current(): ReadonlySet<string> {
    this.reload();
    return this.ids;
  }

  /** Remembers `id` as deleted, in memory at once and on disk as far as it can; never throws. */
  add(id: string): void {
    if (!isStorableId(id) || this.ids.has(id)) return;
    this.reload();
    this.ids.add(id);
    if (this.ids.size > MAX_IDS) {
      this.ids = new Set([...this.ids].slice(-MAX_IDS));
      this.rewrite();
    } else this.append(id);
  }

  private fingerprint(): string | undefined {
    if (!this.file) return undefined;
    try {
      const st = statSync(this.file);
      return `${st.size}:${st.mtimeMs}:${st.ino}`;
    } catch {
      return undefined;
    }
  }

  /** Reads the file again when it changed since the last read (ids added here stay). */
  private reload(): void {
    const now = this.fingerprint();
    if (!this.file || now === this.seen) return;
    this.seen = now;
    const r = readBounded(this.file, { maxBytes: MAX_FILE_BYTES, prefix: true, noFollow: true });
    if (!r.ok) {
      if (r.why !== "missing") logger.warn(`${this.file}: ${r.why}; sessions deleted in earlier runs may show again`);
      return;
    }
    if (r.truncated) logger.warn(`${this.file} is over ${MAX_FILE_BYTES} bytes; only its start is read`);
    const read: string[] = [];
    for (const line of r.text.split("\n")) {
      const id = line.trim();
      if (isStorableId(id)) read.push(id);
    }
    // The file's order, then ours; bounded like the file.
    this.ids = new Set([...read, ...this.ids].slice(-MAX_IDS));
  }

  private ensureDir(): boolean {
    if (!this.file) return false;
    try {
      mkdirSync(path.dirname(this.file), { recursive: true, mode: 0o700 });
      return true;
    } catch (err) {
      logger.warn(`cannot create ${path.dirname(this.file)}; the delete is remembered until the bridge exits:`, err);
      return false;
    }
  }

  private append(id: string): void {
    if (!this.ensureDir()) return;
    let fd: number | undefined;
    try {
      fd = openSync(this.file!, constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW | O_NONBLOCK, 0o600);
      // Only a regular file: a FIFO or a device would block or swallow the id.
      if (!fstatSync(fd).isFile()) throw new Error("not a regular file");
      writeSync(fd, `${id}\n`);
    } catch (err) {
      logger.warn(`cannot write ${this.file}; the delete is remembered until the bridge exits:`, err);
    } finally {
      if (fd !== undefined) closeSync(fd);
      this.seen = this.fingerprint();
    }
  }

  /** The newest MAX_IDS, written whole and renamed over the file. */
  private rewrite(): void {
    if (!this.ensureDir()) return;
    const tmp = `${this.file}.${process.pid}.tmp`;
    let fd: number | undefined;
    try {
      fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | O_NOFOLLOW, 0o600);
      writeSync(fd, [...this.ids].map((id) => `${id}\n`).join(""));
      closeSync(fd);
      fd = undefined;
      renameSync(tmp, this.file!);
    } catch (err) {
      logger.warn(`cannot rewrite ${this.file}:`, err);
    } finally {
      if (fd !== undefined) closeSync(fd);
      this.seen = this.fingerprint();
    }
  }
}
