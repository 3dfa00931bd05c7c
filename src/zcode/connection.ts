import * as v from "valibot";
import type { BridgeConfig } from "../config.ts";
import { log as rootLog } from "../log.ts";
import { CliCapabilities } from "./capabilities.ts";
import {
  errorFromWire,
  LOCAL_ERR,
  ZCODE_ERR,
  ZCodeError,
  ZCodeExitedError,
  ZCodeTimeoutError,
  ZCodeUnsupportedError,
  type ExitInfo,
} from "./errors.ts";
import {
  decodeFrame,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  excerpt,
  type Frame,
  type FrameId,
} from "./frames.ts";
import { readLines } from "./lines.ts";
import { LogLimiter } from "./log-limit.ts";
import { spawnZCode, type SpawnedChild } from "./process.ts";
import { detectVersion, knownVersion, resolveZCode, stopVersionProbe, type ZCodeLaunch } from "./resolve.ts";
import { readEnvelope, type RawEvent } from "./event-schemas.ts";
import { launchEnv } from "./launch-env.ts";
import { RUNTIME_PREFERENCES } from "./request-schemas.ts";
import { summarizeIssues } from "./schemas.ts";
import { StderrCollector } from "./stderr.ts";

// The ZCode child and the client side of its wire: lazy start, version check,
// request/response correlation with timeouts, event routing by session,
// requests from the child answered exactly once, and a clean death: when the
// child exits every pending request fails at once, and the next request
// starts a fresh child (generation + 1).

const log = rootLog.withTag("zcode");

export interface ChildInfo {
  generation: number;
  version: string;
  pid: number;
  capabilities: CliCapabilities;
}

export interface ChildExit extends ExitInfo {
  generation: number;
}

export interface ConnectionOptions {
  /** Timeout of a request that names none (default 30 s). */
  defaultTimeoutMs?: number;
  /** SIGTERM → SIGKILL grace on close (default 1.5 s). */
  killGraceMs?: number;
  /** Use this launch instead of resolving one from the config. */
  launch?: ZCodeLaunch;
  /** Rate limit of child stderr lines in our log (default 20/s). */
  stderrLinesPerSecond?: number;
}

type RequestHandler = (params: unknown) => Promise<unknown>;
/** Gets every envelope of its session, whatever the type: each takes a seq the session must account for. */
type EventListener = (e: RawEvent) => void;

interface Pending {
  method: string;
  generation: number;
  schema: v.GenericSchema | undefined;
  timer: ReturnType<typeof setTimeout>;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Child {
  /** Set once its version is known and supported: from then on it serves. */
  info?: ChildInfo;
  spawned: SpawnedChild;
  stderr: StderrCollector;
  exited: boolean;
  /** How it ended, once it has. */
  exit?: ExitInfo;
  /** Resolves once the exit has been fully handled (pending failed, listeners told). */
  gone: Promise<void>;
}

/** A child whose version was accepted: the one requests go to. */
type ServingChild = Child & { info: ChildInfo };

const RUNTIME_PREFERENCES_METHOD = "session/requestRuntimePreferences";
/** How long after the child's exit we wait for the rest of its stdout/stderr. */
const DRAIN_MS = 250;

export class ZCodeConnection {
  /** 0 until the first child starts; +1 for every child. */
  generation = 0;
  /** Set by the trace: sees every raw line in both directions. */
  onWire?: (direction: "to-zcode" | "from-zcode", line: string) => void;
  /**
   * Set by the agent: while it returns a promise (the editor is behind), the
   * child's stdout is not read, so the pipe slows ZCode down instead of our
   * memory growing.
   */
  readGate?: () => Promise<void> | undefined;
  /** What was resolved and detected, kept even when start() refused it (for doctor). */
  launch: ZCodeLaunch | undefined;
  detectedVersion: string | undefined;

