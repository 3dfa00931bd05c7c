// End-to-end harness: the compiled bridge (dist/zcode-acp-server) with the
// compiled ZCode simulator (dist/zcode-sim) as its child, driven by the SDK's
// own ACP client over real pipes. Every line the bridge writes to stdout is
// checked against the SDK's JSON schema; `close()` fails the test on any
// violation, on non-protocol output, or on a non-zero exit.
import * as acp from "@agentclientprotocol/sdk/unstable";
import type { Subprocess } from "bun";
import { afterAll } from "bun:test";
import { closeSync, existsSync, fstatSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { checkAgentMessage } from "./schema.ts";
import { forwardLines } from "./forward-lines.ts";
import { pollUntil } from "./poll.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const BRIDGE_BIN = join(ROOT, "dist/zcode-acp-server");
export const SIM_BIN = join(ROOT, "dist/zcode-sim");

export type PermissionHandler = (
  req: acp.RequestPermissionRequest,
) => acp.RequestPermissionResponse | Promise<acp.RequestPermissionResponse>;
export type ElicitationHandler = (
  req: acp.CreateElicitationRequest,
) => acp.CreateElicitationResponse | Promise<acp.CreateElicitationResponse>;

export type SimProtocol = "both" | "v4-only";

export interface HarnessOptions {
  /** Extra environment for the bridge (inherited by the simulator). */
  env?: Record<string, string | undefined>;
  /** Replace the environment entirely (e.g. an empty one). */
  bareEnv?: boolean;
  args?: string[];
  /** A command the bridge is started through (it must exec its arguments, the bridge first). */
  wrap?: string[];
  /** Simulator personality (ZCODE_SIM_VERSION). */
  simVersion?: string;
  /**
   * The protocols the simulator serves (ZCODE_SIM_PROTOCOL): `both` (legacy
   * and v4, as ZCode 0.16 does; the default) or `v4-only` (every legacy method
   * answers -32601, as a ZCode whose legacy protocol is deleted would).
   */
  simProtocol?: SimProtocol;
  /** Share a state dir between bridges to test persistence; default: fresh temp dir. */
  stateDir?: string;
  /** Record what the simulator receives (ZCODE_SIM_RECORD); see `simFrames()`. */
  record?: boolean;
  /** Client capabilities sent in initialize. */
  clientCapabilities?: acp.ClientCapabilities;
  /** Answers session/request_permission; default: first allow option. */
  onPermission?: PermissionHandler;
  /** Answers elicitation/create; default: decline. */
  onElicitation?: ElicitationHandler;
  /** Skip initialize (to test the bridge before it). */
  skipInitialize?: boolean;
}

export interface Received {
  /** Parsed messages the bridge wrote to stdout, in order. */
  messages: Array<Record<string, unknown>>;
  /** session/update params in arrival order. */
  updates: acp.SessionNotification[];
  permissionRequests: acp.RequestPermissionRequest[];
  elicitations: acp.CreateElicitationRequest[];
  /** Schema violations and non-JSON stdout lines. */
  problems: string[];
}

/**
 * With ZCODE_TEST_TRACE_DIR=<dir>, every bridge writes its --trace there
 * (both wires, one JSON line per message: `bridge-<test pid>-<n>-<ms>.jsonl`),
 * for a failure the log does not explain: what ZCode sent, frame by frame.
 */
let tracesMade = 0;

/**
 * With ZCODE_TEST_BRIDGE_LOG=1, every bridge's stderr is echoed live to the
 * test's stderr, each line prefixed `[bridge <pid>]` (add
 * ZCODE_ACP_LOG_LEVEL=debug for everything it logs). Without it the log is
 * kept and shown when a test fails through `waitFor`, `close` or `withBridge`.
 */
function bridgeLogEcho(pid: number): ((text: string) => void) | undefined {
  if (!process.env.ZCODE_TEST_BRIDGE_LOG || process.env.ZCODE_TEST_BRIDGE_LOG === "0") return undefined;
  let partial = "";
  return (text) => {
    const lines = (partial + text).split("\n");
    partial = lines.pop() ?? "";
    for (const l of lines) if (l) process.stderr.write(`[bridge ${pid}] ${l}\n`);
  };
}

/** A frame the simulator received (`raw`: a line that was not JSON). */
export type SimFrame = { id?: number | string; method?: string; params?: any; result?: any; error?: any; raw?: string };

export class Harness {
  readonly received: Received = { messages: [], updates: [], permissionRequests: [], elicitations: [], problems: [] };
  readonly stateDir: string;
  readonly recordFile: string | undefined;
  /** The SDK's view of the agent: `agent.request(method, params)`. */
  agent!: acp.ClientContext;
  connection!: acp.ClientConnection;
  initializeResponse?: acp.InitializeResponse;
  private stderrText = "";
  private readonly methodOfId = new Map<string | number, string>();
  private readonly stdoutDone: Promise<void>;
  private readonly stderrDone: Promise<void>;
  private closed = false;
  /** Where the current test's part of the record file starts (bytes; see `beginTest`). */
  private recordFrom = 0;
  /** simFrames' parse of the record file: the frames of its lines from `start` to byte `end` (after a newline). */
  private parsed: { start: number; end: number; frames: SimFrame[] } | undefined;

  private constructor(
    readonly proc: Subprocess<"pipe", "pipe", "pipe">,
    readonly opts: HarnessOptions,
    stateDir: string,
    recordFile: string | undefined,
    private readonly ownStateDir: boolean,
  ) {
    this.stateDir = stateDir;
    this.recordFile = recordFile;
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    this.stdoutDone = forwardLines(this.proc.stdout, toClient.writable, (line) => this.inspect(line));
    this.stderrDone = (async () => {
      const dec = new TextDecoder();
      const echo = bridgeLogEcho(proc.pid);
      for await (const c of proc.stderr) {
        const t = dec.decode(c, { stream: true });
        this.stderrText += t;
        echo?.(t);
      }
      echo?.("\n");
    })();
    const toAgent = new WritableStream<Uint8Array>({
      write: async (chunk) => {
        // The SDK writes exactly one JSON line per call.
        try {
          const m = JSON.parse(new TextDecoder().decode(chunk));
          if (m && m.id !== undefined && typeof m.method === "string") this.methodOfId.set(m.id, m.method);
        } catch {
          /* the client only writes JSON */
        }
        try {
          proc.stdin.write(chunk);
          await proc.stdin.flush();
        } catch {
          // Bridge gone; the test sees it through the exit code.
        }
      },
      close: async () => {
        try {
          await proc.stdin.end();
        } catch {
          /* already closed */
        }
      },
    });
    const client = acp
      .client({ name: "zcode-acp-test-client" })
      .onNotification(acp.methods.client.session.update, ({ params }) => {
        this.received.updates.push(params);
      })
      .onRequest(acp.methods.client.session.requestPermission, async ({ params }) => {
        this.received.permissionRequests.push(params);
        if (opts.onPermission) return opts.onPermission(params);
        const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
        return { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } };
      })
      .onRequest(acp.methods.client.elicitation.create, async ({ params }) => {
        this.received.elicitations.push(params);
        if (opts.onElicitation) return opts.onElicitation(params);
        return { action: "decline" } as acp.CreateElicitationResponse;
      });
    this.connection = client.connect(acp.ndJsonStream(toAgent, toClient.readable));
    this.agent = this.connection.agent;
  }

  static async start(opts: HarnessOptions = {}): Promise<Harness> {
    if (!existsSync(BRIDGE_BIN) || !existsSync(SIM_BIN)) {
      throw new Error("dist/zcode-acp-server or dist/zcode-sim missing: run `bun run build` first");
    }
    const ownStateDir = !opts.stateDir;
    const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
    const recordFile = opts.record ? join(stateDir, `record-${process.pid}-${Date.now()}.jsonl`) : undefined;
    const base: Record<string, string | undefined> = opts.bareEnv ? {} : { ...process.env };
    const env: Record<string, string | undefined> = {
      ...base,
      ...(opts.bareEnv
        ? {}
        : {
            ZCODE_BIN: SIM_BIN,
            // An empty home: the user's own ZCode skills and commands would
            // otherwise show up in every advertised menu.
            HOME: join(stateDir, "home"),
            // The bridge's own state (deleted sessions' tombstones), never the developer's.
            XDG_STATE_HOME: join(stateDir, "state"),
            ZCODE_SIM_STATE_DIR: stateDir,
            ZCODE_SIM_DELAY_MS: "1",
            ZCODE_SIM_RESEND_MS: "200",
            ZCODE_ACP_LOG_LEVEL: process.env.ZCODE_ACP_LOG_LEVEL ?? "warn",
            // The developer's own locale must not change what the tests read.
            ZCODE_ACP_LANG: "en",
          }),
      ...(opts.simVersion ? { ZCODE_SIM_VERSION: opts.simVersion } : {}),
      ...(opts.simProtocol ? { ZCODE_SIM_PROTOCOL: opts.simProtocol } : {}),
      ...(recordFile ? { ZCODE_SIM_RECORD: recordFile } : {}),
      ...opts.env,
    };
    const traceDir = process.env.ZCODE_TEST_TRACE_DIR;
    if (traceDir && !opts.bareEnv) env.ZCODE_ACP_TRACE = join(traceDir, `bridge-${process.pid}-${++tracesMade}-${Date.now()}.jsonl`);
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const proc = Bun.spawn([...(opts.wrap ?? []), BRIDGE_BIN, ...(opts.args ?? [])], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: env as Record<string, string>,
      cwd: stateDir,
    });
    const h = new Harness(proc, opts, stateDir, recordFile, ownStateDir);
    if (!opts.skipInitialize) await h.initialize();
    return h;
  }

  async initialize(params?: Partial<acp.InitializeRequest>): Promise<acp.InitializeResponse> {
    this.initializeResponse = await this.agent.request(acp.methods.agent.initialize, {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities: this.opts.clientCapabilities ?? {},
      clientInfo: { name: "zcode-acp-test-client", version: "0.0.0" },
      ...params,
    });
    return this.initializeResponse;
  }

  async newSession(cwd = this.stateDir): Promise<acp.NewSessionResponse> {
    return this.agent.request(acp.methods.agent.session.new, { cwd, mcpServers: [] });
  }

  /** Sends one text prompt and resolves with the prompt response. */
  prompt(sessionId: string, text: string | acp.ContentBlock[]): Promise<acp.PromptResponse> {
    const prompt = typeof text === "string" ? [{ type: "text" as const, text }] : text;
    return this.agent.request(acp.methods.agent.session.prompt, { sessionId, prompt });
  }

  cancel(sessionId: string): Promise<void> {
    return this.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  /** The `update` payloads of one session, in order. */
  updates(sessionId: string): acp.SessionUpdate[] {
    return this.received.updates.filter((u) => u.sessionId === sessionId).map((u) => u.update);
  }

  updatesOfKind<K extends acp.SessionUpdate["sessionUpdate"]>(
    sessionId: string,
    kind: K,
  ): Extract<acp.SessionUpdate, { sessionUpdate: K }>[] {
    return this.updates(sessionId).filter((u) => u.sessionUpdate === kind) as Extract<acp.SessionUpdate, { sessionUpdate: K }>[];
  }

  /** Concatenated agent message text of a session (optionally thoughts). */
  text(sessionId: string, kind: "agent_message_chunk" | "agent_thought_chunk" = "agent_message_chunk"): string {
    return this.updatesOfKind(sessionId, kind)
      .map((u) => (u.content.type === "text" ? u.content.text : ""))
      .join("");
  }

  /** Waits until `pred` holds over what was received (polling), or throws. */
  async waitFor(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (!(await pollUntil(pred, timeoutMs))) throw new Error(`timed out waiting for ${what}\nbridge stderr:\n${this.stderr.slice(-3000)}`);
  }

  /**
   * Frames the simulator received from the bridge (requires `record: true`),
   * from the current test's mark on (`beginTest`). Tests poll this, so the
   * record file is read and parsed once: each call reads only the lines
   * appended since the last. The frames are shared between calls: read-only.
   */
  simFrames(): SimFrame[] {
    if (!this.recordFile || !existsSync(this.recordFile)) return [];
    if (this.parsed?.start !== this.recordFrom) this.parsed = { start: this.recordFrom, end: this.recordFrom, frames: [] };
    const p = this.parsed;
    // At the mark itself, one byte more: a mark taken while the simulator wrote a line skips to the next.
    const at = p.end === p.start && p.start > 0 ? p.start - 1 : p.end;
    const fd = openSync(this.recordFile, "r");
    let bytes: Buffer;
    try {
      const size = fstatSync(fd).size;
      if (size <= at) return [...p.frames];
      bytes = Buffer.alloc(size - at);
      readSync(fd, bytes, 0, bytes.length, at);
    } finally {
      closeSync(fd);
    }
    let from = 0;
    if (at < p.end) {
      from = bytes[0] === 0x0a ? 1 : bytes.indexOf(0x0a, 1) + 1;
      if (from === 0) return [...p.frames]; // the line under way at the mark has not ended yet
    }
    // Complete lines only: the simulator appends each line whole, and a line not ended yet is read next time.
    const end = bytes.lastIndexOf(0x0a) + 1;
    if (end <= from) {
      p.end = at + from;
      return [...p.frames];
    }
    for (const l of bytes.subarray(from, end).toString("utf8").split("\n")) {
      if (!l) continue;
      const rec = JSON.parse(l) as { line: string };
      try {
        p.frames.push(JSON.parse(rec.line));
      } catch {
        p.frames.push({ raw: rec.line });
      }
    }
    p.end = at + end;
    return [...p.frames];
  }

  /**
   * Methods the simulator received, in order (requires `record: true`); with
   * `sessionId`, only those about that session (on a shared bridge, a late
   * request about an earlier test's session may arrive during this one).
   */
  simMethods(sessionId?: string): string[] {
    return this.simFrames()
      .filter((f) => sessionId === undefined || f.params?.sessionId === sessionId)
      .map((f) => f.method)
      .filter((m): m is string => typeof m === "string");
  }

  get stderr(): string {
    return this.stderrText;
  }

  /**
   * For a bridge shared by several tests (`sharedBridge`): what was received
   * so far is forgotten and `simFrames()` starts here, so the next test reads
   * only its own, as it would from a bridge of its own.
   */
  beginTest(): void {
    const r = this.received;
    for (const list of [r.messages, r.updates, r.permissionRequests, r.elicitations, r.problems]) list.length = 0;
    try {
      this.recordFrom = this.recordFile ? statSync(this.recordFile).size : 0;
    } catch {
      this.recordFrom = 0; // nothing recorded yet
    }
  }

  /** Whether the bridge process has ended. */
  get exited(): boolean {
    return this.proc.exitCode !== null || this.proc.signalCode !== null;
  }

  /** Throws when the bridge sent anything invalid. */
  checkProblems(): void {
    if (this.received.problems.length) throw new Error(`bridge sent invalid ACP messages:\n${this.received.problems.join("\n")}`);
  }

  /**
   * Closes the bridge's stdin (as an editor does), waits for it to exit and
   * fails on schema problems or a non-zero exit. Returns the exit code.
   */
  async close({
    expectExit = 0 as number | "any",
    allowProblems = false,
  }: {
    expectExit?: number | "any";
    allowProblems?: boolean;
  } = {}): Promise<number | null> {
    if (this.closed) return this.proc.exitCode;
    this.closed = true;
    try {
      this.proc.stdin.end();
    } catch {
      /* already closed */
    }
    const timer = setTimeout(() => this.proc.kill("SIGKILL"), 10_000);
    const code = await this.proc.exited;
    clearTimeout(timer);
    await Promise.all([this.stdoutDone, this.stderrDone]);
    this.connection.close();
    if (this.ownStateDir) rmSync(this.stateDir, { recursive: true, force: true });
    if (!allowProblems) this.checkProblems();
    if (expectExit !== "any" && code !== expectExit) {
      throw new Error(`bridge exited ${code} (expected ${expectExit})\nbridge stderr:\n${this.stderr.slice(-3000)}`);
    }
    return code;
  }

  /** Kills the bridge without ceremony (for fault tests). */
  kill(signal: NodeJS.Signals = "SIGKILL"): void {
    this.proc.kill(signal);
  }

  private inspect(line: string): void {
    if (!line.trim()) return;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      this.received.problems.push(`non-JSON line on stdout: ${line.slice(0, 200)}`);
      return;
    }
    this.received.messages.push(msg);
    for (const p of checkAgentMessage(msg, (id) => this.methodOfId.get(id))) {
      this.received.problems.push(`${p}\n  in ${line.slice(0, 500)}`);
    }
  }
}

