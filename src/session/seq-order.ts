/**
 * Puts one session's events back in `seq` order and lets each through once.
 *
 * Events may arrive twice (a live push and the same event in a
 * resubscription's `events`) or out of order (a live push ahead of a missed
 * one). Early events wait in a bounded buffer; a hole that resubscribing
 * could not fill is skipped rather than waited on forever.
 */
export class SeqOrder<E extends { seq: number }> {
  private readonly buffer = new Map<number, E>();

  constructor(
    /** The last seq applied; the next event expected is last + 1. */
    public last = 0,
    private readonly maxBuffered = 50_000,
  ) {}

  /**
   * Starts over at `last` (a fresh subscription told us the current seq).
   * Events already buffered beyond it are kept; returns those now ready.
   */
  reset(last: number): E[] {
    this.last = last;
    for (const k of [...this.buffer.keys()]) if (k <= last) this.buffer.delete(k);
    const ready: E[] = [];
    this.drain(ready);
    return ready;
  }

  /** Forgets everything: another child's events are numbered from scratch. */
  clear(): void {
    this.buffer.clear();
    this.last = 0;
  }

  /** True while events wait behind a hole. */
  get hasGap(): boolean {
    return this.buffer.size > 0;
  }

  /** Takes one event; returns those now ready to apply, in order. */
  accept(e: E): E[] {
    if (e.seq <= this.last || this.buffer.has(e.seq)) return [];
    if (e.seq === this.last + 1) {
      this.last = e.seq;
      const ready = [e];
      this.drain(ready);
      return ready;
    }
    this.buffer.set(e.seq, e);
    if (this.buffer.size > this.maxBuffered) return this.skipGap();
    return [];
  }

  /** Gives up on the current hole: continues from the earliest buffered event. */
  skipGap(): E[] {
    if (!this.buffer.size) return [];
    let min = Infinity;
    for (const k of this.buffer.keys()) if (k < min) min = k;
    this.last = min - 1;
    const ready: E[] = [];
    this.drain(ready);
    return ready;
  }

  private drain(into: E[]): void {
    for (;;) {
      const next = this.buffer.get(this.last + 1);
      if (!next) return;
      this.buffer.delete(next.seq);
      this.last = next.seq;
      into.push(next);
    }
  }
}
