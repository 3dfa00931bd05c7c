import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { compactionSummary } from "../translate/history.ts";
import { usageUpdate } from "../translate/events.ts";
import { t } from "../i18n/index.ts";
import type { CommandContext, SlashCommand } from "./types.ts";

/** How long /compact waits for ZCode's compaction turn before answering anyway. */
const COMPACT_WAIT_MS = 120_000;
/** Messages read after a compaction to find its summary (the summary, the command, the reply). */
const SUMMARY_LOOKBACK = 4;

/**
 * How the compaction is shown while it runs: a `compaction_update` entity for
 * a client that takes them, else a tool call (the older form).
 */
interface Progress {
  done(status: "completed" | "failed", opts?: { summary?: string; error?: string }): Promise<void>;
}

async function startProgress(ctx: CommandContext, instructions: string): Promise<Progress> {
  const id = `compact-${crypto.randomUUID()}`;
  if (ctx.features.compaction) {
    ctx.trackCompaction(id);
    await ctx.update({ sessionUpdate: "compaction_update", compactionId: id, status: "in_progress" });
    return {
      done: async (status, o = {}) => {
        ctx.trackCompaction(undefined);
        const summary: ContentBlock[] | undefined = o.summary ? [{ type: "text", text: o.summary }] : undefined;
        await ctx.update({
          sessionUpdate: "compaction_update",
          compactionId: id,
          status,
          ...(summary ? { summary } : {}),
          ...(o.error ? { error: o.error } : {}),
        });
      },
    };
  }
  // Compacting can take a while: a tool call shows it is happening, and the
  // usage_update after it shows what it freed. ZCode's answer (a session
  // snapshot) is nothing a person reads: no rawOutput.
  await ctx.update({
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: t().commands.compact.toolTitle,
    kind: "think",
    status: "in_progress",
    ...(instructions ? { rawInput: { instructions } } : {}),
  });
  return {
    done: async (status) => {
      await ctx.update({ sessionUpdate: "tool_call_update", toolCallId: id, status });
    },
  };
}

/** The summary ZCode wrote, when it is among the last messages (best effort: none is fine). */
async function latestSummary(ctx: CommandContext): Promise<string | undefined> {
  try {
    const { messages } = await ctx.api.lastMessages(ctx.sessionId, SUMMARY_LOOKBACK);
    for (let i = messages.length - 1; i >= 0; i--) {
      const text = compactionSummary(messages[i]!);
      if (text !== undefined) return text || undefined;
    }
  } catch {
    // The compaction is done either way; only its summary is missing.
  }
  return undefined;
}

export const compactCommand: SlashCommand = {
  name: "compact",
  get description() {
    return t().commands.compact.description;
  },
  get hint() {
    return t().commands.compact.hint;
  },
  requires: "session/compact",
  async run(ctx) {
    const text = t().commands.compact;
    const instructions = ctx.args.trim();
    const progress = await startProgress(ctx, instructions);
    let result: Awaited<ReturnType<typeof ctx.api.compact>>;
    // From the request on, ZCode compacts: an editor that cancels or leaves meanwhile has it stopped.
    ctx.zcodeWorks();
    try {
      result = await ctx.api.compact({ sessionId: ctx.sessionId, ...(instructions ? { instructions } : {}) });
    } catch (err) {
      await progress.done("failed", { error: err instanceof Error ? err.message : String(err) });
      throw err;
    }
    const already = result.compact?.state === "already_running";
    // ZCode accepts and compacts in a turn of its own: the answer waits for it.
    const finished = await ctx.waitIdle(COMPACT_WAIT_MS);
    if (!finished) {
      await progress.done("failed", { error: text.stillRunning });
      await ctx.say(text.stillRunning);
      return;
    }
    const summary = ctx.features.compaction ? await latestSummary(ctx) : undefined;
    await progress.done("completed", summary ? { summary } : {});
    const projection = (await ctx.api.read(ctx.sessionId)).projection;
    const usage = usageUpdate(projection?.contextUsed, projection?.contextWindow ?? ctx.options().model?.contextWindow);
    if (usage) await ctx.update(usage);
    // en-US grouping in every language: 128,000 reads the same in Chinese.
    const inUse = usage ? { used: usage.used.toLocaleString("en-US"), size: usage.size.toLocaleString("en-US") } : undefined;
    await ctx.say(text.finished(already, inUse));
  },
};
