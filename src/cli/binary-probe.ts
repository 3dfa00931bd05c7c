// `<binary> --version` for a binary `upgrade` is about to install (or just
// installed): bounded in time, in its own process group killed whole when it
// hangs or leaves something behind, its output capped. A download that hangs
// on --version must not hang `upgrade`.

/** How long the new binary may take to print its version. */
export const PROBE_TIMEOUT_MS = 10_000;
const OUTPUT_MAX = 4096;
/** How long its output may take to arrive once it has exited. */
const DRAIN_MS = 250;

/** Ends the process groups of the probes still running (upgrade is being stopped by a signal). */
const running = new Set<() => void>();
export function stopRunningProbes(): void {
  for (const stop of running) stop();
}

export type ProbeResult = { version: string } | { failed: true } | { timedOut: true };

export async function probeVersion(path: string, timeoutMs = PROBE_TIMEOUT_MS): Promise<ProbeResult> {
  const isWin = process.platform === "win32";
  let proc: ReturnType<typeof Bun.spawn<"ignore", "pipe", "ignore">>;
  try {
    proc = Bun.spawn([path, "--version"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      env: { PATH: process.env.PATH ?? "" },
      detached: !isWin,
    });
  } catch {
    return { failed: true };
  }
  const killTree = () => {
    try {
      if (isWin) proc.kill("SIGKILL");
      else process.kill(-proc.pid, "SIGKILL");
    } catch {
      // ESRCH: nothing of it is left.
    }
  };
  running.add(killTree);
  const reader = proc.stdout.getReader();
  let out = "";
  const dec = new TextDecoder();
  const read = (async () => {
    try {
      for (;;) {
        const r = await reader.read();
        if (r.done) break;
        if (out.length < OUTPUT_MAX) out += dec.decode(r.value, { stream: true });
      }
    } catch {
      // the pipe broke: keep what came
    }
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<"timeout">((r) => (timer = setTimeout(() => r("timeout"), timeoutMs)));
  try {
    const first = await Promise.race([proc.exited, deadline]);
    if (first === "timeout") return { timedOut: true };
    // A process it left behind may hold the pipe open: waited on only briefly.
    await Promise.race([read, Bun.sleep(DRAIN_MS)]);
    const version = out.trim().split("\n")[0]?.trim();
    return first === 0 && version ? { version } : { failed: true };
  } finally {
    clearTimeout(timer);
    running.delete(killTree);
    killTree();
    await reader.cancel().catch(() => {});
  }
}

/** -1, 0 or 1 as `a` is older than, the same as or newer than `b` (x.y.z, a pre-release before its release). */
export function compareVersions(a: string, b: string): number {
  const parse = (v: string) => {
    const [core = "", pre] = v.replace(/^v/, "").split("-", 2);
    return { nums: core.split(".").map((n) => Number.parseInt(n, 10) || 0), pre };
  };
  const x = parse(a);
  const y = parse(b);
  for (let i = 0; i < Math.max(x.nums.length, y.nums.length); i++) {
    const d = (x.nums[i] ?? 0) - (y.nums[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  if (x.pre === y.pre) return 0;
  if (x.pre === undefined) return 1;
  if (y.pre === undefined) return -1;
  return x.pre < y.pre ? -1 : 1;
}
