import { log as rootLog } from "../log.ts";

// A process group that must not outlive the bridge, even a bridge killed with
// SIGKILL, which runs no code of ours. The ZCode app-server child ends on its
// own when its stdin closes with us; a `--version` probe reads no stdin, and a
// wrapper script that hangs there leaves its grandchildren running for good.
// So a tiny guard process holds the read end of a pipe whose only writer is
// the bridge: when the bridge ends, however it ends, the kernel closes that
// pipe, the guard's `read` sees end of file, and it kills the group. Released
// (a newline, then the guard exits) once the group is done with. POSIX only:
// Windows has no process groups to guard this way.

const log = rootLog.withTag("zcode");

// `read` succeeds on the release line; at end of file (no line) it fails and
// the group goes. $1 is the group id.
const GUARD_SCRIPT = 'read -r _ || kill -9 -"$1" 2>/dev/null';

export interface GroupGuard {
  /** The group has ended (or was killed): the guard exits without killing anything. */
  release(): void;
}

const NO_GUARD: GroupGuard = { release() {} };

/** Guards process group `pgid` (a child spawned `detached`); a no-op where there is no /bin/sh. */
export function guardProcessGroup(pgid: number): GroupGuard {
  if (process.platform === "win32") return NO_GUARD;
  let guard: ReturnType<typeof Bun.spawn<"pipe", "ignore", "ignore">>;
  try {
    guard = Bun.spawn(["/bin/sh", "-c", GUARD_SCRIPT, "zcode-acp-group-guard", String(pgid)], {
      stdin: "pipe",
      stdout: "ignore",
      stderr: "ignore",
    });
  } catch (e) {
    log.debug(`no guard for process group ${pgid}: ${(e as Error).message}`);
    return NO_GUARD;
  }
  // The guard never keeps the bridge running.
  guard.unref();
  let released = false;
  return {
    release() {
      if (released) return;
      released = true;
      try {
        guard.stdin.write("\n");
        const ended = guard.stdin.end();
        if (ended instanceof Promise) ended.catch(() => {});
      } catch {
        // The guard is gone already.
      }
    },
  };
}
