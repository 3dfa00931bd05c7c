import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ClientFeatures, NoticeLevel } from "../translate/client-features.ts";
import type { SessionOptions } from "../translate/options/options.ts";
import type { ZCodeApi } from "../zcode/api.ts";

// The shape of a slash command and what it may touch, apart from the registry
// that lists them, so a command module never imports the table that imports it.

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

/** What a command may touch; built by the session's command runner for one prompt. */
export interface CommandContext {
  sessionId: string;
  cwd: string;
  /** Everything typed after the command name, trimmed. */
  args: string;
  api: ZCodeApi;
  /** Streams text to the editor as agent_message_chunk. */
  say(text: string): Promise<void>;
  update(u: SessionUpdate): Promise<void>;
  /** What the client opted in to (compaction updates, notices, plans). */
  features: ClientFeatures;
  /** Names the compaction ZCode is about to report (undefined: it is over), so its progress patches the command's own entity. */
  trackCompaction(compactionId: string | undefined): void;
  /** The bridge's own remark (not the command's answer): a `notice`, or a message of its own. */
  notice(level: NoticeLevel, text: string): Promise<void>;
  turnRunning(): boolean;
  /** ZCode admitted the steer (/steer only; what `_session/steering` answers). */
  steered?(): void;
  /** The prompt of this command was answered `cancelled` already (what ZCode still does goes unseen). */
  cancelled?(): boolean;
  /** ZCode's goal may have changed: read it and publish it to a client that takes goals. */
  goalChanged(): Promise<void>;
  /** Waits (at most `budgetMs`) until ZCode reports the session idle; false if it did not. */
  waitIdle(budgetMs: number): Promise<boolean>;
  /**
   * ZCode is about to work for the command (a compaction): a cancel from now
   * on tells it to stop. Throws when the command was cancelled already, so
   * that the request is never sent.
   */
  zcodeWorks(): void;
  /** The session's mode, model and thought level as the editor sees them. */
  options(): SessionOptions;
  /** Calls ZCode and sends config_option_update (+ current_mode_update). */
  setMode(mode: string): Promise<void>;
  /** Calls ZCode and sends config_option_update. */
  setThoughtLevel(level: string): Promise<void>;
  /** Switches the model (a `providerId/modelId` option value); sends config_option_update and usage_update. */
  setModel(value: string): Promise<void>;
  cliVersion(): string;
  /**
   * Runs a ZCode turn that `start` begins (a v4 command; resolves with its
   * id, or undefined when it started nothing): its output streams as this
   * command's reply, and a cancel stops it.
   */
  runTurn(start: () => Promise<{ commandId: string } | undefined>): Promise<void>;
  /**
   * Runs `fn` (a request that starts ZCode work, and what the command says of
   * its answer) with the session's events held until it is done: the words
   * come before the work's output even when both arrive in one read.
   */
  holdingEvents<T>(fn: () => Promise<T>): Promise<T>;
  /** The bridge's environment (HOME, ZCODE_ACP_* settings); never process.env directly. */
  env: Record<string, string | undefined>;
}
