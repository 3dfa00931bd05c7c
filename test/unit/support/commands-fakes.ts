// Fakes for the command unit tests: a ZCodeApi that records every call and
// answers from a script (in ZCode's real result shapes, read through the
// api's own schemas), capabilities as a plain set, and a CommandContext that
// records what a command said, sent and waited for.
import { noticeUpdate, type ClientFeatures } from "../../../src/translate/client-features.ts";
import * as v from "valibot";
import { expect } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { optionsFromSettings, type SessionOptions } from "../../../src/translate/options/options.ts";
import { matchCommand, type CommandContext } from "../../../src/commands/registry.ts";
import { ZCodeApi } from "../../../src/zcode/api.ts";
import type { ZCodeConnection } from "../../../src/zcode/connection.ts";
import { ZCodeError } from "../../../src/zcode/errors.ts";
import type { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import {
  CompactResultSchema,
  ForkResultSchema,
  GoalResultSchema,
  RewindResultSchema,
  SettingsResultSchema,
  SnapshotSchema,
  SteerResultSchema,
} from "../../../src/zcode/result-schemas.ts";
import { checkSessionUpdate } from "../../support/schema.ts";
import { CREATE_SETTINGS, settings } from "./bridge-fixtures.ts";

/** Stands in for ZCodeError: the commands only look at `code` and `method`. */
export class FakeZCodeError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly method: string,
  ) {
    super(message);
  }
}

export class FakeCaps {
  readonly unsupported = new Set<string>();
  changes = 0;
  /** Whether the fake CLI serves v4 (what the real api's probe finds). */
  v4: boolean | undefined = false;
  private listeners = new Set<() => void>();
  constructor(
    readonly version = "0.16.9",
    unsupported: string[] = [],
  ) {
    for (const m of unsupported) this.unsupported.add(m);
  }
  get supported(): boolean {
    return true;
  }
  supports(method: string): boolean {
    if (method === "op:steer") return this.v4 === true || this.supports("session/steer");
    if (method === "op:rewind") return this.v4 === true || this.supports("session/rewind");
    return !this.unsupported.has(method);
  }
  setV4(v4: boolean): void {
    this.v4 = v4;
  }
  markUnsupported(method: string): void {
    if (this.unsupported.has(method)) return;
    this.unsupported.add(method);
    this.changes++;
    for (const l of this.listeners) l();
  }
  onChange(cb: () => void): () => void {
    this.listeners.add(cb);
    return () => this.listeners.delete(cb);
  }
  asCaps(): CliCapabilities {
    return this as unknown as CliCapabilities;
  }
}

/** A CLI 0.15.x, the last with session/steer and session/rewind. */
export const CAPS_015 = () => new FakeCaps("0.15.3");
/** A CLI 0.16.x without v4: no steer, no rewind. */
export const CAPS_016 = () => new FakeCaps("0.16.9", ["session/steer", "session/rewind"]);
/** A CLI 0.16.9 with the v4 command channel. */
export const CAPS_V4 = () => {
  const c = new FakeCaps("0.16.9", ["session/steer", "session/rewind"]);
  c.v4 = true;
  return c;
};

type Answer = unknown | ((params: any) => unknown);

/** api method name → ZCode wire method and the schema the real api reads its answer with. */
const WIRE: Record<string, { method: string; schema: v.GenericSchema }> = {
  read: { method: "session/read", schema: SnapshotSchema },
  fork: { method: "session/fork", schema: ForkResultSchema },
  rewind: { method: "session/rewind", schema: RewindResultSchema },
  goal: { method: "session/goal", schema: GoalResultSchema },
  compact: { method: "session/compact", schema: CompactResultSchema },
  steer: { method: "session/steer", schema: SteerResultSchema },
  setMode: { method: "session/setMode", schema: SettingsResultSchema },
  setThoughtLevel: { method: "session/setThoughtLevel", schema: SettingsResultSchema },
};

/** A session snapshot as session/read answers it (messageLimit:1). */
export function snapshot(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    protocol: { name: "ZCode Protocol", version: 1 },
    session: { sessionId: "sess_1", title: "Refactor auth", mode: "build", status: "idle" },
    settings: { ...CREATE_SETTINGS, mode: { current: "build" } },
    projection: { sessionId: "sess_1", status: "idle", mode: "build", contextUsed: 1500, contextWindow: 200000 },
    runtime: { eventSeq: 12, stateRevision: 7 },
    ...extra,
  };
}

/** The api operations that choose their channel (v4 or legacy): the real ZCodeApi runs them over a fake connection. */
const OPERATIONS = ["hasV4", "steerTurn", "rewindLastTurn", "rewritePrompt", "retryTurn", "stopV4Turn", "deleteSession"] as const;

