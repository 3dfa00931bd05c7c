// The e2e harness for ACP v2 connections: the compiled bridge with the
// simulator as its child, driven by the SDK's own v2 client
// (experimental/v2/unstable) over real pipes. Every line the bridge writes is
// checked against the SDK's v2 JSON schema; `close()` fails the test on any
// violation, on non-protocol output, or on a non-zero exit. Raw lines can be
// sent too (`sendRaw`) for what a well-behaved client would never send.
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type { Subprocess } from "bun";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, SIM_BIN, type SharedBridge, shareBridge } from "./acp-harness.ts";
import { pollUntil } from "./poll.ts";
import { checkAgentMessage } from "./schema.ts";
import { forwardLines } from "./forward-lines.ts";

export interface HarnessV2Options {
  env?: Record<string, string | undefined>;
  /** Bridge command-line arguments. */
  args?: string[];
  /** Client capabilities sent in initialize. */
  capabilities?: acp2.ClientCapabilities;
  /** Answers session/request_permission; default: the first allow option. */
  onPermission?: (req: acp2.RequestPermissionRequest) => acp2.RequestPermissionResponse | Promise<acp2.RequestPermissionResponse>;
  /** Answers elicitation/create; default: decline. */
  onElicitation?: (req: acp2.CreateElicitationRequest) => acp2.CreateElicitationResponse | Promise<acp2.CreateElicitationResponse>;
  /** Share a state dir between bridges (persistence); default: a fresh temp dir. */
  stateDir?: string;
  simVersion?: string;
  /** Skip initialize (to send a raw one). */
  skipInitialize?: boolean;
}

export class HarnessV2 {
  readonly messages: Array<Record<string, unknown>> = [];
  readonly notifications: acp2.UpdateSessionNotification[] = [];
  readonly permissionRequests: acp2.RequestPermissionRequest[] = [];
  readonly elicitations: acp2.CreateElicitationRequest[] = [];
  readonly problems: string[] = [];
  agent!: acp2.ClientContext;
  connection!: acp2.ClientConnection;
  initializeResponse?: acp2.InitializeResponse;
  readonly stateDir: string;
  private stderrText = "";
  private readonly methodOfId = new Map<string | number, string>();
  private readonly stdoutDone: Promise<void>;
  private readonly stderrDone: Promise<void>;
  private closed = false;