/** The error a request failed with; the test fails when the request succeeded. */
export async function rejection(p: Promise<unknown>): Promise<acp.RequestError & { code: number }> {
  try {
    await p;
  } catch (e) {
    return e as acp.RequestError & { code: number };
  }
  throw new Error("expected the request to fail");
}

/** Starts a harness, runs `fn`, and always closes it (asserting a clean exit). */
export async function withBridge<T>(opts: HarnessOptions, fn: (h: Harness) => Promise<T>): Promise<T> {
  const h = await Harness.start(opts);
  try {
    const r = await fn(h);
    await h.close();
    return r;
  } catch (e) {
    throw await failed(h, e);
  }
}

/** Ends a bridge a test failed with and returns the test's error, with what the bridge said and sent wrong. */
async function failed(h: Harness, e: unknown): Promise<Error> {
  await h.close({ expectExit: "any", allowProblems: true }).catch(() => {});
  const err = e instanceof Error ? e : new Error(String(e));
  if (h.received.problems.length) err.message += `\nalso, invalid ACP messages:\n${h.received.problems.join("\n")}`;
  // The bridge's own account of what went wrong (ZCODE_TEST_BRIDGE_LOG=1 shows it live).
  if (h.stderr.trim() && !err.message.includes("bridge stderr"))
    err.message += `\nbridge stderr (last 3000 chars):\n${h.stderr.slice(-3000)}`;
  return err;
}

