import {
  DEFAULT_MAX_LINE_BYTES,
  DEFAULT_MAX_MESSAGE_BYTES,
  defaultConfig,
  isZCodeProtocolSetting,
  ZCODE_PROTOCOL_SETTINGS,
  type AutoCompact,
  type BridgeConfig,
  type ZCodeProtocolSetting,
} from "../config.ts";
import { t } from "../i18n/index.ts";
import { languageOf, type Language } from "../i18n/language.ts";
import { isLogLevel, LOG_LEVEL_NAMES } from "../log.ts";
import { isZCodeMode, ZCODE_MODES } from "../zcode/modes.ts";
import { UsageError } from "./usage-error.ts";

type Env = Record<string, string | undefined>;

const OFF = new Set(["0", "false", "off", "no"]);
const ON = new Set(["1", "true", "on", "yes"]);

/**
 * A setting that is on by default: its --no-… flag wins; otherwise its
 * variable (0/1, false/true, off/on, no/yes; unset or empty is on).
 */
function onUnless(flags: Record<string, string | boolean>, env: Env, flag: string, envName: string): boolean {
  if (flags[flag] === true) return false;
  const raw = env[envName];
  if (raw === undefined || raw === "") return true;
  const v = raw.trim().toLowerCase();
  if (OFF.has(v)) return false;
  if (ON.has(v)) return true;
  throw new UsageError(t().cli.usage.notOnOff(envName, raw));
}

/**
 * Below this many tokens a threshold is met by nearly every turn: ZCode's
 * instructions and tool definitions alone fill several thousand. A bare `80`
 * is almost always `80%` with the sign forgotten.
 */
export const MIN_AUTO_COMPACT_TOKENS = 10_000;

/**
 * The same reason for a percentage: 10% of the smallest context windows
 * ZCode offers (128k) is above MIN_AUTO_COMPACT_TOKENS, while 1% of them
 * (1.3k) is met by every turn. One minimum, whatever the window.
 */
export const MIN_AUTO_COMPACT_PERCENT = 10;

/** `80%` (of the context window), or `150000` / `150k` tokens in use; anything else names where it came from. */
export function parseAutoCompact(raw: string, from: string): AutoCompact {
  const v = raw.trim();
  const percent = /^(\d{1,3}(?:\.\d+)?)\s*%$/.exec(v);
  if (percent) {
    const p = Number(percent[1]);
    if (p > 100) throw new UsageError(t().cli.usage.notAutoCompact(from, raw));
    if (p < MIN_AUTO_COMPACT_PERCENT) throw new UsageError(t().cli.usage.autoCompactPercentTooLow(from, raw, MIN_AUTO_COMPACT_PERCENT));
    return { percent: p };
  }
  const tokens = /^(\d+(?:\.\d+)?)(k?)$/i.exec(v);
  const n = tokens ? Math.round(Number(tokens[1]) * (tokens[2] ? 1000 : 1)) : Number.NaN;
  if (!tokens || !Number.isSafeInteger(n) || (!tokens[2] && tokens[1]?.includes("."))) {
    throw new UsageError(t().cli.usage.notAutoCompact(from, raw));
  }
  if (n < MIN_AUTO_COMPACT_TOKENS) {
    const asPercent = n >= MIN_AUTO_COMPACT_PERCENT && n <= 100 ? `${n}%` : undefined;
    throw new UsageError(t().cli.usage.autoCompactTooLow(from, raw, MIN_AUTO_COMPACT_TOKENS, asPercent));
  }
  return { tokens: n };
}

export interface ExplicitLanguage {
  language: Language;
  from: "flag" | "env";
}

/** --lang / ZCODE_ACP_LANG when given (zh…, en…), and which of the two; a value naming neither is a usage error. */
export function explicitLanguage(flags: Record<string, string | boolean>, env: Env): ExplicitLanguage | undefined {
  const f = flags.lang;
  const [raw, from] = typeof f === "string" ? [f, "flag" as const] : [env.ZCODE_ACP_LANG, "env" as const];
  if (raw === undefined || raw === "") return undefined;
  const language = languageOf(raw);
  if (!language) throw new UsageError(t().cli.usage.notALanguage(from === "flag" ? "--lang" : "ZCODE_ACP_LANG", raw));
  return { language, from };
}

/**
 * The language to complain in before the flags are parsed (an unknown flag
 * is reported in it): a --lang in argv that names a language, else a
 * ZCODE_ACP_LANG that does. A malformed one is ignored here; the parse that
 * follows reports it.
 */
export function languageInArgv(argv: readonly string[], env: Env): ExplicitLanguage | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") break;
    const raw = arg === "--lang" ? argv[i + 1] : arg.startsWith("--lang=") ? arg.slice("--lang=".length) : undefined;
    const language = languageOf(raw);
    if (language) return { language, from: "flag" };
  }
  const language = languageOf(env.ZCODE_ACP_LANG);
  return language ? { language, from: "env" } : undefined;
}

