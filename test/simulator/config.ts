// Simulator settings, read once from flags and ZCODE_SIM_* environment.
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface SimConfig {
  version: string;
  stateDir: string;
  record?: string;
  resendMs: number;
  delayMs: number;
  stopIgnoreMs: number;
  replay?: string;
  replayWaitMs: number;
  replayMaxGapMs: number;
  defaultScenario: string;
  /** Seed of the fuzzing mode; undefined = off. */
  fuzzSeed?: number;
}

export const DEFAULT_VERSION = "0.15.3";

function num(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
}

export class UsageError extends Error {}

/** Splits argv into the command words and the `--sim-version` flag. */
export function parseArgs(argv: string[]): { words: string[]; simVersion?: string } {
  const words: string[] = [];
  let simVersion: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--sim-version") {
      simVersion = argv[++i];
      if (simVersion === undefined) throw new UsageError("--sim-version needs a value");
    } else if (a.startsWith("--sim-version=")) simVersion = a.slice("--sim-version=".length);
    else words.push(a);
  }
  return simVersion === undefined ? { words } : { words, simVersion };
}

export function loadConfig(env: Record<string, string | undefined>, simVersion?: string): SimConfig {
  const uid = typeof process.getuid === "function" ? process.getuid() : "user";
  const version = simVersion ?? env.ZCODE_SIM_VERSION ?? DEFAULT_VERSION;
  if (!/^\d+\.\d+\.\d+/.test(version)) throw new UsageError(`bad simulator version ${JSON.stringify(version)}`);
  const fuzz = env.ZCODE_SIM_FUZZ;
  const cfg: SimConfig = {
    version,
    stateDir: env.ZCODE_SIM_STATE_DIR || join(env.TMPDIR || tmpdir(), `zcode-sim-${uid}`),
    resendMs: num(env.ZCODE_SIM_RESEND_MS, 1000, "ZCODE_SIM_RESEND_MS"),
    delayMs: num(env.ZCODE_SIM_DELAY_MS, 5, "ZCODE_SIM_DELAY_MS"),
    stopIgnoreMs: num(env.ZCODE_SIM_STOP_IGNORE_MS, 3000, "ZCODE_SIM_STOP_IGNORE_MS"),
    defaultScenario: env.ZCODE_SIM_SCENARIO || "default",
    replayWaitMs: num(env.ZCODE_SIM_REPLAY_WAIT_MS, 10_000, "ZCODE_SIM_REPLAY_WAIT_MS"),
    replayMaxGapMs: num(env.ZCODE_SIM_REPLAY_MAX_GAP_MS, 50, "ZCODE_SIM_REPLAY_MAX_GAP_MS"),
  };
  if (env.ZCODE_SIM_RECORD) cfg.record = env.ZCODE_SIM_RECORD;
  if (env.ZCODE_SIM_REPLAY) cfg.replay = env.ZCODE_SIM_REPLAY;
  if (fuzz !== undefined && fuzz !== "") cfg.fuzzSeed = num(fuzz, 0, "ZCODE_SIM_FUZZ");
  return cfg;
}
