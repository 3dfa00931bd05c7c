import { extractVersion } from "./capabilities.ts";
import { redactLine } from "../redact.ts";
import { LOCAL_ERR, ZCodeError, ZCodeNotFoundError } from "./errors.ts";
import type { Env } from "./host.ts";
import type { ZCodeLaunch } from "./resolve.ts";

// `zcode --version`: which CLI the bridge is about to talk to, asked before
// every child starts (the CLI may have been updated or replaced in place since
// the last one) and by doctor. The probe is bounded whatever its process tree
// does: a deadline, its own process group killed whole, output capped, and
// pipes a leftover grandchild holds open not waited on.

/** How long the version output may take to arrive once the probe has exited. */
const PROBE_DRAIN_MS = 250;
/** Most output of the probe we keep (a version is a few bytes; a spewing probe must not grow our memory). */
const PROBE_OUTPUT_MAX = 64 * 1024;

/**
 * `<command> --version`, run afresh on every call. Resolves to the bare
 * version (e.g. "0.15.3"); rejects with a ZCodeError when the CLI does not run
 * or prints no version.
 */
export async function detectVersion(launch: ZCodeLaunch, env: Env, timeoutMs = 15_000): Promise<string> {
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
    const why = (e as Error).message;
    throw new ZCodeNotFoundError((m) => m.cannotStart(launch.entry, why), [launch.entry]);
  }
  const killTree = () => {
    try {
      if (isWin) proc.kill("SIGKILL");
      else process.kill(-proc.pid, "SIGKILL");
    } catch {
      // ESRCH: nothing of it is left.
    }
  };
  const out = collectText(proc.stdout);
  const err = collectText(proc.stderr);
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
  try {
    const first = await Promise.race([proc.exited, deadline]);
    if (first === "timeout") {
      killTree();
      throw new ZCodeError((m) => m.versionTimeout(cmd.join(" "), (timeoutMs / 1000).toFixed(1)), { code: LOCAL_ERR.timeout, method: "--version" });
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
      const end = proc.signalCode ? { signal: String(proc.signalCode) } : { code };
      // The CLI's stderr goes into an error the editor shows: redacted (a
      // wrapper may echo its environment), then cut.
      const said = redactLine(stderr.trim()).slice(0, 500);
      throw new ZCodeError((m) => m.noVersion(cmd.join(" "), end, said), { code: -32603, method: "--version" });
    }
    return version;
  } finally {
    clearTimeout(timer);
    out.stop();
    err.stop();
  }
}

/** Reads a pipe into text (at most PROBE_OUTPUT_MAX bytes kept) until its end or `stop()`. */
function collectText(stream: ReadableStream<Uint8Array>): { done: Promise<void>; text(): string; stop(): void } {
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