/**
 * The one place where flags and environment become settings. A flag wins over
 * its env variable; an empty env variable counts as unset (editors often write
 * `"ZCODE_BIN": ""` in a settings template). Bad values throw UsageError, which
 * names where the value came from so the user knows what to fix.
 */
export function resolveConfig(flags: Record<string, string | boolean>, env: Env): BridgeConfig {
  const pick = (flag: string, envName: string): { value: string; from: string } | undefined => {
    const f = flags[flag];
    if (typeof f === "string") return { value: f, from: `--${flag}` };
    const e = env[envName];
    if (e !== undefined && e !== "") return { value: e, from: envName };
    return undefined;
  };

  const level = pick("log-level", "ZCODE_ACP_LOG_LEVEL");
  if (level && !isLogLevel(level.value)) {
    throw new UsageError(t().cli.usage.unknownLogLevel(level.from, level.value, LOG_LEVEL_NAMES));
  }

  const mode = pick("mode", "ZCODE_ACP_MODE");
  if (mode && !isZCodeMode(mode.value)) {
    throw new UsageError(t().cli.usage.notAModeName(mode.from, mode.value, ZCODE_MODES));
  }

  const model = pick("model", "ZCODE_ACP_MODEL");
  // Only its shape here: which models exist is known once ZCode created a session.
  if (model && (model.value.trim() === "" || model.value.length > 200 || /[\u0000-\u001f]/.test(model.value))) {
    throw new UsageError(t().cli.usage.notAModel(model.from, model.value));
  }

  const protocol = pick("zcode-protocol", "ZCODE_ACP_ZCODE_PROTOCOL");
  if (protocol && !isZCodeProtocolSetting(protocol.value.trim().toLowerCase())) {
    throw new UsageError(t().cli.usage.notAProtocol(protocol.from, protocol.value, ZCODE_PROTOCOL_SETTINGS));
  }

  const bytes = (flag: string, envName: string, fallback: number): number => {
    const max = pick(flag, envName);
    if (!max) return fallback;
    const n = Number(max.value);
    if (!/^\d+$/.test(max.value) || !Number.isSafeInteger(n) || n < 1024) {
      throw new UsageError(t().cli.usage.notAByteCount(max.from, max.value));
    }
    return n;
  };
  const maxLineBytes = bytes("max-line-bytes", "ZCODE_ACP_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES);
  const maxMessageBytes = bytes("max-message-bytes", "ZCODE_ACP_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES);

  const config = defaultConfig({
    env,
    maxLineBytes,
    maxMessageBytes,
    appHistory: onUnless(flags, env, "no-app-history", "ZCODE_ACP_APP_HISTORY"),
    quotaPush: onUnless(flags, env, "no-quota-push", "ZCODE_ACP_QUOTA_PUSH"),
  });
  if (level && isLogLevel(level.value)) config.logLevel = level.value;
  const bin = pick("zcode-bin", "ZCODE_BIN");
  if (bin) config.zcodeBin = bin.value;
  const node = pick("zcode-node", "ZCODE_NODE");
  if (node) config.zcodeNode = node.value;
  const logFile = pick("log-file", "ZCODE_ACP_LOG_FILE");
  if (logFile) config.logFile = logFile.value;
  if (mode) config.mode = mode.value;
  if (protocol) config.zcodeProtocol = protocol.value.trim().toLowerCase() as ZCodeProtocolSetting;
  const autoCompact = pick("auto-compact", "ZCODE_ACP_AUTO_COMPACT");
  if (autoCompact) config.autoCompact = parseAutoCompact(autoCompact.value, autoCompact.from);
  if (model) config.model = model.value.trim();
  const trace = pick("trace", "ZCODE_ACP_TRACE");
  if (trace) config.trace = trace.value;
  config.prewarm = onUnless(flags, env, "no-prewarm", "ZCODE_ACP_PREWARM");
  // Hidden, for tests: silence (ms) in a running turn before resubscribing,
  // and how long a prompt waits for a busy ZCode session (1308).
  const ms = (name: string) => {
    const raw = env[name];
    return raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined;
  };
  const stallMs = ms("ZCODE_ACP_STALL_MS");
  if (stallMs) config.stallMs = stallMs;
  const busyWaitMs = ms("ZCODE_ACP_BUSY_WAIT_MS");
  if (busyWaitMs) config.busyWaitMs = busyWaitMs;
  const autoCompactQuietMs = ms("ZCODE_ACP_AUTO_COMPACT_QUIET_MS");
  if (autoCompactQuietMs) config.autoCompactQuietMs = autoCompactQuietMs;
  const requestTimeoutMs = ms("ZCODE_ACP_REQUEST_TIMEOUT_MS");
  if (requestTimeoutMs) config.requestTimeoutMs = requestTimeoutMs;
  return config;
}
