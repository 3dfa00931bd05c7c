import { t } from "../i18n/index.ts";
import type { FileEntry } from "../zcode/v4/schemas.ts";
import { LOCAL_ERR, shownMessage, ZCODE_ERR } from "../zcode/errors.ts";
import { LOCAL_V4_ERR } from "../zcode/v4/channel.ts";
import { reasonSay } from "../zcode/v4/reasons.ts";
import { errorCode } from "./explain.ts";
import type { CommandContext, SlashCommand } from "./types.ts";
import { code } from "./text.ts";

// /rewind alone undoes the last turn's file changes and keeps the chat
// (ZCode's applyFileRewind); /rewind <new prompt> replaces the last prompt
// and runs it again, with its turn's files restored first when that turn
// changed any (editUserQuery, workspaceMode "rewind", else "preserve").
// ZCode refuses both when a file cannot be restored safely: then nothing
// changes, and the user is told which files and why. Any refusal, and an
// answer the bridge cannot read, is a reply in words.
// A 0.15 CLI (no v4) has its legacy rewind of the conversation instead.

function unsafeText(head: string, files: readonly FileEntry[]): string {
  const words = t().commands.rewind;
  if (files.length === 0) return head;
  const lines = files.map((f) =>
    words.unsafeLine(code(f.path), (f.reason && words.unsafeReason[f.reason]) || words.unsafeOther(code(f.reason ?? "?"))),
  );
  return [head, "", ...lines, "", words.unsafeHint].join("\n");
}

/**
 * ZCode's refusal (a V4CommandError, worded as explain.ts words it for any
 * command) or an ACK the bridge could not read, in words; undefined for
 * anything else. An unreadable ACK may hide a command ZCode carried out:
 * the user is told to look. Needed here because /rewind <new prompt> runs
 * inside a turn, whose errors would reach the editor as ACP errors.
 */
function refusalText(err: unknown): string | undefined {
  const words = t().commands.rewind;
  const c = errorCode(err);
  if (c === LOCAL_V4_ERR) return shownMessage(err);
  const method = (err as { method?: unknown }).method;
  if (c === LOCAL_ERR.internal && typeof method === "string" && method.startsWith("v4/command")) return words.unreadable;
  return undefined;
}

async function rewindFiles(ctx: CommandContext): Promise<void> {
  const words = t().commands.rewind;
  // 0.15's legacy rewind: expectedRevision makes it fail instead of removing something the user has not seen.
  let expectedRevision: number | undefined;
  if (!(await ctx.api.hasV4())) {
    const read = await ctx.api.read(ctx.sessionId);
    const revision = read.runtime?.stateRevision ?? read.projection?.revision;
    expectedRevision = typeof revision === "number" ? revision : undefined;
  }
  try {
    const o = await ctx.api.rewindLastTurn({ sessionId: ctx.sessionId, ...(expectedRevision !== undefined ? { expectedRevision } : {}) });
    switch (o.kind) {
      case "applied":
        return ctx.say([words.filesRewound(o.files.length), "", ...o.files.map((f) => words.fileLine(code(f.path), f.action))].join("\n"));
      case "unsafe":
        return ctx.say(unsafeText(words.unsafe, [...o.files, ...o.ignored]));
      case "nothing":
        return ctx.say(words.noFiles);
      case "conversation": {
        const r = o.result;
        const removed = typeof r.removedMessages === "number" ? r.removedMessages : undefined;
        const checkpoint = r.checkpointId ? code(String(r.checkpointId)) : undefined;
        const revision = typeof r.revision === "number" ? r.revision : undefined;
        return ctx.say(words.rewound(checkpoint, removed, revision));
      }
    }
  } catch (err) {
    const c = errorCode(err);
    if (c === ZCODE_ERR.revisionConflict) return ctx.say(words.conflict(expectedRevision));
    if (c === ZCODE_ERR.noCheckpoint) return ctx.say(words.noCheckpoint);
    const refused = refusalText(err);
    if (refused !== undefined) return ctx.say(refused);
    throw err;
  }
}

async function rewritePrompt(ctx: CommandContext, text: string): Promise<void> {
  const words = t().commands.rewind;
  if (!(await ctx.api.hasV4())) return ctx.say(words.promptNeedsV4(ctx.cliVersion()));
  await ctx.runTurn(async () => {
    let o: Awaited<ReturnType<typeof ctx.api.rewritePrompt>>;
    try {
      o = await ctx.api.rewritePrompt({ sessionId: ctx.sessionId, text });
    } catch (err) {
      const refused = refusalText(err);
      if (refused === undefined) throw err;
      await ctx.say(refused);
      return undefined;
    }
    if (o?.kind === "rerun") {
      await ctx.say(`${o.workspaceMode === "rewind" ? words.rerunning : words.rerunningChatOnly}\n\n`);
      return { commandId: o.commandId };
    }
    if (o?.kind === "blocked") {
      const files = [...o.files, ...o.ignored];
      const why = reasonSay(o.reasonCode ?? "guard.workspaceRewindUnsafeFiles", "blocked")(t().errors);
      await ctx.say(unsafeText(words.blocked(why, files.length > 0), files));
    } else await ctx.say(words.noPrompt);
    return undefined;
  });
}

export const rewindCommand: SlashCommand = {
  name: "rewind",
  get description() {
    return t().commands.rewind.description;
  },
  get hint() {
    return t().commands.rewind.hint;
  },
  requires: "op:rewind",
  async run(ctx) {
    const text = ctx.args.trim();
    if (text) await rewritePrompt(ctx, text);
    else await rewindFiles(ctx);
  },
};
