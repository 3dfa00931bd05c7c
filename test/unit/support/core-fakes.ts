// A scripted ZCode behind BridgeCore for the turn and core unit tests: the
// api methods the core calls, the connection's event routing (raw envelopes,
// as the real connection delivers them), and the editor side (the update sink).
import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { UpdateSink } from "../../../src/acp/update-sink.ts";
import { BridgeCore, DEFAULT_TIMINGS, type CoreTimings } from "../../../src/bridge/core.ts";
import type { ZCodeApi } from "../../../src/zcode/api.ts";
import { ZCodeError } from "../../../src/zcode/errors.ts";
import { checkSessionUpdate } from "../../support/schema.ts";

export const FAST: CoreTimings = {
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
  };
  generation = 1;
  private listeners = new Map<string, (e: unknown) => void>();
  private exitListeners = new Set<(info: { generation: number }) => void>();
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
        onExit: (cb: (info: { generation: number }) => void) => {
          this.exitListeners.add(cb);
          return () => this.exitListeners.delete(cb);
        },
        onEvent: (id: string, cb: (e: unknown) => void) => {
          this.listeners.set(id, cb);
          return () => this.listeners.delete(id);
        },
        start: async () => ({ generation: this.generation }),
      },
      subscribe: call("session/subscribe"),
      send: call("session/send"),
      stop: async (sessionId: string) => {
        await call("session/stop")({ sessionId });
      },
      read: (sessionId: string) => call("session/read")({ sessionId, messageLimit: 1 }),
      resume: call("session/resume"),
      setModel: call("session/setModel"),
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
    this.listeners.get(sessionId)?.({ eventId: `e${seq}`, sessionId, seq, timestamp: Date.now(), traceId: "tr", turnId: "turn_1", type, payload });
    return seq;
  }

  /** The child died: the core marks its sessions for a resume. */
  exit(): void {
    const generation = this.generation;
    this.generation++;
    for (const cb of this.exitListeners) cb({ generation });
  }
}

/** The editor's side: every session/update sent, checked against the ACP schema. */
export class FakeEditor {
  readonly sent: SessionNotification[] = [];
  readonly sink = new UpdateSink(async (n) => {
    const problems = checkSessionUpdate(n.update);
    if (problems.length) throw new Error(`invalid session/update ${JSON.stringify(n.update)}: ${problems.join("; ")}`);
    this.sent.push(n);
  });

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

export function fakeCore(opts: { timings?: Partial<CoreTimings>; terminalOutput?: boolean; cancelInteractions?: (id: string) => void } = {}) {
  const zcode = new FakeZCode();
  const editor = new FakeEditor();
  const core = new BridgeCore(zcode.api, editor.sink, {
    timings: { ...FAST, ...opts.timings },
    terminalOutput: () => opts.terminalOutput ?? false,
    ...(opts.cancelInteractions ? { cancelInteractions: opts.cancelInteractions } : {}),
  });
  return { zcode, editor, core };
}

/** Lets queued promise callbacks and timers run. */
export const tick = (ms = 0) => Bun.sleep(ms);
