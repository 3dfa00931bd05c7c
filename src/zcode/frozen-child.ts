// When a ZCode child is frozen rather than slow. A slow child still writes:
// it answers other requests, streams events, logs to stderr, even if one
// request (and everything queued behind it) times out. A frozen one (a
// stopped process, a deadlock) writes nothing at all. So the measure is not
// how many requests timed out (several queued behind one slow request time
// out at the same moment), but how long the child has written nothing while
// it owed answers: from the first request sent after its last output (or
// from that output, if answers were still owed then) to now. A request that
// timed out is still owed: the child never answered it.

/** The silence that makes a child frozen, in timeouts of the request that just timed out. */
export const FROZEN_AFTER_TIMEOUTS = 3;

export class SilenceWatch {
  /** Since when the child has owed answers without writing anything; undefined while it owes none. */
  private owedSince: number | undefined;

  /** A request was written to the child. */
  sent(): void {
    this.owedSince ??= Date.now();
  }

  /**
   * The child wrote something (a frame, a stderr line), or its silence stops
   * counting (we held its stdout back). `stillOwed`: requests to it are
   * still waiting for answers, and its silence counts again from now.
   */
  heard(stillOwed: boolean): void {
    this.owedSince = stillOwed ? Date.now() : undefined;
  }

  /** How long the child has written nothing while owing answers, in ms (0 when it owes none). */
  silentMs(): number {
    return this.owedSince === undefined ? 0 : Date.now() - this.owedSince;
  }

  /** A request with this timeout just timed out: is the child frozen? */
  frozen(timeoutMs: number): boolean {
    return this.owedSince !== undefined && this.silentMs() >= FROZEN_AFTER_TIMEOUTS * timeoutMs;
  }
}
