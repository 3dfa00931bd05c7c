// A raw ACP v1 peer for the conformance tests (test/e2e/acp-conformance.test.ts):
// the compiled bridge with the simulator as its child, driven line by line
// the way acp-tck drives an agent, so that ids, ordering and the bytes on
// stdout are what the test sees, not what an SDK client makes of them.
// Every message the bridge writes is checked against the SDK's v1 schema;
// the agent's own requests are answered (permission: the first allow option,
// forms: decline) and recorded.
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, SIM_BIN } from "../support/acp-harness.ts";
import { pollUntil } from "../support/poll.ts";
import { checkAgentMessage } from "../support/schema.ts";

export type Msg = Record<string, any>;

export class RawPeer {
  readonly messages: Msg[] = [];
  readonly problems: string[] = [];
  /** Methods of the requests the agent sent us, in order. */
  readonly agentRequests: Msg[] = [];
  readonly stdoutBytes: Uint8Array[] = [];
  readonly stateDir: string;
  private readonly methodOfId = new Map<string | number, string>();
  private nextId = 1;
  private stderrText = "";
  private readonly done: Promise<void>;

  private constructor(
    readonly proc: Subprocess<"pipe", "pipe", "pipe">,
    stateDir: string,
    private readonly ownStateDir: boolean,
  ) {
    this.stateDir = stateDir;
    const out = (async () => {
      const dec = new TextDecoder();
      let buf = "";
      for await (const chunk of proc.stdout) {
        this.stdoutBytes.push(chunk);
        buf += dec.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buf.indexOf("\n")) >= 0) {
          this.inspect(buf.slice(0, nl));
          buf = buf.slice(nl + 1);
        }
      }
      if (buf.trim()) this.problems.push(`a last line without its newline: ${buf.slice(0, 200)}`);
    })();
    const err = (async () => {
      const dec = new TextDecoder();
      for await (const c of proc.stderr) this.stderrText += dec.decode(c, { stream: true });
    })();
    this.done = Promise.all([out, err]).then(() => {});
  }

  static start(opts: { args?: string[]; stateDir?: string } = {}): RawPeer {
    const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), "acp-conformance-"));
    const proc = Bun.spawn([BRIDGE_BIN, ...(opts.args ?? [])], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      cwd: stateDir,
      env: {
        ...process.env,
        ZCODE_BIN: SIM_BIN,
        HOME: join(stateDir, "home"),
        ZCODE_SIM_STATE_DIR: stateDir,
        ZCODE_SIM_DELAY_MS: "1",
        ZCODE_SIM_RESEND_MS: "200",
        ZCODE_ACP_LOG_LEVEL: process.env.ZCODE_ACP_LOG_LEVEL ?? "warn",
        ZCODE_ACP_LANG: "en",
      } as Record<string, string>,
    });
    return new RawPeer(proc, stateDir, !opts.stateDir);
  }

  /** Writes messages as lines, in one write (a client may send several at once). */
  send(...msgs: unknown[]): void {
    for (const m of msgs) {
      const o = m as Msg;
      if (o && typeof o === "object" && o.id !== undefined && typeof o.method === "string") this.methodOfId.set(o.id, o.method);
    }
    this.proc.stdin.write(msgs.map((m) => (typeof m === "string" ? m : JSON.stringify(m))).join("\n") + "\n");
    void this.proc.stdin.flush();
  }

  /** A request message with a fresh integer id (or the one given). */
  req(method: string, params: unknown, id: string | number = this.nextId++): Msg {
    return { jsonrpc: "2.0", id, method, params };
  }

  /** Sends one request and resolves with the agent's raw response to it. */
  async call(method: string, params: unknown, id?: string | number, timeoutMs = 20_000): Promise<Msg> {
    const r = this.req(method, params, id);
    this.send(r);
    return this.responseTo(r.id, timeoutMs);
  }

  async initialize(caps: unknown = {}): Promise<Msg> {
    return (await this.call("initialize", { protocolVersion: 1, clientCapabilities: caps, clientInfo: { name: "tck-like", version: "0" } }))
      .result;
  }

  async newSession(): Promise<string> {
    const r = await this.call("session/new", { cwd: this.stateDir, mcpServers: [] });
    if (!r.result) throw new Error(`session/new failed: ${JSON.stringify(r.error)}`);
    return r.result.sessionId;
  }

  async responseTo(id: string | number, timeoutMs = 20_000): Promise<Msg> {
    const found = () => this.messages.find((m) => m.id === id && !("method" in m));
    await this.waitFor(() => found() !== undefined, `the answer to ${JSON.stringify(id)}`, timeoutMs);
    return found()!;
  }

  async waitFor(pred: () => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    if (!(await pollUntil(pred, timeoutMs))) throw new Error(`timed out waiting for ${what}\nstderr:\n${this.stderrText.slice(-2000)}`);
  }

  /** Index in `messages` of the response to `id`. */
  indexOfResponse(id: string | number): number {
    return this.messages.findIndex((m) => m.id === id && !("method" in m));
  }

  /** Indexes in `messages` of the session's updates (optionally of one kind). */
  updatesAt(sessionId: string, kind?: string): number[] {
    return this.messages.flatMap((m, i) =>
      m.method === "session/update" && m.params?.sessionId === sessionId && (!kind || m.params.update?.sessionUpdate === kind) ? [i] : [],
    );
  }

  updates(sessionId: string): Msg[] {
    return this.updatesAt(sessionId).map((i) => this.messages[i]!.params.update);
  }

  /** Closes stdin, waits for the exit; throws on schema problems. Returns the exit code. */
  async close(allowProblems = false): Promise<number> {
    try {
      this.proc.stdin.end();
    } catch {
      /* already closed */
    }
    const killer = setTimeout(() => this.proc.kill("SIGKILL"), 15_000);
    const code = await this.proc.exited;
    clearTimeout(killer);
    await this.done;
    if (this.ownStateDir) rmSync(this.stateDir, { recursive: true, force: true });
    if (!allowProblems && this.problems.length) throw new Error(`invalid ACP from the bridge:\n${this.problems.join("\n")}`);
    return code;
  }

  private inspect(line: string): void {
    if (!line.trim()) return;
    let msg: Msg;
    try {
      msg = JSON.parse(line);
    } catch {
      this.problems.push(`non-JSON line on stdout: ${line.slice(0, 200)}`);
      return;
    }
    this.messages.push(msg);
    for (const p of checkAgentMessage(msg, (id) => this.methodOfId.get(id))) this.problems.push(`${p}\n  in ${line.slice(0, 300)}`);
    if (typeof msg.method === "string" && msg.id !== undefined) {
      this.agentRequests.push(msg);
      this.answer(msg);
    }
  }

  /** The client side of the agent's requests. */
  private answer(msg: Msg): void {
    let reply: Msg;
    if (msg.method === "session/request_permission") {
      const options = (msg.params?.options ?? []) as Array<{ optionId: string; kind: string }>;
      const allow = options.find((o) => o.kind === "allow_once") ?? options[0];
      reply = { result: { outcome: allow ? { outcome: "selected", optionId: allow.optionId } : { outcome: "cancelled" } } };
    } else if (msg.method === "elicitation/create") {
      reply = { result: { action: "decline" } };
    } else {
      reply = { error: { code: -32601, message: `this client does not offer ${msg.method}` } };
    }
    this.proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: msg.id, ...reply })}\n`);
    void this.proc.stdin.flush();
  }
}

/** Runs `fn` with a started peer and always closes it (asserting a clean exit and valid messages). */
export async function withPeer<T>(opts: { args?: string[]; stateDir?: string }, fn: (p: RawPeer) => Promise<T>): Promise<T> {
  const p = RawPeer.start(opts);
  try {
    const r = await fn(p);
    const code = await p.close();
    if (code !== 0) throw new Error(`the bridge exited ${code}`);
    return r;
  } catch (e) {
    await p.close(true).catch(() => {});
    if (p.problems.length) throw new Error(`${(e as Error).message}\nalso, invalid ACP:\n${p.problems.join("\n")}`);
    throw e;
  }
}
