// A running turn's watch for silence: when ZCode sends nothing for the stall
// period, the owner resubscribes and looks at the session (events can be
// lost on the way). One timer per period, not per event: a flood of events
// costs a Date.now() each, and the timer re-arms for what is left.

export interface StallOwner {
  /** Watched only while this holds (the turn runs in ZCode). */
  watching(): boolean;
  /** Silence for the whole period, `quietMs` in all; the watch goes on once this settles. */
  stalled(quietMs: number): Promise<void>;
}

export class StallWatch {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private lastEvent = 0;

  constructor(
    private readonly stallMs: () => number,
    private readonly owner: StallOwner,
  ) {}

  /** When the last event came (Date.now()). */
  get lastEventAt(): number {
    return this.lastEvent;
  }

  /** Notes activity, and starts the watch if it is not on. */
  touch(): void {
    if (!this.owner.watching()) return;
    this.lastEvent = Date.now();
    if (!this.timer) this.arm(this.stallMs());
  }

  clear(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(ms: number): void {
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.owner.watching()) return;
      const quiet = Date.now() - this.lastEvent;
      const stallMs = this.stallMs();
      if (quiet < stallMs) return this.arm(stallMs - quiet);
      void this.owner.stalled(quiet).finally(() => this.touch());
    }, ms);
  }
}
