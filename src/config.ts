import type { LogLevelName } from "./log.ts";

/**
 * Everything the bridge can be told, from flags or environment, resolved in
 * one place (src/cli/) and passed down. No module reads process.env for
 * settings on its own.
 */
export interface BridgeConfig {
  /** ZCODE_BIN / --zcode-bin: the ZCode CLI binary or .cjs/.mjs/.js entry. */
  zcodeBin?: string;
  /** ZCODE_NODE / --zcode-node: Node >= 22 used to run a JS entry. */
  zcodeNode?: string;
  logLevel: LogLevelName;
  logFile?: string;
  /** ZCODE_ACP_MODE / --mode: default mode for new sessions. */
  mode?: string;
  /**
   * ZCODE_ACP_MODEL / --model: the model new sessions switch to, as `/model`
   * reads it (id, `providerId/modelId`, label, or a unique start of one);
   * checked against each new session's model list.
   */
  model?: string;
  /** ZCODE_ACP_TRACE / --trace: redacted JSON-lines trace of both wires. */
  trace?: string;
  /**
   * Serve mode: start the ZCode child in the background once initialize is
   * answered (false with --no-prewarm / ZCODE_ACP_PREWARM=0: at the first
   * request that needs it).
   */
  prewarm: boolean;
  /** Longest line accepted from the ZCode child, in bytes. */
  maxLineBytes: number;
  /** Longest message accepted from the editor: the bytes of its line before the newline (a CR included). */
  maxMessageBytes: number;
  /**
   * Silence (ms) during a running turn before the bridge resubscribes with
   * afterSeq to fetch missed events (default 2000; tests shorten it).
   */
  stallMs?: number;
  /** How long a prompt waits for a busy ZCode session (1308) to become idle (default 30000). */
  busyWaitMs?: number;
  /** --auto-compact: the quiet moment after an answer before compacting is decided (default 250; tests lengthen it). */
  autoCompactQuietMs?: number;
  /**
   * Whether sessions created through the bridge are added to the ZCode app's
   * history (~/.zcode/v2/tasks-index.sqlite, only when the app created that
   * file). On from the command line unless --no-app-history /
   * ZCODE_ACP_APP_HISTORY=0; off in defaultConfig().
   */
  appHistory: boolean;
  /**
   * After a turn, push the GLM Coding Plan's quota windows to the editor (at
   * most once a minute) and warn at 80% and 95%. On from the command line
   * unless --no-quota-push / ZCODE_ACP_QUOTA_PUSH=0; off in defaultConfig().
   */
  quotaPush: boolean;
  /**
   * --auto-compact / ZCODE_ACP_AUTO_COMPACT: compact in the background after
   * a turn that left this much context in use (off when absent).
   */
  autoCompact?: AutoCompact;
  /**
   * --zcode-protocol / ZCODE_ACP_ZCODE_PROTOCOL: which of ZCode's protocols
   * carries the sessions. auto (the default): the legacy session/* methods
   * where the CLI has them, v4 alone once it answers one of them -32601.
   */
  zcodeProtocol: ZCodeProtocolSetting;
  /** ZCODE_ACP_REQUEST_TIMEOUT_MS (hidden, for tests): one timeout for every ZCode request instead of the per-method table. */
  requestTimeoutMs?: number;
  /** Environment the child is started with (defaults to process.env). */
  env: Record<string, string | undefined>;
}

export const ZCODE_PROTOCOL_SETTINGS = ["auto", "legacy", "v4"] as const;
export type ZCodeProtocolSetting = (typeof ZCODE_PROTOCOL_SETTINGS)[number];

export function isZCodeProtocolSetting(s: string): s is ZCodeProtocolSetting {
  return (ZCODE_PROTOCOL_SETTINGS as readonly string[]).includes(s);
}

/** A context-use threshold: tokens in use, or a percentage of the model's context window. */
export type AutoCompact = { tokens: number } | { percent: number };

/**
 * A prompt may carry 50 MiB of attachments (file sizes), which travel as
 * base64 (a third more: 66.7 MiB); 80 MiB leaves room for those plus the
 * text, and still bounds what one message can make us hold.
 */
export const DEFAULT_MAX_MESSAGE_BYTES = 80 * 1024 * 1024;
/**
 * Room in ZCode's own lines around what they echo of a prompt (ids, times,
 * the event's other fields): 1 MiB, or an eighth of a lower line limit.
 */
export function zcodeLineMargin(maxLineBytes: number): number {
  return Math.min(1024 * 1024, Math.floor(maxLineBytes / 8));
}
/**
 * ZCode's lines echo the prompt it was sent (turn.started carries its text):
 * they must fit whatever the editor may send, or the turn's events are lost.
 */
export const DEFAULT_MAX_LINE_BYTES = DEFAULT_MAX_MESSAGE_BYTES + 16 * 1024 * 1024;

/**
 * The most a prompt may be as sent to ZCode (its text as JSON, its images and
 * PDFs in base64): what the editor may send, and what ZCode's echo of it in
 * one of its own lines leaves room for, whichever is less. A prompt over it
 * is refused before it reaches ZCode.
 */
export function promptWireLimit(config: Pick<BridgeConfig, "maxLineBytes" | "maxMessageBytes">): number {
  return Math.max(0, Math.min(config.maxMessageBytes, config.maxLineBytes - zcodeLineMargin(config.maxLineBytes)));
}

export function defaultConfig(overrides: Partial<BridgeConfig> = {}): BridgeConfig {
  return {
    logLevel: "warn",
    // Off unless the command line resolved it (resolveConfig: on by
    // default there): a config built in code, as tests build them, must
    // never write into the developer's own ZCode app.
    appHistory: false,
    // Off here for the same reason: a config built in code asks no service.
    quotaPush: false,
    maxLineBytes: DEFAULT_MAX_LINE_BYTES,
    maxMessageBytes: DEFAULT_MAX_MESSAGE_BYTES,
    prewarm: true,
    zcodeProtocol: "auto",
    env: process.env,
    ...overrides,
  };
}
