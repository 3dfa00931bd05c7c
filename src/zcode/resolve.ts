import { accessSync, closeSync, constants, openSync, readdirSync, readFileSync, readSync, realpathSync, statSync } from "node:fs";
import { homedir as osHomedir } from "node:os";
import path from "node:path";
import { compareVersions, extractVersion } from "./capabilities.ts";
import { redactLine } from "../redact.ts";
import { LOCAL_ERR, ZCodeError, ZCodeNotFoundError, ZCodeUnsupportedError } from "./errors.ts";

// Finding and launching the ZCode CLI, exactly as ZCODE-FIELD-NOTES.md says:
// ZCODE_BIN (a binary or a .cjs/.mjs/.js entry), then `zcode` on PATH, then the
// copy inside the desktop app. A JS entry needs Node >= 22 (node:sqlite,
// node:sea; Bun cannot run it), resolved explicitly because editors started
// from a GUI often have no node on PATH. Always an argument array, never a shell.

export type Env = Record<string, string | undefined>;

export interface ZCodeLaunch {
  /** argv prefix; append "app-server", "--stdio" or "--version". */
  command: string[];
  /** The binary or JS entry that was found. */
  entry: string;
  source: "env" | "path" | "app-bundle";
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

export const MIN_NODE_MAJOR = 22;
const JS_ENTRY = /\.(c|m)?js$/i;

export function resolveZCode(opts: ResolveOptions): ZCodeLaunch {
  const platform = opts.platform ?? process.platform;
  const home = homeDir(opts.env, opts.homedir);
  const ctx: Ctx = { env: opts.env, platform, home, node: opts.node ?? nonEmpty(opts.env.ZCODE_NODE) };
  const searched: string[] = [];

  const bin = opts.bin ?? nonEmpty(opts.env.ZCODE_BIN);
  if (bin) {
    const found = findExplicit(bin, ctx);
    if (!found)
      throw new ZCodeNotFoundError(`ZCODE_BIN points at ${JSON.stringify(bin)}, which does not exist or is not executable.`, [
        `ZCODE_BIN=${bin}`,
      ]);
    return launchFor(found, "env", ctx);
  }

  const onPath = which("zcode", ctx);
  searched.push(`zcode on PATH (${ctx.env.PATH ?? ctx.env.Path ?? "PATH is empty"})`);
  if (onPath) return launchFor(onPath, "path", ctx);

  for (const candidate of appBundleCandidates(ctx)) {
    searched.push(candidate);
    if (isFile(candidate)) return launchFor(candidate, "app-bundle", ctx);
  }
  throw new ZCodeNotFoundError("The ZCode CLI was not found.", searched);
}

interface Ctx {
  env: Env;
  platform: NodeJS.Platform;
  /** Absolute, or undefined: then nothing is looked for under it. */
  home: string | undefined;
  node: string | undefined;
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
function inHome(home: string | undefined, ...parts: string[]): string[] {
  return home ? [path.join(home, ...parts)] : [];
}

function nonEmpty(s: string | undefined): string | undefined {
  return s && s.trim() ? s : undefined;
}

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

function isExecutable(p: string, platform: NodeJS.Platform): boolean {
  if (!isFile(p)) return false;
  if (platform === "win32") return true;
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function findExplicit(bin: string, ctx: Ctx): string | undefined {
  // A bare name ("zcode") is looked up on PATH; anything with a separator is a path.
  if (!bin.includes("/") && !bin.includes("\\") && !isFile(bin)) return which(bin, ctx);
  const abs = path.resolve(bin);
  if (!isFile(abs)) return undefined;
  return abs;
}

function pathDirs(ctx: Ctx): string[] {
  const raw = ctx.env.PATH ?? ctx.env.Path ?? "";
  const sep = ctx.platform === "win32" ? ";" : ":";
  return raw.split(sep).filter(Boolean);
}

function which(name: string, ctx: Ctx): string | undefined {
  const exts = ctx.platform === "win32" ? ["", ".exe", ".cmd", ".bat"] : [""];
  for (const dir of pathDirs(ctx)) {
    for (const ext of exts) {
      const p = path.join(dir, name + ext);
      if (isExecutable(p, ctx.platform)) return p;
    }
  }
  return undefined;
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
    if (!real)
      throw new ZCodeNotFoundError(
        `${entry} is a Windows .cmd shim that cannot be spawned directly, and its target entry could not be read from it.`,
        [entry],
      );
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
    let node: NodeFound;
    try {
      node = resolveNode(ctx, real);
    } catch (e) {
      if (e instanceof Error) nodeProblems.set(e, { entry: real, source });
      throw e;
    }
    return { command: [node.path, real], entry: real, source, node: node.path, nodeVersion: node.version };
  }
  if (!isExecutable(entry, ctx.platform))
    throw new ZCodeNotFoundError(`${entry} is not executable (chmod +x it, or point ZCODE_BIN at the real binary).`, [entry]);
  return { command: [entry], entry, source };
}

function hasNodeShebang(file: string): boolean {
  let fd: number | undefined;
  try {
    fd = openSync(file, "r");
    const head = Buffer.alloc(128);
    const n = readSync(fd, head, 0, 128, 0);
    return /^#![^\n]*\bnode\b/.test(head.subarray(0, n).toString("utf8"));
  } catch {
    return false;
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}

/**
 * npm's cmd-shim writes lines like
 *   "%_prog%"  "%dp0%\node_modules\zcode\bin\zcode.cjs" %*
 * The real entry is the path after %dp0% (the shim's own directory).
 */
export function resolveCmdShim(shim: string): string | undefined {
  let text: string;
  try {
    text = readFileSync(shim, "utf8");
  } catch {
    return undefined;
  }
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

// ---------------------------------------------------------------- Node

export interface NodeFound {
  path: string;
  version: string;
}

function nodeCandidates(ctx: Ctx): string[] {
  const home = ctx.home;
  const exe = ctx.platform === "win32" ? "node.exe" : "node";
  const out: string[] = [];
  if (ctx.platform === "win32") {
    if (ctx.env.ProgramFiles) out.push(path.join(ctx.env.ProgramFiles, "nodejs", exe));
    if (ctx.env.LOCALAPPDATA) out.push(path.join(ctx.env.LOCALAPPDATA, "Volta", "bin", exe));
  } else {
    out.push("/opt/homebrew/bin/node", "/usr/local/bin/node", ...inHome(home, ".volta/bin/node"));
    for (const nvmRoot of inHome(home, ".nvm/versions/node")) out.push(...versionDirs(nvmRoot, "bin/node"));
    for (const fnmRoot of [
      ...inHome(home, ".local/share/fnm/node-versions"),
      ...inHome(home, "Library/Application Support/fnm/node-versions"),
      ...inHome(home, ".fnm/node-versions"),
    ])
      out.push(...versionDirs(fnmRoot, "installation/bin/node"));
    out.push("/usr/bin/node");
  }
  return out;
}

/** `<root>/<version>/<rel>` for every version dir, newest version first. */
function versionDirs(root: string, rel: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((n) => extractVersion(n))
    .sort((a, b) => compareVersions(b, a))
    .map((n) => path.join(root, n, rel));
}

/** Runs `<node> --version`; undefined when it does not run. */
export function nodeVersionOf(node: string, env: Env): string | undefined {
  try {
    const r = Bun.spawnSync([node, "--version"], {
      env: env as Record<string, string>,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      timeout: 5000,
    });
    if (r.exitCode !== 0) return undefined;
    return extractVersion(r.stdout.toString());
  } catch {
    return undefined;
  }
}

function majorOf(version: string): number {
  return Number(version.split(".")[0]);
}

const nodeProblems = new WeakMap<Error, { entry: string; source: ZCodeLaunch["source"] }>();

/**
 * When resolveZCode failed because the CLI was found but no usable Node.js
 * runs it: the entry and how it was found (doctor reports the CLI as found
 * and the Node as the problem, with the Node fix).
 */
export function nodeProblemOf(e: unknown): { entry: string; source: ZCodeLaunch["source"] } | undefined {
  return e instanceof Error ? nodeProblems.get(e) : undefined;
}

/** The Node that runs a JS entry: explicit setting, then common install paths, then PATH. */
function resolveNode(ctx: Ctx, entry: string): NodeFound {
  if (ctx.node) {
    const p = path.resolve(ctx.node);
    const version = isFile(p) ? nodeVersionOf(p, ctx.env) : undefined;
    if (!version)
      throw new ZCodeNotFoundError(`ZCODE_NODE points at ${JSON.stringify(ctx.node)}, which is not a working Node.js.`, [
        `ZCODE_NODE=${ctx.node}`,
      ]);
    if (majorOf(version) < MIN_NODE_MAJOR) throw nodeTooOld(entry, [`${p} (v${version})`]);
    return { path: p, version };
  }
  const tried: string[] = [];
  const seen = new Set<string>();
  const candidates = nodeCandidates(ctx);
  const onPath = which("node", ctx);
  if (onPath) candidates.push(onPath);
  for (const c of candidates) {
    if (seen.has(c) || !isFile(c)) continue;
    seen.add(c);
    const version = nodeVersionOf(c, ctx.env);
    if (!version) {
      tried.push(`${c} (does not run)`);
      continue;
    }
    if (majorOf(version) >= MIN_NODE_MAJOR) return { path: c, version };
    tried.push(`${c} (v${version})`);
  }
  if (tried.length) throw nodeTooOld(entry, tried);
  throw new ZCodeNotFoundError(
    `${entry} is a JavaScript entry and needs Node.js >= ${MIN_NODE_MAJOR}, but no Node.js was found. ` +
      "Install Node.js 22 or newer, or set ZCODE_NODE (--zcode-node) to its path.",
    [...candidates.filter((c, i) => candidates.indexOf(c) === i), "node on PATH"],
  );
}

function nodeTooOld(entry: string, tried: string[]): ZCodeUnsupportedError {
  return new ZCodeUnsupportedError(
    tried.join(", "),
    `${entry} is a JavaScript entry and needs Node.js >= ${MIN_NODE_MAJOR} (it uses node:sqlite), ` +
      `but only found: ${tried.join(", ")}. Install Node.js 22 or newer, or set ZCODE_NODE (--zcode-node) to its path.`,
  );
}

// ---------------------------------------------------------------- version

// The version decides whether the CLI is supported and which methods it has.
// Running `<cli> --version` costs a whole boot of ZCode (a large Node program),
// so it is avoided where the answer is already known: a JS entry's own
// package.json says it, and a file that has not changed since it was last
// asked keeps its answer. Otherwise the probe runs, beside the app-server
// child's own boot rather than before it (src/zcode/connection.ts).

interface CachedVersion {
  /** The entry's identity when it was asked: a replaced or updated CLI has another. */
  signature: string;
  version: Promise<string>;
  /** The answer, once it came. */
  settled?: string;
  /** Ends the probe's process tree while it runs. */
  stop?: () => void;
}

const versionCache = new Map<string, CachedVersion>();

/** Path, inode, size, mtime and ctime of the entry: any replacement or in-place update changes one of them. */
function fileSignature(file: string): string | undefined {
  try {
    const st = statSync(file);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}`;
  } catch {
    return undefined;
  }
}

// The environment is part of the key: it can change what runs (PATH, or a
// simulator personality in tests).
const cacheKey = (launch: ZCodeLaunch, env: Env) => JSON.stringify([launch.command, env]);

/**
 * The CLI's version when it is known without running the CLI: the version in
 * a JS entry's own package.json, or the answer of an earlier probe of this
 * very file (same path, inode, size and times). undefined: run the probe.
 */
export function knownVersion(launch: ZCodeLaunch, env: Env): string | undefined {
  if (launch.node !== undefined) {
    const fromPackage = packageVersion(launch.entry);
    if (fromPackage) return fromPackage;
  }
  const cached = versionCache.get(cacheKey(launch, env));
  if (cached?.settled === undefined) return undefined;
  return cached.signature === fileSignature(launch.entry) ? cached.settled : undefined;
}

/**
 * The version a JS entry's package metadata gives: the nearest package.json
 * above the entry, if that package names the entry as its `bin` or `main`
 * (another package's version, say the desktop app's own 3.x, would be taken
 * for the CLI's). The entry itself is never run for this.
 */
export function packageVersion(entry: string): string | undefined {
  let real: string;
  try {
    real = realpathSync(entry);
  } catch {
    return undefined;
  }
  for (let dir = path.dirname(real); ; ) {
    const file = path.join(dir, "package.json");
    if (isFile(file)) return versionIfClaimed(file, dir, real);
    const up = path.dirname(dir);
    // A package never reaches above the node_modules it sits in.
    if (up === dir || path.basename(dir) === "node_modules") return undefined;
    dir = up;
  }
}

function versionIfClaimed(file: string, dir: string, entry: string): string | undefined {
  let pkg: { version?: unknown; bin?: unknown; main?: unknown };
  try {
    pkg = JSON.parse(readFileSync(file, "utf8"));
  } catch {
    return undefined;
  }
  if (typeof pkg !== "object" || pkg === null || typeof pkg.version !== "string") return undefined;
  const targets: unknown[] = [pkg.main];
  if (typeof pkg.bin === "string") targets.push(pkg.bin);
  else if (typeof pkg.bin === "object" && pkg.bin !== null) targets.push(...Object.values(pkg.bin));
  const claims = targets.some((t) => {
    if (typeof t !== "string" || t === "") return false;
    try {
      return realpathSync(path.resolve(dir, t)) === entry;
    } catch {
      return false;
    }
  });
  return claims ? extractVersion(pkg.version) : undefined;
}

/**
 * `<command> --version`, run once per launch while the entry stays the same
 * file (cached by command line, environment and the entry's signature).
 * Resolves to the bare version (e.g. "0.15.3"); rejects with a ZCodeError when
 * the CLI does not run or prints no version.
 */
export function detectVersion(launch: ZCodeLaunch, env: Env, timeoutMs = 15_000): Promise<string> {
  const key = cacheKey(launch, env);
  const signature = fileSignature(launch.entry) ?? "";
  const cached = versionCache.get(key);
  if (cached && cached.signature === signature) return cached.version;
  const hooks: { stop?: () => void } = {};
  const entry: CachedVersion = { signature, version: runVersion(launch, env, timeoutMs, hooks) };
  entry.stop = () => hooks.stop?.();
  versionCache.set(key, entry);
  entry.version.then(
    (v) => {
      entry.settled = v;
    },
    // A failure is not cached: the user may fix the install and retry.
    () => {
      if (versionCache.get(key) === entry) versionCache.delete(key);
    },
  );
  return entry.version;
}

/**
 * Ends a `--version` probe of this launch that is still running (its promise
 * rejects): the bridge is shutting down and must leave no process behind.
 */
export function stopVersionProbe(launch: ZCodeLaunch, env: Env): void {
  const cached = versionCache.get(cacheKey(launch, env));
  if (cached && cached.settled === undefined) cached.stop?.();
}

/** How long the version output may take to arrive once the probe has exited. */
const PROBE_DRAIN_MS = 250;
/** Most output of the probe we keep (a version is a few bytes; a spewing probe must not grow our memory). */
const PROBE_OUTPUT_MAX = 64 * 1024;

async function runVersion(launch: ZCodeLaunch, env: Env, timeoutMs: number, hooks: { stop?: () => void } = {}): Promise<string> {
  const cmd = [...launch.command, "--version"];
  const isWin = process.platform === "win32";
  let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
  try {
    proc = Bun.spawn(cmd, {
      env: env as Record<string, string>,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      // Its own process group: a wrapper script that does not `exec` leaves
      // the real CLI as a grandchild, which a kill of the wrapper alone would
      // leave running (and holding our pipes open).
      detached: !isWin,
    });
  } catch (e) {
    throw new ZCodeNotFoundError(`Could not start ${launch.entry}: ${(e as Error).message}`, [launch.entry]);
  }
  const killTree = () => {
    try {
      if (isWin) proc.kill("SIGKILL");
      else process.kill(-proc.pid, "SIGKILL");
    } catch {
      // ESRCH: nothing of it is left.
    }
  };
  hooks.stop = killTree;
  // A line with a version on stdout is the answer: the probe is not waited
  // for past it. A runtime may take a while to exit once it has printed
  // (timers, flushing; the simulator ~40 ms after a 1 s boot), and that
  // exit would come straight out of the first session's start.
  let printed!: (v: { version: string }) => void;
  const printedVersion = new Promise<{ version: string }>((r) => (printed = r));
  const out = collectText(proc.stdout, (text) => {
    const end = text.lastIndexOf("\n");
    const version = end === -1 ? undefined : extractVersion(text.slice(0, end));
    if (version) printed({ version });
  });
  const err = collectText(proc.stderr);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
  const finish = () => {
    clearTimeout(timer);
    out.stop();
    err.stop();
  };
  const first = await Promise.race([proc.exited, deadline, printedVersion]);
  if (typeof first === "object") {
    // Still bounded: ended (with all it started) if it outlives the limit.
    void Promise.race([proc.exited, deadline]).then((r) => {
      if (r === "timeout") killTree();
      finish();
    });
    return first.version;
  }
  try {
    if (first === "timeout") {
      killTree();
      throw new ZCodeError(
        `\`${cmd.join(" ")}\` did not finish within ${(timeoutMs / 1000).toFixed(1)} s; it was stopped, with every process it started`,
        { code: LOCAL_ERR.timeout, method: "--version" },
      );
    }
    const code = first;
    // Exited: its output is in the pipes. A process it left behind may hold
    // them open, so their end is awaited only briefly (and that process ended).
    const drained = await Promise.race([Promise.all([out.done, err.done]).then(() => true), Bun.sleep(PROBE_DRAIN_MS).then(() => false), deadline.then(() => false)]);
    if (!drained) killTree();
    const stdout = out.text();
    const stderr = err.text();
    const version = extractVersion(stdout) ?? (code === 0 ? extractVersion(stderr) : undefined);
    if (code !== 0 || !version) {
      const why = proc.signalCode ? `was killed by ${proc.signalCode}` : `exited with code ${code}`;
      // The CLI's stderr goes into an error the editor shows: redacted (a
      // wrapper may echo its environment), then cut.
      const said = redactLine(stderr.trim()).slice(0, 500);
      throw new ZCodeError(`\`${cmd.join(" ")}\` ${why} without printing a version${said ? `: ${said}` : ""}`, {
        code: -32603,
        method: "--version",
      });
    }
    return version;
  } finally {
    finish();
  }
}

/** Reads a pipe into text (at most PROBE_OUTPUT_MAX bytes kept) until its end or `stop()`; `onText` sees the text so far after each read. */
function collectText(stream: ReadableStream<Uint8Array>, onText?: (text: string) => void): { done: Promise<void>; text(): string; stop(): void } {
  const reader = stream.getReader();
  const dec = new TextDecoder();
  let text = "";
  let kept = 0;
  const done = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        if (kept < PROBE_OUTPUT_MAX) {
          const part = r.value.subarray(0, PROBE_OUTPUT_MAX - kept);
          kept += part.length;
          text += dec.decode(part, { stream: true });
          onText?.(text);
        }
      }
    } catch {
      // cancelled, or the pipe broke: keep what we have
    }
  })();
  return {
    done,
    text: () => text,
    // Stop waiting on a pipe some other process still holds open.
    stop: () => void reader.cancel().catch(() => {}),
  };
}

/** For tests: forget cached versions. */
export function clearVersionCache(): void {
  versionCache.clear();
}
