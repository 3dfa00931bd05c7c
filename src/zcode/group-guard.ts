import type { Subprocess } from "bun";
import { log as rootLog } from "../log.ts";

// A process group of ours (the ZCode child, a `--version` probe) that must not
// outlive the bridge, even a bridge killed with SIGKILL, which runs no code of
// ours. Next to the group runs a tiny `/bin/sh` that blocks reading a pipe
// only we hold open. Whatever way we die, the kernel closes our end, the
// shell's `read` sees EOF, and it ends the group (SIGTERM, then SIGKILL after
// the grace). Bun has no prctl(PR_SET_PDEATHSIG), and this also works on
// macOS. On Windows there is no process group to signal: no guard there.
//
// The guard is started before the child and told its group on a line once
// the child exists: started after it, a bridge killed between the two spawns
// (a loaded machine can take milliseconds there) left the child unguarded for
// good (fault-process.test.ts "SIGKILLed while ZCode's --version probe
// hangs" caught it under load). Now only the single write of that line is
// between them, and a line already written is read even after we die.

const log = rootLog.withTag("zcode");

const GUARD_SCRIPT =
  // $1 = grace seconds; the first line read = the process group id (none: we
  // died before the child existed, nothing to end). No `--` before the
  // negative pid: dash rejects it. Signals meant for us (a Ctrl-C in the
  // editor's terminal) must not end the guard before its group.
  `trap '' INT HUP TERM; read -r g || exit 0; read -r _; kill -TERM "-$g" 2>/dev/null; sleep "$1"; kill -KILL "-$g" 2>/dev/null; exit 0`;

export interface GroupGuard {
  /** Names the group to end (the child just spawned `detached`: its pid); once. */
  arm(pgid: number): void;
  /** The group is done with (ended, or ended by us), or was never spawned: the guard goes, killing nothing. */
  release(): void;
}

const NO_GUARD: GroupGuard = { arm() {}, release() {} };

/**
 * A guard for a process group about to be spawned (`detached`), armed with
 * its pgid right after; `graceMs` between its SIGTERM and SIGKILL.
 */
export function startGroupGuard(graceMs: number, what: string): GroupGuard {
  if (process.platform === "win32") return NO_GUARD;
  let guard: Subprocess<"pipe", "ignore", "ignore"> | undefined;
  try {
    guard = Bun.spawn(["/bin/sh", "-c", GUARD_SCRIPT, "zcode-acp-guard", String(Math.ceil(graceMs / 1000))], {
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
    arm(pgid) {
      if (!guard) return;
      try {
        const stdin = guard.stdin as { write(s: string): unknown; flush?(): unknown };
        stdin.write(`${pgid}\n`);
        stdin.flush?.();
      } catch (e) {
        log.debug(`the guard of ${what} could not be told its group (${(e as Error).message})`);
      }
    },
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
