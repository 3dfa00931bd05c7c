import type { ClientCapabilities, SessionNotification } from "@agentclientprotocol/sdk/unstable";
import { AppHistory } from "../app-history/app-history.ts";
import { availableCommands } from "../commands/registry.ts";
import { forkAtLatestCheckpoint } from "../zcode/fork.ts";
import { promptWireLimit, type BridgeConfig } from "../config.ts";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { DEFAULT_TIMEOUTS, ZCodeApi, type ZCodeMcpServer } from "../zcode/api.ts";
import type { CliCapabilities } from "../zcode/capabilities.ts";
import { ZCodeConnection } from "../zcode/connection.ts";
import { ZCodeExitedError } from "../zcode/errors.ts";
import type { Snapshot, ListResult } from "../zcode/result-schemas.ts";
import { invalidParams, sessionNotFound } from "../translate/errors.ts";
import { clientFeatures, type ClientFeatures } from "../translate/client-features.ts";
import { InteractionRouter } from "./interaction-router.ts";
import { describe as describeThreshold } from "./auto-compact.ts";
import { matchModel, mismatchText } from "../translate/options/model-match.ts";
import { browserExecuteAnswer, browserListAnswer, officialMcpAuthAnswer } from "./app-only-requests.ts";
import { providerHeadersAnswer } from "./provider-headers.ts";
import type { SessionDeps } from "./deps.ts";
import { QuotaPush } from "./quota-push.ts";
import { Session } from "./session.ts";
import { replayHistory } from "./reads.ts";
import { DEFAULT_TIMINGS, type Timings } from "./timings.ts";
import { UpdateSink } from "./update-sink.ts";

const logger = log.withTag("bridge");

/** How many of ZCode's sessions are searched for the workspace of one to delete that is not open here. */
const DELETE_LOOKUP_LIMIT = 1000;

/**
 * The api over `conn` (a child the CLI may have started already), or over a
 * new, not yet started one; --request-timeout applies to every method.
 */
function zcodeApi(config: BridgeConfig, conn = new ZCodeConnection(config)): ZCodeApi {
  const ms = config.requestTimeoutMs;
  const timeouts = ms ? { timeouts: Object.fromEntries(Object.keys(DEFAULT_TIMEOUTS).map((k) => [k, ms])) } : {};
  return new ZCodeApi(conn, timeouts);
}

/** What the bridge needs of the editor's connection (provided by the ACP layer). */
export interface EditorPort {
  notify(n: SessionNotification): Promise<void>;
  /** An ACP request to the client; aborting the signal withdraws it. */
  request(method: string, params: unknown, opts: { cancellationSignal: AbortSignal }): Promise<unknown>;
  /** Read on every use (initialize may come after construction). */
  readonly clientCapabilities: ClientCapabilities;
}

/**
 * The bridge for one editor connection: the ZCode child and its api, the
 * sessions (each owning its behaviour), the one queue every session update
 * takes to the editor, and the interactions ZCode asks of the editor.
 */
export class Bridge {
  readonly conn: ZCodeConnection;
  readonly api: ZCodeApi;
  readonly sink: UpdateSink;
  private readonly router: InteractionRouter;
  private readonly sessions = new Map<string, Session>();
  private readonly unrouted = new Map<string, () => void>();
  /** session/close requests per id: a resume or load that began before one must not reopen the session. */
  private readonly closes = new Map<string, number>();
  /** Ids whose close is under way (their own forget follows). */
  private readonly closingNow = new Set<string>();
  private readonly deps: SessionDeps;
  private readonly watchedCaps = new WeakSet<CliCapabilities>();
  /** Sessions started here are added to the ZCode app's history (--no-app-history: not). */
  private readonly appHistory: AppHistory;
  private closing = false;
  /** The client's features, with the capabilities they were read from. */
  private featuresOf: { caps: unknown; features: ClientFeatures } | undefined;