export interface SharedBridge<H = Harness> {
  /** Runs one test's body on the shared bridge (started first if there is none). */
  run<T>(fn: (h: H) => Promise<T>): Promise<T>;
}

/**
 * One bridge for several tests of a describe block, declared at its top:
 * `const bridge = sharedBridge({...}); test("…", () => bridge.run(async (h) => …))`.
 *
 * Why: a bridge's start and end cost ~0.25 s of CPU (the bridge, the
 * simulator's app-server and its --version probe, the guards), a test's own
 * sessions on a running bridge a fraction of that; with a bridge per test that
 * was half the CPU of the e2e run. An editor runs many sessions on one bridge
 * too. For tests that need nothing only a fresh bridge gives: no env or
 * options of their own, no count of every session or process, no kill or
 * exit. Each test starts its own sessions; `received` is emptied before it
 * and `simFrames()` starts there (Harness.beginTest), so it reads its own.
 *
 * The checks `withBridge` makes still hold: after each test, nothing invalid
 * was sent and the bridge still runs; at the end (afterAll), it exits 0 when
 * its stdin closes. A test that fails ends the bridge, so the next one starts
 * a fresh one and a failure is not passed on.
 */
export function sharedBridge(opts: HarnessOptions = {}): SharedBridge {
  return shareBridge(() => Harness.start(opts), failed);
}

