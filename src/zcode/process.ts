import type { Subprocess } from "bun";
import type { Env } from "./host.ts";
import { startGroupGuard } from "./group-guard.ts";
import type { ZCodeLaunch } from "./resolve.ts";

// Spawning the ZCode child in its own process group, ending the whole group,
// and making sure it cannot outlive us. The CLI exits when its stdin closes,
// and a bridge killed with SIGKILL closes that pipe, so a well-behaved child
// goes away on its own; we do not rely on the child alone: a guard ends its
// group whatever way we die (group-guard.ts). On Windows there is no process
// group to signal; there we rely on the stdin-EOF behaviour of the CLI.

export type ZCodeProcess = Subprocess<"pipe", "pipe", "pipe">;

export interface SpawnedChild {
  proc: ZCodeProcess;
  /** Signal the child's whole process group (the child alone on Windows). */
  signalGroup(signal: NodeJS.Signals): void;
  /** Stop the guard once we no longer need it (child gone, or we end it ourselves). */
  disarm(): void;
}

export function cleanEnv(env: Env): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined) out[k] = v;
  return out;
}

export function spawnZCode(launch: ZCodeLaunch, env: Env, graceMs: number): SpawnedChild {
  const isWin = process.platform === "win32";
  // Started first, armed once the child exists (group-guard.ts): only one written line lies between the two.
  const guard = startGroupGuard(graceMs, "the ZCode child");
  let proc: ReturnType<typeof Bun.spawn<"pipe", "pipe", "pipe">>;
  try {
    proc = Bun.spawn([...launch.command, "app-server", "--stdio"], {
      env: cleanEnv(env),
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      // setsid(): the child leads a new process group, so the group can be
      // signalled as a whole, and a Ctrl-C in the editor's terminal is ours to handle.
      detached: !isWin,
    });
  } catch (e) {
    guard.release();
    throw e;
  }
  const pid = proc.pid;
  guard.arm(pid);

  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      if (isWin) proc.kill(signal);
      else process.kill(-pid, signal);
    } catch {
      // ESRCH: the group is already gone.
    }
  };

  const disarm = () => guard.release();

  return { proc, signalGroup, disarm };
}
