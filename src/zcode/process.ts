import type { Subprocess } from "bun";
import { log as rootLog } from "../log.ts";
import type { Env } from "./host.ts";
import type { ZCodeLaunch } from "./resolve.ts";

// Spawning the ZCode child in its own process group, ending the whole group,
// and making sure it cannot outlive us.
//
// Why the watchdog: the CLI exits when its stdin closes, and a bridge killed
// with SIGKILL closes that pipe, so a well-behaved child goes away on its own.
// We do not rely on the child alone: next to it runs a tiny `/bin/sh` that
// blocks reading a pipe only we hold open. Whatever way we die, the kernel
// closes our end, the shell's `read` sees EOF, and it ends the child's process
// group (SIGTERM, then SIGKILL). Bun has no prctl(PR_SET_PDEATHSIG), and this
// also works on macOS. On Windows there is no process group to signal; there
// we rely on the stdin-EOF behaviour of the CLI.

const log = rootLog.withTag("zcode");

export type ZCodeProcess = Subprocess<"pipe", "pipe", "pipe">;

export interface SpawnedChild {
  proc: ZCodeProcess;
  /** Signal the child's whole process group (the child alone on Windows). */
  signalGroup(signal: NodeJS.Signals): void;
  /** Stop the watchdog once we no longer need it (child gone, or we end it ourselves). */
  disarm(): void;
}

const WATCHDOG_SCRIPT =
  // $1 = process group id of the ZCode child; $2 = grace seconds. No `--`
  // before the negative pid: dash rejects it.
  `trap '' INT HUP TERM; read -r _; kill -TERM "-$1" 2>/dev/null; sleep "$2"; kill -KILL "-$1" 2>/dev/null; exit 0`;

export function cleanEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

export function spawnZCode(launch: ZCodeLaunch, env: Env, graceMs: number): SpawnedChild {
  const proc = Bun.spawn([...launch.command, "app-server", "--stdio"], {
    env: cleanEnv(env),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
    // setsid(): the child leads a new process group, so the group can be
    // signalled as a whole, and a Ctrl-C in the editor's terminal is ours to handle.
    detached: process.platform !== "win32",
  });
  const isWin = process.platform === "win32";
  const pid = proc.pid;

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (isWin) proc.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };

  let watchdog: Subprocess<"pipe", "ignore", "ignore"> | undefined;
  if (!isWin) {
    try {
      watchdog = Bun.spawn(["/bin/sh", "-c", WATCHDOG_SCRIPT, "zcode-watchdog", String(pid), String(Math.ceil(graceMs / 1000))], {
        stdin: "pipe",
        stdout: "ignore",
        stderr: "ignore",
        detached: true,
        env: { PATH: "/usr/bin:/bin" },
      });
      // The watchdog must never keep our event loop alive.
      watchdog.unref();
      (watchdog.stdin as { unref?: () => void }).unref?.();
    } catch (e) {
      log.debug(`no watchdog for the ZCode child (${(e as Error).message}); relying on its stdin EOF`);
    }
  }

  const disarm = () => {
    if (!watchdog) return;
    try {
      watchdog.kill("SIGKILL");
    } catch {
      // already gone
    }
    watchdog = undefined;
  };

  return { proc, signalGroup, disarm };
}
