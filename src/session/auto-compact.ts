import type { AutoCompact } from "../config.ts";
import { matchCommand } from "../commands/registry.ts";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { runCommandPrompt } from "./command-run.ts";
import type { SessionHost } from "./host.ts";

// --auto-compact: after a turn that left the context at or above the
// threshold, the session compacts in the background, exactly as if the user
// had typed /compact next (same request, same tool call, same reply), behind
// a short notice that says why. It holds the session's queue, so a prompt
// typed meanwhile waits for it instead of meeting a busy ZCode.

const logger = log.withTag("auto-compact");

interface Usage {
  used: number;
  size: number;
}

/** Whether the context in use reached the threshold. */
export function compactionDue(threshold: AutoCompact, usage: Usage | undefined): boolean {
  if (!usage) return false;
  if ("tokens" in threshold) return usage.used >= threshold.tokens;
  return usage.size > 0 && usage.used * 100 >= threshold.percent * usage.size;
}

/** Counts grouped by thousands the same way in both languages (12,345). */
const count = (n: number) => n.toLocaleString("en-US");

export function describe(threshold: AutoCompact): string {
  const words = t().bridge.autoCompact;
  if ("percent" in threshold) return words.percentThreshold(threshold.percent);
  return words.tokenThreshold(count(threshold.tokens), threshold.tokens);
}

/** The compaction, once the prompt that triggered it has been answered. */
export async function compactInBackground(s: SessionHost, threshold: AutoCompact): Promise<void> {
  // Decided after a quiet moment, not at the answer: the answer reaches the
  // editor first, and an editor that leaves at once (stdin closed a few ms
  // after the answer) is gone by then, so ZCode is not set compacting for nobody.
  await new Promise((r) => setTimeout(r, s.timings.autoCompactQuietMs));
  const usage = s.memory.lastUsage;
  if (s.winding || !compactionDue(threshold, usage)) return;
  const caps = s.api.capabilities();
  if (caps?.supports("session/compact") === false) {
    logger.debug("this ZCode CLI cannot compact; auto-compact skipped");
    return;
  }
  const compact = matchCommand("/compact");
  if (!compact) return;
  const pct = usage!.size > 0 ? Math.round((usage!.used * 100) / usage!.size) : undefined;
  const notice = t().bridge.autoCompact.notice(count(usage!.used), count(usage!.size), pct, describe(threshold));
  s.notice("info", notice);
  logger.info(`session ${s.id}: context ${usage!.used}/${usage!.size}, compacting`);
  await runCommandPrompt(s, compact.command, "", new AbortController().signal);
}
