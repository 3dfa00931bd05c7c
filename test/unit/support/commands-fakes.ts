// Fakes for the command unit tests: a ZCodeApi that records every call and
// answers from a script, capabilities as a plain set, and a CommandContext
// that records what a command said and sent.
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { CommandContext } from "../../../src/commands/registry.ts";
import type { ZCodeApi } from "../../../src/zcode/api.ts";
import type { CliCapabilities } from "../../../src/zcode/capabilities.ts";

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
  private listeners = new Set<() => void>();
  constructor(
    readonly version = "0.15.3",
    unsupported: string[] = [],
  ) {
    for (const m of unsupported) this.unsupported.add(m);
  }
  get supported(): boolean {
    return true;
  }
  supports(method: string): boolean {
    return !this.unsupported.has(method);
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

type Answer = unknown | ((params: any) => unknown);

/** api method name (e.g. "fork") → ZCode wire method. */
const WIRE: Record<string, string> = {
  read: "session/read",
  fork: "session/fork",
  rewind: "session/rewind",
  goal: "session/goal",
  compact: "session/compact",
  steer: "session/steer",
  setMode: "session/setMode",
  setThoughtLevel: "session/setThoughtLevel",
};

export const SETTINGS = {
  mode: {
    current: "build",
    available: [
      { value: "plan", label: "Plan" },
      { value: "build", label: "Build" },
      { value: "yolo", label: "YOLO" },
    ],
  },
  model: { current: { providerId: "zai", modelId: "GLM-5.2" }, available: [] },
  thoughtLevel: {
    current: "high",
    available: [
      { value: "low", label: "Low" },
      { value: "high", label: "High" },
      { value: "max", label: "Max" },
    ],
  },
};

export function fakeApi(answers: Record<string, Answer>, caps?: FakeCaps) {
  const calls: Array<{ method: string; params: unknown }> = [];
  const api: Record<string, unknown> = {
    capabilities: () => caps?.asCaps(),
  };
  for (const [name, wire] of Object.entries(WIRE)) {
    api[name] = async (params: unknown) => {
      calls.push({ method: wire, params });
      const a = answers[name];
      if (a === undefined) throw new Error(`fake api: no answer scripted for ${wire}`);
      const v = typeof a === "function" ? (a as (p: unknown) => unknown)(params) : a;
      if (v instanceof Error) throw v;
      return v;
    };
  }
  return { api: api as unknown as ZCodeApi, calls };
}

export interface FakeContext {
  ctx: CommandContext;
  said: string[];
  updates: SessionUpdate[];
  modeSets: string[];
  levelSets: string[];
}

export function fakeContext(
  api: ZCodeApi,
  opts: { args?: string; turnRunning?: boolean; version?: string; setMode?: (m: string) => Promise<void> } = {},
): FakeContext {
  const said: string[] = [];
  const updates: SessionUpdate[] = [];
  const modeSets: string[] = [];
  const levelSets: string[] = [];
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
    turnRunning: () => opts.turnRunning ?? false,
    setMode: async (m) => {
      modeSets.push(m);
      await opts.setMode?.(m);
    },
    setThoughtLevel: async (l) => {
      levelSets.push(l);
    },
    cliVersion: () => opts.version ?? "0.15.3",
  };
  return { ctx, said, updates, modeSets, levelSets };
}
