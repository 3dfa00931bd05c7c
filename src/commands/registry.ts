import type { AvailableCommand, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { SessionOptions } from "../bridge/options.ts";
import type { ZCodeApi } from "../zcode/api.ts";
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

/**
 * One slash command a person can type at the start of a prompt. Its
 * description and hint are in the user's language: definitions make them
 * getters over the language table, so copy a command with care (a spread
 * reads them once, in the language of that moment).
 */
export interface SlashCommand {
  /** Typed as `/<name>`; advertised to the editor without the slash. */
  name: string;
  description: string;
  /** What goes after the name; shown by the editor and in usage lines. */
  hint?: string;
  /** The ZCode method the command needs; it is advertised only when the CLI supports it. */
  requires?: string;
  /** Runs while a turn is in progress instead of waiting for it (steer). */
  runsBesideTurn?: boolean;
  /**
   * Needs nothing from ZCode (quota): the agent neither starts the ZCode
   * child nor resumes the session for it, so it answers even when the CLI
   * is down.
   */
  bridgeOnly?: boolean;
  run(ctx: CommandContext): Promise<void>;
}

/** What a command may touch; built by the ACP agent for one prompt. */
export interface CommandContext {
  sessionId: string;
  cwd: string;
  /** Everything typed after the command name, trimmed. */
  args: string;
  api: ZCodeApi;
  /** Streams text to the editor as agent_message_chunk. */
  say(text: string): Promise<void>;
  update(u: SessionUpdate): Promise<void>;
  turnRunning(): boolean;
  /** Waits (at most `budgetMs`) until ZCode reports the session idle; false if it did not. */
  waitIdle(budgetMs: number): Promise<boolean>;
  /** The session's mode, model and thought level as the editor sees them. */
  options(): SessionOptions;
  /** Calls ZCode and sends config_option_update (+ current_mode_update). */
  setMode(mode: string): Promise<void>;
  /** Calls ZCode and sends config_option_update. */
  setThoughtLevel(level: string): Promise<void>;
  /** Switches the model (a `providerId/modelId` option value); sends config_option_update and usage_update. */
  setModel(value: string): Promise<void>;
  cliVersion(): string;
  /** The bridge's environment (HOME, ZCODE_ACP_* settings); never process.env directly. */
  env: Record<string, string | undefined>;
}

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
 * not support still matches (`caps` does not filter): typed by hand, it must
 * answer "not supported" rather than reach the model as a prompt.
 */
export function matchCommand(
  text: string,
  _caps?: CliCapabilities,
): { command: SlashCommand; args: string } | undefined {
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
