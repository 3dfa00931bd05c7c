import type { PromptResponse } from "@agentclientprotocol/sdk/unstable";

/**
 * A session's prompts, one at a time and in order, so none overlaps another
 * and none is lost. A prompt still waiting for the one before it answers a
 * cancel (`$/cancel_request`, session/cancel) at once; the work it would
 * have done then starts only to find itself cancelled.
 */
export class PromptQueue {
  private tail: Promise<unknown> = Promise.resolve();

  /** Runs `fn` after everything queued before it finished, however that ended. */
  run<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined);
    return run;
  }

  /** A prompt: `fn` in turn, or `cancelled` at once when `signal` aborts before its turn came. */
  prompt(signal: AbortSignal, fn: () => Promise<PromptResponse>): Promise<PromptResponse> {
    let started = false;
    const queued = this.run(() => {
      started = true;
      return fn();
    });
    const cancelledWhileQueued = new Promise<PromptResponse>((resolve) => {
      const onAbort = () => {
        if (!started) resolve({ stopReason: "cancelled" });
      };
      if (signal.aborted) onAbort();
      else signal.addEventListener("abort", onAbort, { once: true });
    });
    return Promise.race([queued, cancelledWhileQueued]);
  }
}
