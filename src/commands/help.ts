import type { SlashCommand } from "./registry.ts";
import { usageOf } from "./text.ts";

/**
 * `/help` lists the registry it is part of; it gets the list through a
 * function so the registry can include it without an import cycle at load time.
 */
export function createHelpCommand(commands: () => readonly SlashCommand[]): SlashCommand {
  return {
    name: "help",
    description: "List the slash commands and how to use them",
    async run(ctx) {
      const caps = ctx.api.capabilities();
      const lines = commands().map((c) => {
        const missing = c.requires && caps?.supports(c.requires) === false;
        const note = missing ? ` (not supported by ZCode CLI ${ctx.cliVersion()})` : "";
        return `- \`${usageOf(c)}\` — ${c.description}${note}`;
      });
      await ctx.say(
        `Slash commands (type them at the start of a message; anything else goes to the model):\n\n${lines.join("\n")}`,
      );
    },
  };
}
