import path from "node:path";
import { log } from "../../log.ts";
import type { Probe } from "./probe.ts";

// ZCode CLI's own configuration as it layers it (adapters/src/config,
// `createConfig`): the user file ~/.zcode/cli/config.json, then for every
// directory from the enclosing git worktree root down to the cwd its
// `zcode.json` and `.zcode/config.json` (later files win, objects merged key
// by key), then ZCODE_STORAGE_DIR. The discovery reads only what decides what
// is listed: which skills, commands and plugins are switched off, and where
// the plugin store lives. A file that is missing or not JSON counts as empty,
// as ZCode reports and skips it.

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {};
}

export function str(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** A JSON object file (a BOM tolerated); {} when absent, unreadable or not an object. */
export function readJson(probe: Probe, file: string): Json {
  const text = probe.readJsonText(file);
  if (text === undefined) return {};
  try {
    return obj(JSON.parse(text.replace(/^\uFEFF/, "")));
  } catch {
    log.withTag("discovery").debug(`not JSON, read as empty: ${file}`);
    return {};
  }
}

function merge(base: Json, over: Json): Json {
  const out: Json = { ...base };
  for (const [k, v] of Object.entries(over)) {
    const b = out[k];
    out[k] =
      typeof v === "object" && v !== null && !Array.isArray(v) && typeof b === "object" && b !== null && !Array.isArray(b)
        ? merge(b as Json, v as Json)
        : v;
  }
  return out;
}

/**
 * The cwd and its ancestors up to the git worktree root (a `.git` directory
 * or file), cwd first; just the cwd when it is not inside a worktree. ZCode
 * looks for project skills, commands and config in each of them.
 */
export function projectDirs(probe: Probe, cwd: string): string[] {
  const dirs: string[] = [];
  let current = path.resolve(cwd);
  for (;;) {
    dirs.push(current);
    if (probe.stat(path.join(current, ".git"))) return dirs;
    const parent = path.dirname(current);
    if (parent === current) return [path.resolve(cwd)];
    current = parent;
  }
}

export interface ZCodeConfig {
  /** The merged configuration (user, then project files, then env). */
  merged: Json;
  home: string | undefined;
  cwd: string;
  /** projectDirs(cwd), cwd first. */
  projectDirs: string[];
}

export function loadZCodeConfig(
  probe: Probe,
  opts: { home: string | undefined; cwd: string; env: Record<string, string | undefined> },
): ZCodeConfig {
  const dirs = projectDirs(probe, opts.cwd);
  let merged: Json = opts.home ? readJson(probe, path.join(opts.home, ".zcode", "cli", "config.json")) : {};
  for (const dir of [...dirs].reverse()) {
    merged = merge(merged, readJson(probe, path.join(dir, "zcode.json")));
    merged = merge(merged, readJson(probe, path.join(dir, ".zcode", "config.json")));
  }
  const storageDir = str(opts.env.ZCODE_STORAGE_DIR);
  if (storageDir) merged = merge(merged, { storage: { dir: storageDir } });
  return { merged, home: opts.home, cwd: path.resolve(opts.cwd), projectDirs: dirs };
}

/**
 * The absolute paths switched off in one of ZCode's override maps
 * (`skills`/`skill` keyed by SKILL.md path, `command` keyed by command file):
 * an entry `{ "enable": false }` under an absolute path.
 */
export function disabledPaths(...maps: unknown[]): Set<string> {
  const off = new Set<string>();
  for (const map of maps) {
    for (const [key, value] of Object.entries(obj(map))) {
      if (obj(value).enable === false && (path.isAbsolute(key) || /^[A-Za-z]:[\\/]/.test(key))) off.add(path.resolve(key));
    }
  }
  return off;
}

/** `~/x`, an absolute path, or a path relative to `base`. */
export function expandPath(p: string, home: string | undefined, base: string): string | undefined {
  if (p === "~" || p.startsWith("~/")) return home ? path.join(home, p.slice(1)) : undefined;
  return path.isAbsolute(p) ? path.resolve(p) : path.resolve(base, p);
}
