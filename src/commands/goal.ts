import { t } from "../i18n/index.ts";
import type { SlashCommand } from "./types.ts";
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

export const goalCommand: SlashCommand = {
  name: "goal",
  get description() {
    return t().commands.goal.description;
  },
  get hint() {
    return t().commands.goal.hint;
  },
  requires: "session/goal",
  async run(ctx) {
    const text = t().commands.goal;
    const parsed = parseGoalArgs(ctx.args);
    if (!parsed) {
      await ctx.say(usageLine(goalCommand, text.replaceNeedsObjective));
      return;
    }
    // The work's events are held until ours are said: its first words come after them, not among them.
    const result = await ctx.holdingEvents(async () => {
      const result = await ctx.api.goal({ sessionId: ctx.sessionId, ...parsed });
      // ZCode's own words: it knows what it did (and says so in the user's
      // language). Ours only when its answer is empty (it answers "" to a pause that worked).
      await ctx.say(result.response?.trim() || text.done[parsed.action]);
      // ZCode set to work on the goal: this prompt shows that work and ends with it
      // (cancelling it stops ZCode, which pauses the goal).
      if (result.startedTurn) await ctx.say(`\n\n${text.working}\n\n`);
      return result;
    });
    // A goal panel follows `/goal` typed in the prompt as it follows
    // `_session/goal`: read beside the work, never before the wait for it,
    // which is what a cancel stops (and says the goal is paused).
    const published = parsed.action !== "show" ? ctx.goalChanged() : Promise.resolve();
    if (result.startedTurn && !(await ctx.waitIdle(GOAL_WORK_MS))) await ctx.say(`\n\n${text.stillWorking}`);
    await published;
  },
};
