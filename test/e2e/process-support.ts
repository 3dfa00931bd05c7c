// The ZCode child of a bridge under test, found through /proc (Linux).
import { readFileSync } from "node:fs";
import { childPids } from "../../scripts/bench/raw-acp-client.ts";
import { pollUntil } from "../support/poll.ts";

function appServerChild(bridgePid: number): number | undefined {
  for (const pid of childPids(bridgePid)) {
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("app-server")) return pid;
    } catch {
      // Gone meanwhile.
    }
  }
  return undefined;
}

/** The ZCode child (`… app-server --stdio`) of a bridge, waiting for it to exist. */
export async function zcodeChild(bridgePid: number, timeoutMs = 5000): Promise<number> {
  let found: number | undefined;
  if (!(await pollUntil(() => (found = appServerChild(bridgePid)) !== undefined, timeoutMs))) {
    throw new Error(`no ZCode child under bridge ${bridgePid}`);
  }
  return found!;
}
