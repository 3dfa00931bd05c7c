import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { describeModel, matchModel, mismatchText, offeredModels } from "../bridge/model-match.ts";
import { NOT_OFFERED, type SessionOptions } from "../bridge/options.ts";
import type { CommandContext, SlashCommand } from "./registry.ts";
import { code, usageLine } from "./text.ts";

// `/model`: the session's models as a list, or a switch to the one named.
// The words are read as `--model` reads them (bridge/model-match.ts); the
// switch itself goes through the session, which keeps the editor's model
// menu, thought levels and context window in step.

const USAGE = { name: "model", hint: "<name or id>" };

type ModelOption = NonNullable<SessionOptions["model"]>;

/** One line per model ZCode listed: the current one marked, the ones it cannot use said so. */
function listText(model: ModelOption, thought: string | undefined): string {
  const names = new Map(offeredModels(model).map((m) => [m.info.value, m.name]));
  const lines = model.models.map((m) => {
    const notes: string[] = [];
    if (m.value === model.current) notes.push("current");
    if (m.disabledReason) notes.push(m.disabledReason === NOT_OFFERED ? NOT_OFFERED : `unavailable: ${m.disabledReason}`);
    // An unusable model's menu name says so already; here the notes do.
    const name = (m.disabledReason ? undefined : names.get(m.value)) ?? m.label;
    const shown = m.value === model.current ? `**${name}**` : name;
    return `- ${shown} ${code(m.value)}${notes.length ? ` (${notes.join(", ")})` : ""}`;
  });
  const current = model.models.find((m) => m.value === model.current);
  const level = thought ? `, thought level ${code(thought)}` : "";
  return [
    `Current model: ${current?.label ?? model.current} (${code(model.current)})${level}.`,
    lines.join("\n"),
    `Switch with \`/model <name or id>\` (case does not matter; the start of a name is enough when only one model has it).`,
  ].join("\n\n");
}

async function switchTo(ctx: CommandContext, model: ModelOption, words: string): Promise<void> {
  const match = matchModel(model, words);
  if (match.kind !== "one") {
    await ctx.say(usageLine(USAGE, mismatchText(model, words, match)));
    return;
  }
  const { info } = match.model;
  if (info.value === model.current) {
    await ctx.say(`Already using ${describeModel(match.model)}.`);
    return;
  }
  try {
    await ctx.setModel(info.value);
  } catch (err) {
    // ZCode refused, or the model is not one it offers: the session keeps its model; say why.
    if (err instanceof RequestError) {
      await ctx.say(err.message);
      return;
    }
    throw err;
  }
  const thought = ctx.options().thought?.current;
  await ctx.say(`Model set to ${describeModel(match.model)}${thought ? `; thought level ${code(thought)}` : ""}.`);
}

export const modelCommand: SlashCommand = {
  name: "model",
  description: "Switch the model (by name or id; the start of a name is enough); without a model, list them",
  hint: USAGE.hint,
  async run(ctx) {
    const options = ctx.options();
    const model = options.model;
    if (!model) {
      await ctx.say("This session has no model to choose: ZCode listed none.");
      return;
    }
    const words = ctx.args.trim();
    if (!words) await ctx.say(listText(model, options.thought?.current));
    else await switchTo(ctx, model, words);
  },
};
