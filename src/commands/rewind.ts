import { t } from "../i18n/index.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./types.ts";
import { code } from "./text.ts";

export const rewindCommand: SlashCommand = {
  name: "rewind",
  get description() {
    return t().commands.rewind.description;
  },
  requires: "session/rewind",
  async run(ctx) {
    // expectedRevision makes the rewind fail instead of removing something the
    // user has not seen, when the session changed since it was read.
    const read = await ctx.api.read(ctx.sessionId);
    const revision = read.runtime?.stateRevision ?? read.projection?.revision;
    const expectedRevision = typeof revision === "number" ? revision : undefined;
    try {
      const result = await ctx.api.rewind({
        sessionId: ctx.sessionId,
        target: { kind: "latestCheckpoint" },
        ...(expectedRevision !== undefined ? { expectedRevision } : {}),
      });
      const removed = typeof result.removedMessages === "number" ? result.removedMessages : undefined;
      const checkpoint = result.checkpointId ? code(String(result.checkpointId)) : undefined;
      const revision = typeof result.revision === "number" ? result.revision : undefined;
      await ctx.say(t().commands.rewind.rewound(checkpoint, removed, revision));
    } catch (err) {
      const c = errorCode(err);
      if (c === ZCODE_ERR.revisionConflict) {
        await ctx.say(t().commands.rewind.conflict(expectedRevision));
        return;
      }
      if (c === ZCODE_ERR.noCheckpoint) {
        await ctx.say(t().commands.rewind.noCheckpoint);
        return;
      }
      throw err;
    }
  },
};
