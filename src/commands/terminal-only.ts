import type { SlashCommand } from "./registry.ts";

// ZCode built-ins that only its terminal app runs. Its command center
// (cli/src/command-center/slash-commands.ts) handles them locally, pickers
// and all; over the app-server protocol the bridge speaks, `session/send`
// only expands /init, /workflow and custom commands, so `/login` would reach
// the model as a plain message. Typed in the editor they get a reply saying
// where they work instead, and nothing is sent to ZCode. They are not listed
// in the menu: a menu entry that only says "not here" is noise.

interface TerminalOnly {
  names: readonly string[];
  /** What to do in the editor instead, when there is something. */
  instead?: string;
}

const TERMINAL_ONLY: readonly TerminalOnly[] = [
  { names: ["login"] },
  { names: ["logout"] },
  { names: ["plugins", "plugin"] },
  { names: ["mcp"], instead: "MCP servers configured in the editor are passed to ZCode with each session." },
  { names: ["locale", "language"] },
  { names: ["effort", "variant"], instead: "Here, use `/thought <level>`." },
  { names: ["new", "clear"], instead: "Here, start a new session (thread) in the editor." },
  { names: ["resume", "continue"], instead: "Here, open the session from the editor's session history." },
  { names: ["expert"] },
  { names: ["dwf"] },
  { names: ["skill"], instead: "Here, type the skill's own name: `/<skill-name> [task]` (your skills are in the / menu)." },
];

export function terminalOnlyText(name: string, instead?: string): string {
  const base = `\`/${name}\` needs the ZCode terminal app; run \`zcode\` in a terminal and type it there.`;
  return instead ? `${base} ${instead}` : base;
}

/** One command per name (aliases included), replying in the name the user typed. */
export const TERMINAL_ONLY_COMMANDS: readonly SlashCommand[] = TERMINAL_ONLY.flatMap((t) =>
  t.names.map(
    (name): SlashCommand => ({
      name,
      description: "Only in the ZCode terminal app",
      async run(ctx) {
        await ctx.say(terminalOnlyText(name, t.instead));
      },
    }),
  ),
);
