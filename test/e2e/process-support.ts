// The ZCode child of a bridge under test, found through /proc (Linux).
import { readFileSync } from "node:fs";
import { childPids } from "../../scripts/bench/raw-acp-client.ts";

/** The ZCode child (`… app-server --stdio`) of a bridge, waiting for it to exist. */
export async function zcodeChild(bridgePid: number, timeoutMs = 5000): Promise<number> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    for (const pid of childPids(bridgePid)) {
      try {
        if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("app-server")) return pid;
      } catch {
        // Gone meanwhile.
      }
    }
    if (Date.now() > end) throw new Error(`no ZCode child under bridge ${bridgePid}`);
    await Bun.sleep(10);
  }
}
