import * as acp from "@agentclientprotocol/sdk/unstable";
import { Bridge, type EditorPort } from "../session/bridge.ts";
import { steerBesideTurn } from "../session/command-run.ts";
import { isExpectedError, toRequestError } from "../translate/errors.ts";
import { zcodeMcpServers } from "../translate/mcp-servers.ts";
import { sessionSetup } from "../translate/options/options.ts";
import type { Session } from "../session/session.ts";
import type { BridgeConfig } from "../config.ts";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { openConfiguredTrace, zcodeWireTap } from "../trace.ts";
import type { ZCodeConnection } from "../zcode/connection.ts";
import { handoffStream, type Handoff } from "./handoff.ts";
import { signOut } from "../session/sign-out.ts";
import { checkAuthMethod, checkCwd, checkSetup } from "./request-checks.ts";
import { initializeResult } from "./initialize.ts";
import { GOAL_METHOD, goalRequest, STEERING_METHOD, steeringRequest, type SteeringOutcome } from "./extensions.ts";
import { listPage } from "./session-list.ts";
import { openAcpStdio } from "./stdio.ts";
import { connectByVersion, type Connected } from "./v2/route.ts";
import type { EditorChannel } from "./v2/editor.ts";

// The ACP surface: each request checked, handed to the bridge, its answer or
// error shaped for the editor. What sessions do lives in src/session.

const logger = log.withTag("acp");

/** What a handler reads of the SDK's request context (the same in v1 and v2). */
type HandlerContext<P> = Pick<acp.AgentRequestContext<P>, "params" | "method" | "signal">;

/** After stdin's EOF: how long requests in flight get to answer before they are answered `cancelled`. */
const EOF_ANSWER_MS = 1500;

/**
 * Runs the ACP agent on stdio until the editor goes away (stdin closed,
 * stdout gone) or a signal arrives; then stops the ZCode child and resolves.
 */
export async function runServer(config: BridgeConfig, handoff?: Handoff, conn?: ZCodeConnection): Promise<void> {
  await new AcpAgent(config, conn).serve(handoff);
}

class AcpAgent {
  private clientCaps: acp.ClientCapabilities = {};
  /** The editor, in the protocol version the connection chose (v1 as is; v2 through src/acp/v2). */
  private client: EditorChannel | undefined;
  /** The ACP version the editor's initialize chose (v2 takes batches). */
  private version: 1 | 2 | undefined;
  /** Ends what v2 turns run under (their prompt was answered when they began). */
  private readonly turns = new AbortController();
  private readonly bridge: Bridge;
  private readonly inFlight = new Set<Promise<unknown>>();
  /** Rejects every request still in flight once the editor has left and the EOF grace is spent. */
  private readonly abandoned: Promise<never>;
  private abandon!: () => void;
  private stopping: Promise<void> | undefined;
  private resolveStop!: () => void;
  private readonly stopped = new Promise<void>((r) => (this.resolveStop = r));

  constructor(
    private readonly config: BridgeConfig,
    // A connection whose child the CLI already started (src/cli/prewarm.ts).
    conn?: ZCodeConnection,
  ) {
    this.abandoned = new Promise<never>((_, reject) => {
      this.abandon = () => reject(acp.RequestError.requestCancelled(undefined, "the editor closed the connection"));
    });
    this.abandoned.catch(() => {});
    const agent = this;
    const editor: EditorPort = {
      notify: async (n) => {
        if (agent.client) await agent.client.notify(n);
      },
      request: async (method, params, opts) => {
        if (!agent.client) throw new Error("the editor is not connected");
        return agent.client.request(method, params, opts);
      },
      get clientCapabilities() {
        return agent.clientCaps;
      },
    };
    this.bridge = new Bridge(config, editor, conn ? { conn } : {});
  }

