import { realpathSync, statSync } from "node:fs";
import path from "node:path";
import { extractVersion } from "./capabilities.ts";
import { readBoundedText } from "../read-bounded.ts";
import { redactLine } from "../redact.ts";
import { LOCAL_ERR, ZCodeError, ZCodeNotFoundError } from "./errors.ts";
import { startGroupGuard } from "./group-guard.ts";
import { isFile, type Env } from "./host.ts";
import type { ZCodeLaunch } from "./resolve.ts";

// Which CLI the bridge is about to talk to: its version decides whether it is
// supported and which methods it has. Asking `zcode --version` costs a whole
// boot of ZCode (a large Node program), so the answer is taken where it is
// already known: a JS entry's own package.json says it, and a file that has
// not changed since it was last asked keeps its answer. Otherwise the probe
// runs, beside the app-server child's own boot rather than before it
// (connection.ts). The probe is bounded whatever its process tree does: a
// deadline, its own process group killed whole (also when the bridge itself
// is killed: group-guard.ts), output capped, and pipes a leftover grandchild
// holds open not waited on.

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

/** Device, inode, size, mtime and ctime of the entry: any replacement or in-place update changes one of them. */
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
    pkg = JSON.parse(readBoundedText(file) ?? "");
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
 * `<command> --version`, run once while the entry stays the same file
 * (cached by command line, environment and the entry's signature). Resolves
 * to the bare version (e.g. "0.15.3"); rejects with a ZCodeError when the CLI
 * does not run or prints no version.
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
    // A failure is not kept: the user may fix the install and retry.
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

/** For tests: forget every version asked so far. */
export function clearVersionCache(): void {
  versionCache.clear();
}

/** How long the version output may take to arrive once the probe has exited. */
const PROBE_DRAIN_MS = 250;
/** Most output of the probe we keep (a version is a few bytes; a spewing probe must not grow our memory). */
const PROBE_OUTPUT_MAX = 64 * 1024;

/** The probe itself; `hooks.stop` ends its process tree while it runs. */
async function runVersion(launch: ZCodeLaunch, env: Env, timeoutMs: number, hooks: { stop?: () => void }): Promise<string> {
  const cmd = [...launch.command, "--version"];
  const isWin = process.platform === "win32";
  let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "pipe">>;
  // Killed with us if we die before it is done: started first, armed once the probe exists (group-guard.ts).
  const guard = startGroupGuard(0, "the --version probe");
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
    guard.release();
    const why = (e as Error).message;
    throw new ZCodeNotFoundError((m) => m.cannotStart(launch.entry, why), [launch.entry]);
  }
  guard.arm(proc.pid);
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
  // Once it has exited, its output is in the pipes. A process it left behind
  // may hold them open, so their end is awaited only briefly.
  const drained = () =>
    Promise.race([
      Promise.all([out.done, err.done]).then(() => true),
      Bun.sleep(PROBE_DRAIN_MS).then(() => false),
      deadline.then(() => false),
    ]);
  const finish = () => {
    clearTimeout(timer);
    out.stop();
    err.stop();
    guard.release();
  };
  const first = await Promise.race([proc.exited, deadline, printedVersion]);
  if (typeof first === "object") {
    // Still bounded: ended, with all it started, if it outlives the limit or
    // leaves something behind on its pipes.
    void Promise.race([proc.exited, deadline]).then(async (r) => {
      if (r === "timeout" || !(await drained())) killTree();
      finish();
    });
    return first.version;
  }
  try {
    if (first === "timeout") {
      killTree();
      throw new ZCodeError((m) => m.versionTimeout(cmd.join(" "), (timeoutMs / 1000).toFixed(1)), {
        code: LOCAL_ERR.timeout,
        method: "--version",
      });
    }
    const code = first;
    // What it left behind on the pipes is ended.
    if (!(await drained())) killTree();
    const stdout = out.text();
    const stderr = err.text();
    const version = extractVersion(stdout) ?? (code === 0 ? extractVersion(stderr) : undefined);
    if (code !== 0 || !version) {
      const end = proc.signalCode ? { signal: String(proc.signalCode) } : { code };
      // The CLI's stderr goes into an error the editor shows: redacted (a
      // wrapper may echo its environment), then cut.
      const said = redactLine(stderr.trim()).slice(0, 500);
      throw new ZCodeError((m) => m.noVersion(cmd.join(" "), end, said), { code: -32603, method: "--version" });
    }
    return version;
  } finally {
    finish();
  }
}

/** Reads a pipe into text (at most PROBE_OUTPUT_MAX bytes kept) until its end or `stop()`; `onText` sees the text so far after each read. */
function collectText(
  stream: ReadableStream<Uint8Array>,
  onText?: (text: string) => void,
): { done: Promise<void>; text(): string; stop(): void } {
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
