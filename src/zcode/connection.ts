import type * as v from "valibot";
import type { BridgeConfig } from "../config.ts";
import { log as rootLog } from "../log.ts";
import { CliCapabilities } from "./capabilities.ts";
import { ChildRequests, type RequestHandler } from "./child-requests.ts";
import { how, stopChild, watchChild, type Child as WatchedChild } from "./child.ts";
import { detectVersion, knownVersion, stopVersionProbe } from "./cli-version.ts";
import { LOCAL_ERR, ZCodeError, ZCodeExitedError, ZCodeUnsupportedError, type ExitInfo } from "./errors.ts";
import { EventRouter, type EventListener } from "./event-router.ts";
import type { RawEvent } from "./event-schemas.ts";
import { decodeFrame, encodeNotification, encodeRequest, excerpt, type Frame } from "./frames.ts";
import { launchEnv } from "./launch-env.ts";
import { LogLimiter } from "./log-limit.ts";
import { PendingRequests } from "./pending-requests.ts";
import { spawnZCode, type SpawnedChild } from "./process.ts";
import { resolveZCode, type ZCodeLaunch } from "./resolve.ts";

// The ZCode child and the client side of its wire: lazy start, version check
// (beside the child's boot; nothing is sent before it passes), a clean death
// (when the child exits every pending request fails at once, and the next
// request starts a fresh child, generation + 1), and the frames in both
// directions. The process itself (output, exit, stop) is child.ts's. What the frames mean is handed on: answers to our
// requests to PendingRequests (correlation, timeouts, schemas), session
// events to EventRouter, the child's own requests to ChildRequests (answered
// exactly once).

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

type Child = WatchedChild<ChildInfo>;

