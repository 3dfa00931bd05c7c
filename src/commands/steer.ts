import { t } from "../i18n/index.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./types.ts";
import { quote, usageLine } from "./text.ts";

function noTurnText(text: string): string {
  return `${t().commands.steer.noTurn}\n\n${quote(text)}`;
}

export const steerCommand: SlashCommand = {
  name: "steer",
  get description() {
    return t().commands.steer.description;
  },
  get hint() {
    return t().commands.steer.hint;
  },
  requires: "session/steer",
  runsBesideTurn: true,
  async run(ctx) {
    const content = ctx.args.trim();
    if (!content) {
      await ctx.say(usageLine(steerCommand, t().commands.steer.needsText));
      return;
    }
    // Checked before calling so an idle session costs no round trip; ZCode's
    // 1309 covers the turn ending between this check and the call.
    if (!ctx.turnRunning()) {
      await ctx.say(noTurnText(content));
      return;
    }
    try {
      await ctx.api.steer({ sessionId: ctx.sessionId, content });
    } catch (err) {
      if (errorCode(err) === ZCODE_ERR.noTurn) {
        await ctx.say(noTurnText(content));
        return;
      }
      throw err;
    }
    await ctx.say(`${t().commands.steer.steering}\n\n${quote(content)}`);
  },
};
