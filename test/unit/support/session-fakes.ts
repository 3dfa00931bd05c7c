// A scripted ZCode behind a real Bridge for the session and turn unit tests:
// the api methods sessions call, the connection's event routing (raw
// envelopes, as the real connection delivers them), and the editor's side.
import { jest } from "bun:test";
import type { ClientCapabilities, SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { Bridge, type EditorPort } from "../../../src/session/bridge.ts";
import { DEFAULT_TIMINGS, type Timings } from "../../../src/session/timings.ts";
import type { Settings } from "../../../src/zcode/schemas.ts";
import type { AutoCompact, BridgeConfig } from "../../../src/config.ts";
import type { ZCodeApi, ZCodeMcpServer } from "../../../src/zcode/api.ts";
import { ZCodeError } from "../../../src/zcode/errors.ts";
import { checkSessionUpdate } from "../../support/schema.ts";

export const FAST: Timings = {
  ...DEFAULT_TIMINGS,
  stallMs: 5000,
  busyWaitMs: 1000,
  idlePollMs: 5,
  cancelGraceMs: 30,
  retryTries: 2,
  retryBaseMs: 5,
  endReadMs: 200,
};

export interface Call {
  method: string;
  params: any;
}

type Answer = (params: any) => unknown;

export function zcodeError(code: number, message: string, method = ""): ZCodeError {
  return new ZCodeError(message, { code, method });
}

/**
 * A fake ZCode: every api call is recorded and answered by `answers[method]`
 * (a value, an Error to throw, or a function of the params); `emit` delivers
 * an envelope to the session's listener as the connection would.
 */
export class FakeZCode {
  readonly calls: Call[] = [];
  readonly answers: Record<string, unknown | Answer> = {
    "session/subscribe": { eventSeq: 0, events: [] },
    "session/send": { accepted: true },
    "session/stop": {},
    "session/read": { session: { sessionId: "s1" }, projection: { status: "idle" } },
    "session/resume": { session: { sessionId: "s1" } },
    "session/setModel": {},
    "session/create": { session: { sessionId: "s1" } },
    "session/messages": { messages: [] },
    "session/list": { sessions: [] },
    "session/compact": { compact: { state: "started" } },
    deleteSession: true,
  };
  generation = 1;
  private listeners = new Map<string, (e: unknown) => void>();
  private exitListeners = new Set<(info: { generation: number; code: null; signal: string; stderrTail: string[] }) => void>();
  private seq = new Map<string, number>();

  readonly api: ZCodeApi;

  constructor() {
    const call = (method: string) => async (params: unknown) => {
      this.calls.push({ method, params });
      const a = this.answers[method];
      const v = typeof a === "function" ? await (a as Answer)(params) : a;
      if (v instanceof Error) throw v;
      return v;
    };
    this.api = {
      conn: {
        onExit: (cb: (info: { generation: number; code: null; signal: string; stderrTail: string[] }) => void) => {
          this.exitListeners.add(cb);
          return () => this.exitListeners.delete(cb);
        },
        onEvent: (id: string, cb: (e: unknown) => void) => {
          this.listeners.set(id, cb);
          return () => this.listeners.delete(id);
        },
        start: async () => ({ generation: this.generation }),
        onRequest: () => () => {},
        close: async () => {},
      },
      capabilities: () => undefined,
      create: call("session/create"),
      messages: (sessionId: string) => call("session/messages")({ sessionId }),
      list: call("session/list"),
      setMode: call("session/setMode"),
      setThoughtLevel: call("session/setThoughtLevel"),
      subscribe: call("session/subscribe"),
      send: call("session/send"),
      stop: async (sessionId: string) => {
        await call("session/stop")({ sessionId });
      },
      read: (sessionId: string) => call("session/read")({ sessionId, messageLimit: 1 }),
      resume: call("session/resume"),
      setModel: call("session/setModel"),
      // A CLI without v4 (0.15): retries send the prompt again, stops are session/stop.
      hasV4: async () => false,
      protocol: async () => "legacy",
      // A legacy child: history comes from session/messages, not rowsRange pages.
      historyPage: async () => undefined,
      retryTurn: async () => undefined,
      stopV4Turn: call("v4/command stop"),
      compact: call("session/compact"),
      deleteSession: (sessionId: string) => call("deleteSession")({ sessionId }),
    } as unknown as ZCodeApi;
  }

  methods(): string[] {
    return this.calls.map((c) => c.method);
  }

  /** The next envelope of the session (seq counted per session unless given). */
  emit(type: string, payload: unknown = {}, opts: { sessionId?: string; seq?: number } = {}): number {
    const sessionId = opts.sessionId ?? "s1";
    const seq = opts.seq ?? (this.seq.get(sessionId) ?? 0) + 1;
    this.seq.set(sessionId, Math.max(seq, this.seq.get(sessionId) ?? 0));
    this.listeners.get(sessionId)?.({
      eventId: `e${seq}`,
      sessionId,
      seq,
      timestamp: Date.now(),
      traceId: "tr",
      turnId: "turn_1",
      type,
      payload,
    });
    return seq;
  }

  /** The child died: its sessions are resumed on next use. */
  exit(): void {
    const generation = this.generation;
    this.generation++;
    this.reportExit(generation);
  }

  /** The exit of child `generation` is handled (late, when that child was replaced already). */
  reportExit(generation: number): void {
    for (const cb of this.exitListeners) cb({ generation, code: null, signal: "SIGKILL", stderrTail: [] });
  }
}

/** The editor's side: every session/update sent, checked against the ACP schema. */
export class FakeEditor implements EditorPort {
  readonly sent: SessionNotification[] = [];
  readonly requests: { method: string; params: unknown }[] = [];
  clientCapabilities: ClientCapabilities = {};

  async notify(n: SessionNotification): Promise<void> {
    const problems = checkSessionUpdate(n.update);
    if (problems.length) throw new Error(`invalid session/update ${JSON.stringify(n.update)}: ${problems.join("; ")}`);
    this.sent.push(n);
  }

  async request(method: string, params: unknown): Promise<unknown> {
    this.requests.push({ method, params });
    return new Promise(() => {});
  }

  updates(sessionId = "s1"): SessionUpdate[] {
    return this.sent.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  kinds(sessionId = "s1"): string[] {
    return this.updates(sessionId).map((u) => u.sessionUpdate);
  }

  /** The text of every agent message chunk, joined. */
  text(sessionId = "s1"): string {
    return this.updates(sessionId)
      .map((u) => (u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" ? u.content.text : ""))
      .join("");
  }
}

export interface FakeOptions {
  timings?: Partial<Timings>;
  terminalOutput?: boolean;
  /** The session's settings as ZCode's create answers them (parsed: see bridge-fixtures `settings`). */
  settings?: Settings;
  title?: string;
  cwd?: string;
  mcpServers?: ZCodeMcpServer[];
  autoCompact?: AutoCompact;
  /** The bridge's state folder (deleted sessions); by default one that does not exist, never the developer's. */
  stateDir?: string;
}

/** A Bridge over a scripted ZCode and a recording editor. */
export function fakeBridge(opts: FakeOptions = {}) {
  const zcode = new FakeZCode();
  const editor = new FakeEditor();
  if (opts.terminalOutput) editor.clientCapabilities = { _meta: { terminal_output: true } };
  const env: Record<string, string | undefined> = { XDG_STATE_HOME: opts.stateDir ?? "/nonexistent/zcode-acp-unit-state" };
  const config = { env, ...(opts.autoCompact ? { autoCompact: opts.autoCompact } : {}) } as BridgeConfig;
  const bridge = new Bridge(config, editor, { api: zcode.api, timings: { ...FAST, ...opts.timings } });
  return { zcode, editor, bridge };
}

/** A session ZCode just created (child generation 1), nothing subscribed yet; the calls of its creation are forgotten. */
export async function fakeSession(opts: FakeOptions = {}) {
  const f = fakeBridge(opts);
  f.zcode.answers["session/create"] = {
    session: { sessionId: "s1", ...(opts.title ? { title: opts.title } : {}) },
    ...(opts.settings ? { settings: opts.settings } : {}),
  };
  const s = await f.bridge.create(opts.cwd ?? "/w", opts.mcpServers);
  f.zcode.calls.length = 0;
  return { ...f, s };
}

/** Lets queued promise callbacks and timers run. */
export const tick = (ms = 0) => Bun.sleep(ms);

/** Lets every queued promise callback run (no timer fires). */
export async function settle(rounds = 50): Promise<void> {
  for (let i = 0; i < rounds; i++) await Promise.resolve();
}

/**
 * Under `jest.useFakeTimers()`: moves the clock (setTimeout, Date.now,
 * Bun.sleep) on by `ms`, `step` at a time, letting promise callbacks run
 * between steps as they would between real timer ticks.
 */
export async function advance(ms: number, step = 1): Promise<void> {
  await settle();
  for (let done = 0; done < ms; done += step) {
    jest.advanceTimersByTime(Math.min(step, ms - done));
    await settle();
  }
}
