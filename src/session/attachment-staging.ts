import { randomUUID } from "node:crypto";
import { closeSync, lstatSync, mkdirSync, openSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { t } from "../i18n/index.ts";
import { internalError } from "../translate/errors.ts";

// Files of a prompt that ZCode takes by path (anything but images and PDFs)
// are written to a private directory first. The directory is ours alone
// (0700, never a symlink, owned by us); each file is new (created
// exclusively, 0600), so nothing planted in its place is followed or read.

/** The staging directory for this user (created on first use). */
export function stagingDirFor(env: Record<string, string | undefined>): string {
  const base = env.XDG_CACHE_HOME && path.isAbsolute(env.XDG_CACHE_HOME) ? env.XDG_CACHE_HOME : tmpdir();
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  return path.join(base, `zcode-acp-server-${uid}`, "attachments");
}

function privateDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Each level we may have just made, and the leaf above all, must be a real directory of ours.
  const st = lstatSync(dir);
  const mine = typeof process.getuid !== "function" || st.uid === process.getuid();
  if (!st.isDirectory() || st.isSymbolicLink() || !mine || (process.platform !== "win32" && (st.mode & 0o077) !== 0)) {
    throw internalError(t().errors.attachmentDirNotPrivate(dir));
  }
}

/** Writes `bytes` to a new file in `dir`; returns its path. */
export function stageFile(dir: string, filename: string, bytes: Uint8Array): string {
  privateDir(dir);
  const safe = filename.replace(/[^A-Za-z0-9._-]+/g, "_").slice(-100) || "file";
  const file = path.join(dir, `${randomUUID()}-${safe}`);
  const fd = openSync(file, "wx", 0o600);
  try {
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off);
  } finally {
    closeSync(fd);
  }
  return file;
}
