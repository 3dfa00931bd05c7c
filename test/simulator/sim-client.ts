// Raw-wire client for the simulator tests: spawns dist/zcode-sim (built on
// demand when missing or older than its sources) and speaks line JSON to it.
import { mkdtempSync, readdirSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_TEST_TIMEOUT_MS } from "../support/test-timeout.ts";

const ROOT = join(import.meta.dir, "..", "..");
export const SIM_BIN = join(ROOT, "dist", "zcode-sim");

/**
 * How long a wait for the simulator's answer or event may take unless a test
 * says otherwise: a bound for a hang, not a measure of speed. It was 5 s, and
 * on a loaded machine a sim's first answer (its boot included) took longer:
 * tests failed with "got 0 frames". Sized as the per-test default
 * (test/support/test-timeout.ts), which a wait may not outlive anyway.
 */
export const WAIT_MS = DEFAULT_TEST_TIMEOUT_MS;

function newestSource(dir: string): number {
  let newest = 0;
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    newest = Math.max(newest, e.isDirectory() ? newestSource(p) : statSync(p).mtimeMs);
  }
  return newest;
}

let built: Promise<void> | undefined;
/** Builds dist/zcode-sim once per test process if it is missing or stale. */
export function ensureSimBuilt(): Promise<void> {
  built ??= (async () => {
    let binTime = 0;
    try {
      binTime = statSync(SIM_BIN).mtimeMs;
    } catch {}
    if (binTime >= newestSource(join(ROOT, "test", "simulator"))) return;
    const p = Bun.spawn([process.execPath, "run", "build", "--sim-only"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
    const [code, err] = await Promise.all([p.exited, new Response(p.stderr).text()]);
    if (code !== 0) throw new Error(`bun run build --sim-only failed: ${err}`);
  })();
  return built;
}

export function tempDir(prefix = "zcode-sim-test-"): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export type Frame = Record<string, any>;

export interface SimOptions {
  env?: Record<string, string>;
  args?: string[];
  /** Answer session/requestRuntimePreferences automatically (default true). */
  autoPreferences?: boolean;
  /** Answer interaction/requestProviderRuntimeHeaders automatically with this result. */
  autoHeaders?: unknown;
}

export class SimClient {
  readonly proc: ReturnType<typeof Bun.spawn>;
  readonly frames: Frame[] = [];
  readonly rawLines: string[] = [];
  stderr = "";
  private nextId = 1;
  private waiters: { pred: (f: Frame) => boolean; resolve: (f: Frame) => void; from: number }[] = [];
  private exitCode: Promise<number>;

  constructor(
    readonly stateDir: string,
    opts: SimOptions = {},
  ) {
    this.proc = Bun.spawn([SIM_BIN, ...(opts.args ?? ["app-server", "--stdio"])], {
      stdin: "pipe",
      stdout: "pipe",
      stderr: "pipe",
      env: { ...process.env, ZCODE_SIM_STATE_DIR: stateDir, ZCODE_SIM_DELAY_MS: "1", ...opts.env },
    });
    this.exitCode = this.proc.exited;
    void this.pump(opts.autoPreferences !== false, opts.autoHeaders);
    void this.pumpStderr();
  }

  private async pumpStderr(): Promise<void> {
    const dec = new TextDecoder();
    for await (const c of this.proc.stderr as ReadableStream<Uint8Array>) this.stderr += dec.decode(c, { stream: true });
  }

  private async pump(autoPrefs: boolean, autoHeaders: unknown): Promise<void> {
    const dec = new TextDecoder();
    let tail = "";
    for await (const chunk of this.proc.stdout as ReadableStream<Uint8Array>) {
      tail += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = tail.indexOf("\n")) >= 0) {
        const line = tail.slice(0, nl);
        tail = tail.slice(nl + 1);
        this.rawLines.push(line.length > 1000 ? `${line.slice(0, 1000)}…` : line);
        let f: Frame;
        try {
          f = JSON.parse(line);
        } catch {
          continue;
        }
        if (!f || typeof f !== "object" || Array.isArray(f)) continue;
        if (autoPrefs && f.method === "session/requestRuntimePreferences" && f.id !== undefined) {
          this.send({
            id: f.id,
            result: { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false },
          });
        }
        if (autoHeaders !== undefined && f.method === "interaction/requestProviderRuntimeHeaders" && f.id !== undefined)
          this.send({ id: f.id, result: autoHeaders });
        this.frames.push(f);
        const idx = this.frames.length - 1;
        this.waiters = this.waiters.filter((w) => {
          if (idx >= w.from && w.pred(f)) {
            w.resolve(f);
            return false;
          }
          return true;
        });
      }
    }
  }

  send(frame: unknown): void {
    this.sendRaw(JSON.stringify(frame));
  }

  sendRaw(line: string): void {
    const stdin = this.proc.stdin as import("bun").FileSink;
    stdin.write(`${line}\n`);
    stdin.flush();
  }

  /** Resolves with the first frame (from index `from`, default 0) matching `pred`. */
  waitFor(predicate: (f: Frame) => boolean, timeoutMs = WAIT_MS, from = 0): Promise<Frame> {
    // Fuzzed frames have any shape: a predicate that trips over one just does not match.
    const pred = (f: Frame) => {
      try {
        return predicate(f);
      } catch {
        return false;
      }
    };
    for (let i = from; i < this.frames.length; i++) if (pred(this.frames[i]!)) return Promise.resolve(this.frames[i]!);
    return new Promise((resolve, reject) => {
      const w = { pred, resolve, from };
      this.waiters.push(w);
      setTimeout(() => {
        if (this.waiters.includes(w)) {
          this.waiters = this.waiters.filter((x) => x !== w);
          reject(
            new Error(
              `timeout after ${timeoutMs}ms waiting for a frame; got ${this.frames.length} frames; stderr: ${this.stderr.slice(-500)}`,
            ),
          );
        }
      }, timeoutMs);
    });
  }

  /** Sends a request and resolves with its response frame ({id, result} or {id, error}). */
  request(method: string, params?: unknown, timeoutMs = WAIT_MS): Promise<Frame> {
    const id = this.nextId++;
    this.send(params === undefined ? { id, method } : { id, method, params });
    return this.waitFor((f) => f.id === id && f.method === undefined, timeoutMs);
  }

  /** Like request, but throws on an error answer. */
  async call(method: string, params?: unknown): Promise<any> {
    const r = await this.request(method, params);
    if (r.error) throw new Error(`${method} → ${r.error.code} ${r.error.message}`);
    return r.result;
  }

  notify(method: string, params?: unknown): void {
    this.send(params === undefined ? { method } : { method, params });
  }

  events(sessionId?: string): Frame[] {
    return this.frames
      .filter((f) => f.method === "session/event" && f.params && (!sessionId || f.params.sessionId === sessionId))
      .map((f) => f.params);
  }

  waitEvent(sessionId: string, type: string, timeoutMs = WAIT_MS, from = 0): Promise<Frame> {
    return this.waitFor(
      (f) => f.method === "session/event" && f.params.sessionId === sessionId && f.params.type === type,
      timeoutMs,
      from,
    ).then((f) => f.params);
  }

  /** Waits for the end of the current turn (turn.completed or turn.failed). */
  waitTurnEnd(sessionId: string, timeoutMs = WAIT_MS, from = 0): Promise<Frame> {
    return this.waitFor(
      (f) =>
        f.method === "session/event" &&
        f.params.sessionId === sessionId &&
        (f.params.type === "turn.completed" || f.params.type === "turn.failed"),
      timeoutMs,
      from,
    ).then((f) => f.params);
  }

  async create(workspacePath = "/tmp/ws", extra: Record<string, unknown> = {}): Promise<string> {
    const r = await this.call("session/create", { workspace: { workspacePath, workspaceKey: workspacePath }, ...extra });
    return r.session.sessionId;
  }

  /** create + subscribe, the order a bridge must use. */
  async subscribed(workspacePath = "/tmp/ws"): Promise<string> {
    const id = await this.create(workspacePath);
    await this.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", includeSnapshot: false });
    return id;
  }

  /** Resolves with the state.updated of a turn's end (prompt_completed / prompt_failed / …) after frame `from`. */
  waitIdle(sessionId: string, timeoutMs = WAIT_MS, from = 0): Promise<Frame> {
    const ends = new Set([
      "prompt_completed",
      "prompt_failed",
      "session_compacted",
      "session_compact_failed",
      "session_compact_cancelled",
      "goal_continuation_completed",
      "goal_continuation_failed",
    ]);
    return this.waitFor(
      (f) => f.method === "state.updated" && f.params.sessionId === sessionId && ends.has(f.params.reason),
      timeoutMs,
      from,
    ).then((f) => f.params);
  }

  /** state.updated notifications of a session. */
  stateUpdates(sessionId: string): Frame[] {
    return this.frames.filter((f) => f.method === "state.updated" && f.params?.sessionId === sessionId).map((f) => f.params);
  }

  /**
   * Sends a prompt and waits until the session is idle again (the state.updated
   * after its end event); returns the turn's pushed events up to its end event.
   */
  async turn(sessionId: string, content: string, timeoutMs = WAIT_MS, extra: Record<string, unknown> = {}): Promise<Frame[]> {
    const from = this.frames.length;
    const r = await this.request("session/send", { sessionId, content, ...extra });
    if (r.error) throw new Error(`session/send → ${r.error.code} ${r.error.message}`);
    const end = await this.waitTurnEnd(sessionId, timeoutMs, from);
    await this.waitIdle(sessionId, timeoutMs, from);
    const ev = this.frames
      .slice(from)
      .filter((f) => f.method === "session/event" && f.params.sessionId === sessionId)
      .map((f) => f.params);
    return ev.slice(0, ev.indexOf(end) + 1);
  }

  closeStdin(): void {
    (this.proc.stdin as import("bun").FileSink).end();
  }

  exited(): Promise<number> {
    return this.exitCode;
  }

  async close(): Promise<void> {
    try {
      this.closeStdin();
    } catch {}
    const t = setTimeout(() => this.proc.kill("SIGKILL"), 3000);
    await this.exitCode;
    clearTimeout(t);
  }
}