/** What `shareBridge` needs of a harness (v1's here, v2's in acp-harness-v2.ts). */
export interface ShareableHarness {
  readonly proc: Subprocess;
  readonly exited: boolean;
  beginTest(): void;
  /** Throws when the bridge sent anything invalid. */
  checkProblems(): void;
  close(): Promise<unknown>;
}

/**
 * sharedBridge's mechanics for either harness: `start` makes a bridge, `fail` ends a bridge a test failed
 * with and returns the test's error.
 */
export function shareBridge<H extends ShareableHarness>(
  start: () => Promise<H>,
  fail: (h: H, e: unknown) => Promise<Error>,
): SharedBridge<H> {
  let current: H | undefined;
  afterAll(async () => {
    const h = current;
    current = undefined;
    await h?.close();
  }, 15_000);
  return {
    async run(fn) {
      const h = current ?? (current = await start());
      h.beginTest();
      try {
        const r = await fn(h);
        h.checkProblems();
        if (h.exited) throw new Error(`the shared bridge ended during the test (exit ${h.proc.exitCode ?? h.proc.signalCode})`);
        return r;
      } catch (e) {
        current = undefined;
        throw await fail(h, e);
      }
    },
  };
}

/** Is a process with this pid still alive? */
/** Whether the process runs (a zombie, dead but not yet reaped, counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, "utf8"));
  } catch {
    // No /proc (not Linux), or it is gone by now.
    return process.platform !== "linux";
  }
}

/**
 * Whether `pid` ends once it was sent SIGKILL: the signal is delivered
 * asynchronously, so its end is waited for (up to `timeoutMs`), not assumed.
 */
export async function endsSoon(pid: number, timeoutMs = 5_000): Promise<boolean> {
  return pollUntil(() => !isAlive(pid), timeoutMs);
}
