// A bare-bones ACP (JSON-RPC 2.0 over stdio) client for benchmarks and fault
// tests: it spawns the compiled bridge, writes frames as raw lines (so tests
// can also write garbage), reads stdout with a plain line splitter, and can
// stop reading on purpose to play a slow editor. The SDK client validates and
// schedules every message, which would make the client the bottleneck of a
// throughput run and hides what is actually on the wire.
import type { Subprocess } from "bun";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { LineSplitter } from "../../src/lines.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const BRIDGE_BIN = join(ROOT, "dist/zcode-acp-server");
export const SIM_BIN = join(ROOT, "dist/zcode-sim");

export type JsonRpcMessage = {
  jsonrpc?: string;
  id?: number | string | null;
  method?: string;
  params?: any;
  result?: any;
  error?: { code: number; message: string; data?: unknown };
};

export interface RawClientOptions {
  /** Command line; default the compiled bridge. */
  cmd?: string[];
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Answers requests from the agent (permission, elicitation); default -32601. */
  onRequest?: (msg: JsonRpcMessage) => unknown | Promise<unknown>;
  /** Called for every parsed incoming message, with its arrival time (performance.now()). */
  onMessage?: (msg: JsonRpcMessage, line: string) => void;
  /** Keep every parsed message in `messages` (default true; off for floods). */
  keep?: boolean;
}

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

export class RawAcpClient {
  readonly messages: JsonRpcMessage[] = [];
  /** Lines on stdout that were not JSON. */
  readonly junk: string[] = [];
  lineCount = 0;
  byteCount = 0;
  stderr = "";
  private nextId = 1;
  private readonly pending = new Map<number | string, { resolve: (v: any) => void; reject: (e: Error) => void; method: string }>();
  private readonly waiters = new Set<() => void>();
  private gate: Promise<void> | undefined;
  private openGate: (() => void) | undefined;
  readonly stdoutDone: Promise<void>;
  readonly stderrDone: Promise<void>;

  private constructor(
    readonly proc: Subprocess<"pipe", "pipe", "pipe">,
    private readonly opts: RawClientOptions,
  ) {
    this.stdoutDone = this.pump();
    this.stderrDone = (async () => {
      const dec = new TextDecoder();
      for await (const c of proc.stderr) {
        this.stderr += dec.decode(c, { stream: true });
        // Keep the tail only: floods can log a lot at debug level.
        if (this.stderr.length > 1 << 20) this.stderr = this.stderr.slice(-(1 << 19));
      }
    })();
  }

