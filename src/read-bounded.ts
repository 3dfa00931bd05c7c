import { closeSync, constants, fstatSync, lstatSync, openSync, readSync } from "node:fs";

// Reading files the bridge does not own: the ZCode app's settings and
// config, ZCode's skills, commands and plugins, a CLI's package metadata.
// Whatever sits at such a path, the read ends quickly and costs little:
// - opening never blocks (O_NONBLOCK: a FIFO with no writer opens at once),
// - only a regular file is read (a FIFO, a socket, /dev/zero or a directory
//   is refused, checked on the opened file, so a swap after a check cannot
//   slip one in),
// - never more than a bound (a file over it is refused by its size before a
//   byte is read, or only its start is read when that is all the caller needs).

/** Bound for a settings or config file (JSON the app writes; a few KB in practice). */
export const CONFIG_MAX_BYTES = 1024 * 1024;

export type BoundedRead =
  | { ok: true; text: string /** Only the first maxBytes were read (`prefix`). */; truncated: boolean }
  | { ok: false; why: "missing" | "not_a_file" | "too_large" | "unreadable" };

export interface BoundedReadOptions {
  maxBytes: number;
  /** A longer file gives its first maxBytes instead of being refused. */
  prefix?: boolean;
  /** A symbolic link at the path itself is refused rather than followed. */
  noFollow?: boolean;
}

// Not defined on Windows, where neither FIFOs nor these flags exist as such.
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NOCTTY = constants.O_NOCTTY ?? 0;

/** Reads `path` as UTF-8 text within the bounds above; never throws. */
export function readBounded(path: string, opts: BoundedReadOptions): BoundedRead {
  if (opts.noFollow && !O_NOFOLLOW) {
    try {
      if (lstatSync(path).isSymbolicLink()) return { ok: false, why: "not_a_file" };
    } catch {
      return { ok: false, why: "missing" };
    }
  }
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | O_NONBLOCK | O_NOCTTY | (opts.noFollow ? O_NOFOLLOW : 0));
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { ok: false, why: "missing" };
    // O_NOFOLLOW on a link.
    if (code === "ELOOP") return { ok: false, why: "not_a_file" };
    return { ok: false, why: "unreadable" };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { ok: false, why: "not_a_file" };
    if (st.size > opts.maxBytes && !opts.prefix) return { ok: false, why: "too_large" };
    // One byte more than allowed tells a file that grew past the bound since fstat.
    const buf = Buffer.alloc(Math.min(st.size, opts.maxBytes) + 1);
    let n = 0;
    while (n < buf.length) {
      const got = readSync(fd, buf, n, buf.length - n, n);
      if (got === 0) break;
      n += got;
    }
    if (n > opts.maxBytes) {
      if (!opts.prefix) return { ok: false, why: "too_large" };
      return { ok: true, text: buf.subarray(0, opts.maxBytes).toString("utf8"), truncated: true };
    }
    return { ok: true, text: buf.subarray(0, n).toString("utf8"), truncated: false };
  } catch {
    return { ok: false, why: "unreadable" };
  } finally {
    try {
      closeSync(fd);
    } catch {
      // already closed
    }
  }
}

/** The whole text of a regular file of at most `maxBytes`; undefined for anything else. */
export function readBoundedText(path: string, maxBytes = CONFIG_MAX_BYTES): string | undefined {
  const r = readBounded(path, { maxBytes });
  return r.ok ? r.text : undefined;
}
