import { realpathSync } from "node:fs";
import path from "node:path";
import { readBounded, readBoundedText } from "../read-bounded.ts";
import { ZCodeNotFoundError, type CliSource, type Searched } from "./errors.ts";
import { findNode, type NodeSearch } from "./find-node.ts";
import { homeDir, inHome, isExecutable, isFile, nonEmpty, which, type Env } from "./host.ts";

// Finding and launching the ZCode CLI, exactly as ZCODE-FIELD-NOTES.md says:
// ZCODE_BIN (a binary or a .cjs/.mjs/.js entry), then `zcode` on PATH, then the
// copy inside the desktop app. A JS entry runs under the Node find-node.ts
// finds (Bun cannot run it). Always an argument array, never a shell. The
// CLI's version is known separately (cli-version.ts).

// Kept for importers of the launch API that still take the type from here.

export interface ZCodeLaunch {
  /** argv prefix; append "app-server", "--stdio" or "--version". */
  command: string[];
  /** The binary or JS entry that was found. */
  entry: string;
  source: CliSource;
  /** The Node that runs a JS entry. */
  node?: string;
  /** `node --version` of that Node. */
  nodeVersion?: string;
}

export interface ResolveOptions {
  /** --zcode-bin / ZCODE_BIN (falls back to env.ZCODE_BIN). */
  bin?: string;
  /** --zcode-node / ZCODE_NODE (falls back to env.ZCODE_NODE). */
  node?: string;
  env: Env;
  platform?: NodeJS.Platform;
  homedir?: string;
}

/** What the search depends on; the same context then finds the Node a JS entry needs. */
type Ctx = NodeSearch;

const JS_ENTRY = /\.(c|m)?js$/i;

/**
 * How to run ZCode. Throws ZCodeNotFoundError when no CLI is found, and
 * NodeMissingError when the CLI is a JS entry that no usable Node runs.
 */
export function resolveZCode(opts: ResolveOptions): ZCodeLaunch {
  const platform = opts.platform ?? process.platform;
  const home = homeDir(opts.env, opts.homedir);
  const ctx: Ctx = { env: opts.env, platform, home, explicit: opts.node ?? nonEmpty(opts.env.ZCODE_NODE) };
  const searched: Searched[] = [];

  const bin = opts.bin ?? nonEmpty(opts.env.ZCODE_BIN);
  if (bin) {
    const found = findExplicit(bin, ctx);
    if (!found) throw new ZCodeNotFoundError((e) => e.binMissing(bin), [`ZCODE_BIN=${bin}`]);
    return launchFor(found, "env", ctx);
  }

  const onPath = which("zcode", ctx);
  const pathVar = ctx.env.PATH ?? ctx.env.Path;
  searched.push((e) => e.onPath(pathVar));
  if (onPath) return launchFor(onPath, "path", ctx);

  for (const candidate of appBundleCandidates(ctx)) {
    searched.push(candidate);
    if (isFile(candidate)) return launchFor(candidate, "app-bundle", ctx);
  }
  throw new ZCodeNotFoundError((e) => e.cliNotFound, searched);
}

function findExplicit(bin: string, ctx: Ctx): string | undefined {
  // A bare name ("zcode") is looked up on PATH; anything with a separator is a path.
  if (!bin.includes("/") && !bin.includes("\\") && !isFile(bin)) return which(bin, ctx);
  const abs = path.resolve(bin);
  if (!isFile(abs)) return undefined;
  return abs;
}

function appBundleCandidates(ctx: Ctx): string[] {
  const rel = ["resources", "glm", "zcode.cjs"];
  switch (ctx.platform) {
    case "darwin":
      return [
        "/Applications/ZCode.app/Contents/Resources/glm/zcode.cjs",
        ...inHome(ctx.home, "Applications/ZCode.app/Contents/Resources/glm/zcode.cjs"),
      ];
    case "win32": {
      const local = nonEmpty(ctx.env.LOCALAPPDATA) ?? inHome(ctx.home, "AppData", "Local")[0];
      const out = local ? [path.join(local, "Programs", "ZCode", ...rel)] : [];
      if (ctx.env.ProgramFiles) out.push(path.join(ctx.env.ProgramFiles, "ZCode", ...rel));
      return out;
    }
    default:
      return [
        path.join("/opt/ZCode", ...rel),
        path.join("/opt/zcode", ...rel),
        path.join("/usr/share/zcode", ...rel),
        path.join("/usr/lib/zcode", ...rel),
        ...inHome(ctx.home, ".local/share/zcode", ...rel),
        ...inHome(ctx.home, "Applications/ZCode", ...rel),
      ];
  }
}

/** Decides how to run what was found: directly, or as a JS entry under Node. */
function launchFor(found: string, source: ZCodeLaunch["source"], ctx: Ctx): ZCodeLaunch {
  let entry = found;
  if (ctx.platform === "win32" && /\.(cmd|bat)$/i.test(entry)) {
    const real = resolveCmdShim(entry);
    if (!real) throw new ZCodeNotFoundError((e) => e.cmdShim(entry), [entry]);
    entry = real;
  }
  // `zcode` on PATH is often an npm symlink to a .js file with a node shebang:
  // run it with the resolved Node instead of trusting `env node`.
  let real = entry;
  try {
    real = realpathSync(entry);
  } catch {
    // keep the path as given
  }
  if (JS_ENTRY.test(real) || hasNodeShebang(real)) {
    const node = findNode(ctx, { entry: real, source });
    return { command: [node.path, real], entry: real, source, node: node.path, nodeVersion: node.version };
  }
  if (!isExecutable(entry, ctx.platform)) throw new ZCodeNotFoundError((e) => e.notExecutable(entry), [entry]);
  return { command: [entry], entry, source };
}

function hasNodeShebang(file: string): boolean {
  const head = readBounded(file, { maxBytes: 128, prefix: true });
  return head.ok && /^#![^\n]*\bnode\b/.test(head.text);
}

/** An npm cmd-shim is a few hundred bytes. */
const SHIM_MAX_BYTES = 64 * 1024;

/**
 * npm's cmd-shim writes lines like
 *   "%_prog%"  "%dp0%\node_modules\zcode\bin\zcode.cjs" %*
 * The real entry is the path after %dp0% (the shim's own directory).
 */
export function resolveCmdShim(shim: string): string | undefined {
  const text = readBoundedText(shim, SHIM_MAX_BYTES);
  if (text === undefined) return undefined;
  const dir = path.dirname(shim);
  const re = /%~?dp0%?\\?([^"%\r\n]+?\.(?:c|m)?js|[^"%\r\n]+?\.exe)"/gi;
  for (const m of text.matchAll(re)) {
    const rel = m[1]!.replace(/\\/g, path.sep).replace(/^[/\\]+/, "");
    if (/(^|[\\/])node\.exe$/i.test(rel)) continue;
    const p = path.join(dir, rel);
    if (isFile(p)) return p;
  }
  return undefined;
}