  static spawn(opts: RawClientOptions = {}): RawAcpClient {
    const cmd = opts.cmd ?? [BRIDGE_BIN];
    if (!opts.cmd && (!existsSync(BRIDGE_BIN) || !existsSync(SIM_BIN))) {
      throw new Error("dist/zcode-acp-server or dist/zcode-sim missing: run `bun run build` first");
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries({ ...process.env, ZCODE_BIN: SIM_BIN, ...opts.env })) {
      if (v !== undefined) env[k] = v;
    }
    const proc = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env, cwd: opts.cwd });
    return new RawAcpClient(proc, opts);
  }

  get pid(): number {
    return this.proc.pid;
  }

  /** Writes one raw line (a newline is appended). Never throws: a dead bridge shows in `exited`. */
  writeLine(line: string): void {
    this.writeRaw(`${line}\n`);
  }

  writeRaw(data: string | Uint8Array): void {
    try {
      this.proc.stdin.write(data);
      void Promise.resolve(this.proc.stdin.flush()).catch(() => {});
    } catch {
      // Bridge gone.
    }
  }

  send(msg: JsonRpcMessage): void {
    this.writeLine(JSON.stringify({ jsonrpc: "2.0", ...msg }));
  }

  request<T = any>(method: string, params?: unknown, timeoutMs = 30_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        reject(new Error(`no answer to ${method} (id ${id}) within ${timeoutMs} ms\nbridge stderr:\n${this.stderr.slice(-2000)}`));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        resolve: (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        reject: (e) => {
          clearTimeout(timer);
          reject(e);
        },
      });
      this.send({ id, method, params });
    });
  }

  notify(method: string, params?: unknown): void {
    this.send({ method, params });
  }

  async initialize(clientCapabilities: Record<string, unknown> = {}): Promise<any> {
    return this.request("initialize", { protocolVersion: 1, clientCapabilities, clientInfo: { name: "raw-client", version: "0" } });
  }

  async newSession(cwd: string, mcpServers: unknown[] = []): Promise<string> {
    const r = await this.request<{ sessionId: string }>("session/new", { cwd, mcpServers });
    return r.sessionId;
  }

  prompt(sessionId: string, text: string, timeoutMs = 60_000): Promise<{ stopReason: string }> {
    return this.request("session/prompt", { sessionId, prompt: [{ type: "text", text }] }, timeoutMs);
  }

  /** session/update params of one session (requires keep). */
  updates(sessionId?: string): any[] {
    return this.messages
      .filter((m) => m.method === "session/update" && (!sessionId || m.params?.sessionId === sessionId))
      .map((m) => m.params.update);
  }

  /** Concatenated agent_message_chunk text of a session (requires keep). */
  text(sessionId: string): string {
    return this.updates(sessionId)
      .filter((u) => u.sessionUpdate === "agent_message_chunk" && u.content?.type === "text")
      .map((u) => u.content.text)
      .join("");
  }

  /** Stops reading stdout (the bridge's writes back up into the pipe). */
  pauseReading(): void {
    if (this.gate) return;
    this.gate = new Promise((r) => (this.openGate = r));
  }

  resumeReading(): void {
    const open = this.openGate;
    this.gate = undefined;
    this.openGate = undefined;
    open?.();
  }

  /** Waits until `pred` holds, re-checked on every incoming message (and every 20 ms). */
  async waitFor(pred: () => boolean, what: string, timeoutMs = 10_000): Promise<void> {
    const end = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}\nbridge stderr:\n${this.stderr.slice(-3000)}`);
      await new Promise<void>((r) => {
        const t = setTimeout(done, 20);
        function done() {
          clearTimeout(t);
          r();
        }
        this.waiters.add(done);
      });
    }
  }

  closeStdin(): void {
    try {
      this.proc.stdin.end();
    } catch {
      // Already closed.
    }
  }

  /** Closes stdin and waits for the exit (SIGKILL after `graceMs`). */
  async close(graceMs = 10_000): Promise<number | null> {
    this.closeStdin();
    const t = setTimeout(() => this.proc.kill("SIGKILL"), graceMs);
    const code = await this.proc.exited;
    clearTimeout(t);
    await Promise.race([Promise.all([this.stdoutDone, this.stderrDone]), Bun.sleep(2000)]);
    return code;
  }

  /** Fails every pending request (used when the bridge died). */
  private failPending(why: string): void {
    for (const [id, p] of this.pending) {
      this.pending.delete(id);
      p.reject(new Error(`${p.method}: ${why}`));
    }
  }

  private async pump(): Promise<void> {
    const reader = this.proc.stdout.getReader();
    // The bridge's own splitter: a long line spread over many chunks is
    // copied once, not re-scanned per chunk (a naive carry string is
    // quadratic and would make the client the bottleneck).
    const splitter = new LineSplitter((line) => this.onLine(line), { maxLineBytes: 1 << 30 });
    try {
      for (;;) {
        if (this.gate) await this.gate;
        const r = await reader.read();
        if (r.done) break;
        this.byteCount += r.value.length;
        splitter.push(r.value);
        for (const w of this.waiters) w();
        this.waiters.clear();
      }
      splitter.end();
    } catch {
      // Stream errored: the bridge is gone.
    }
    this.failPending("bridge closed its stdout");
    for (const w of this.waiters) w();
  }

  private onLine(line: string): void {
    if (!line) return;
    this.lineCount++;
    let msg: JsonRpcMessage;
    try {
      msg = JSON.parse(line);
    } catch {
      this.junk.push(line.slice(0, 500));
      return;
    }
    if (this.opts.keep !== false) this.messages.push(msg);
    this.opts.onMessage?.(msg, line);
    if (msg.method !== undefined && msg.id !== undefined && msg.id !== null) {
      void this.answer(msg);
    } else if (msg.method === undefined && msg.id !== undefined && msg.id !== null) {
      const p = this.pending.get(msg.id);
      if (!p) return;
      this.pending.delete(msg.id);
      if (msg.error) p.reject(new RpcError(msg.error.code, msg.error.message, msg.error.data));
      else p.resolve(msg.result);
    }
  }

  private async answer(msg: JsonRpcMessage): Promise<void> {
    if (!this.opts.onRequest) {
      this.send({ id: msg.id, error: { code: -32601, message: `raw client does not handle ${msg.method}` } });
      return;
    }
    try {
      const result = await this.opts.onRequest(msg);
      this.send({ id: msg.id, result });
    } catch (e) {
      this.send({ id: msg.id, error: { code: -32603, message: (e as Error).message } });
    }
  }
}

/** Resident set size of a process in MB (Linux /proc), undefined when gone. */
export function rssMB(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Pids of the direct children of `pid` (Linux /proc; any thread may have forked them). */
export function childPids(pid: number): number[] {
  const out: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, "utf8");
      // Field 4 is the ppid; the command name (field 2) may hold spaces, so split after its ")".
      const rest = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(rest[1]) === pid) out.push(Number(e));
    } catch {
      // Exited while we looked.
    }
  }
  return out;
}
