import * as v from "valibot";
import { t } from "../../i18n/index.ts";
import type { GoalResult } from "../result-schemas.ts";
import { loose, maybe, num, str } from "../schemas.ts";

// `/goal` (show) on a child that speaks v4 alone. v4 has no command that
// shows a goal (command.ts: sendGoalCommand, pauseGoal, resumeGoal only;
// goal-compact.ts), but every conversation snapshot carries it
// (snapshot.ts goalStateSchema: objective, status, timeUsedSeconds), so the
// answer legacy's `session/goal {action:"show"}` gave is made from it:
// "Goal <status>\nObjective: <objective>…" (server-operations.ts
// goalSession). v4 keeps no token count of the goal, so that line is left out.

/** snapshot.ts goalStateSchema, the fields shown. */
const GoalStateSchema = loose({ objective: str, status: maybe(str), timeUsedSeconds: maybe(num) });
const StateSchema = loose({ goal: maybe(v.nullable(GoalStateSchema)) });

/**
 * snapshot.ts goal status → the target status legacy named: verifying and
 * notSatisfied are an active target under verification (projection-state.ts
 * computeAvailability: "verifier/notSatisfied 期间底层 target 仍是 active");
 * verified is a complete one (projection-rows.ts mapGoalStatus, complete → verified).
 */
const LEGACY_STATUS: Record<string, string> = {
  active: "active",
  verifying: "active",
  notSatisfied: "active",
  paused: "paused",
  verified: "complete",
  failed: "failed",
};

/**
 * What legacy's show answered, from the conversation's projected state (the
 * feed's ConversationStateView); no goal: an empty answer, which /goal tells
 * in its own words (commands.goal.done.show), as it does legacy's.
 */
export function goalShown(state: unknown): GoalResult {
  const r = v.safeParse(StateSchema, state);
  const goal = r.success ? r.output.goal : undefined;
  if (!goal) return { startedTurn: false };
  const status = LEGACY_STATUS[goal.status ?? "active"] ?? goal.status ?? "active";
  return { response: t().commands.goal.shown(status, goal.objective, goal.timeUsedSeconds), startedTurn: false };
}
