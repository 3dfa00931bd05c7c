import type { CommandContext, SlashCommand } from "./registry.ts";
import { code, usageLine, usageOf } from "./text.ts";

/** A setting as ZCode reports it in `settings`: current value and the choices. */
export interface SettingChoices {
  current?: string;
  values: string[];
}

interface ChoiceShape {
  current?: unknown;
  available?: unknown;
}

/** Reads `{current, available: [{value}]}` tolerantly: any part may be missing. */
export function choicesOf(setting: unknown): SettingChoices {
  const s = (typeof setting === "object" && setting !== null ? setting : {}) as ChoiceShape;
  const values = Array.isArray(s.available)
    ? s.available
        .map((a: unknown) =>
          typeof a === "string" ? a : (a as { value?: unknown } | null)?.value,
        )
        .filter((v): v is string => typeof v === "string")
    : [];
  return { current: typeof s.current === "string" ? s.current : undefined, values };
}

/**
 * `/mode` and `/thought` are the same command over different settings: list
 * the choices without an argument, check the argument against them, apply it
 * through the agent (which keeps the editor's config options in sync).
 */
export function createSettingCommand(spec: {
  name: string;
  description: string;
  /** What the setting is called in replies ("mode", "thought level"). */
  noun: string;
  hint: string;
  pick(settings: unknown): unknown;
  apply(ctx: CommandContext, value: string): Promise<void>;
}): SlashCommand {
  const command: SlashCommand = {
    name: spec.name,
    description: spec.description,
    hint: spec.hint,
    async run(ctx) {
      const read = await ctx.api.read(ctx.sessionId);
      const { current, values } = choicesOf(spec.pick(read.settings));
      const usage = () =>
        values.length > 0 ? { name: spec.name, hint: `<${values.join("|")}>` } : command;
      const wanted = ctx.args.trim();
      if (!wanted) {
        const now = current ? `Current ${spec.noun}: ${code(current)}.` : `The current ${spec.noun} is not known.`;
        const list = values.length > 0 ? ` Available: ${values.map(code).join(", ")}.` : "";
        await ctx.say(`${now}${list}\n\nChange it with \`${usageOf(usage())}\`.`);
        return;
      }
      // Without a list from ZCode the value is passed on; ZCode's -32602 then
      // becomes the usage reply.
      const value = values.find((v) => v.toLowerCase() === wanted.toLowerCase()) ?? wanted;
      if (values.length > 0 && !values.includes(value)) {
        await ctx.say(usageLine(usage(), `Unknown ${spec.noun} ${code(wanted)}.`));
        return;
      }
      await spec.apply(ctx, value);
      await ctx.say(`${spec.noun[0]!.toUpperCase()}${spec.noun.slice(1)} set to ${code(value)}.`);
    },
  };
  return command;
}