  constructor(
    private readonly config: BridgeConfig,
    private readonly editor: EditorPort,
    /**
     * conn: the connection serve mode started ahead of the first session
     * (src/cli/prewarm.ts), owned by the bridge from now on. For tests:
     * another ZCode behind the api, shorter timings.
     */
    opts: { conn?: ZCodeConnection; api?: ZCodeApi; timings?: Partial<Timings> } = {},
  ) {
    this.api = opts.api ?? zcodeApi(config, opts.conn);
    this.conn = this.api.conn;
    this.sink = new UpdateSink((n) => editor.notify(n));
    // A slow editor slows ZCode down (pipe backpressure) instead of growing our memory.
    this.conn.readGate = () => this.sink.backpressure();
    this.router = this.createRouter();
    this.appHistory = AppHistory.open(config.env, { enabled: config.appHistory });
    this.deps = {
      api: this.api,
      sink: this.sink,
      env: config.env,
      timings: {
        ...DEFAULT_TIMINGS,
        ...(config.stallMs ? { stallMs: config.stallMs } : {}),
        ...(config.busyWaitMs ? { busyWaitMs: config.busyWaitMs } : {}),
        ...opts.timings,
      },
      terminalOutput: () => this.features().terminalOutput,
      features: () => this.features(),
      withdrawInteractions: (id) => this.router.cancelSession(id),
      commands: (cwd) => availableCommands(this.api.capabilities(), { cwd, env: config.env }),
      ...(config.autoCompact ? { autoCompact: config.autoCompact, autoCompactWords: describeThreshold(config.autoCompact) } : {}),
      quota: new QuotaPush(config.env, config.quotaPush),
      closing: () => this.closing,
      maxPromptWireBytes: promptWireLimit(config),
      titleKnown: (id, title) => void this.appHistory.titleKnown(id, title),
      // A new child may be another CLI version: keep the slash menu true to it.
      onResumed: (id) => {
        this.watchCapabilities();
        this.sessions.get(id)?.announceCommands(true);
      },
      routeEvents: (id, cb) => this.conn.onEvent(id, cb),
    };
    this.conn.onRequest("interaction/requestPermission", (p) => this.router.handlePermission(p));
    this.conn.onRequest("interaction/requestUserInput", (p) => this.router.handleUserInput(p));
    this.conn.onRequest("interaction/requestProviderRuntimeHeaders", async (p) => providerHeadersAnswer(p, config.env));
    this.conn.onRequest("interaction/requestOfficialMcpAuthHeaders", async (p) => officialMcpAuthAnswer(p));
    this.conn.onRequest("interaction/browserList", async () => browserListAnswer());
    this.conn.onRequest("interaction/browserExecute", async () => browserExecuteAnswer());
    this.conn.onExit((info) => {
      const err = new ZCodeExitedError(info);
      for (const s of this.sessions.values()) {
        // Only what ran on that child dies with it: a frozen child's exit can
        // be handled after a turn already started in its replacement.
        if (s.activationState.generation !== info.generation) continue;
        s.activationState.childExited(info.generation);
        s.childDied(err);
      }
    });
  }

  /** What the client opted in to: read from its capabilities once per initialize, not per event. */
  private features(): ClientFeatures {
    const caps = this.editor.clientCapabilities;
    if (this.featuresOf?.caps !== caps) this.featuresOf = { caps, features: clientFeatures(caps) };
    return this.featuresOf.features;
  }

  private createRouter(): InteractionRouter {
    const bridge = this;
    return new InteractionRouter(
      {
        request: async (method, params, opts) => {
          // The tool_call this request refers to must reach the editor first.
          const sessionId = (params as { sessionId?: unknown }).sessionId;
          if (typeof sessionId === "string") await bridge.sink.flush(sessionId);
          return bridge.editor.request(method, params, opts);
        },
        sendUpdate: (sessionId, update) => {
          bridge.sink.push(sessionId, update);
          return bridge.sink.flush(sessionId);
        },
        get clientCapabilities() {
          return bridge.editor.clientCapabilities;
        },
        trackerFor: (sessionId) => bridge.sessions.get(sessionId)?.tracker,
        isCancelled: (sessionId) => bridge.sessions.get(sessionId)?.refusesInteractions ?? false,
      },
      { cwdOf: (sessionId) => bridge.sessions.get(sessionId)?.cwd },
    );
  }

  /** A method that answers -32601 leaves the menu: every open session gets the new list. */
  private watchCapabilities(): void {
    const caps = this.api.capabilities();
    if (!caps || this.watchedCaps.has(caps)) return;
    this.watchedCaps.add(caps);
    caps.onChange(() => {
      if (this.api.capabilities() !== caps) return;
      for (const s of this.sessions.values()) s.announceCommands();
    });
  }

  /** An open session, or ACP's session-not-found error. */
  session(id: string): Session {
    const s = this.sessions.get(id);
    if (!s || s.isClosed) throw sessionNotFound(id);
    return s;
  }

  /** The session as ZCode just answered it (create, resume, fork): one object per id, its running turn untouched. */
  private adopt(r: Snapshot, cwd: string, generation: number, mcpServers: ZCodeMcpServer[] | undefined): Session {
    const id = r.session.sessionId;
    let s = this.sessions.get(id);
    if (s && !s.isClosed) {
      s.reopen(cwd);
    } else {
      s = new Session(id, cwd, this.deps);
      const session = s;
      this.sessions.set(id, s);
      this.unrouted.get(id)?.();
      this.unrouted.set(
        id,
        this.conn.onEvent(id, (raw) => session.intake.accept(raw)),
      );
    }
    if (mcpServers) s.useMcpServers(mcpServers);
    s.activationState.activated(generation);
    s.adoptSnapshot(r);
    this.watchCapabilities();
    return s;
  }

