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
import { openStored, replayHistory } from "./reads.ts";
import { deleteInZCode, notDeleted } from "./deletion.ts";
import { Lifecycle, succeeded } from "./lifecycle.ts";
import { Tombstones } from "./tombstones.ts";
import { DEFAULT_TIMINGS, type Timings } from "./timings.ts";
import { UpdateSink } from "./update-sink.ts";
import { AnnouncedChildren } from "./announced-children.ts";
import { subagentReadOnly } from "../translate/subagents.ts";

const logger = log.withTag("bridge");

/**
 * The api over `conn` (a child the CLI may have started already), or over a
 * new, not yet started one; --request-timeout applies to every method.
 */
function zcodeApi(config: BridgeConfig, conn = new ZCodeConnection(config)): ZCodeApi {
  const ms = config.requestTimeoutMs;
  const timeouts = ms ? { timeouts: Object.fromEntries(Object.keys(DEFAULT_TIMEOUTS).map((k) => [k, ms])) } : {};
  return new ZCodeApi(conn, { ...timeouts, protocol: config.zcodeProtocol });
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
  /** Subagent sessions announced to the editor: read-only for it (no prompt, load, resume, fork, set, close, delete). */
  private readonly children = new AnnouncedChildren();
  private readonly unrouted = new Map<string, () => void>();
  /** Opens racing closes and deletes; what the editor deleted (ZCode keeps it: see tombstones.ts). */
  private readonly lifecycle: Lifecycle;
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
    this.lifecycle = new Lifecycle(Tombstones.open(config.env));
    this.deps = {
      api: this.api,
      sink: this.sink,
      env: config.env,
      timings: {
        ...DEFAULT_TIMINGS,
        ...(config.stallMs ? { stallMs: config.stallMs } : {}),
        ...(config.busyWaitMs ? { busyWaitMs: config.busyWaitMs } : {}),
        ...(config.autoCompactQuietMs ? { autoCompactQuietMs: config.autoCompactQuietMs } : {}),
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
      childAnnounced: (childId, parentId) => this.children.announced(childId, parentId),
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

  /** An open session, or ACP's session-not-found error (also while it is being deleted: ZCode must hear no more of it). */
  session(id: string): Session {
    const s = this.sessions.get(id);
    if (!s || s.isClosed || s.deleting) {
      this.children.refuseMutation(id);
      throw sessionNotFound(id);
    }
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
   * ZCode session stays as it is (its session/close would end its runtime), only
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

  /**
   * session/resume in ZCode: the session in this cwd, replaying nothing. A
   * deleted id is refused; a close or delete while ZCode resumes it wins
   * (nothing adopted, session-not-found).
   */
  async resume(id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<{ session: Session; snapshot: Snapshot }> {
    this.children.refuseMutation(id);
    const { info, snapshot } = await this.lifecycle.open(id, async () => {
      if ((await this.appHistory.deletedAmong([id])).size) throw sessionNotFound(id);
      const info = await this.conn.start();
      return { info, snapshot: await openStored(this.api, id, cwd, mcpServers) };
    });
    if (snapshot.session.sessionKind === "subagent_child") {
      // A child this connection never announced (its parent ran elsewhere): ZCode keeps it read-only too.
      const parent = (snapshot.session as { parentSessionId?: unknown }).parentSessionId;
      throw subagentReadOnly(id, typeof parent === "string" ? parent : undefined);
    }
    return { session: this.adopt(snapshot, cwd, info.generation, mcpServers), snapshot };
  }

  /** session/load: resumed, then its conversation replayed to the editor, unless it was closed or deleted meanwhile. */
  async load(id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<Session> {
    const { session, snapshot } = await this.resume(id, cwd, mcpServers);
    await replayHistory(session, snapshot);
    if (session.winding || this.sessions.get(id) !== session) throw sessionNotFound(id);
    return session;
  }

  /**
   * A fork at the source's latest checkpoint, as a new session. ZCode forks
   * only an active session: one this bridge has not opened (the editor
   * restarted us) is resumed first, in the one cwd ACP gives.
   */
  async fork(id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<Session> {
    if (this.lifecycle.isDeleted(id)) throw sessionNotFound(id);
    const existing = this.sessions.get(id);
    const source = existing && !existing.isClosed ? existing : (await this.resume(id, cwd, mcpServers)).session;
    const fork = await source.withActive(() => forkAtLatestCheckpoint(this.api, id));
    return (await this.resume(fork.sessionId, cwd, mcpServers)).session;
  }

  /** ZCode's list without what the editor deleted: ZCode keeps deleted conversations (see tombstones.ts). */
  async list(cwd: string | undefined): Promise<ListResult> {
    const r = await this.api.list(cwd ? { workspace: cwd } : {});
    const listed = this.lifecycle.listed();
    const inApp = await this.appHistory.deletedAmong(r.sessions.map((x) => x.sessionId));
    return { ...r, sessions: r.sessions.filter((x) => listed(x.sessionId) && !inApp.has(x.sessionId)) };
  }

  /**
   * ACP session/delete, the one path that deletes a conversation. ZCode has
   * no delete (its deleteSession closes the live session; the conversation
   * stays in its store and list), so the id is remembered (tombstones.ts),
   * hidden from list and refused by load and resume, and the app's history
   * row is marked deleted. From the moment it arrives nothing queued or new
   * reaches ZCode; a second delete of the same id shares the first.
   */
  delete(id: string): Promise<void> {
    try {
      this.children.refuseMutation(id);
    } catch (err) {
      return Promise.reject(err);
    }
    const under = this.lifecycle.deleting(id);
    if (under) return under;
    if (this.lifecycle.tombstones.has(id)) return Promise.reject(sessionNotFound(id));
    const open = this.sessions.get(id);
    const live = open && !open.isClosed ? open : undefined;
    // Before any await: the session's queued prompts and ZCode's resumes are refused from here on.
    if (live) live.deleting = true;
    return this.lifecycle.delete(id, async () => {
      try {
        // The turn ends and the prompts queued behind it answer cancelled before ZCode hears of the delete.
        await live?.drain();
        // A load or resume under way: its resume is the one this delete uses.
        await this.lifecycle.openingsEnded(id);
        if (!(await deleteInZCode(this.api, id, live?.cwd))) throw notDeleted(id);
      } catch (err) {
        if (live) live.deleting = false;
        throw err;
      }
      await this.appHistory.sessionDeleted(id);
      if (live) {
        await live.close();
        this.forget(id);
      }
      logger.info(`deleted session ${id} at the editor's request`);
    });
  }

  /** ACP session/close: our side forgets it; the conversation stays in ZCode. A load or resume under way loses. */
  async close(id: string): Promise<void> {
    const overruled = this.lifecycle.overrule(id);
    // A delete under way ends the session anyway: done when it did, else closed as it is.
    const deleting = this.lifecycle.deleting(id);
    if (deleting && (await succeeded(deleting))) return;
    const open = this.sessions.get(id);
    if ((!open || open.isClosed) && overruled) return;
    const s = this.session(id);
    await s.close();
    if (this.sessions.get(id) === s) this.forget(id);
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
