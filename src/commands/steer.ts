import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./registry.ts";
import { quote, usageLine } from "./text.ts";

function noTurnText(text: string): string {
  return (
    "No turn is running, so there is nothing to steer. Send the text as an ordinary message instead:\n\n" +
    quote(text)
  );
}

export const steerCommand: SlashCommand = {
  name: "steer",
  description: "Add instructions to the turn that is running, without stopping it",
  hint: "<instructions>",
  requires: "session/steer",
  runsBesideTurn: true,
  async run(ctx) {
    const content = ctx.args.trim();
    if (!content) {
      await ctx.say(usageLine(steerCommand, "`/steer` needs the instructions to add to the running turn."));
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
    await ctx.say("Steering the running turn with:\n\n" + quote(content));
  },
};