  async serve(handoff?: Handoff): Promise<void> {
    const app = this.build();
    // --trace: both wires, redacted (src/trace.ts).
    const trace = openConfiguredTrace(this.config.trace);
    if (trace) this.bridge.conn.onWire = zcodeWireTap(trace);
    // Our own stdio and line codec (src/acp/stdio.ts), not the SDK's ndJsonStream.
    const stdio = openAcpStdio({
      onGone: () => void this.shutdown("stdout closed"),
      pendingRequests: () => this.drain(),
      maxMessageBytes: this.config.maxMessageBytes,
      input: handoff?.input,
      trace,
      batches: () => this.version === 2,
    });
    // The CLI may have answered initialize already (src/cli/serve.ts). The
    // editor's initialize picks ACP v1 or v2 for the connection (src/acp/v2/route.ts).
    const connection = connectByVersion(handoff ? handoffStream(stdio.stream, handoff) : stdio.stream, (version, stream) =>
      version === 2 ? this.connectV2(stream) : this.connectV1(app, stream),
    );
    void connection.version.then((v) => (this.version = v));
    const handlers = (["SIGTERM", "SIGINT", "SIGHUP"] as const).map((sig) => {
      const h = () => void this.stopOnSignal(sig, stdio);
      process.on(sig, h);
      return [sig, h] as const;
    });
    handoff?.onSignalsHandled?.();
    try {
      await Promise.race([connection.closed, this.stopped]);
    } finally {
      for (const [sig, h] of handlers) process.off(sig, h);
      await this.shutdown("connection closed");
      this.turns.abort();
      connection.close();
      // What is still queued for a slow editor, before the process exits.
      await stdio.settle();
      await trace?.close();
    }
  }

  private connectV1(app: acp.AgentApp, stream: acp.Stream): Connected {
    const connection = app.connect(stream);
    const client = connection.client;
    this.client = {
      notify: (n) => client.notify(acp.methods.client.session.update, n),
      request: (method, params, opts) => client.request(method as never, params as never, opts),
    };
    return connection;
  }

  /** ACP v2: loaded only for a client that asks for it. */
  private async connectV2(stream: acp.Stream): Promise<Connected> {
    const { V2Agent } = await import("./v2/agent.ts");
    const v2 = new V2Agent({
      bridge: this.bridge,
      handle: (fn) => this.handle(fn),
      initialized: (caps) => (this.clientCaps = caps),
      extension: (method, params, signal) => (method === GOAL_METHOD ? this.goal(params, signal) : this.steer(params, signal)),
      turnSignal: this.turns.signal,
      signOut: () => signOut(this.config),
    });
    const connection = v2.app().connect(stream as never);
    this.client = v2.editor(connection.client);
    return connection;
  }

  /**
   * stdin reached EOF: running turns and commands end, nothing queued
   * starts, and what is in flight gets a short while to answer; whatever is
   * still pending then is answered `cancelled` while stdout may still take it.
   */
  private async drain(): Promise<void> {
    this.bridge.editorGone();
    const all = Promise.allSettled([...this.inFlight]);
    if (await Promise.race([all.then(() => true), Bun.sleep(EOF_ANSWER_MS).then(() => false)])) return;
    this.abandon();
    await all;
  }

  /**
   * A signal: like stdin's EOF, but with no grace for what runs. Every
   * request read so far is answered (`cancelled` unless it is done already)
   * and its answer handed to stdout before the child is stopped.
   */
  private async stopOnSignal(sig: string, stdio: { handed(): Promise<void> }): Promise<void> {
    if (this.stopping) return;
    logger.debug("signal:", sig);
    this.bridge.editorGone();
    this.abandon();
    await Promise.allSettled([...this.inFlight]);
    // In stdout's queue before the connection closes; written out (within the exit grace) after the child is stopped.
    await stdio.handed();
    await this.shutdown(sig);
  }

  private shutdown(why: string): Promise<void> {
    this.stopping ??= (async () => {
      logger.debug("shutting down:", why);
      await this.bridge.shutdown();
      this.resolveStop();
    })();
    return this.stopping;
  }

