import * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type { Bridge } from "../../session/bridge.ts";
import type { Session } from "../../session/session.ts";
import { t } from "../../i18n/index.ts";
import { log } from "../../log.ts";
import { invalidParams } from "../../translate/errors.ts";
import { zcodeMcpServers } from "../../translate/mcp-servers.ts";
import { configOptions as optionsOf, sessionSetup } from "../../translate/options/options.ts";
import { GOAL_METHOD, STEERING_METHOD } from "../extensions.ts";
import { checkAuthMethod, checkCwd, checkSetup } from "../request-checks.ts";
import { listPage } from "../session-list.ts";
import { type EditorChannel, v2Editor } from "./editor.ts";
import { Foreground } from "./foreground.ts";
import { initializeResultV2, v1CapabilitiesOf } from "./initialize.ts";
import { configOptions } from "./shapes.ts";
import { V2Updates } from "./updates.ts";

// The ACP v2 agent: the SDK's v2 agent side (experimental/v2/unstable) with
// each request answered by the same bridge calls as v1 (src/acp/server.ts).
// Where v2 differs from v1:
// - session/resume with `replayFrom: { type: "start" }` is v1's session/load;
//   without it, v1's session/resume. Every resume ends with a state_update.
// - session/prompt answers once the prompt is inserted (its messageId); the
//   turn's end is an `idle` state_update (foreground.ts).
// - session/close ends a running turn first: its updates and `idle
//   cancelled` go out before the answer, nothing after it.
// - auth/login is v1's authenticate; auth/logout is v1's logout (`zcode
//   logout`).
// - no session/load, session/set_mode (the mode is a config option), fs/*
//   or terminal/* (a v2 client offers neither; the bridge never calls them).

const logger = log.withTag("acp");

type Ctx<P> = { params: P; method: string; signal: AbortSignal };

/** What the v2 agent needs of the server around it (src/acp/server.ts). */
export interface V2Host {
  readonly bridge: Bridge;
  /** Tracks the request for drain and maps its errors, as every v1 handler is. */
  handle<P, R>(fn: (params: P, ctx: Ctx<P>) => Promise<R>): (ctx: Ctx<P>) => Promise<R>;
  /** initialize: the client's capabilities, as the v1 ones the session layer reads. */
  initialized(caps: v1.ClientCapabilities): void;
  /** `_session/goal` and `_session/steering`, answered as on v1. */
  extension(method: string, params: unknown, signal: AbortSignal): Promise<unknown>;
  /** Aborted when the connection ends: what v2 turns run under (their prompt was answered long before). */
  readonly turnSignal: AbortSignal;
  /** auth/logout: v1's logout (`zcode logout`, src/session/sign-out.ts). */
  signOut(): Promise<void>;
}

type McpServers = readonly acp2.McpServer[] | null | undefined;

/**
 * v2 MCP servers as the v1 shapes the session layer reads (v2 names stdio's
 * transport). A transport not advertised (v1's SSE, say) or a repeated name
 * is the client's mistake: -32602, by the SDK's own check.
 */
function mcpOf(servers: McpServers) {
  acp2.assertSupportedMcpServers(servers, initializeResultV2().capabilities?.session?.mcp);
  const v1Shaped = (servers ?? []).map((s) => {
    if (s.type !== "stdio") return s;
    const { type: _type, ...rest } = s as acp2.McpServer & { type: "stdio" };
    return rest;
  });
  return zcodeMcpServers(v1Shaped as unknown as v1.McpServer[]);
}

export class V2Agent {
  private readonly fg: Foreground;
  /** What the session layer's updates become on this connection (src/acp/v2/editor.ts sends them). */
  readonly updates = new V2Updates();

  constructor(private readonly host: V2Host) {
    this.fg = new Foreground((id, u) => this.send(id, u));
  }

  /** How the session layer's updates and requests reach this v2 client. */
  editor(client: acp2.AgentContext): EditorChannel {
    return v2Editor(client, this.updates, (sessionId, ask) => this.fg.waitingFor(sessionId, ask));
  }

  /** Through the session layer's one queue, so the update keeps its place among the turn's own. */
  private async send(sessionId: string, update: acp2.SessionUpdate): Promise<void> {
    const sink = this.host.bridge.sink;
    sink.push(sessionId, update as unknown as v1.SessionUpdate);
    await sink.flush(sessionId);
  }

  /** The answer that makes a session known, then its slash menu (as v1's opened). */
  private opened<R extends object>(s: Session, extra: R): R & { configOptions: acp2.SessionConfigOption[] } {
    setTimeout(() => s.announceCommands(), 0);
    return { ...extra, configOptions: configOptions(optionsOf(s.options)) };
  }