  private constructor(
    readonly proc: Subprocess<"pipe", "pipe", "pipe">,
    readonly opts: HarnessV2Options,
    stateDir: string,
    private readonly ownStateDir: boolean,
  ) {
    this.stateDir = stateDir;
    const toClient = new TransformStream<Uint8Array, Uint8Array>();
    this.stdoutDone = forwardLines(this.proc.stdout, toClient.writable, (line) => this.inspect(line));
    this.stderrDone = (async () => {
      const dec = new TextDecoder();
      for await (const c of proc.stderr) this.stderrText += dec.decode(c, { stream: true });
    })();
    const toAgent = new WritableStream<Uint8Array>({
      write: async (chunk) => this.sendBytes(chunk),
      close: async () => {
        try {
          await proc.stdin.end();
        } catch {
          /* already closed */
        }
      },
    });
    const client = acp2
      .client({ name: "zcode-acp-test-client-v2" })
      .onNotification(acp2.methods.client.session.update, ({ params }) => {
        this.notifications.push(params);
      })
      .onRequest(acp2.methods.client.session.requestPermission, async ({ params }) => {
        this.permissionRequests.push(params);
        if (opts.onPermission) return opts.onPermission(params);
        const allow = params.options.find((o) => o.kind === "allow_once") ?? params.options[0];
        return { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } };
      })
      .onRequest(acp2.methods.client.elicitation.create, async ({ params }) => {
        this.elicitations.push(params);
        if (opts.onElicitation) return opts.onElicitation(params);
        return { action: "decline" } as acp2.CreateElicitationResponse;
      });
    this.connection = client.connect(acp2.ndJsonStream(toAgent, toClient.readable));
    this.agent = this.connection.agent;
  }

  static async start(opts: HarnessV2Options = {}): Promise<HarnessV2> {
    if (!existsSync(BRIDGE_BIN) || !existsSync(SIM_BIN)) throw new Error("run `bun run build` first");
    const ownStateDir = !opts.stateDir;
    const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), "zcode-sim-v2-"));
    const env: Record<string, string | undefined> = {
      ...process.env,
      ZCODE_BIN: SIM_BIN,
      HOME: join(stateDir, "home"),
      ZCODE_SIM_STATE_DIR: stateDir,
      ZCODE_SIM_DELAY_MS: "1",
      ZCODE_SIM_RESEND_MS: "200",
      ZCODE_ACP_LOG_LEVEL: process.env.ZCODE_ACP_LOG_LEVEL ?? "warn",
      ZCODE_ACP_LANG: "en",
      ...(opts.simVersion ? { ZCODE_SIM_VERSION: opts.simVersion } : {}),
      ...opts.env,
    };
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k];
    const proc = Bun.spawn([BRIDGE_BIN, ...(opts.args ?? [])], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: env as Record<string, string>,
      cwd: stateDir,
    });
    const h = new HarnessV2(proc, opts, stateDir, ownStateDir);
    if (!opts.skipInitialize) await h.initialize();
    return h;
  }

  async initialize(): Promise<acp2.InitializeResponse> {
    this.initializeResponse = await this.agent.request(acp2.methods.agent.initialize, {
      protocolVersion: acp2.PROTOCOL_VERSION,
      info: { name: "zcode-acp-test-client-v2", version: "0.0.0" },
      capabilities: this.opts.capabilities ?? {},
    });
    return this.initializeResponse;
  }

  newSession(cwd = this.stateDir): Promise<acp2.NewSessionResponse> {
    return this.agent.request(acp2.methods.agent.session.new, { cwd, mcpServers: [] });
  }

  prompt(sessionId: string, text: string | acp2.ContentBlock[]): Promise<acp2.PromptResponse> {
    const prompt = typeof text === "string" ? [{ type: "text" as const, text }] : text;
    return this.agent.request(acp2.methods.agent.session.prompt, { sessionId, prompt });
  }

  cancel(sessionId: string): Promise<void> {
    return this.agent.notify(acp2.methods.agent.session.cancel, { sessionId });
  }

  updates(sessionId: string): acp2.SessionUpdate[] {
    return this.notifications.filter((n) => n.sessionId === sessionId).map((n) => n.update);
  }

  updatesOfKind<K extends string>(sessionId: string, kind: K): Array<acp2.SessionUpdate & Record<string, any>> {
    return this.updates(sessionId).filter((u) => u.sessionUpdate === kind) as Array<acp2.SessionUpdate & Record<string, any>>;
  }

  /** The session's state_update payloads, in order. */
  states(sessionId: string): Array<{ state: string; stopReason?: string; error?: { code: number; message: string } }> {
    return this.updatesOfKind(sessionId, "state_update") as never;
  }

  /** Resolves once the session has reported `idle` `count` times, returning the last. */
  async idle(sessionId: string, count = 1, timeoutMs = 20_000) {
    await this.waitFor(() => this.states(sessionId).filter((s) => s.state === "idle").length >= count, `idle #${count}`, timeoutMs);
    return this.states(sessionId).filter((s) => s.state === "idle")[count - 1]!;
  }

  text(sessionId: string, kind = "agent_message_chunk"): string {
    return this.updatesOfKind(sessionId, kind)
      .map((u) => (u.content?.type === "text" ? u.content.text : ""))
      .join("");
  }

  async waitFor(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    if (!(await pollUntil(pred, timeoutMs)))
      throw new Error(`timed out waiting for ${what}\nbridge stderr:\n${this.stderrText.slice(-3000)}`);
  }

  /** Writes one raw line to the bridge (recording its id's method for the schema check). */
  async sendRaw(message: Record<string, unknown> | unknown[]): Promise<void> {
    await this.sendBytes(new TextEncoder().encode(`${JSON.stringify(message)}\n`));
  }

  /** Writes raw text to the bridge as it is (not JSON, batches). */
  async sendBytesRaw(text: string): Promise<void> {
    await this.sendBytes(new TextEncoder().encode(text));
  }

  /** The raw response to a request id the test sent itself. */
  async responseTo(id: string | number, timeoutMs = 10_000): Promise<Record<string, any>> {
    await this.waitFor(() => this.messages.some((m) => m.id === id && !("method" in m)), `the answer to ${id}`, timeoutMs);
    return this.messages.find((m) => m.id === id && !("method" in m)) as Record<string, any>;
  }

  get stderr(): string {
    return this.stderrText;
  }

  /**
   * For a bridge shared by several tests (`sharedBridgeV2`): what was received
   * so far is forgotten, so the next test reads only its own, as it would from
   * a bridge of its own.
   */
  beginTest(): void {
    for (const list of [this.messages, this.notifications, this.permissionRequests, this.elicitations, this.problems]) list.length = 0;
  }

  /** Whether the bridge process has ended. */
  get exited(): boolean {
    return this.proc.exitCode !== null || this.proc.signalCode !== null;
  }

  /** Throws when the bridge sent anything invalid. */
  checkProblems(): void {
    if (this.problems.length) throw new Error(`bridge sent invalid ACP v2 messages:\n${this.problems.join("\n")}`);
  }

  async close({ expectExit = 0 as number | "any", allowProblems = false } = {}): Promise<number | null> {
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
    if (expectExit !== "any" && code !== expectExit) throw new Error(`bridge exited ${code}\nstderr:\n${this.stderrText.slice(-3000)}`);
    return code;
  }

  private async sendBytes(chunk: Uint8Array): Promise<void> {
    try {
      const parsed = JSON.parse(new TextDecoder().decode(chunk));
      for (const m of Array.isArray(parsed) ? parsed : [parsed])
        if (m && m.id !== undefined && typeof m.method === "string") this.methodOfId.set(m.id, m.method);
    } catch {
      /* not JSON: a raw test line */
    }
    try {
      this.proc.stdin.write(chunk);
      await this.proc.stdin.flush();
    } catch {
      // Bridge gone; the test sees it through the exit code.
    }
  }

  private inspect(line: string): void {
    if (!line.trim()) return;
    let msg: Record<string, unknown>;
    try {
      msg = JSON.parse(line);
    } catch {
      this.problems.push(`non-JSON line on stdout: ${line.slice(0, 200)}`);
      return;
    }
    this.messages.push(msg);
    for (const p of checkAgentMessage(msg, (id) => this.methodOfId.get(id), 2)) this.problems.push(`${p}\n  in ${line.slice(0, 500)}`);
  }
}

