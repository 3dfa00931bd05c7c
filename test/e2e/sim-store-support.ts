// What the simulator has saved of a session (its store is one JSON file per
// session in ZCODE_SIM_STATE_DIR): a test's way to see ZCode's own state
// without waiting for time, e.g. that a cancelled turn has ended there.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The fields of a saved session these tests read. */
interface Saved {
  turnCount?: number;
  todos?: unknown[];
}

/** The session as the simulator last saved it in `stateDir` (undefined: not saved yet). */
export function simSaved(stateDir: string, sessionId: string): Saved | undefined {
  const file = join(stateDir, `${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  if (!existsSync(file)) return undefined;
  try {
    return JSON.parse(readFileSync(file, "utf8")) as Saved;
  } catch {
    return undefined; // caught mid-write: read again on the next poll
  }
}

/**
 * Turns of `sessionId` ZCode has finished, cancelled ones included. The count
 * is saved after the session stops being busy, so once it moves, ZCode is idle.
 */
export function simTurnsEnded(h: { stateDir: string }, sessionId: string): number {
  return simSaved(h.stateDir, sessionId)?.turnCount ?? 0;
}
