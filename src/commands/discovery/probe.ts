import { lstatSync, readdirSync, realpathSync, statSync, type Dirent, type Stats } from "node:fs";
import { CONFIG_MAX_BYTES, readBounded } from "../../read-bounded.ts";

// Every file-system read the discovery makes goes through one Probe, which
// remembers what it looked at and how that looked (mtime and size, or
// "missing"). The cache then knows a scan is still good when none of those
// paths changed: a new skill directory changes its root's mtime, an edited
// SKILL.md its own, a toggle in config.json the file's. A path that did not
// exist is recorded too, so creating it later is noticed.

/** How a path looked when it was read: "-" missing, else kind:mtime:size. */
export type Stamp = string;

function stampOf(st: Stats | undefined): Stamp {
  if (!st) return "-";
  return `${st.isDirectory() ? "d" : st.isFile() ? "f" : "o"}:${st.mtimeMs}:${st.size}`;
}

function statOrUndefined(path: string, follow: boolean): Stats | undefined {
  try {
    return follow ? statSync(path) : lstatSync(path);
  } catch {
    return undefined;
  }
}

/** Bounds on one scan, so a huge or hostile tree cannot stall the bridge. */
export const PROBE_LIMITS = {
  /** Entries read from one directory. */
  entriesPerDir: 2000,
  /** Bytes read from one skill or command file: front matter and a first line are all we need. */
  bytesPerFile: 64 * 1024,
  /** Bytes of one JSON file (config, plugin manifests and lists), read whole or not at all. */
  bytesPerJson: CONFIG_MAX_BYTES,
  /** Paths looked at in one scan. */
  paths: 20_000,
};

export class Probe {
  private readonly seen = new Map<string, Stamp>();
  /** Set once PROBE_LIMITS.paths is reached; later reads answer "nothing there". */
  exhausted = false;

  private record(path: string, st: Stats | undefined): Stats | undefined {
    if (!this.seen.has(path)) {
      if (this.seen.size >= PROBE_LIMITS.paths) {
        this.exhausted = true;
        return undefined;
      }
      this.seen.set(path, stampOf(st));
    }
    return st;
  }

  /** stat (following links unless `follow` is false); undefined when absent. */
  stat(path: string, follow = true): Stats | undefined {
    return this.record(path, statOrUndefined(path, follow));
  }

  isDir(path: string, follow = true): boolean {
    return this.stat(path, follow)?.isDirectory() ?? false;
  }

  isFile(path: string, follow = true): boolean {
    return this.stat(path, follow)?.isFile() ?? false;
  }

  /** A directory's entries, sorted by name (readdir order differs by file system); [] when unreadable. */
  readDir(path: string): Dirent[] {
    if (!this.isDir(path)) return [];
    try {
      return readdirSync(path, { withFileTypes: true })
        .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
        .slice(0, PROBE_LIMITS.entriesPerDir);
    } catch {
      return [];
    }
  }

  /**
   * The start of a text file (at most PROBE_LIMITS.bytesPerFile); undefined
   * when unreadable or not a regular file (read-bounded.ts: a FIFO or a
   * device put in its place between the stat and the read is refused too).
   */
  readText(path: string, follow = true): string | undefined {
    if (!this.isFile(path, follow)) return undefined;
    const r = readBounded(path, { maxBytes: PROBE_LIMITS.bytesPerFile, prefix: true, noFollow: !follow });
    return r.ok ? r.text : undefined;
  }

  /** A whole JSON file's text (at most PROBE_LIMITS.bytesPerJson); undefined when unreadable, not a regular file or larger. */
  readJsonText(path: string, follow = true): string | undefined {
    if (!this.isFile(path, follow)) return undefined;
    const r = readBounded(path, { maxBytes: PROBE_LIMITS.bytesPerJson, noFollow: !follow });
    return r.ok ? r.text : undefined;
  }

  /** The canonical path, or the path itself when it cannot be resolved. */
  realpath(path: string): string {
    try {
      return realpathSync(path);
    } catch {
      return path;
    }
  }

  /** What was looked at, for Probe.unchanged later. */
  fingerprint(): ReadonlyMap<string, Stamp> {
    return new Map(this.seen);
  }

  /**
   * True when every path of an earlier fingerprint still looks the same.
   * Links are followed here as in most reads; a path first read without
   * following (plugin content) only differs in what the link points to, and
   * that change shows up in the stamp as well.
   */
  static unchanged(fingerprint: ReadonlyMap<string, Stamp>): boolean {
    for (const [path, stamp] of fingerprint) {
      const follow = !stamp.startsWith("o");
      if (stampOf(statOrUndefined(path, follow)) !== stamp) return false;
    }
    return true;
  }
}
