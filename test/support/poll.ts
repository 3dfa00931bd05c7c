// The one place tests poll: for an event nothing can subscribe to (a file
// appearing, a process ending, a field of an object the test does not own).
// A poll is a wait for that event with a deadline, never a wait for time.

/** Resolves true as soon as `cond` holds, false once `timeoutMs` passed without it. */
export async function pollUntil(cond: () => boolean, timeoutMs = 5_000, everyMs = 10): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (cond()) return true;
    if (Date.now() >= end) return cond();
    await Bun.sleep(everyMs);
  }
}