  /** Every handler runs through here: tracked for drain, errors mapped to readable RequestErrors. */
  private handle<P, R>(fn: (params: P, ctx: HandlerContext<P>) => Promise<R>, onAbandon?: () => R) {
    return async (ctx: HandlerContext<P>): Promise<R> => {
      // A prompt the editor no longer waits for ends as ACP says a cancelled prompt ends.
      const abandoned = onAbandon ? this.abandoned.catch(onAbandon) : this.abandoned;
      const p = Promise.race([fn(ctx.params, ctx), abandoned]).catch((err: unknown) => {
        const sessionId = (ctx.params as { sessionId?: unknown } | undefined)?.sessionId;
        // Our own bugs deserve a stack in the log; ZCode's and the editor's errors are expected.
        if (!isExpectedError(err)) logger.warn(`${ctx.method} failed:`, err);
        else logger.debug(`${ctx.method} failed:`, err);
        throw toRequestError(err, { sessionId: typeof sessionId === "string" ? sessionId : undefined });
      });
      this.inFlight.add(p);
      try {
        return await p;
      } finally {
        this.inFlight.delete(p);
      }
    };
  }

  private build(): acp.AgentApp {
    const m = acp.methods.agent;
    return acp
      .agent({ name: "zcode-acp-server" })
      .onRequest(
        m.initialize,
        this.handle(async (p) => this.initialize(p)),
      )
      .onRequest(
        m.authenticate,
        this.handle(async (p) => {
          checkAuthMethod(p.methodId);
          return {};
        }),
      )
      .onRequest(
        m.logout,
        this.handle(async () => signOut(this.config).then(() => ({}))),
      )
      .onRequest(
        m.session.new,
        this.handle(async (p) => this.newSession(p)),
      )
      .onRequest(
        m.session.load,
        this.handle(async (p) => this.loadSession(p)),
      )
      .onRequest(
        m.session.resume,
        this.handle(async (p) => this.resumeSession(p)),
      )
      .onRequest(
        m.session.list,
        this.handle(async (p) => this.listSessions(p)),
      )
      .onRequest(
        m.session.close,
        this.handle(async (p) => this.closeSession(p)),
      )
      .onRequest(
        m.session.delete,
        this.handle(async (p) => this.deleteSession(p)),
      )
      .onRequest(
        m.session.fork,
        this.handle(async (p) => this.forkSession(p)),
      )
      .onRequest(
        m.session.prompt,
        this.handle(
          async (p, ctx) => this.bridge.session(p.sessionId).prompt(p.prompt, ctx.signal),
          (): acp.PromptResponse => ({ stopReason: "cancelled" }),
        ),
      )
      .onRequest(
        m.session.setMode,
        this.handle(async (p) => this.setMode(p)),
      )
      .onRequest(
        m.session.setConfigOption,
        this.handle(async (p) => this.setConfigOption(p)),
      )
      .onRequest(
        GOAL_METHOD,
        (p: unknown) => p,
        this.handle(async (p: unknown, ctx) => this.goal(p, ctx.signal)),
      )
      .onRequest(
        STEERING_METHOD,
        (p: unknown) => p,
        this.handle(async (p: unknown, ctx) => this.steer(p, ctx.signal)),
      )
      .onNotification(m.session.cancel, ({ params }) => {
        try {
          void this.bridge.session(params.sessionId).cancel("editor");
        } catch {
          logger.debug("session/cancel for an unknown session", params.sessionId);
        }
      });
  }

  private initialize(p: acp.InitializeRequest): acp.InitializeResponse {
    this.clientCaps = p.clientCapabilities ?? {};
    // The same value the CLI sends before the SDK loads (src/cli/serve.ts).
    return initializeResult(this.clientCaps);
  }

  /** The answer that makes a session known, then its slash menu (editors drop updates for sessions they do not know yet). */
  private opened<R extends object>(s: Session, extra: R): R & ReturnType<typeof sessionSetup> {
    setTimeout(() => s.announceCommands(), 0);
    return { ...extra, ...sessionSetup(s.options) };
  }

