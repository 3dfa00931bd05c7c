import { usageUpdate } from "../bridge/events.ts";
import type { SlashCommand } from "./registry.ts";

export const compactCommand: SlashCommand = {
  name: "compact",
  description: "Compact the conversation history to free context (optional instructions for the summary)",
  hint: "[instructions]",
  requires: "session/compact",
  async run(ctx) {
    const instructions = ctx.args.trim();
    const toolCallId = `compact-${crypto.randomUUID()}`;
    // Compacting can take a while: a tool call shows it is happening, and the
    // usage_update after it shows what it freed.
    await ctx.update({
      sessionUpdate: "tool_call",
      toolCallId,
      title: "Compacting conversation",
      kind: "think",
      status: "in_progress",
      rawInput: instructions ? { instructions } : {},
    });
    let result: Awaited<ReturnType<typeof ctx.api.compact>>;
    try {
      result = await ctx.api.compact({
        sessionId: ctx.sessionId,
        ...(instructions ? { instructions } : {}),
      });
    } catch (err) {
      await ctx.update({ sessionUpdate: "tool_call_update", toolCallId, status: "failed" });
      throw err;
    }
    const summary = typeof result.summary === "string" ? result.summary.trim() : "";
    await ctx.update({
      sessionUpdate: "tool_call_update",
      toolCallId,
      status: "completed",
      rawOutput: result,
      ...(summary ? { content: [{ type: "content", content: { type: "text", text: summary } }] } : {}),
    });

    const projection = (await ctx.api.read(ctx.sessionId)).projection;
    const usage = usageUpdate(projection?.contextUsed, projection?.contextWindow);
    if (usage) await ctx.update(usage);

    const before =
      typeof result.messagesBefore === "number" ? ` (${result.messagesBefore} messages summarized)` : "";
    const now = usage
      ? ` Context in use: ${usage.used.toLocaleString("en-US")} of ${usage.size.toLocaleString("en-US")} tokens.`
      : "";
    await ctx.say(`Conversation compacted${before}.${now}`);
  },
};
