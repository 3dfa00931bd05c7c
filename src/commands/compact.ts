import { usageUpdate } from "../translate/events.ts";
import { t } from "../i18n/index.ts";
import type { SlashCommand } from "./types.ts";

/** How long /compact waits for ZCode's compaction turn before answering anyway. */
const COMPACT_WAIT_MS = 120_000;

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
    const toolCallId = `compact-${crypto.randomUUID()}`;
    // Compacting can take a while: a tool call shows it is happening, and the
    // usage_update after it shows what it freed.
    await ctx.update({
      sessionUpdate: "tool_call",
      toolCallId,
      title: text.toolTitle,
      kind: "think",
      status: "in_progress",
      rawInput: instructions ? { instructions } : {},
    });
    let result: Awaited<ReturnType<typeof ctx.api.compact>>;
    // From the request on, ZCode compacts: an editor that cancels or leaves meanwhile has it stopped.
    ctx.zcodeWorks();
    try {
      result = await ctx.api.compact({ sessionId: ctx.sessionId, ...(instructions ? { instructions } : {}) });
    } catch (err) {
      await ctx.update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
      throw err;
    }
    const already = result.compact?.state === "already_running";
    // ZCode accepts and compacts in a turn of its own: the answer waits for it.
    const finished = await ctx.waitIdle(COMPACT_WAIT_MS);
    await ctx.update({ sessionUpdate: "tool_call_update", toolCallId, status: finished ? "completed" : "failed", rawOutput: result });
    if (!finished) {
      await ctx.say(text.stillRunning);
      return;
    }
    const projection = (await ctx.api.read(ctx.sessionId)).projection;
    const usage = usageUpdate(projection?.contextUsed, projection?.contextWindow ?? ctx.options().model?.contextWindow);
    if (usage) await ctx.update(usage);
    // en-US grouping in every language: 128,000 reads the same in Chinese.
    const inUse = usage ? { used: usage.used.toLocaleString("en-US"), size: usage.size.toLocaleString("en-US") } : undefined;
    await ctx.say(text.finished(already, inUse));
  },
};