/** A child whose version was accepted: the one requests go to. */
type ServingChild = Child & { info: ChildInfo };

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
  private markClosed!: () => void;
  /** Rejects once close() is called: a start waiting for `--version` gives up then. */
  private readonly closedSignal = new Promise<never>((_, reject) => (this.markClosed = () => reject(closedError())));
  private readonly exitListeners = new Set<(info: ChildExit) => void>();
  /** Bad frames from a broken child must not flood our log (one budget for every kind of them). */
  private readonly badFrameLog = new LogLimiter(20, (n) => log.warn(`suppressed ${n} more warnings about bad frames from ZCode`));
  private readonly warnBadFrame = (message: string): void => {
    if (this.badFrameLog.allow()) log.warn(message);
  };
  private readonly pending = new PendingRequests(this.warnBadFrame, (generation, timeoutMs) => this.onTimeout(generation, timeoutMs));
  private readonly events = new EventRouter(this.warnBadFrame);
  private readonly childRequests = new ChildRequests();
  /** Notifications other than session/event (v4 conversation frames), by method. */
  private readonly notificationListeners = new Map<string, Set<(params: unknown) => void>>();

  constructor(config: BridgeConfig, opts: ConnectionOptions = {}) {
    this.config = config;
    this.defaultTimeoutMs = opts.defaultTimeoutMs ?? 30_000;
    this.killGraceMs = opts.killGraceMs ?? 1500;
    this.stderrPerSecond = opts.stderrLinesPerSecond ?? 20;
    this.launch = opts.launch;
    this.closedSignal.catch(() => {});
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
    const current = this.child;
    // Killed as frozen, not yet reaped: what comes next goes to its successor.
    if (current && current.condemned && !current.exited) return current.gone.then(() => this.start());
    if (current && !current.exited) return Promise.resolve(current.info);
    if (!this.starting) {
      this.starting = this.spawnChild().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  private async spawnChild(): Promise<ChildInfo> {
    const launch = this.launch ?? resolveZCode({ bin: this.config.zcodeBin, node: this.config.zcodeNode, env: this.config.env });
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
    let version: string;
    let capabilities: CliCapabilities;
    try {
      // close() does not wait for the probe: it ends it (see close()).
      version = known ?? (await Promise.race([detectVersion(launch, env), this.closedSignal]));
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

  /** A new child, watched; it serves once spawnChild gives it its info. */
  private watch(spawned: SpawnedChild): Child {
    const child: Child = watchChild<ChildInfo>(spawned, {
      onLine: (line) => this.onLine(child, line),
      onAlive: () => child.silence.heard(this.pending.waiting),
      readGate: () => this.readGate?.(),
      maxLineBytes: this.config.maxLineBytes,
      stderrLinesPerSecond: this.stderrPerSecond,
      onExit: (exit) => {
        if (child.info) this.onChildExit({ ...exit, generation: child.info.generation });
        else log.debug(`ZCode exited with ${how(exit)} before its version was known`);
      },
    });
    return child;
  }

  private onChildExit(exit: ChildExit): void {
    const { generation } = exit;
    if (this.closed) log.debug(`ZCode (generation ${generation}) exited with ${how(exit)}`);
    else log.warn(`ZCode (generation ${generation}) exited with ${how(exit)}`);
    this.pending.failGeneration(generation, exit);
    for (const cb of [...this.exitListeners]) {
      try {
        cb(exit);
      } catch (e) {
        log.error(`an exit listener failed: ${(e as Error).message}`);
      }
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
    // It died while its version was asked: its own exit says why.
    if (child?.exit) throw new ZCodeExitedError(child.exit, method);
    if (!child || child.exited) throw new ZCodeError((e) => e.notRunning(method), { code: LOCAL_ERR.exited, method });
    const id = this.pending.newId();
    let line: string;
    try {
      line = encodeRequest(id, method, params);
    } catch (e) {
      throw new ZCodeError(`Could not encode ${method}: ${(e as Error).message}`, { code: LOCAL_ERR.internal, method });
    }
    // Waiting before writing: the answer may arrive before write() returns.
    const answer = this.pending.wait(id, method, child.info.generation, opts.timeoutMs ?? this.defaultTimeoutMs, opts.schema);
    child.silence.sent();
    this.write(child, line);
    return answer;
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

  /** Every event of one session (see EventRouter); returns the unsubscribe. */
  onEvent(sessionId: string, cb: EventListener): () => void {
    return this.events.on(sessionId, cb);
  }

  /** An event the bridge made from a v4-only child's frames (v4/feed.ts), routed as ZCode's own. */
  deliverEvent(e: RawEvent): void {
    this.events.deliver(e);
  }

  /** `cb(sessionId)` once no event listener of that session is left (v4/feed.ts unsubscribes then). */
  onUnwatched(cb: (sessionId: string) => void): () => void {
    return this.events.onUnwatched(cb);
  }

  /** Listens to a notification method other than session/event; returns the stop. */
  onNotification(method: string, cb: (params: unknown) => void): () => void {
    let set = this.notificationListeners.get(method);
    if (!set) this.notificationListeners.set(method, (set = new Set()));
    set.add(cb);
    return () => {
      set.delete(cb);
    };
  }

  /** The answer of the handler registered for a child-request method (v4/feed.ts: a pending interaction). */
  ask(method: string, params: unknown): Promise<unknown> {
    return this.childRequests.ask(method, params);
  }

  /** Handles requests from the child with this method (one handler per method). */
  onRequest(method: string, handler: RequestHandler): void {
    this.childRequests.set(method, handler);
  }

  onExit(cb: (info: ChildExit) => void): () => void {
    this.exitListeners.add(cb);
    return () => this.exitListeners.delete(cb);
  }

  /** Ends the child for good: SIGTERM to its process group, SIGKILL after the grace. */
  async close(): Promise<void> {
    this.closed = true;
    this.markClosed();
    // A start in progress may be waiting for `--version`: that probe goes too.
    if (this.starting && this.launch) stopVersionProbe(this.launch, launchEnv(this.launch, this.config.env));
    if (this.starting) await this.starting.catch(() => {});
    if (this.child) await this.stop(this.child);
  }

  private stop(child: Child): Promise<void> {
    return stopChild(child, this.killGraceMs);
  }

  /**
   * A request to the current child timed out. A child that has owed answers
   * and written nothing for several timeouts' worth is frozen (a stopped
   * process, a deadlock; see frozen-child.ts): it is killed, its sessions are
   * resumed in a fresh one on their next use, instead of every request
   * waiting out its timeout forever after. A slow child is left alone.
   */
  private onTimeout(generation: number, timeoutMs: number): void {
    const child = this.child;
    if (!child || child.exited || child.info.generation !== generation || child.gated || this.closed) return;
    if (!child.silence.frozen(timeoutMs)) return;
    log.warn(
      `the ZCode CLI (pid ${child.info.pid}) stopped answering: it has owed answers and written nothing for ` +
        `${(child.silence.silentMs() / 1000).toFixed(1)} s; restarting it (its sessions are resumed on their next use)`,
    );
    child.silence.heard(false);
    child.condemned = true;
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

  private onLine(child: Child, line: string): void {
    try {
      this.onWire?.("from-zcode", line);
      const decoded = decodeFrame(line, this.pending.isPending);
      if (!decoded.ok) {
        this.warnBadFrame(`skipped a line from ZCode (${decoded.reason}): ${excerpt(line)}`);
        return;
      }
      this.dispatch(child, decoded.frame, line);
    } catch (e) {
      // Nothing the child sends may take the bridge down.
      log.error(`failed to handle a frame from ZCode: ${(e as Error).stack ?? e}`);
    } finally {
      // After the frame is handled: an answer it carried is no longer owed.
      child.silence.heard(this.pending.waiting);
    }
  }

  /** A notification to each of its listeners; one that throws does not stop the others. */
  private tellListeners(method: string, params: unknown): void {
    for (const cb of [...(this.notificationListeners.get(method) ?? [])]) {
      try {
        cb(params);
      } catch (e) {
        log.error(`a ${method} listener failed: ${(e as Error).stack ?? e}`);
      }
    }
  }

  private dispatch(child: Child, frame: Frame, line: string): void {
    switch (frame.kind) {
      case "response":
      case "error":
        // A child still starting was sent nothing: it has nothing to answer.
        if (child.info) this.pending.settle(frame, line, child.info.capabilities);
        return;
      case "request":
        this.childRequests.answer(frame.id, frame.method, frame.params, (answer) => {
          // That child is gone (or replaced); so is its question. One still starting may ask.
          if (child.exited || (child.info !== undefined && child !== this.child)) return;
          this.write(child, answer);
        });
        return;
      case "notification":
        if (frame.method === "session/event") this.events.route(frame.params, line);
        else if (this.notificationListeners.get(frame.method)?.size) this.tellListeners(frame.method, frame.params);
        else log.debug(`ignored notification ${frame.method} from ZCode`);
        return;
    }
  }
}

function closedError(): ZCodeError {
  return new ZCodeError((e) => e.connectionClosed, { code: LOCAL_ERR.exited });
}
