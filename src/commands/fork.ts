import { t } from "../i18n/index.ts";
import { forkAtLatestCheckpoint, type ForkedSession } from "../zcode/fork.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./types.ts";
import { code } from "./text.ts";

export const forkCommand: SlashCommand = {
  name: "fork",
  get description() {
    return t().commands.fork.description;
  },
  requires: "session/fork",
  async run(ctx) {
    let fork: ForkedSession;
    try {
      fork = await forkAtLatestCheckpoint(ctx.api, ctx.sessionId);
    } catch (err) {
      if (!isNoCheckpoint(err)) throw err;
      await ctx.say(t().commands.fork.noCheckpoint);
      return;
    }
    await ctx.say(t().commands.fork.forked(code(fork.sessionId), fork.title.trim()));
  },
};

/**
 * ZCode has no checkpoint to fork from. Its code for that (the one /rewind
 * gets) or, since forkFromCheckpoint fails with a plain Error, its words.
 */
function isNoCheckpoint(err: unknown): boolean {
  if (errorCode(err) === ZCODE_ERR.noCheckpoint) return true;
  return /\bno checkpoint\b/i.test((err as Error | undefined)?.message ?? "");
}
