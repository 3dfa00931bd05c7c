import type { GoalAction } from "../zcode/api.ts";
import type { GoalResult } from "../zcode/result-schemas.ts";
import { t } from "../i18n/index.ts";
import { sessionNotFound } from "../translate/errors.ts";
import { log } from "../log.ts";
import type { SessionHost } from "./host.ts";
import type { PromptQueue } from "./prompt-queue.ts";
import { Turn } from "./turn.ts";

// `_session/goal` set/resume. The goal extension's reference
// (claude-agent-acp docs/goal-extension.md, "Lifecycle architecture"): a goal
// belongs to the session, not to a prompt, so that it does not hold the prompt
// slot. The request answers once ZCode took the goal; the work ZCode then does
// toward it runs as the session's turn (outside any prompt): its events reach
// the editor, /steer and `_session/steering` steer it, session/cancel stops it
// (which pauses the goal in ZCode), and prompts queue behind it as behind any
// turn.

const logger = log.withTag("goal");

/** Resolves with ZCode's answer to session/goal once it took the goal; its work goes on as the session's turn. */
export function startGoalWork(
  s: SessionHost,
  queue: PromptQueue,
  goal: { action: GoalAction; objective?: string | undefined },
): Promise<GoalResult> {
  return new Promise<GoalResult>((resolve, reject) => {
    let answered = false;
    const answer = (r: GoalResult) => {
      answered = true;
      resolve(r);
    };
    void queue.run(async () => {
      // Closed while it waited: as for any request on a closed session.
      if (s.winding) return reject(sessionNotFound(s.id));
      const turn = new Turn(
        s,
        { text: goal.objective ?? "", attachments: [] },
        {
          start: async () => {
            const r = await s.api.goal({ sessionId: s.id, ...goal });
            // ZCode's own words for what it did, as `/goal` shows them.
            const said = r.response?.trim();
            if (said)
              s.emit({ sessionUpdate: "agent_message_chunk", messageId: crypto.randomUUID(), content: { type: "text", text: said } });
            answer(r);
            // A legacy session/goal turn: stopped by session/stop (no v4 command names it).
            return r.startedTurn ? {} : undefined;
          },
        },
      );
      try {
        const end = await turn.run();
        if (end.stopReason === "cancelled" && turn.reachedZCode) s.notice("info", t().commands.goal.pausedByCancel);
      } catch (err) {
        if (!answered) return reject(err);
        logger.warn(`the work toward the goal of ${s.id} failed:`, err);
      } finally {
        if (answered) await s.refreshGoalQuietly();
      }
    });
  });
}
