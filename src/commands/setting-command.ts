import type { Choice, SessionOptions } from "../bridge/options.ts";
import type { CommandContext, SlashCommand } from "./registry.ts";
import { code, usageLine, usageOf } from "./text.ts";

/**
 * `/mode` and `/thought` are the same command over different settings: list
 * the choices without an argument, check the argument against them (case
 * does not matter), apply it through the agent (which keeps the editor's
 * config options in sync).
 */
export function createSettingCommand(spec: {
  name: string;
  description: string;
  /** What the setting is called in replies ("mode", "thought level"). */
  noun: string;
  hint: string;
  pick(options: SessionOptions): { current: string; choices: Choice[] } | undefined;
  apply(ctx: CommandContext, value: string): Promise<void>;
}): SlashCommand {
  const command: SlashCommand = {
    name: spec.name,
    description: spec.description,
    hint: spec.hint,
    async run(ctx) {
      const setting = spec.pick(ctx.options());
      if (!setting) {
        await ctx.say(`This session has no ${spec.noun} to choose (the current model has none).`);
        return;
      }
      const values = setting.choices.map((c) => c.value);
      const usage = { name: spec.name, hint: `<${values.join("|")}>` };
      const wanted = ctx.args.trim();
      if (!wanted) {
        await ctx.say(
          `Current ${spec.noun}: ${code(setting.current)}. Available: ${values.map(code).join(", ")}.\n\nChange it with \`${usageOf(usage)}\`.`,
        );
        return;
      }
      const value = values.find((v) => v.toLowerCase() === wanted.toLowerCase());
      if (!value) {
        await ctx.say(usageLine(usage, `Unknown ${spec.noun} ${code(wanted)}.`));
        return;
      }
      await spec.apply(ctx, value);
      await ctx.say(`${spec.noun[0]!.toUpperCase()}${spec.noun.slice(1)} set to ${code(value)}.`);
    },
  };
  return command;
}
