// Retrying a write the app's own writer is holding up.
//
// bun:sqlite is synchronous: a busy_timeout makes SQLite wait inside the call,
// which blocks the whole bridge (the editor's messages, the ZCode child's
// events) for that long. So the in-call wait is kept short and the rest of
// the patience is spent asleep between attempts, where the event loop runs.

/** SQLite's "someone else holds the lock" results; everything else is a real failure. */
export function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" && (code.startsWith("SQLITE_BUSY") || code.startsWith("SQLITE_LOCKED"));
}

/**
 * Runs `attempt` once, then again after each delay while it fails with a busy
 * or locked database. Any other error, or the last busy one, is thrown.
 * `stop()` true before a retry ends the retries (the owner was closed).
 */
export async function withBusyRetry<T>(attempt: () => T, delaysMs: readonly number[], stop: () => boolean = () => false): Promise<T> {
  for (let i = 0; ; i++) {
    try {
      return attempt();
    } catch (err) {
      const delay = delaysMs[i];
      if (!isBusy(err) || delay === undefined || stop()) throw err;
      await Bun.sleep(delay);
      if (stop()) throw err;
    }
  }
}
