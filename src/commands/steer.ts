import { t } from "../i18n/index.ts";
import { LOCAL_ERR, ZCODE_ERR, ZCodeTimeoutError, shownMessage } from "../zcode/errors.ts";
import { V4CommandError } from "../zcode/v4/channel.ts";
import { errorCode } from "./explain.ts";
import type { CommandContext, SlashCommand } from "./types.ts";
import { quote, usageLine } from "./text.ts";

function noTurnText(text: string): string {
  return `${t().commands.steer.noTurn}\n\n${quote(text)}`;
}

/**
 * /steer <text>: the running turn takes the text in at its next step (ZCode's
 * guide, ZCODE-V4.md §5.1; legacy session/steer on 0.15). Answered as soon
 * as ZCode admits it (its ACK), within `v4/steer`'s bound; the editor sees
 * the text as the user's words in that turn when ZCode takes it in
 * (turn.steerDrained), or is told if it never could. Whatever ZCode
 * answers, the reply is words, never an error; `ctx.steered()` is called
 * only when ZCode admitted it.
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
    // ZCode may start a turn with it (startNow): that turn's events wait until the reply is said.
    await ctx.holdingEvents(() => steer(ctx, content));
  },
};

async function steer(ctx: CommandContext, content: string): Promise<void> {
  const words = t().commands.steer;
  let outcome;
  try {
    outcome = await ctx.api.steerTurn({ sessionId: ctx.sessionId, text: content });
  } catch (err) {
    if (errorCode(err) === ZCODE_ERR.noTurn) return ctx.say(noTurnText(content));
    // No ACK in time: ZCode may have admitted it all the same (its events will show it).
    if (err instanceof ZCodeTimeoutError) return ctx.say(`${words.unconfirmed((err.timeoutMs / 1000).toFixed(0))}\n\n${quote(content)}`);
    // An ACK that cannot be read: the same uncertainty.
    if (errorCode(err) === LOCAL_ERR.internal) return ctx.say(`${words.unreadable}\n\n${quote(content)}`);
    // Refused (rejected, failed): said, with ZCode's reason.
    if (err instanceof V4CommandError) return ctx.say(`${words.notTaken(shownMessage(err))}\n\n${quote(content)}`);
    throw err;
  }
  // Cancelled while the steer was on its way, and no turn ran any more when it arrived: ZCode
  // started one with it (a v4 turn, out of legacy stop's reach). Nobody asked for that turn now.
  if (outcome.delivery === "startNow" && ctx.cancelled?.()) {
    await ctx.api.stopV4Turn({ sessionId: ctx.sessionId });
    return;
  }
  ctx.steered?.();
  const said = outcome.delivery === "startNow" ? words.startedNew : words.steering;
  await ctx.say(`${said}\n\n${quote(content)}`);
}
