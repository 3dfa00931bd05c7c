// Simulator settings, read once from flags and the environment.
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CatalogKnobs, DEFAULT_MODEL, findModel, type ModelSel, parseModelSpec } from "./catalog.ts";
import { V4Faults } from "./v4-faults.ts";

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
  /** ZCODE_SIM_REPLAY_WORKSPACE: replaces the traced workspace path in replayed frames. */
  replayWorkspace?: string;
  defaultScenario: string;
  /** Seed of the fuzzing mode; undefined = off. */
  fuzzSeed?: number;
  /** Delay before answering anything at all (a slow-booting Node CLI). */
  bootMs: number;
  /** Extra time every queued request handler takes (makes the serial queue observable). */
  handlerDelayMs: number;
  /** How long a session stays busy after its turn's end event (the CLI clears it a little later). */
  busyTailMs: number;
  /** How long after a TodoWrite result the session's todos (session/read) show it. */
  todosLagMs: number;
  /** ZCODE_SIM_ACK_WITH_FIRST_TEXT: an answer that starts a turn is written in one write with the turn's first text (wire.ts Out.cork). */
  ackWithFirstText: boolean;
  /** Batch streaming deltas as the CLI does (ZCODE_SIM_BATCH_DELTAS=0 turns it off). */
  batchDeltas: boolean;
  /** A test switch, no CLI behaviour: each model request reports at least this fraction of the context window in use (0: off). */
  contextFill: number;
  /**
   * ZCODE_SIM_PROTOCOL: `both` (default: legacy and v4, as 0.16.9) or `v4-only` (a CLI whose legacy
   * protocol file is deleted: packages/shared/src/zcode-protocol/index.ts:22-33 "旧协议删除边界";
   * transport.ts V4_METHODS "旧 session/* 方法删除后，这里就是唯一协议面").
   */
  protocol: "both" | "v4-only";
  /**
   * ZCODE_SIM_V4_MAX_FRAME_BYTES: a test switch (default and ceiling: core.ts maxFrameBytes 1 MiB) that
   * lowers the physical frame budget so small frames fragment, as ZCode's own tests pass
   * `maxPhysicalFrameBytes: 2_048` to encodeTopicWireFrames.
   */
  v4MaxFrameBytes: number;
  /** The desktop 3.12+ bundled CLI: refuse to boot without the built-in provider config. */
  requireProviderConfig: boolean;
  /** A cold resume puts every session back on the default model. */
  resumeResetsModel: boolean;
  defaultModel: ModelSel;
  /** ZCODE_SIM_WITHDRAWN_MODELS, ZCODE_SIM_DISABLED_MODELS, ZCODE_SIM_SET_MODEL_FAILS. */
  catalog: CatalogKnobs;
  /** ZCODE_SIM_V4_PROBE, ZCODE_SIM_V4_ACK (v4-faults.ts). */
  v4Faults?: V4Faults;
  /** The launch environment the real CLI would read. */
  launch: {
    builtinProviderConfigFile?: string;
    personalProviderConfigFile?: string;
    baseUrl?: string;
  };
}

export const DEFAULT_VERSION = "0.16.9";

function num(v: string | undefined, dflt: number, name: string): number {
  if (v === undefined || v === "") return dflt;
  const n = Number(v);
  if (!Number.isFinite(n) || n < 0) throw new UsageError(`${name} must be a non-negative number, got ${JSON.stringify(v)}`);
  return n;
}

const flag = (v: string | undefined) => v !== undefined && v !== "" && v !== "0" && v.toLowerCase() !== "false";

export class UsageError extends Error {}

/** A comma list of catalogue models (`provider/model`); an unknown one is a usage error. */
function modelList(v: string | undefined, name: string): string[] {
  const list = (v ?? "")
    .split(",")
    .map((x) => x.trim())
    .filter(Boolean);
  for (const m of list) {
    const slash = m.lastIndexOf("/");
    if (slash <= 0 || !findModel({ providerId: m.slice(0, slash), modelId: m.slice(slash + 1) })) {
      throw new UsageError(`${name}: unknown model ${JSON.stringify(m)}`);
    }
  }
  return list;
}

