// A per-second budget for log lines that a misbehaving child could produce
// without end (bad frames, stderr floods): past the budget, lines are counted
// and summarised once per second instead of written.

export class LogLimiter {
  private windowStart = 0;
  private inWindow = 0;
  private suppressed = 0;

  constructor(
    private readonly perSecond: number,
    /** Called with the number of lines swallowed in the window that just ended. */
    private readonly onSuppressed: (count: number) => void,
    private readonly now: () => number = Date.now,
  ) {}

  /** True when this line may be logged. */
  allow(): boolean {
    const t = this.now();
    if (t - this.windowStart >= 1000) {
      this.flush();
      this.windowStart = t;
      this.inWindow = 0;
    }
    if (this.inWindow >= this.perSecond) {
      this.suppressed++;
      return false;
    }
    this.inWindow++;
    return true;
  }

  /** Reports what was swallowed so far, if anything. */
  flush(): void {
    if (this.suppressed > 0) {
      const n = this.suppressed;
      this.suppressed = 0;
      this.onSuppressed(n);
    }
  }
}