  app(): acp2.AgentApp {
    const m = acp2.methods.agent;
    const h = this.host;
    const bridge = h.bridge;
    return acp2
      .agent({ name: "zcode-acp-server" })
      .onRequest(
        m.initialize,
        h.handle(async (p: acp2.InitializeRequest) => {
          h.initialized(v1CapabilitiesOf(p.capabilities ?? undefined));
          return initializeResultV2();
        }),
      )
      .onRequest(
        m.auth.login,
        h.handle(async (p: acp2.LoginAuthRequest) => {
          checkAuthMethod(p.methodId);
          return {};
        }),
      )
      .onRequest(
        m.auth.logout,
        h.handle(async (): Promise<acp2.LogoutAuthResponse> => {
          await h.signOut();
          return {};
        }),
      )
      .onRequest(
        m.session.new,
        h.handle(async (p: acp2.NewSessionRequest) => {
          checkSetup(p);
          const s = await bridge.create(p.cwd, mcpOf(p.mcpServers));
          return this.opened(s, { sessionId: s.id });
        }),
      )
      .onRequest(
        m.session.resume,
        h.handle(async (p: acp2.ResumeSessionRequest) => this.resume(p)),
      )
      .onRequest(
        m.session.fork,
        h.handle(async (p: acp2.ForkSessionRequest) => {
          checkSetup(p);
          const s = await bridge.fork(p.sessionId, p.cwd, mcpOf(p.mcpServers));
          return this.opened(s, { sessionId: s.id });
        }),
      )
      .onRequest(
        m.session.list,
        h.handle(async (p: acp2.ListSessionsRequest) => {
          const cwd = p.cwd ?? undefined;
          if (cwd) checkCwd(cwd);
          return listPage(await bridge.list(cwd), cwd, p.cursor) as acp2.ListSessionsResponse;
        }),
      )
      .onRequest(
        m.session.close,
        h.handle(async (p: acp2.CloseSessionRequest) => this.close(p.sessionId)),
      )
      .onRequest(
        m.session.delete,
        h.handle(async (p: acp2.DeleteSessionRequest) => {
          await bridge.delete(p.sessionId);
          return {};
        }),
      )
      .onRequest(
        m.session.prompt,
        h.handle(async (p: acp2.PromptRequest) => this.prompt(p)),
      )
      .onRequest(
        m.session.setConfigOption,
        h.handle(async (p: acp2.SetSessionConfigOptionRequest) => {
          const s = bridge.session(p.sessionId);
          await s.setOption(p.configId, p.value as string | boolean);
          await s.flush();
          return { configOptions: configOptions(sessionSetup(s.options).configOptions) };
        }),
      )
      .onRequest(
        GOAL_METHOD,
        (p: unknown) => p,
        h.handle(async (p: unknown, ctx) => this.goal(p, ctx.signal)),
      )
      .onRequest(
        STEERING_METHOD,
        (p: unknown) => p,
        h.handle(async (p: unknown, ctx) => h.extension(STEERING_METHOD, p, ctx.signal) as Promise<Record<string, unknown>>),
      )
      .onNotification(m.session.cancel, ({ params }) => {
        try {
          void bridge.session(params.sessionId).cancel("editor");
        } catch {
          // a session this connection does not have: nothing runs there
        }
      });
  }

  /** `_session/goal` runs `/goal …` as a local command: foreground work, so `running` … `idle` around it. */
  private async goal(params: unknown, signal: AbortSignal): Promise<Record<string, unknown>> {
    const sessionId = (params as { sessionId?: unknown } | null)?.sessionId;
    const run = () => this.host.extension(GOAL_METHOD, params, signal) as Promise<Record<string, unknown>>;
    // A session this connection does not have: the extension answers its error.
    if (typeof sessionId !== "string" || !this.open(sessionId)) return run();
    await this.fg.begin(sessionId);
    try {
      const r = await run();
      await this.fg.finish(sessionId, { stopReason: "end_turn" });
      return r;
    } catch (error) {
      await this.fg.finish(sessionId, { error });
      throw error;
    }
  }

  private open(sessionId: string): boolean {
    try {
      this.host.bridge.session(sessionId);
      return true;
    } catch {
      return false;
    }
  }

  /** Inserted now (echoed as a user_message, answered with its id); the turn's end is an idle state_update. */
  private async prompt(p: acp2.PromptRequest): Promise<acp2.PromptResponse> {
    const s = this.host.bridge.session(p.sessionId);
    const messageId = crypto.randomUUID();
    await this.fg.begin(p.sessionId);
    const turn = s.prompt(p.prompt as v1.ContentBlock[], this.host.turnSignal);
    void turn
      .then(
        (r) => this.fg.finish(p.sessionId, { stopReason: r.stopReason, usage: r.usage }),
        (error: unknown) => this.fg.finish(p.sessionId, { error }),
      )
      // The idle could not be sent: the editor is gone, nobody is left to tell.
      .catch((e: unknown) => logger.debug("the end of a v2 turn was not sent:", e));
    await this.send(p.sessionId, { sessionUpdate: "user_message", messageId, content: p.prompt } as acp2.SessionUpdate);
    return { messageId };
  }

  private async resume(p: acp2.ResumeSessionRequest): Promise<acp2.ResumeSessionResponse> {
    checkSetup(p);
    const replay = p.replayFrom;
    if (replay && replay.type !== "start") throw invalidParams(t().errors.v2ReplayCursor(String(replay.type)), { replayFrom: replay });
    const bridge = this.host.bridge;
    const mcp = mcpOf(p.mcpServers);
    // A replay announces each message again (its whole-message update before its chunks).
    this.updates.forget(p.sessionId);
    // Replay from the start is what v1's session/load does: the history as updates, then the answer.
    const s = replay ? await bridge.load(p.sessionId, p.cwd, mcp) : (await bridge.resume(p.sessionId, p.cwd, mcp)).session;
    await this.send(s.id, this.fg.snapshot(s.id));
    return this.opened(s, {});
  }

  /** A running turn ends first (its last updates and `idle cancelled` before the answer); then the session closes. */
  private async close(sessionId: string): Promise<acp2.CloseSessionResponse> {
    const bridge = this.host.bridge;
    if (this.fg.running(sessionId)) {
      try {
        await bridge.session(sessionId).cancel("editor");
      } catch {
        // closed meanwhile: the close below answers for it
      }
      await this.fg.ended(sessionId);
    }
    await bridge.close(sessionId);
    this.updates.forget(sessionId);
    return {};
  }
}
