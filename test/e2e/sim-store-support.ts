// What the simulator has saved of a session (its store is one JSON file per
// session in ZCODE_SIM_STATE_DIR): a test's way to see ZCode's own state
// without waiting for time, e.g. that a cancelled turn has ended there.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Harness } from "../support/acp-harness.ts";

/**
 * Turns of `sessionId` ZCode has finished, cancelled ones included. The count
 * is saved after the session stops being busy, so once it moves, ZCode is idle.
 */
export function simTurnsEnded(h: Harness, sessionId: string): number {
  const file = join(h.stateDir, `${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  if (!existsSync(file)) return 0;
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { turnCount?: number }).turnCount ?? 0;
  } catch {
    return 0; // caught mid-rename: read again on the next poll
  }
}