/** Splits argv into the command words and the `--sim-version` flag. */
function protocolOf(v: string | undefined): SimConfig["protocol"] {
  if (v === undefined || v === "" || v === "both") return "both";
  if (v === "v4-only") return "v4-only";
  throw new UsageError(`ZCODE_SIM_PROTOCOL: expected both or v4-only, got ${JSON.stringify(v)}`);
}

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
  let defaultModel = DEFAULT_MODEL;
  if (env.ZCODE_SIM_DEFAULT_MODEL) {
    try {
      defaultModel = parseModelSpec(env.ZCODE_SIM_DEFAULT_MODEL);
    } catch (e) {
      throw new UsageError(`ZCODE_SIM_DEFAULT_MODEL: ${(e as Error).message}`);
    }
  }
  const cfg: SimConfig = {
    version,
    stateDir: env.ZCODE_SIM_STATE_DIR || join(env.TMPDIR || tmpdir(), `zcode-sim-${uid}`),
    resendMs: num(env.ZCODE_SIM_RESEND_MS, 1000, "ZCODE_SIM_RESEND_MS"),
    delayMs: num(env.ZCODE_SIM_DELAY_MS, 5, "ZCODE_SIM_DELAY_MS"),
    stopIgnoreMs: num(env.ZCODE_SIM_STOP_IGNORE_MS, 3000, "ZCODE_SIM_STOP_IGNORE_MS"),
    defaultScenario: env.ZCODE_SIM_SCENARIO || "default",
    replayWaitMs: num(env.ZCODE_SIM_REPLAY_WAIT_MS, 10_000, "ZCODE_SIM_REPLAY_WAIT_MS"),
    replayMaxGapMs: num(env.ZCODE_SIM_REPLAY_MAX_GAP_MS, 50, "ZCODE_SIM_REPLAY_MAX_GAP_MS"),
    bootMs: num(env.ZCODE_SIM_BOOT_MS, 0, "ZCODE_SIM_BOOT_MS"),
    handlerDelayMs: num(env.ZCODE_SIM_HANDLER_DELAY_MS, 0, "ZCODE_SIM_HANDLER_DELAY_MS"),
    busyTailMs: num(env.ZCODE_SIM_BUSY_TAIL_MS, 0, "ZCODE_SIM_BUSY_TAIL_MS"),
    todosLagMs: num(env.ZCODE_SIM_TODOS_LAG_MS, 50, "ZCODE_SIM_TODOS_LAG_MS"),
    ackWithFirstText: flag(env.ZCODE_SIM_ACK_WITH_FIRST_TEXT),
    batchDeltas: env.ZCODE_SIM_BATCH_DELTAS !== "0",
    contextFill: Math.min(1, num(env.ZCODE_SIM_CONTEXT_FILL, 0, "ZCODE_SIM_CONTEXT_FILL")),
    requireProviderConfig: flag(env.ZCODE_SIM_REQUIRE_PROVIDER_CONFIG),
    protocol: protocolOf(env.ZCODE_SIM_PROTOCOL),
    v4MaxFrameBytes: num(env.ZCODE_SIM_V4_MAX_FRAME_BYTES, 1024 * 1024, "ZCODE_SIM_V4_MAX_FRAME_BYTES"),
    resumeResetsModel: flag(env.ZCODE_SIM_RESUME_RESETS_MODEL),
    defaultModel,
    catalog: {
      withdrawn: modelList(env.ZCODE_SIM_WITHDRAWN_MODELS, "ZCODE_SIM_WITHDRAWN_MODELS"),
      disabled: modelList(env.ZCODE_SIM_DISABLED_MODELS, "ZCODE_SIM_DISABLED_MODELS"),
      setModelFails: modelList(env.ZCODE_SIM_SET_MODEL_FAILS, "ZCODE_SIM_SET_MODEL_FAILS"),
    },
    launch: {},
  };
  if (env.ZCODE_SIM_V4_PROBE || env.ZCODE_SIM_V4_ACK) {
    try {
      cfg.v4Faults = new V4Faults(env.ZCODE_SIM_V4_PROBE, env.ZCODE_SIM_V4_ACK);
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
  }
  if (env.ZCODE_SIM_RECORD) cfg.record = env.ZCODE_SIM_RECORD;
  if (env.ZCODE_SIM_REPLAY) cfg.replay = env.ZCODE_SIM_REPLAY;
  if (env.ZCODE_SIM_REPLAY_WORKSPACE) cfg.replayWorkspace = env.ZCODE_SIM_REPLAY_WORKSPACE;
  if (fuzz !== undefined && fuzz !== "") cfg.fuzzSeed = num(fuzz, 0, "ZCODE_SIM_FUZZ");
  if (env.ZCODE_BUILTIN_PROVIDER_CONFIG_FILE) cfg.launch.builtinProviderConfigFile = env.ZCODE_BUILTIN_PROVIDER_CONFIG_FILE;
  if (env.ZCODE_PERSONAL_PROVIDER_CONFIG_FILE) cfg.launch.personalProviderConfigFile = env.ZCODE_PERSONAL_PROVIDER_CONFIG_FILE;
  if (env.ZCODE_BASE_URL) cfg.launch.baseUrl = env.ZCODE_BASE_URL;
  return cfg;
}

/** The desktop bundle's boot check: null when it may start, else the stderr line it dies with. */
export function providerConfigProblem(cfg: SimConfig): string | null {
  if (!cfg.requireProviderConfig) return null;
  const f = cfg.launch.builtinProviderConfigFile;
  if (f && existsSync(f)) return null;
  return "无法定位 CLI ZCode Built-in Provider Config";
}
