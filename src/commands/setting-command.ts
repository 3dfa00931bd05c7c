import type { Choice, SessionOptions } from "../translate/options/options.ts";
import { t } from "../i18n/index.ts";
import type { CommandContext, SlashCommand } from "./types.ts";
import { code, usageLine, usageOf } from "./text.ts";

/** A setting command's own words, read from the language table each time. */
export interface SettingText {
  description: string;
  hint: string;
  /** What the setting is called in replies ("mode", "thought level"). */
  noun: string;
}

/**
 * `/mode` and `/thought` are the same command over different settings: list
 * the choices without an argument, check the argument against them (case
 * does not matter), apply it through the agent (which keeps the editor's
 * config options in sync).
 */
export function createSettingCommand(spec: {
  name: string;
  /** A lookup, not the words: the language is chosen after the modules load. */
  text(): SettingText;
  pick(options: SessionOptions): { current: string; choices: Choice[] } | undefined;
  apply(ctx: CommandContext, value: string): Promise<void>;
}): SlashCommand {
  const command: SlashCommand = {
    name: spec.name,
    get description() {
      return spec.text().description;
    },
    get hint() {
      return spec.text().hint;
    },
    async run(ctx) {
      const say = t().commands.setting;
      const { noun } = spec.text();
      const setting = spec.pick(ctx.options());
      if (!setting) {
        await ctx.say(say.none(noun));
        return;
      }
      const values = setting.choices.map((c) => c.value);
      const usage = { name: spec.name, hint: `<${values.join("|")}>` };
      const wanted = ctx.args.trim();
      if (!wanted) {
        await ctx.say(say.list(noun, code(setting.current), values.map(code), usageOf(usage)));
        return;
      }
      const value = values.find((v) => v.toLowerCase() === wanted.toLowerCase());
      if (!value) {
        await ctx.say(usageLine(usage, say.unknown(noun, code(wanted))));
        return;
      }
      await spec.apply(ctx, value);
      await ctx.say(say.set(noun, code(value)));
    },
  };
  return command;
}
