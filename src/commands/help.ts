import { t } from "../i18n/index.ts";
import type { SlashCommand } from "./types.ts";
import { usageOf } from "./text.ts";

/**
 * `/help` lists the registry it is part of; it gets the list through a
 * function so the registry can include it without an import cycle at load time.
 */
export function createHelpCommand(commands: () => readonly SlashCommand[]): SlashCommand {
  return {
    name: "help",
    get description() {
      return t().commands.help.description;
    },
    async run(ctx) {
      const text = t().commands.help;
      const caps = ctx.api.capabilities();
      const lines = commands().map((c) => {
        const missing = c.requires && caps?.supports(c.requires) === false;
        const note = missing ? text.notSupported(ctx.cliVersion()) : "";
        return `- \`${usageOf(c)}\` — ${c.description}${note}`;
      });
      await ctx.say(`${text.intro}\n\n${lines.join("\n")}`);
    },
  };
}
