import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
import type { SlashCommand } from "./registry.ts";
import { code } from "./text.ts";

export const rewindCommand: SlashCommand = {
  name: "rewind",
  description: "Undo the last turn: rewind the conversation to its latest checkpoint",
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
      const removed = result.removedMessages;
      const what =
        typeof removed === "number"
          ? `removed ${removed} message${removed === 1 ? "" : "s"}`
          : "removed the messages after it";
      const checkpoint = result.checkpointId ? ` ${code(String(result.checkpointId))}` : "";
      const rev = typeof result.revision === "number" ? ` Session revision is now ${result.revision}.` : "";
      await ctx.say(`Rewound to the latest checkpoint${checkpoint}: ${what}.${rev}`);
    } catch (err) {
      const c = errorCode(err);
      if (c === ZCODE_ERR.revisionConflict) {
        await ctx.say(
          "Nothing was rewound: the session changed while the rewind was prepared" +
            (expectedRevision !== undefined ? ` (it was at revision ${expectedRevision})` : "") +
            ". Run `/rewind` again to rewind the current state.",
        );
        return;
      }
      if (c === ZCODE_ERR.noCheckpoint) {
        await ctx.say(
          "Nothing to rewind: this session has no checkpoint yet. A checkpoint is made each time a turn completes.",
        );
        return;
      }
      throw err;
    }
  },
};
