import type { StopReason, Usage } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import type { TurnCompleted, TurnFailed } from "../zcode/event-schemas.ts";

// How a turn ZCode completed ends for the editor: the ACP stop reason, the
// notice that says why it stopped short, and its usage in ACP's terms.

type ShortReason = "maxTurns" | "maxToolCalls" | "maxBudget" | "interrupted";

/**
 * ZCode's turn.completed resultType → ACP stopReason, and the reason the
 * editor is told when the turn stopped short (a new resultType ends the turn
 * normally).
 */
const OUTCOMES: Record<string, { stop: StopReason; why?: ShortReason }> = {
  success: { stop: "end_turn" },
  cancelled: { stop: "cancelled" },
  error_max_turns: { stop: "max_turn_requests", why: "maxTurns" },
  error_max_tool_calls: { stop: "max_turn_requests", why: "maxToolCalls" },
  error_max_budget: { stop: "max_turn_requests", why: "maxBudget" },
  error_during_execution: { stop: "end_turn", why: "interrupted" },
};

/**
 * A turn that succeeded but whose last model answer was cut short: the
 * editor should know it is truncated (max_tokens) or withheld (refusal).
 */
const SHORT_ANSWERS: Record<string, StopReason> = {
  max_tokens: "max_tokens",
  length: "max_tokens",
  refusal: "refusal",
  "content-filter": "refusal",
};

/** The stop reason of a completed turn, and the notice that explains a short one (in the language in use). */
export function completedOutcome(resultType: string | undefined, lastModelStop: string | undefined): { stop: StopReason; notice?: string } {
  const outcome = OUTCOMES[resultType ?? "success"] ?? { stop: "end_turn" };
  const short = outcome.stop === "end_turn" && lastModelStop ? SHORT_ANSWERS[lastModelStop] : undefined;
  const stop = short ?? outcome.stop;
  if (!outcome.why) return { stop };
  const words = t().bridge.turn;
  return { stop, notice: words.stopped(words[outcome.why]) };
}

export function toUsage(u: TurnCompleted["usage"]): Usage | undefined {
  if (!u) return undefined;
  const inputTokens = u.inputTokens ?? 0;
  const outputTokens = u.outputTokens ?? 0;
  const totalTokens = u.totalTokens ?? inputTokens + outputTokens;
  const isCount = (n: number) => Number.isSafeInteger(n) && n >= 0;
  // ACP wants unsigned integers: nonsensical counts leave usage out.
  if (![inputTokens, outputTokens, totalTokens].every(isCount)) return undefined;
  const extra: Partial<Usage> = {};
  if (u.reasoningTokens !== undefined && isCount(u.reasoningTokens)) extra.thoughtTokens = u.reasoningTokens;
  if (u.cacheReadTokens !== undefined && isCount(u.cacheReadTokens)) extra.cachedReadTokens = u.cacheReadTokens;
  if (u.cacheWriteTokens !== undefined && isCount(u.cacheWriteTokens)) extra.cachedWriteTokens = u.cacheWriteTokens;
  return { inputTokens, outputTokens, totalTokens, ...extra };
}

/** A turn.failed ZCode says is worth another try (a busy code is handled apart). */
export function isRetryableFailure(p: TurnFailed): boolean {
  return p.error?.attribution?.retryable === true || p.error?.retryable === true;
}
