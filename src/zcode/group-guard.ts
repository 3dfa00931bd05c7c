import type { Subprocess } from "bun";
import { log as rootLog } from "../log.ts";

// A process group of ours (the ZCode child, a `--version` probe) that must not
// outlive the bridge, even a bridge killed with SIGKILL, which runs no code of
// ours. Next to the group runs a tiny `/bin/sh` that blocks reading a pipe
// only we hold open. Whatever way we die, the kernel closes our end, the
// shell's `read` sees EOF, and it ends the group (SIGTERM, then SIGKILL after
// the grace). Bun has no prctl(PR_SET_PDEATHSIG), and this also works on
// macOS. On Windows there is no process group to signal: no guard there.

const log = rootLog.withTag("zcode");

const GUARD_SCRIPT =
  // $1 = process group id; $2 = grace seconds. No `--` before the negative
  // pid: dash rejects it. Signals meant for us (a Ctrl-C in the editor's
  // terminal) must not end the guard before its group.
  `trap '' INT HUP TERM; read -r _; kill -TERM "-$1" 2>/dev/null; sleep "$2"; kill -KILL "-$1" 2>/dev/null; exit 0`;

export interface GroupGuard {
  /** The group is done with (ended, or ended by us): the guard goes, killing nothing. */
  release(): void;
}

const NO_GUARD: GroupGuard = { release() {} };

/** Guards process group `pgid` (a child spawned `detached`); `graceMs` between its SIGTERM and SIGKILL. */
export function guardProcessGroup(pgid: number, graceMs: number, what: string): GroupGuard {
  if (process.platform === "win32") return NO_GUARD;
  let guard: Subprocess<"pipe", "ignore", "ignore"> | undefined;
  try {
    guard = Bun.spawn(["/bin/sh", "-c", GUARD_SCRIPT, "zcode-acp-guard", String(pgid), String(Math.ceil(graceMs / 1000))], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
      // Its own group: a signal to ours does not reach it.
      detached: true,
      env: { PATH: "/usr/bin:/bin" },
    });
    // The guard must never keep our event loop alive.
    guard.unref();
    (guard.stdin as { unref?: () => void }).unref?.();
  } catch (e) {
    log.debug(`no guard for ${what} (${(e as Error).message})`);
    return NO_GUARD;
  }
  return {
    release() {
      if (!guard) return;
      try {
        guard.kill("SIGKILL");
      } catch {
        // already gone
      }
      guard = undefined;
    },
  };
}