export function fakeApi(answers: Record<string, Answer>, caps?: FakeCaps) {
  const calls: Array<{ method: string; params: unknown }> = [];
  const api: Record<string, unknown> = {
    capabilities: () => caps?.asCaps(),
  };
  // Wire answers: by api name for the legacy methods (WIRE), by wire method for v4 ("v4/command", …).
  const conn = {
    get capabilities() {
      return caps?.asCaps();
    },
    start: async () => ({}),
    request: async (method: string, params: unknown, opts: { schema?: v.GenericSchema } = {}) => {
      if (method === "v4/commands/query" && (params as { commands?: { commandId?: string }[] }).commands?.[0]?.commandId === "probe") {
        if (caps?.v4 !== true) throw new ZCodeError(`Method not found: ${method}`, { code: -32601, method });
        return { results: [{ key: { sessionId: null, commandId: "probe" }, result: "unknown" }] };
      }
      calls.push({ method, params });
      const name = Object.entries(WIRE).find(([, w]) => w.method === method)?.[0] ?? method;
      const a = answers[name];
      if (a === undefined) throw new Error(`fake api: no answer scripted for ${method}`);
      const value = typeof a === "function" ? (a as (p: unknown) => unknown)(params) : a;
      if (value instanceof Error) throw value;
      return opts.schema ? v.parse(opts.schema, value) : value;
    },
  };
  const real = new ZCodeApi(conn as unknown as ZCodeConnection);
  for (const name of OPERATIONS) api[name] = (real[name] as (...a: unknown[]) => unknown).bind(real);
  for (const [name, { method, schema }] of Object.entries(WIRE)) {
    api[name] = async (params: unknown) => {
      calls.push({ method, params });
      const a = answers[name];
      if (a === undefined) throw new Error(`fake api: no answer scripted for ${method}`);
      const value = typeof a === "function" ? (a as (p: unknown) => unknown)(params) : a;
      if (value instanceof Error) throw value;
      // What the real api would resolve with.
      return v.parse(schema, value);
    };
  }
  return { api: api as unknown as ZCodeApi, calls };
}

/** The options a session created with CREATE_SETTINGS (mode build) shows. */
export function sessionOptions(): SessionOptions {
  return optionsFromSettings(settings({ ...CREATE_SETTINGS, mode: { current: "build" } }));
}

export interface FakeContext {
  ctx: CommandContext;
  said: string[];
  updates: SessionUpdate[];
  modeSets: string[];
  levelSets: string[];
  modelSets: string[];
  /** The budgets waitIdle was called with. */
  waits: number[];
}

export interface ContextOptions {
  args?: string;
  turnRunning?: boolean;
  version?: string;
  setMode?: (m: string) => Promise<void>;
  setModel?: (value: string) => Promise<void>;
  options?: SessionOptions;
  /** What waitIdle answers (default: idle at once). */
  idle?: boolean | (() => Promise<boolean>);
  /** The bridge's environment the command sees (default: empty). */
  env?: Record<string, string | undefined>;
  /** What the client opted in to (default: nothing). */
  features?: Partial<ClientFeatures>;
}

export function fakeContext(api: ZCodeApi, opts: ContextOptions = {}): FakeContext {
  const said: string[] = [];
  const updates: SessionUpdate[] = [];
  const modeSets: string[] = [];
  const levelSets: string[] = [];
  const modelSets: string[] = [];
  const waits: number[] = [];
  const options = opts.options ?? sessionOptions();
  const ctx: CommandContext = {
    sessionId: "sess_1",
    cwd: "/work/project",
    args: opts.args ?? "",
    api,
    say: async (t) => {
      said.push(t);
    },
    update: async (u) => {
      updates.push(u);
    },
    features: {
      notices: false,
      compaction: false,
      plans: false,
      booleanOptions: false,
      terminalOutput: false,
      goal: false,
      subagents: false,
      ...opts.features,
    },
    trackCompaction: () => {},
    notice: async (level, text) => {
      updates.push(noticeUpdate(ctx.features, level, text));
    },
    turnRunning: () => opts.turnRunning ?? false,
    goalChanged: async () => {},
    // The turn's own streaming is the session's (e2e); here only whether it started.
    runTurn: async (start) => {
      await start();
    },
    // Holding the session's events is the session's (test/unit/event-hold.test.ts); here only the call.
    holdingEvents: (fn) => fn(),
    waitIdle: async (budgetMs) => {
      waits.push(budgetMs);
      const idle = opts.idle ?? true;
      return typeof idle === "function" ? idle() : idle;
    },
    zcodeWorks: () => {},
    options: () => options,
    setMode: async (m) => {
      modeSets.push(m);
      await opts.setMode?.(m);
    },
    setThoughtLevel: async (l) => {
      levelSets.push(l);
    },
    setModel: async (value) => {
      modelSets.push(value);
      await opts.setModel?.(value);
    },
    cliVersion: () => opts.version ?? "0.16.9",
    env: opts.env ?? {},
  };
  return { ctx, said, updates, modeSets, levelSets, modelSets, waits };
}

/** Runs `text` as a command against scripted ZCode answers; every update it sent must be valid ACP. */
export async function runCommand(
  text: string,
  answers: Record<string, Answer>,
  opts: Omit<ContextOptions, "args"> & { caps?: FakeCaps } = {},
) {
  const m = matchCommand(text);
  if (!m) throw new Error(`not a command: ${text}`);
  const { api, calls } = fakeApi(answers, opts.caps ?? new FakeCaps());
  const f = fakeContext(api, { ...opts, args: m.args });
  await m.command.run(f.ctx);
  for (const u of f.updates) expect(checkSessionUpdate(u)).toEqual([]);
  return { ...f, calls };
}

export const zerr = (code: number, message: string, method: string) => new FakeZCodeError(code, message, method);
