import { log } from "../log.ts";

const logger = log.withTag("session");

// A command that starts ZCode work (/rewind <new prompt>, /goal, a /steer
// that starts a turn) says something of ZCode's answer (its ACK) before the
// work's output: "rerunning…", "the answer could not be read", ZCode's goal
// reply. The answer and the work's first events can come in one read of
// ZCode's stdout (a pipe keeps no write boundaries; a busy bridge reads late),
// and then the events are routed synchronously while the code awaiting the
// answer runs only afterwards: the bridge's words would land in the middle
// of the streamed text. So the session's events are held from the moment
// such a request is sent until its answer has been handled, then let through
// in order. Bounded: a hold lets everything through after MAX_HOLD_MS or
// MAX_HELD events (the order is then no longer promised; nothing is lost).

/** Events a hold keeps at most (memory stays bounded). */
export const MAX_HELD = 5_000;
/** A hold's longest life; a request's answer is bounded by its own timeout, this bounds a release that never comes. */
export const MAX_HOLD_MS = 20_000;

export class EventHold {
  private holders = 0;
  /** Holding now (false again once the last holder released, or the hold gave up). */
  private holding = false;
  private queue: (() => void)[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly limits: { maxHeld: number; maxHoldMs: number } = { maxHeld: MAX_HELD, maxHoldMs: MAX_HOLD_MS }) {}

  /** Holds from now until the returned release is called (once; later calls do nothing). Holds nest. */
  hold(): () => void {
    this.holders++;
    if (this.holders === 1) {
      this.holding = true;
      this.timer = setTimeout(() => {
        logger.debug("an event hold outlived", this.limits.maxHoldMs, "ms; letting the events through");
        this.letThrough();
      }, this.limits.maxHoldMs);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.holders--;
      if (this.holders === 0) this.letThrough();
    };
  }

  /** Whether events are held now (`offer` would keep them). */
  get isHolding(): boolean {
    return this.holding;
  }

  /** Keeps `deliver` for later while holding (true), else leaves it to the caller (false). */
  offer(deliver: () => void): boolean {
    if (!this.holding) return false;
    this.queue.push(deliver);
    if (this.queue.length >= this.limits.maxHeld) {
      logger.debug("an event hold reached", this.limits.maxHeld, "events; letting them through");
      this.letThrough();
    }
    return true;
  }

  /** Delivers what was held, in order, and holds nothing more until the next hold begins. */
  private letThrough(): void {
    this.holding = false;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const held = this.queue;
    this.queue = [];
    for (const deliver of held) {
      try {
        deliver();
      } catch (err) {
        // One odd event must not keep the rest from the editor.
        logger.warn("failed to apply a held event:", err);
      }
    }
  }
}
