import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import type { CliCapabilities } from "../zcode/capabilities.ts";
import { compactCommand } from "./compact.ts";
import { discoveredCommands, type Where } from "./discovery/discover.ts";
import { explainFailure } from "./explain.ts";
import { forkCommand } from "./fork.ts";
import { goalCommand } from "./goal.ts";
import { createHelpCommand } from "./help.ts";
import { modeCommand } from "./mode.ts";
import { modelCommand } from "./model.ts";
import { quotaCommand } from "./quota.ts";
import { rewindCommand } from "./rewind.ts";
import { steerCommand } from "./steer.ts";
import { TERMINAL_ONLY_COMMANDS } from "./terminal-only.ts";
import { thoughtCommand } from "./thought.ts";
import { notSupportedText } from "./text.ts";
import type { SlashCommand } from "./types.ts";

export type { CommandContext, SlashCommand } from "./types.ts";

// The table: adding a command is one module and one line here.
const DEFINITIONS: readonly SlashCommand[] = [
  forkCommand,
  rewindCommand,
  goalCommand,
  compactCommand,
  steerCommand,
  modeCommand,
  modelCommand,
  thoughtCommand,
  quotaCommand,
  createHelpCommand(() => COMMANDS),
];

/**
 * Wraps a definition with what every command shares: a command whose method
 * the CLI lacks answers "not supported" without a round trip, and ZCode errors
 * every command can meet (unknown method, busy, rejected params) become a
 * readable reply instead of an ACP error.
 */
function withSharedHandling(def: SlashCommand): SlashCommand {
  // Not `...def`: that would read the description and hint once, at import,
  // before the language is chosen.
  return {
    name: def.name,
    get description() {
      return def.description;
    },
    get hint() {
      return def.hint;
    },
    requires: def.requires,
    runsBesideTurn: def.runsBesideTurn,
    bridgeOnly: def.bridgeOnly,
    async run(ctx) {
      if (def.requires && ctx.api.capabilities()?.supports(def.requires) === false) {
        await ctx.say(notSupportedText(def.name, ctx.cliVersion()));
        return;
      }
      try {
        await def.run(ctx);
      } catch (err) {
        const text = explainFailure(def, ctx, err);
        if (text === undefined) throw err;
        await ctx.say(text);
      }
    },
  };
}

const COMMANDS: readonly SlashCommand[] = DEFINITIONS.map(withSharedHandling);
const BY_NAME = new Map(COMMANDS.map((c) => [c.name, c]));
// Matched when typed (so they never reach the model) but not advertised.
const TERMINAL_ONLY_BY_NAME = new Map(TERMINAL_ONLY_COMMANDS.map((c) => [c.name, c]));

/** Every registered command, in menu order. */
export function allCommands(): readonly SlashCommand[] {
  return COMMANDS;
}

// A command is `/name` at the very start (after leading whitespace), ended by
// whitespace or the end of the text, so `/usr/lib/x` or `/fork-bomb` is not one.
const COMMAND_RE = /^\/([A-Za-z][A-Za-z0-9_-]*)(?:\s+([\s\S]*))?$/;

/**
 * The command a prompt's text invokes, if any. Only registered names (and the
 * ZCode terminal-only ones, which answer where they work) match; anything
 * else (a path, an unknown word, a skill, `/fork` mid-sentence) is an
 * ordinary prompt, sent to ZCode unchanged. A registered command the CLI does
 * not support still matches: typed by hand, it must answer "not supported"
 * rather than reach the model as a prompt.
 */
export function matchCommand(text: string): { command: SlashCommand; args: string } | undefined {
  const m = COMMAND_RE.exec(text.trim());
  if (!m) return undefined;
  // `/FORK` is `/fork`: a name typed in another case is still the command, never a prompt.
  const name = (m[1] ?? "").toLowerCase();
  const command = BY_NAME.get(name) ?? TERMINAL_ONLY_BY_NAME.get(name);
  if (!command) return undefined;
  return { command, args: (m[2] ?? "").trim() };
}

/**
 * The editor's slash menu: our commands whose ZCode method the detected CLI
 * supports (before a CLI is detected, no `caps`, nothing is known to be
 * missing, so all of them), then, given a session's cwd and environment, the
 * user's ZCode skills and custom commands for it. A discovered name that is
 * one of ours, or a terminal-only one, is left out: typed, it would be ours.
 */
export function availableCommands(caps?: CliCapabilities, where?: Where): AvailableCommand[] {
  const ours: AvailableCommand[] = COMMANDS.filter((c) => !c.requires || !caps || caps.supports(c.requires)).map((c) => ({
    name: c.name,
    description: c.description,
    ...(c.hint ? { input: { hint: c.hint } } : {}),
  }));
  if (!where) return ours;
  return [...ours, ...discoveredCommands(where, (name) => BY_NAME.has(name) || TERMINAL_ONLY_BY_NAME.has(name))];
}
