import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./registry.ts";
import { usageLine } from "./text.ts";

type GoalAction = "show" | "set" | "replace" | "clear" | "pause" | "resume";

interface GoalView {
  objective?: string;
  status?: string;
  setAt?: number;
}

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

function describe(goal: GoalView): string {
  const status = goal.status ?? "active";
  // A setAt that makes no date (out of range) is left out rather than thrown.
  const at = typeof goal.setAt === "number" ? new Date(goal.setAt) : undefined;
  const since = at && !Number.isNaN(at.getTime()) ? `, set ${at.toISOString().replace("T", " ").slice(0, 16)} UTC` : "";
  return `**${goal.objective ?? "(no objective)"}** (${status}${since})`;
}

const LEAD: Record<GoalAction, string> = {
  show: "Current goal",
  set: "Goal set",
  replace: "Goal replaced",
  clear: "Goal cleared",
  pause: "Goal paused",
  resume: "Goal resumed",
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
    let result: Awaited<ReturnType<typeof ctx.api.goal>>;
    try {
      result = await ctx.api.goal({ sessionId: ctx.sessionId, ...parsed });
    } catch (err) {
      // Pausing or resuming nothing is the usual way to meet ZCode's -32602
      // here; a usage line would not tell the user what is wrong.
      if ((parsed.action === "pause" || parsed.action === "resume") && errorCode(err) === ZCODE_ERR.invalidParams) {
        const why = err instanceof Error ? err.message : String(err);
        await ctx.say(`Could not ${parsed.action} the goal (${why}). Set one with \`/goal <objective>\`.`);
        return;
      }
      throw err;
    }
    const goal = (result.goal ?? null) as GoalView | null;
    if (parsed.action === "clear") {
      await ctx.say(goal ? `Goal cleared. ZCode still reports a goal: ${describe(goal)}` : "Goal cleared.");
    } else if (!goal) {
      await ctx.say("No goal is set. Set one with `/goal <objective>`.");
    } else {
      await ctx.say(`${LEAD[parsed.action]}: ${describe(goal)}`);
    }
  },
};