  private readonly config: BridgeConfig;
  private readonly defaultTimeoutMs: number;
  private readonly killGraceMs: number;
  private readonly stderrPerSecond: number;
  private child: ServingChild | undefined;
  private starting: Promise<ChildInfo> | undefined;
  private closed = false;
  private markClosing!: () => void;
  /** Resolves when close() is called. */
  private readonly closing = new Promise<void>((r) => (this.markClosing = r));
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly eventListeners = new Map<string, Set<EventListener>>();
  private readonly requestHandlers = new Map<string, RequestHandler>();
  private readonly exitListeners = new Set<(info: ChildExit) => void>();
  /** Bad frames from a broken child must not flood our log. */
  private readonly badFrameLog = new LogLimiter(20, (n) => log.warn(`suppressed ${n} more warnings about bad frames from ZCode`));

  constructor(config: BridgeConfig, opts: ConnectionOptions = {}) {
    this.config = config;
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 30_000;
    this.killGraceMs = opts.killGraceMs ?? 1500;
    this.stderrPerSecond = opts.stderrLinesPerSecond ?? 20;
    this.launch = opts.launch;
  }

  /** The running child's capabilities, if a child runs. */
  get capabilities(): CliCapabilities | undefined {
    return this.child && !this.child.exited ? this.child.info.capabilities : undefined;
  }

  get pid(): number | undefined {
    return this.child && !this.child.exited ? this.child.info.pid : undefined;
  }

