/** Timings of the turn machinery; short values make tests fast. */
export interface Timings {
  /** Silence while a turn runs before we resubscribe with afterSeq. */
  stallMs: number;
  /** How long a prompt waits for a busy ZCode session to become idle. */
  busyWaitMs: number;
  /** First session/read polling interval while waiting for idle (it grows to 1 s). */
  idlePollMs: number;
  /** After a cancel: how long to wait for ZCode's own `cancelled` before answering anyway. */
  cancelGraceMs: number;
  /** Transient turn.failed: retries and the base of the exponential backoff. */
  retryTries: number;
  retryBaseMs: number;
  /** Upper bound for the cheap session/read done at the end of a turn. */
  endReadMs: number;
  /**
   * --auto-compact: the quiet moment after a turn's answer before the
   * compaction is decided. An editor that leaves right after the answer
   * (stdin closed) must not set ZCode compacting on its way out.
   */
  autoCompactQuietMs: number;
}

export const DEFAULT_TIMINGS: Timings = {
  stallMs: 2000,
  busyWaitMs: 30_000,
  idlePollMs: 100,
  cancelGraceMs: 500,
  retryTries: 3,
  retryBaseMs: 250,
  endReadMs: 2000,
  autoCompactQuietMs: 250,
};
