import { DEFAULT_MAX_LINE_BYTES, DEFAULT_MAX_MESSAGE_BYTES, defaultConfig, type BridgeConfig } from "../config.ts";
import { isLogLevel, LOG_LEVEL_NAMES } from "../log.ts";
import { UsageError } from "./usage-error.ts";

type Env = Record<string, string | undefined>;

const ON = ["1", "true", "yes", "on"];
const OFF = ["0", "false", "no", "off"];

/** An on/off environment variable; unset or empty is `fallback`. */
function switchValue(env: Env, name: string, fallback: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const v = raw.trim().toLowerCase();
  if (ON.includes(v)) return true;
  if (OFF.includes(v)) return false;
  throw new UsageError(`${name}: '${raw}' is not on or off (use 1 or 0)`);
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
    throw new UsageError(
      `${level.from}: unknown log level '${level.value}' (expected one of ${LOG_LEVEL_NAMES.join(", ")})`,
    );
  }

  const mode = pick("mode", "ZCODE_ACP_MODE");
  if (mode && !/^[A-Za-z][A-Za-z0-9_-]{0,63}$/.test(mode.value)) {
    throw new UsageError(`${mode.from}: '${mode.value}' is not a mode name (e.g. yolo, build, plan)`);
  }

  const bytes = (flag: string, envName: string, fallback: number): number => {
    const max = pick(flag, envName);
    if (!max) return fallback;
    const n = Number(max.value);
    if (!/^\d+$/.test(max.value) || !Number.isSafeInteger(n) || n < 1024) {
      throw new UsageError(`${max.from}: '${max.value}' is not a byte count (a whole number >= 1024)`);
    }
    return n;
  };
  const maxLineBytes = bytes("max-line-bytes", "ZCODE_ACP_MAX_LINE_BYTES", DEFAULT_MAX_LINE_BYTES);
  const maxMessageBytes = bytes("max-message-bytes", "ZCODE_ACP_MAX_MESSAGE_BYTES", DEFAULT_MAX_MESSAGE_BYTES);

  const config = defaultConfig({ env, maxLineBytes, maxMessageBytes });
  if (level && isLogLevel(level.value)) config.logLevel = level.value;
  const bin = pick("zcode-bin", "ZCODE_BIN");
  if (bin) config.zcodeBin = bin.value;
  const node = pick("zcode-node", "ZCODE_NODE");
  if (node) config.zcodeNode = node.value;
  const logFile = pick("log-file", "ZCODE_ACP_LOG_FILE");
  if (logFile) config.logFile = logFile.value;
  if (mode) config.mode = mode.value;
  const trace = pick("trace", "ZCODE_ACP_TRACE");
  if (trace) config.trace = trace.value;
  config.prewarm = flags["no-prewarm"] !== true && switchValue(env, "ZCODE_ACP_PREWARM", true);
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
  const requestTimeoutMs = ms("ZCODE_ACP_REQUEST_TIMEOUT_MS");
  if (requestTimeoutMs) config.requestTimeoutMs = requestTimeoutMs;
  return config;
}