  private async newSession(p: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    checkSetup(p);
    const s = await this.bridge.create(p.cwd, zcodeMcpServers(p.mcpServers));
    return this.opened(s, { sessionId: s.id });
  }

  private async loadSession(p: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
    checkSetup(p);
    const s = await this.bridge.load(p.sessionId, p.cwd, zcodeMcpServers(p.mcpServers));
    return this.opened(s, {});
  }

  private async resumeSession(p: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse> {
    checkSetup(p);
    const { session } = await this.bridge.resume(p.sessionId, p.cwd, zcodeMcpServers(p.mcpServers));
    return this.opened(session, {});
  }

  private async forkSession(p: acp.ForkSessionRequest): Promise<acp.ForkSessionResponse> {
    checkSetup(p);
    const s = await this.bridge.fork(p.sessionId, p.cwd, zcodeMcpServers(p.mcpServers));
    return this.opened(s, { sessionId: s.id });
  }

  private async listSessions(p: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    const cwd = p.cwd ?? undefined;
    if (cwd) checkCwd(cwd);
    return listPage(await this.bridge.list(cwd), cwd, p.cursor);
  }

  private async closeSession(p: acp.CloseSessionRequest): Promise<acp.CloseSessionResponse> {
    await this.bridge.close(p.sessionId);
    return {};
  }

  /**
   * `_session/goal`. Set and resume answer once ZCode took the goal; the work
   * toward it then runs as the session's turn, outside any prompt
   * (goal-work.ts). Pausing or clearing first ends what runs (stopping the
   * goal's work pauses it in ZCode) and is otherwise the same as typing
   * `/goal …`. The goal's state follows in `_meta.goal`.
   */
  private async goal(params: unknown, signal: AbortSignal): Promise<Record<string, never>> {
    const g = goalRequest(params);
    const s = this.bridge.session(g.sessionId);
    s.goal.drivenByClient();
    if ((g.action === "pause" || g.action === "clear") && s.isBusy()) await s.cancel("editor");
    // A goal belongs to the session, not to a prompt (goal-work.ts): answered once ZCode took it.
    // `set` is ZCode's `replace`, so that an objective such as "clear the cache" is never read as an action.
    if (g.action === "set") await s.startGoal({ action: "replace", objective: g.objective });
    else if (g.action === "resume") await s.startGoal({ action: "resume" });
    else await s.prompt([{ type: "text", text: g.typed }], signal);
    await s.refreshGoal();
    return {};
  }

  /**
   * `_session/steering`: the same as typing `/steer …` while a turn runs.
   * `injected` only when ZCode admitted the steer; when the turn ended
   * meanwhile, `promptRequired`; otherwise (no steering on this CLI, ZCode
   * refused it, no answer in time, a cancel) an error saying so: the
   * command's reply in the conversation says why.
   */
  private async steer(params: unknown, signal: AbortSignal): Promise<SteeringOutcome> {
    const p = steeringRequest(params);
    const s = this.bridge.session(p.sessionId);
    if (!s.turnRunning()) return { outcome: "promptRequired", reason: "noRunningTurn" };
    if (await steerBesideTurn(s, p.text, signal)) return { outcome: "injected" };
    if (!s.turnRunning()) return { outcome: "promptRequired", reason: "noRunningTurn" };
    throw new acp.RequestError(-32603, t().errors.steeringNotInjected);
  }

  /** The only request that deletes a conversation (ZCode's and the app's history row). */
  private async deleteSession(p: acp.DeleteSessionRequest): Promise<acp.DeleteSessionResponse> {
    await this.bridge.delete(p.sessionId);
    return {};
  }

  private async setMode(p: acp.SetSessionModeRequest): Promise<acp.SetSessionModeResponse> {
    const s = this.bridge.session(p.sessionId);
    await s.setMode(p.modeId);
    await s.flush();
    return {};
  }

  private async setConfigOption(p: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
    const s = this.bridge.session(p.sessionId);
    await s.setOption(p.configId, p.value);
    await s.flush();
    return { configOptions: sessionSetup(s.options).configOptions };
  }
}
