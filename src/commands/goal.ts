import type { SlashCommand } from "./registry.ts";
import { usageLine } from "./text.ts";

type GoalAction = "show" | "set" | "replace" | "clear" | "pause" | "resume";

// A bare keyword is an action; anything longer is an objective, so
// `/goal clear the cache` sets the goal "clear the cache".
const BARE_ACTIONS: ReadonlySet<string> = new Set(["show", "clear", "pause", "resume"]);

/** What `/goal <args>` asks for, or undefined when the args are malformed. */
export function parseGoalArgs(args: string): { action: GoalAction; objective?: string } | undefined {
  const text = args.trim();
  if (text === "") return { action: "show" };
  if (BARE_ACTIONS.has(text.toLowerCase())) return { action: text.toLowerCase() as GoalAction };
  const replace = /^replace(?:\s+([\s\S]*))?$/i.exec(text);
  if (replace) {
    const objective = (replace[1] ?? "").trim();
    return objective ? { action: "replace", objective } : undefined;
  }
  return { action: "set", objective: text };
}

/** How long a /goal prompt stays open while ZCode works toward the goal. */
const GOAL_WORK_MS = 6 * 60 * 60 * 1000;

/** What to say when ZCode's answer is empty (it answers "" to a pause that worked). */
const DONE: Record<GoalAction, string> = {
  show: "No goal is set. Use `/goal <objective>` to set one.",
  set: "Goal set.",
  replace: "Goal replaced.",
  clear: "Goal cleared.",
  pause: "Goal paused.",
  resume: "Goal resumed.",
};

export const goalCommand: SlashCommand = {
  name: "goal",
  description: "Show or set the session's goal (replace, clear, pause, resume)",
  hint: "[objective | replace <objective> | clear | pause | resume]",
  requires: "session/goal",
  async run(ctx) {
    const parsed = parseGoalArgs(ctx.args);
    if (!parsed) {
      await ctx.say(usageLine(goalCommand, "`/goal replace` needs the new objective."));
      return;
    }
    const result = await ctx.api.goal({ sessionId: ctx.sessionId, ...parsed });
    // ZCode's own words: it knows what it did (and says so in the user's language).
    await ctx.say(result.response?.trim() || DONE[parsed.action]);
    if (!result.startedTurn) return;
    // ZCode set to work on the goal: this prompt shows that work and ends with it
    // (cancelling it stops ZCode, which pauses the goal).
    await ctx.say("\n\nWorking toward the goal…\n\n");
    if (!(await ctx.waitIdle(GOAL_WORK_MS))) await ctx.say("\n\nZCode is still working toward the goal.");
  },
};
