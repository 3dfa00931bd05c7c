import { t } from "../i18n/index.ts";
import type { commands } from "../i18n/en/commands.ts";
import type { SlashCommand } from "./types.ts";

// ZCode built-ins that only its terminal app runs. Its command center
// (cli/src/command-center/slash-commands.ts) handles them locally, pickers
// and all; over the app-server protocol the bridge speaks, `session/send`
// only expands /init, /workflow and custom commands, so `/login` would reach
// the model as a plain message. Typed in the editor they get a reply saying
// where they work instead, and nothing is sent to ZCode. They are not listed
// in the menu: a menu entry that only says "not here" is noise.

interface TerminalOnly {
  names: readonly string[];
  /** What to do in the editor instead, when there is something: its entry in the language table. */
  instead?: keyof (typeof commands)["terminalOnly"]["insteadOf"];
}

const TERMINAL_ONLY: readonly TerminalOnly[] = [
  // `zcode login`/`logout` store the terminal app's own sign-in (credentials.json),
  // which `zcode app-server` never reads: it asks its host, and we answer from
  // the ZCode app's config.json (see README, "Sign-in").
  { names: ["login"], instead: "signIn" },
  { names: ["logout"], instead: "signIn" },
  { names: ["plugins", "plugin"] },
  { names: ["mcp"], instead: "mcp" },
  { names: ["locale", "language"] },
  { names: ["effort", "variant"], instead: "effort" },
  { names: ["new", "clear"], instead: "new" },
  { names: ["resume", "continue"], instead: "resume" },
  { names: ["expert"] },
  { names: ["dwf"] },
  { names: ["skill"], instead: "skill" },
];

export function terminalOnlyText(name: string, instead?: TerminalOnly["instead"]): string {
  const text = t().commands.terminalOnly;
  return text.reply(name, instead ? text.insteadOf[instead] : undefined);
}

/** One command per name (aliases included), replying in the name the user typed. */
export const TERMINAL_ONLY_COMMANDS: readonly SlashCommand[] = TERMINAL_ONLY.flatMap((entry) =>
  entry.names.map(
    (name): SlashCommand => ({
      name,
      get description() {
        return t().commands.terminalOnly.description;
      },
      async run(ctx) {
        await ctx.say(terminalOnlyText(name, entry.instead));
      },
    }),
  ),
);