/** Starts a v2 harness, runs `fn`, and always closes it (asserting a clean exit and valid messages). */
export async function withBridgeV2<T>(opts: HarnessV2Options, fn: (h: HarnessV2) => Promise<T>): Promise<T> {
  const h = await HarnessV2.start(opts);
  try {
    const r = await fn(h);
    await h.close();
    return r;
  } catch (e) {
    throw await failed(h, e);
  }
}

/** Ends a bridge a test failed with and returns the test's error, with what the bridge sent wrong. */
async function failed(h: HarnessV2, e: unknown): Promise<Error> {
  await h.close({ expectExit: "any", allowProblems: true }).catch(() => {});
  const err = e instanceof Error ? e : new Error(String(e));
  if (h.problems.length) err.message += `\nalso, invalid ACP v2 messages:\n${h.problems.join("\n")}`;
  return err;
}

/**
 * `sharedBridge` (acp-harness.ts) for v2: one bridge for the tests of a
 * describe block whose options are identical, declared at its top. Each test
 * starts its own sessions; what was received is emptied before it
 * (HarnessV2.beginTest). After each test, nothing invalid was sent and the
 * bridge still runs; at the end (afterAll), it exits 0 when its stdin closes.
 * A test that fails ends the bridge, so the next one starts a fresh one.
 */
export function sharedBridgeV2(opts: HarnessV2Options = {}): SharedBridge<HarnessV2> {
  return shareBridge(() => HarnessV2.start(opts), failed);
}
