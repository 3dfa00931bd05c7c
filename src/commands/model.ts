import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { describeModel, matchModel, mismatchText, offeredModels } from "../translate/options/model-match.ts";
import { NOT_OFFERED, type SessionOptions } from "../translate/options/options.ts";
import { t } from "../i18n/index.ts";
import type { CommandContext, SlashCommand } from "./types.ts";
import { code, usageLine } from "./text.ts";

// `/model`: the session's models as a list, or a switch to the one named.
// The words are read as `--model` reads them (translate/options/model-match.ts); the
// switch itself goes through the session, which keeps the editor's model
// menu, thought levels and context window in step.

const USAGE = {
  name: "model",
  get hint() {
    return t().commands.model.hint;
  },
};

type ModelOption = NonNullable<SessionOptions["model"]>;

/** One line per model ZCode listed: the current one marked, the ones it cannot use said so. */
function listText(model: ModelOption, thought: string | undefined): string {
  const text = t().commands.model;
  const names = new Map(offeredModels(model).map((m) => [m.info.value, m.name]));
  const lines = model.models.map((m) => {
    const notes: string[] = [];
    if (m.value === model.current) notes.push(text.current);
    // NOT_OFFERED is the bridge's marker for a current model ZCode stopped listing; any other reason is ZCode's.
    if (m.disabledReason) notes.push(m.disabledReason === NOT_OFFERED ? text.notOffered : text.unavailable(m.disabledReason));
    // An unusable model's menu name says so already; here the notes do.
    const name = (m.disabledReason ? undefined : names.get(m.value)) ?? m.label;
    const shown = m.value === model.current ? `**${name}**` : name;
    return `- ${shown} ${code(m.value)}${notes.length ? text.notes(notes) : ""}`;
  });
  const current = model.models.find((m) => m.value === model.current);
  return [
    text.listHead(current?.label ?? model.current, code(model.current), thought ? code(thought) : undefined),
    lines.join("\n"),
    text.listFoot,
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
    await ctx.say(t().commands.model.already(describeModel(match.model)));
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
  await ctx.say(t().commands.model.set(describeModel(match.model), thought ? code(thought) : undefined));
}

export const modelCommand: SlashCommand = {
  name: "model",
  get description() {
    return t().commands.model.description;
  },
  get hint() {
    return USAGE.hint;
  },
  async run(ctx) {
    const options = ctx.options();
    const model = options.model;
    if (!model) {
      await ctx.say(t().commands.model.none);
      return;
    }
    const words = ctx.args.trim();
    if (!words) await ctx.say(listText(model, options.thought?.current));
    else await switchTo(ctx, model, words);
  },
};