  /** Starts the child if none runs (idempotent; concurrent callers share one start). */
  start(): Promise<ChildInfo> {
    if (this.closed) return Promise.reject(closedError());
    if (this.child && !this.child.exited) return Promise.resolve(this.child.info);
    if (!this.starting) {
      this.starting = this.spawnChild().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async spawnChild(): Promise<ChildInfo> {
    const launch =
      this.launch ??
      resolveZCode({ bin: this.config.zcodeBin, node: this.config.zcodeNode, env: this.config.env });
    this.launch = launch;
    const env = launchEnv(launch, this.config.env);
    // Known without running the CLI (its package metadata, or this very file
    // asked before): a CLI too old is refused before anything starts.
    const known = knownVersion(launch, env);
    if (known !== undefined) this.capabilitiesFor(known);
    this.throwIfClosed();
    // Otherwise `--version` runs beside the app-server child, so that their
    // two boots overlap instead of adding up; nothing is sent to the child
    // (start() has not resolved) until its version is known and supported.
    // The child goes first: its boot is what the first session waits for.
    const child = this.watch(spawnZCode(launch, env, this.killGraceMs));
    let probe: Promise<string> | undefined;
    if (known === undefined) {
      try {
        probe = detectVersion(launch, env);
      } catch (e) {
        await this.stop(child);
        throw e;
      }
    }
    let version: string;
    let capabilities: CliCapabilities;
    try {
      // close() does not wait for the probe: it ends it (see close()).
      version = known ?? (await Promise.race([probe as Promise<string>, this.rejectWhenClosed()]));
      capabilities = this.capabilitiesFor(version);
      this.throwIfClosed();
    } catch (e) {
      // Unsupported, no version, or closed meanwhile: this child never served.
      await this.stop(child);
      throw e;
    }
    const generation = ++this.generation;
    const info: ChildInfo = { generation, version, pid: child.spawned.proc.pid, capabilities };
    child.info = info;
    this.child = child as ServingChild;
    log.debug(`started ZCode ${version} (pid ${info.pid}, generation ${generation}): ${launch.command.join(" ")}`);
    // Died while its version was asked: the first request reports that exit.
    if (child.exit) log.warn(`ZCode (generation ${generation}) exited at start with ${how(child.exit)}`);
    return info;
  }

  /** The capabilities of a CLI of this version; a version too old is refused. */
  private capabilitiesFor(version: string): CliCapabilities {
    this.detectedVersion = version;
    const capabilities = new CliCapabilities(version);
    if (!capabilities.supported) throw new ZCodeUnsupportedError(version);
    return capabilities;
  }

  private throwIfClosed(): void {
    if (this.closed) throw closedError();
  }

  /** Rejects once close() is called (handled here: only a race listens to it). */
  private rejectWhenClosed(): Promise<never> {
    const p = this.closing.then(() => Promise.reject(closedError()));
    p.catch(() => {});
    return p;
  }

  /** Reads a new child's output and handles its exit; it serves once spawnChild gives it its info. */
  private watch(spawned: SpawnedChild): Child {
    const stderr = new StderrCollector(log, { linesPerSecond: this.stderrPerSecond });
    let markGone!: () => void;
    const child: Child = {
      spawned,
      stderr,
      exited: false,
      gone: new Promise<void>((r) => (markGone = r)),
    };

    const stdoutDone = readLines(spawned.proc.stdout, (line) => this.onLine(child, line), {
      beforeRead: () => this.readGate?.(),
      maxLineBytes: this.config.maxLineBytes,
      onOverlong: (bytes) =>
        log.warn(`skipped a line of ${bytes} bytes from ZCode (longer than the ${this.config.maxLineBytes}-byte limit)`),
    }).catch((e) => log.debug(`ZCode stdout ended with an error: ${(e as Error).message}`));
    const stderrDone = readLines(spawned.proc.stderr, (line) => stderr.line(line), {
      maxLineBytes: 64 * 1024,
      onOverlong: (bytes) => stderr.line(`<${bytes}-byte line skipped>`),
    }).catch(() => {});

    void spawned.proc.exited.then(async (code) => {
      // Let the last frames and stderr lines in before judging the exit.
      await Promise.race([Promise.all([stdoutDone, stderrDone]), Bun.sleep(DRAIN_MS)]);
      child.exited = true;
      spawned.disarm();
      endQuietly(child);
      stderr.flushSuppressed();
      child.exit = {
        code: spawned.proc.signalCode ? null : code,
        signal: spawned.proc.signalCode ? String(spawned.proc.signalCode) : null,
        stderrTail: stderr.lastLines(),
      };
      const info = child.info;
      if (info) this.onChildExit({ ...child.exit, generation: info.generation });
      else log.debug(`ZCode exited with ${how(child.exit)} before its version was known`);
      markGone();
    });
    return child;
  }

  private onChildExit(exit: ChildExit): void {
    const { generation } = exit;
    if (this.closed) log.debug(`ZCode (generation ${generation}) exited with ${how(exit)}`);
    else log.warn(`ZCode (generation ${generation}) exited with ${how(exit)}`);
    this.failPending(generation, exit);
    for (const cb of [...this.exitListeners]) {
      try {
        cb(exit);
      } catch (e) {
        log.error(`an exit listener failed: ${(e as Error).message}`);
      }
    }
  }

  private failPending(generation: number, exit: ExitInfo): void {
    for (const [id, p] of this.pending) {
      if (p.generation !== generation) continue;
      this.pending.delete(id);
      clearTimeout(p.timer);
      p.reject(new ZCodeExitedError(exit, p.method));
    }
  }

  /**
   * Sends a request (starting the child if needed) and resolves with its
   * result, validated by `schema` when given. Rejects with a ZCodeError: the
   * CLI's error (code and message), ZCodeTimeoutError, ZCodeExitedError, or a
   * start failure (ZCodeNotFoundError, ZCodeUnsupportedError).
   */
  async request<T = unknown>(
    method: string,
    params: unknown,
    opts: { timeoutMs?: number; schema?: v.GenericSchema<unknown, T> } = {},
  ): Promise<T> {
    await this.start();
    const child = this.child;
    if (child?.exit) throw new ZCodeExitedError(child.exit, method);
    if (!child || child.exited) throw new ZCodeError(`The ZCode CLI is not running (${method})`, { code: LOCAL_ERR.exited, method });
    const id = ++this.nextId;
    const timeoutMs = opts.timeoutMs ?? this.defaultTimeoutMs;
    let line: string;
    try {
      line = encodeRequest(id, method, params);
    } catch (e) {
      throw new ZCodeError(`Could not encode ${method}: ${(e as Error).message}`, { code: LOCAL_ERR.internal, method });
    }
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (this.pending.delete(id)) reject(new ZCodeTimeoutError(method, timeoutMs));
      }, timeoutMs);
      this.pending.set(id, {
        method,
        generation: child.info.generation,
        schema: opts.schema,
        timer,
        resolve: resolve as (value: unknown) => void,
        reject,
      });
      this.write(child, line);
    });
  }

  /** Fire-and-forget. Dropped (with a debug note) when no child runs: nothing to tell. */
  notify(method: string, params: unknown): void {
    const child = this.child;
    if (!child || child.exited) {
      log.debug(`dropped notification ${method}: ZCode is not running`);
      return;
    }
    let line: string;
    try {
      line = encodeNotification(method, params);
    } catch (e) {
      log.error(`could not encode notification ${method}: ${(e as Error).message}`);
      return;
    }
    this.write(child, line);
  }

  onEvent(sessionId: string, cb: EventListener): () => void {
    let set = this.eventListeners.get(sessionId);
    if (!set) this.eventListeners.set(sessionId, (set = new Set()));
    set.add(cb);
    return () => {
      const s = this.eventListeners.get(sessionId);
      if (!s) return;
      s.delete(cb);
      if (s.size === 0) this.eventListeners.delete(sessionId);
    };
  }

  /** Handles requests from the child with this method (one handler per method). */
  onRequest(method: string, handler: RequestHandler): void {
    this.requestHandlers.set(method, handler);
  }

  onExit(cb: (info: ChildExit) => void): () => void {
    this.exitListeners.add(cb);
    return () => this.exitListeners.delete(cb);
  }

  /** Ends the child for good: SIGTERM to its process group, SIGKILL after the grace. */
  async close(): Promise<void> {
    this.closed = true;
    this.markClosing();
    // A start in progress may be waiting for `--version`: that probe goes too.
    if (this.starting && this.launch) stopVersionProbe(this.launch, launchEnv(this.launch, this.config.env));
    if (this.starting) await this.starting.catch(() => {});
    const child = this.child;
    if (child) await this.stop(child);
  }

  private async stop(child: Child): Promise<void> {
    if (child.exited) return;
    // A well-behaved CLI exits on stdin EOF; the signal is for the rest.
    endQuietly(child);
    child.spawned.signalGroup("SIGTERM");
    const killer = setTimeout(() => child.spawned.signalGroup("SIGKILL"), this.killGraceMs);
    await child.gone;
    clearTimeout(killer);
    // Grandchildren that ignored SIGTERM may still sit in the group.
    child.spawned.signalGroup("SIGKILL");
  }

  // ---------------------------------------------------------------- wire

  private write(child: Child, line: string): void {
    this.onWire?.("to-zcode", line);
    const sink = child.spawned.proc.stdin;
    try {
      sink.write(`${line}\n`);
      const flushed = sink.flush();
      if (flushed instanceof Promise) flushed.catch((e) => this.onWriteError(child, e));
    } catch (e) {
      this.onWriteError(child, e);
    }
  }

  private onWriteError(child: Child, e: unknown): void {
    // EPIPE: the child is dying; its exit fails whatever is pending.
    if (!child.exited) log.debug(`write to ZCode failed: ${(e as Error).message}`);
  }

  private isPending = (id: FrameId): boolean => typeof id === "number" && this.pending.has(id);

  private onLine(child: Child, line: string): void {
    this.onWire?.("from-zcode", line);
    const decoded = decodeFrame(line, this.isPending);
    if (!decoded.ok) {
      if (this.badFrameLog.allow()) log.warn(`skipped a line from ZCode (${decoded.reason}): ${excerpt(line)}`);
      return;
    }
    try {
      this.dispatch(child, decoded.frame, line);
    } catch (e) {
      // Nothing the child sends may take the bridge down.
      log.error(`failed to handle a frame from ZCode: ${(e as Error).stack ?? e}`);
    }
  }

  private dispatch(child: Child, frame: Frame, line: string): void {
    switch (frame.kind) {
      case "response":
      case "error":
        this.settle(child, frame, line);
        return;
      case "request":
        this.answerChildRequest(child, frame.id, frame.method, frame.params);
        return;
      case "notification":
        if (frame.method === "session/event") this.routeEvent(frame.params, line);
        else log.debug(`ignored notification ${frame.method} from ZCode`);
        return;
    }
  }

  private settle(child: Child, frame: Extract<Frame, { kind: "response" | "error" }>, line: string): void {
    const p = typeof frame.id === "number" ? this.pending.get(frame.id) : undefined;
    if (!p) {
      if (this.badFrameLog.allow()) log.warn(`ZCode answered id ${JSON.stringify(frame.id)}, which nobody is waiting for: ${excerpt(line)}`);
      return;
    }
    this.pending.delete(frame.id as number);
    clearTimeout(p.timer);
    if (frame.kind === "error") {
      if (frame.error.code === ZCODE_ERR.methodNotFound) child.info?.capabilities.markUnsupported(p.method);
      p.reject(errorFromWire(p.method, frame.error));
      return;
    }
    if (!p.schema) {
      p.resolve(frame.result);
      return;
    }
    const r = v.safeParse(p.schema, frame.result);
    if (r.success) p.resolve(r.output);
    else {
      const why = summarizeIssues(r.issues);
      log.warn(`ZCode answered ${p.method} with an unexpected shape (${why}): ${excerpt(line)}`);
      p.reject(
        new ZCodeError(`The ZCode CLI answered ${p.method} with an unexpected shape (${why})`, {
          code: LOCAL_ERR.internal,
          method: p.method,
        }),
      );
    }
  }

  private answerChildRequest(child: Child, id: FrameId, method: string, params: unknown): void {
    let answered = false;
    const answer = (line: string) => {
      if (answered) return;
      answered = true;
      // That child is gone (or replaced); so is its question. One still starting may ask.
      if (child.exited || (child.info !== undefined && child !== this.child)) return;
      this.write(child, line);
    };
    if (method === RUNTIME_PREFERENCES_METHOD && !this.requestHandlers.has(method)) {
      answer(encodeResult(id, RUNTIME_PREFERENCES));
      return;
    }
    const handler = this.requestHandlers.get(method);
    if (!handler) {
      log.debug(`answered unknown request ${method} from ZCode with -32601`);
      answer(encodeError(id, ZCODE_ERR.methodNotFound, `Method not found: ${method}`));
      return;
    }
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(handler(params));
    } catch (e) {
      result = Promise.reject(e);
    }
    result.then(
      (value) => answer(encodeResult(id, value ?? {})),
      (e: unknown) => {
        const err = e as { code?: unknown; message?: unknown };
        const code = typeof err?.code === "number" ? err.code : LOCAL_ERR.internal;
        const message = typeof err?.message === "string" ? err.message : String(e);
        if (code === LOCAL_ERR.internal) log.warn(`handler for ${method} failed: ${message}`);
        answer(encodeError(id, code, message));
      },
    );
  }

  private routeEvent(params: unknown, line: string): void {
    const e = readEnvelope(params);
    if (typeof e === "string") {
      if (this.badFrameLog.allow()) log.warn(`skipped a ZCode event without a usable envelope (${e}): ${excerpt(line)}`);
      return;
    }
    const listeners = this.eventListeners.get(e.sessionId);
    if (!listeners || listeners.size === 0) {
      log.debug(`dropped ${e.type} #${e.seq} for session ${e.sessionId}: nobody listens`);
      return;
    }
    for (const cb of [...listeners]) {
      try {
        cb(e);
      } catch (err) {
        log.error(`an event listener for ${e.sessionId} failed: ${(err as Error).stack ?? err}`);
      }
    }
  }
}

function closedError(): ZCodeError {
  return new ZCodeError("The ZCode connection is closed", { code: LOCAL_ERR.exited });
}

function how(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/** Closes the child's stdin; a dead child's pipe may refuse, which is fine. */
function endQuietly(child: Child): void {
  try {
    const r = child.spawned.proc.stdin.end();
    if (r instanceof Promise) r.catch(() => {});
  } catch {
    // already closed
  }
}
