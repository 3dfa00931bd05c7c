import type { SessionHost } from "./host.ts";
import { waitIdle } from "./reads.ts";

/** The longest pause between two sends a busy ZCode refused. */
export const MAX_BUSY_PAUSE_MS = 1000;

/**
 * The wait between a busy answer to a send (-32010) and the next send.
 * ZCode's session/read reports its runtime's projection, which is idle as
 * soon as the turn completed, while the prompt lock session/send checks
 * (`record.activeAbortController`) is released only after the turn's
 * completion promise resolved (jimpablo/ZCode@aac4755
 * …/zcode-protocol/server-operations.ts `runPromptTurnInBackground`,
 * `finally`; `sendPrompt` throws -32010 while it is set). In that window an
 * idle read says nothing: so after each busy answer the next send waits for
 * idle and at least a pause, whatever the status said: idlePollMs at
 * first, doubling to MAX_BUSY_PAUSE_MS. One per turn.
 */
export class BusyBackoff {
  private pauseMs = 0;

  /** ZCode answered busy just now: resolves when the next send may go (within `budgetMs`, or once `abandoned`). */
  async waitToResend(s: SessionHost, budgetMs: number, abandoned: () => boolean): Promise<void> {
    const busyAt = Date.now();
    this.pauseMs = this.pauseMs ? Math.min(this.pauseMs * 2, MAX_BUSY_PAUSE_MS) : Math.max(1, s.timings.idlePollMs);
    await waitIdle(s, budgetMs, abandoned);
    const left = busyAt + Math.min(this.pauseMs, budgetMs) - Date.now();
    if (left > 0 && !abandoned()) await Bun.sleep(left);
  }
}
