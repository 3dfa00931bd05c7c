import { accessSync, constants, statSync } from "node:fs";
import { homedir as osHomedir } from "node:os";
import path from "node:path";

// The machine the bridge runs on, as finding ZCode and its Node sees it: the
// environment it was given (never process.env directly: tests and editors
// pass their own), the user's home, and files looked up by path or on PATH.
// Shared by locating the CLI (resolve.ts) and finding Node (find-node.ts),
// and by everything else that needs the home directory.

export type Env = Record<string, string | undefined>;

/** What a PATH lookup depends on. */
export interface HostContext {
  env: Env;
  platform: NodeJS.Platform;
}

/**
 * The user's home directory: `override`, HOME, USERPROFILE or the OS's answer,
 * whichever is the first absolute path. An empty or relative HOME (editors
 * launched with `HOME=`) must not turn home-relative paths into paths under
 * the working directory (the user's project), where a planted
 * `.volta/bin/node` would be run to ask its version.
 */
export function homeDir(env: Env, override?: string): string | undefined {
  return [override, env.HOME, env.USERPROFILE, osHomedir()].find((h) => !!h && path.isAbsolute(h));
}

/** `home/parts…`, or nothing when there is no (absolute) home. */
export function inHome(home: string | undefined, ...parts: string[]): string[] {
  return home ? [path.join(home, ...parts)] : [];
}

/** The setting, unless it is unset or blank (`ZCODE_BIN=` means "not set"). */
export function nonEmpty(s: string | undefined): string | undefined {
  return s && s.trim() ? s : undefined;
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

export function isExecutable(p: string, platform: NodeJS.Platform): boolean {
  if (!isFile(p)) return false;
  if (platform === "win32") return true;
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function pathDirs(ctx: HostContext): string[] {
  const raw = ctx.env.PATH ?? ctx.env.Path ?? "";
  const sep = ctx.platform === "win32" ? ";" : ":";
  return raw.split(sep).filter(Boolean);
}

/** The first executable `name` on the context's PATH (with Windows' extensions there). */
export function which(name: string, ctx: HostContext): string | undefined {
  const exts = ctx.platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of pathDirs(ctx)) {
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (isExecutable(p, ctx.platform)) return p;
    }
  }
  return undefined;
}