  async create(cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<Session> {
    const info = await this.conn.start();
    const created = await this.api.create({
      workspace: cwd,
      ...(this.config.mode ? { mode: this.config.mode } : {}),
      ...(mcpServers ? { mcpServers } : {}),
    });
    const s = this.adopt(created, cwd, info.generation, mcpServers);
    if (this.config.model) await this.switchToConfiguredModel(s, this.config.model);
    // Only after ZCode stored it: a row the app cannot open would sit in its history.
    void this.appHistory.sessionCreated({
      sessionId: s.id,
      cwd,
      title: created.session.title ?? "",
      mode: created.settings?.mode?.current,
      model: s.modelChoice ?? created.settings?.model?.current,
    });
    return s;
  }

  /**
   * --model / ZCODE_ACP_MODEL, read as `/model` reads it, against the models
   * ZCode offers the session it just created (only then is the list known).
   * When it names none, or ZCode refuses it, session/new fails saying so; the
   * ZCode session stays as it is (its session/close would delete it), only
   * this bridge forgets it.
   */
  private async switchToConfiguredModel(s: Session, words: string): Promise<void> {
    const match = matchModel(s.options.model, words);
    try {
      if (match.kind !== "one") {
        const why = mismatchText(s.options.model, words, match);
        throw invalidParams(t().errors.configuredModel(why), { model: words });
      }
      await s.setModel(match.model.info.value, { beforeOpen: true });
    } catch (err) {
      this.forget(s.id);
      throw err;
    }
  }

  /** session/resume in ZCode: the session in this cwd, replaying nothing. */
  async resume(id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<{ session: Session; snapshot: Snapshot }> {
    const closesBefore = this.closes.get(id) ?? 0;
    const info = await this.conn.start();
    const snapshot = await this.api.resume({ sessionId: id, workspace: cwd, mcpServers });
    const session = this.adopt(snapshot, cwd, info.generation, mcpServers);
    // The editor closed it while ZCode resumed it: answered, but closed it stays.
    if ((this.closes.get(id) ?? 0) !== closesBefore && !this.closingNow.has(id)) this.forget(id);
    return { session, snapshot };
  }

  /** session/load: resumed, then its conversation replayed to the editor. */
  async load(id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<Session> {
    const { session, snapshot } = await this.resume(id, cwd, mcpServers);
    await replayHistory(session, snapshot);
    return session;
  }

  /**
   * A fork at the source's latest checkpoint, as a new session. ZCode forks
   * only an active session: one this bridge has not opened (the editor
   * restarted us) is resumed first, in the one cwd ACP gives.
   */
  async fork(id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<Session> {
    const existing = this.sessions.get(id);
    const source = existing && !existing.isClosed ? existing : (await this.resume(id, cwd, mcpServers)).session;
    const fork = await source.withActive(() => forkAtLatestCheckpoint(this.api, id));
    return (await this.resume(fork.sessionId, cwd, mcpServers)).session;
  }

  list(cwd: string | undefined): Promise<ListResult> {
    return this.api.list(cwd ? { workspace: cwd } : {});
  }

  /**
   * ACP session/delete, the one path that deletes a conversation: a running
   * turn is ended first, then ZCode deletes the session (it must be live
   * there: one not open here is resumed in the workspace ZCode lists it
   * under), then the app's history row is marked deleted and we forget it.
   */
  async delete(id: string): Promise<void> {
    const open = this.sessions.get(id);
    let deleted: boolean;
    if (open && !open.isClosed) {
      await open.cancel("close");
      deleted = await open.withActive(() => this.api.deleteSession(id));
    } else {
      const info = await this.conn.start();
      const listed = (await this.api.list({ limit: DELETE_LOOKUP_LIMIT })).sessions.find((x) => x.sessionId === id);
      if (!listed?.workspace) throw sessionNotFound(id);
      await this.api.resume({ sessionId: id, workspace: listed.workspace });
      logger.debug(`resumed ${id} (generation ${info.generation}) to delete it`);
      deleted = await this.api.deleteSession(id);
    }
    if (!deleted) throw new Error(`ZCode did not delete session ${id}`);
    await this.appHistory.sessionDeleted(id);
    if (open) {
      await open.close();
      this.forget(id);
    }
    logger.info(`deleted session ${id} at the editor's request`);
  }

  /** ACP session/close: our side forgets it; the conversation stays in ZCode. */
  async close(id: string): Promise<void> {
    const s = this.session(id);
    this.closes.set(id, (this.closes.get(id) ?? 0) + 1);
    this.closingNow.add(id);
    try {
      await s.close();
    } finally {
      this.closingNow.delete(id);
    }
    this.forget(id);
  }

  private forget(id: string): void {
    this.unrouted.get(id)?.();
    this.unrouted.delete(id);
    const s = this.sessions.get(id);
    s?.forgotten();
    this.sessions.delete(id);
    logger.debug("forgot session", id);
  }

  /** The editor closed its side (stdin EOF): everything running ends, nothing queued starts. */
  editorGone(): void {
    this.closing = true;
    for (const s of this.sessions.values()) void s.cancel("editor-gone");
  }

  /** Ends the connection: interactions withdrawn, the sink dropped, the child stopped. */
  async shutdown(): Promise<void> {
    this.closing = true;
    for (const s of this.sessions.values()) s.discardStaged();
    this.router.cancelAll();
    this.sink.close();
    this.appHistory.close();
    try {
      await this.conn.close();
    } catch (err) {
      logger.debug("closing the ZCode child failed:", err);
    }
  }
}
