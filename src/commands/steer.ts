import { t } from "../i18n/index.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./types.ts";
import { quote, usageLine } from "./text.ts";

function noTurnText(text: string): string {
  return `${t().commands.steer.noTurn}\n\n${quote(text)}`;
}

/**
 * /steer <text>: the running turn takes the text in at its next step (ZCode's
 * guide, ZCODE-V4.md §5.1; legacy session/steer on 0.15). Answered at once;
 * the editor sees the text as the user's words in that turn when ZCode takes
 * it in (turn.steerDrained), or is told if it never could.
 */
export const steerCommand: SlashCommand = {
  name: "steer",
  get description() {
    return t().commands.steer.description;
  },
  get hint() {
    return t().commands.steer.hint;
  },
  requires: "op:steer",
  runsBesideTurn: true,
  async run(ctx) {
    const content = ctx.args.trim();
    if (!content) {
      await ctx.say(usageLine(steerCommand, t().commands.steer.needsText));
      return;
    }
    // Checked before calling so an idle session costs no round trip; ZCode's
    // 1309 (0.15) covers the turn ending between this check and the call.
    if (!ctx.turnRunning()) {
      await ctx.say(noTurnText(content));
      return;
    }
    let outcome;
    try {
      outcome = await ctx.api.steerTurn({ sessionId: ctx.sessionId, text: content });
    } catch (err) {
      if (errorCode(err) === ZCODE_ERR.noTurn) {
        await ctx.say(noTurnText(content));
        return;
      }
      throw err;
    }
    const words = outcome.delivery === "startNow" ? t().commands.steer.startedNew : t().commands.steer.steering;
    await ctx.say(`${words}\n\n${quote(content)}`);
  },
};
