import type { ContentBlock, PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { matchCommand } from "../commands/registry.ts";
import { log } from "../log.ts";
import { promptToInput } from "../translate/prompt-content.ts";
import type { StagedAttachments } from "./attachment-staging.ts";
import { compactInBackground, compactionDue } from "./auto-compact.ts";
import { runCommandBesideTurn, runCommandPrompt } from "./command-run.ts";
import type { CancelReason, SessionDeps } from "./deps.ts";
import type { SessionHost } from "./host.ts";
import type { PromptQueue } from "./prompt-queue.ts";
import type { SessionSettings } from "./session-settings.ts";
import { Turn } from "./turn.ts";

// A session's prompt from the editor: a slash command (beside a running turn
// for /steer, else in the session's queue) or a Turn, and what follows a
// turn (auto-compact, the quota push). The session owns the parts; this is
// the path through them.

const logger = log.withTag("session");

/** What the prompt path needs of its session (session.ts), beyond what every part does. */
export interface PromptHost extends SessionHost {
  readonly staged: StagedAttachments;
  readonly queue: PromptQueue;
  readonly settings: SessionSettings;
  readonly deps: Pick<SessionDeps, "maxPromptWireBytes" | "autoCompact" | "closing">;
  readonly winding: boolean;
  readonly lastUsage: { used: number; size: number } | undefined;
  cancel(reason: CancelReason): Promise<void>;
}

/** session/prompt: a slash command or a turn, one at a time; `$/cancel_request` on `signal`. */
export async function runPrompt(s: PromptHost, blocks: readonly ContentBlock[], signal: AbortSignal): Promise<PromptResponse> {
  const batch = s.staged.batch();
  let input: ReturnType<typeof promptToInput>;
  try {
    input = promptToInput(blocks, { cwd: s.cwd, stage: batch.stage, maxWireBytes: s.deps.maxPromptWireBytes });
  } catch (err) {
    s.staged.discard(batch.paths);
    throw err;
  }
  const match = matchCommand(input.typed);
  // A slash command takes its words from the typed text alone: what was staged has no use.
  if (match) s.staged.discard(batch.paths);
  // Beside the turn (a steer): not once a close or delete began, when ZCode must hear nothing more of the session.
  if (match?.command.runsBesideTurn) {
    if (s.winding) return { stopReason: "cancelled" };
    return (await runCommandBesideTurn(s, match.command, match.args, signal)).response;
  }
  return s.queue.prompt(signal, async (): Promise<PromptResponse> => {
    // Cancelled while it waited, the session is being closed, or the editor left: it never reaches ZCode.
    if (signal.aborted || s.winding) {
      s.staged.discard(batch.paths);
      return { stopReason: "cancelled" };
    }
    if (match) return runCommandPrompt(s, match.command, match.args, signal);
    s.settings.tellUnavailableModel();
    const turn = new Turn(s, input);
    const onAbort = () => void s.cancel("editor");
    signal.addEventListener("abort", onAbort, { once: true });
    try {
      const answer = await turn.run();
      if (answer.stopReason === "end_turn") compactIfDue(s);
      if (answer.stopReason !== "cancelled") void s.quota?.afterTurn(s).catch((err) => logger.debug("quota push failed:", err));
      return answer;
    } finally {
      signal.removeEventListener("abort", onAbort);
      // ZCode never had the prompt: nothing will read its files.
      if (!turn.reachedZCode) s.staged.discard(batch.paths);
    }
  });
}

/** --auto-compact: queued right behind the turn that filled the context, ahead of any prompt typed later. */
function compactIfDue(s: PromptHost): void {
  const threshold = s.deps.autoCompact;
  if (s.options.autoCompact?.on === false) return;
  if (!threshold || !compactionDue(threshold, s.lastUsage) || s.deps.closing()) return;
  void s.queue.run(() => compactInBackground(s, threshold)).catch((err) => logger.warn(`auto-compact of ${s.id} failed:`, err));
}
