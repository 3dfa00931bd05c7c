import * as acp from "@agentclientprotocol/sdk/unstable";
import { isAbsolute } from "node:path";
import { emitUsage, usageUpdate } from "../bridge/events.ts";
import { historyToUpdates, planEntries } from "../bridge/history.ts";
import { stagingDirFor } from "../bridge/attachment-staging.ts";
import { promptToInput } from "../bridge/prompt-content.ts";
import { BridgeCore, DEFAULT_TIMINGS } from "../bridge/core.ts";
import { isNotActive, toRequestError } from "../bridge/errors.ts";
import { zcodeMcpServers } from "../bridge/mcp-servers.ts";
import { providerHeadersAnswer } from "../bridge/provider-headers.ts";
import { CONFIG_IDS, modelChoiceFor, optionsFromSettings, optionUpdates, sessionSetup, validateChoice, withCurrent } from "../bridge/options.ts";
import type { SessionState } from "../bridge/sessions.ts";
import { InteractionRouter } from "../bridge/interactions.ts";
import { Turn } from "../bridge/turn.ts";
import { forkSession } from "../commands/fork.ts";
import { availableCommands, matchCommand, type CommandContext } from "../commands/registry.ts";
import type { BridgeConfig } from "../config.ts";
import { log } from "../log.ts";
import { DEFAULT_TIMEOUTS, ZCodeApi } from "../zcode/api.ts";
import { ZCodeConnection } from "../zcode/connection.ts";
import { ZCodeError, ZCodeExitedError } from "../zcode/errors.ts";
import { openConfiguredTrace, zcodeWireTap } from "../trace.ts";
import { handoffStream, type Handoff } from "./handoff.ts";
import { initializeResult } from "./initialize.ts";
import { openAcpStdio } from "./stdio.ts";
import { UpdateSink } from "./update-sink.ts";

const logger = log.withTag("acp");

const LIST_PAGE = 50;

/**
 * Runs the ACP agent on stdio until the editor goes away (stdin closed,
 * stdout gone) or a signal arrives; then stops the ZCode child and resolves.
 */
export async function runServer(config: BridgeConfig, handoff?: Handoff, conn?: ZCodeConnection): Promise<void> {
  const agent = new AcpAgent(config, conn);
  await agent.serve(handoff);
}

class AcpAgent {
  private clientCaps: acp.ClientCapabilities = {};
  private readonly conn: ZCodeConnection;
  private readonly api: ZCodeApi;
  private readonly sink: UpdateSink;
  private readonly core: BridgeCore;
  private readonly router: InteractionRouter;
  private client: acp.AgentContext | undefined;
  private readonly inFlight = new Set<Promise<unknown>>();
  private stopping: Promise<void> | undefined;
  private resolveStop!: () => void;
  private readonly stopped = new Promise<void>((r) => (this.resolveStop = r));

  constructor(
    private readonly config: BridgeConfig,
    // A connection whose child the CLI already started (src/cli/prewarm.ts).
    conn: ZCodeConnection = new ZCodeConnection(config),
  ) {
    this.conn = conn;
    const t = config.requestTimeoutMs;
    this.api = new ZCodeApi(this.conn, t ? { timeouts: Object.fromEntries(Object.keys(DEFAULT_TIMEOUTS).map((k) => [k, t])) } : {});
    this.sink = new UpdateSink(async (n) => {
      if (this.client) await this.client.notify(acp.methods.client.session.update, n);
    });
    this.core = new BridgeCore(this.api, this.sink, {
      timings: {
        ...DEFAULT_TIMINGS,
        ...(config.stallMs ? { stallMs: config.stallMs } : {}),
        ...(config.busyWaitMs ? { busyWaitMs: config.busyWaitMs } : {}),
      },
      mode: config.mode,
      terminalOutput: () => this.clientCaps._meta?.["terminal_output"] === true,
      cancelInteractions: (sessionId) => this.router.cancelSession(sessionId),
      // A new child may be another CLI version: keep the slash menu true to it.
      onResumed: (s) => {
        this.watchCapabilities();
        this.sendCommands(s, true);
      },
    });
    this.router = this.createRouter();
    this.conn.onRequest("interaction/requestPermission", (p) => this.router.handlePermission(p));
    this.conn.onRequest("interaction/requestUserInput", (p) => this.router.handleUserInput(p));
    this.conn.onRequest("interaction/requestProviderRuntimeHeaders", async (p) => providerHeadersAnswer(p, config.env));
    this.conn.onExit((info) => {
      const err = new ZCodeExitedError(info);
      for (const s of this.core.registry.all()) {
        if (s.turn instanceof Turn && s.turn.running) s.turn.abort(err);
      }
    });
  }

  private createRouter(): InteractionRouter {
    const agent = this;
    const registry = this.core.registry;
    return new InteractionRouter(
      {
        request: async (method, params, opts) => {
          if (!agent.client) throw new Error("the editor is not connected");
          // The tool_call this request refers to must reach the editor first.
          const sessionId = (params as { sessionId?: unknown }).sessionId;
          if (typeof sessionId === "string") await agent.sink.flush(sessionId);
          return agent.client.request(method, params, opts);
        },
        sendUpdate: (sessionId, update) => {
          agent.sink.push(sessionId, update);
          return agent.sink.flush(sessionId);
        },
        get clientCapabilities() {
          return agent.clientCaps;
        },
        trackerFor: (sessionId) => registry.get(sessionId)?.tracker,
        isCancelled: (sessionId) => registry.get(sessionId)?.refusesInteractions ?? false,
      },
      { cwdOf: (sessionId) => registry.get(sessionId)?.cwd },
    );
  }

  async serve(handoff?: Handoff): Promise<void> {
    const app = this.build();
    // --trace: both wires, redacted (src/trace.ts).
    const trace = openConfiguredTrace(this.config.trace);
    if (trace) this.conn.onWire = zcodeWireTap(trace);
    // A slow editor slows ZCode down (pipe backpressure) instead of growing our memory.
    this.conn.readGate = () => this.sink.backpressure();
    // Our own stdio and line codec (src/acp/stdio.ts), not the SDK's ndJsonStream.
    const stdio = openAcpStdio({
      onGone: () => void this.shutdown("stdout closed"),
      pendingRequests: () => this.drain(),
      maxMessageBytes: this.config.maxMessageBytes,
      input: handoff?.input,
      trace,
    });
    // The CLI may have answered initialize already (src/cli/serve.ts).
    const connection = app.connect(handoff ? handoffStream(stdio.stream, handoff) : stdio.stream);
    this.client = connection.client;
    const onSignal = (sig: NodeJS.Signals) => () => void this.shutdown(sig);
    const handlers = (["SIGTERM", "SIGINT", "SIGHUP"] as const).map((sig) => {
      const h = onSignal(sig);
      process.on(sig, h);
      return [sig, h] as const;
    });
    try {
      await Promise.race([connection.closed, this.stopped]);
    } finally {
      for (const [sig, h] of handlers) process.off(sig, h);
      await this.shutdown("connection closed");
      connection.close();
      // What is still queued for a slow editor, before the process exits.
      await stdio.settle();
      await trace?.close();
    }
  }

  /** stdin reached EOF: end running turns and commands, let short requests answer (bounded). */
  private async drain(): Promise<void> {
    for (const s of this.core.registry.all()) {
      if (s.turn instanceof Turn) s.turn.cancel();
      s.cancelCommand?.();
    }
    const all = Promise.allSettled([...this.inFlight]);
    await Promise.race([all, Bun.sleep(1500)]);
  }

  private shutdown(why: string): Promise<void> {
    this.stopping ??= (async () => {
      logger.debug("shutting down:", why);
      this.router.cancelAll();
      this.sink.close();
      try {
        await this.conn.close();
      } catch (err) {
        logger.debug("closing the ZCode child failed:", err);
      }
      this.resolveStop();
    })();
    return this.stopping;
  }

  /** Every handler runs through here: tracked for drain, errors mapped to readable RequestErrors. */
  private handle<P, R>(fn: (params: P, ctx: acp.AgentRequestContext<P>) => Promise<R>) {
    return async (ctx: acp.AgentRequestContext<P>): Promise<R> => {
      const p = (async () => {
        try {
          return await fn(ctx.params, ctx);
        } catch (err) {
          const sessionId = (ctx.params as { sessionId?: unknown } | undefined)?.sessionId;
          const mapped = toRequestError(err, { sessionId: typeof sessionId === "string" ? sessionId : undefined });
          // Our own bugs deserve a stack in the log; ZCode's and the editor's errors are expected.
          if (!(err instanceof acp.RequestError) && !(err instanceof ZCodeError)) logger.warn(`${ctx.method} failed:`, err);
          else logger.debug(`${ctx.method} failed:`, err);
          throw mapped;
        }
      })();
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
      .onRequest(m.initialize, this.handle(async (p) => this.initialize(p)))
      .onRequest(m.authenticate, this.handle(async () => ({})))
      .onRequest(m.session.new, this.handle(async (p) => this.newSession(p)))
      .onRequest(m.session.load, this.handle(async (p) => this.loadSession(p)))
      .onRequest(m.session.resume, this.handle(async (p) => this.resumeSession(p)))
      .onRequest(m.session.list, this.handle(async (p) => this.listSessions(p)))
      .onRequest(m.session.close, this.handle(async (p) => this.closeSession(p)))
      .onRequest(m.session.fork, this.handle(async (p) => this.forkSession(p)))
      .onRequest(m.session.prompt, this.handle(async (p, ctx) => this.prompt(p, ctx.signal)))
      .onRequest(m.session.setMode, this.handle(async (p) => this.setModeRequest(p)))
      .onRequest(m.session.setConfigOption, this.handle(async (p) => this.setConfigOption(p)))
      .onNotification(m.session.cancel, ({ params }) => {
        const s = this.core.registry.get(params.sessionId);
        if (s?.turn instanceof Turn) return s.turn.cancel();
        s?.cancelCommand?.();
        this.core.opts.cancelInteractions?.(params.sessionId);
      });
  }

  // ------------------------------------------------------------------ initialize

  private initialize(p: acp.InitializeRequest): acp.InitializeResponse {
    this.clientCaps = p.clientCapabilities ?? {};
    // The same value the CLI sends before the SDK loads (src/cli/serve.ts).
    return initializeResult();
  }

  // ------------------------------------------------------------------ sessions

  private requireSession(sessionId: string): SessionState {
    const s = this.core.registry.get(sessionId);
    if (!s || s.closed) throw acp.RequestError.sessionNotFound(sessionId);
    return s;
  }

  private static checkCwd(cwd: string): void {
    if (!isAbsolute(cwd)) throw acp.RequestError.invalidParams({ cwd }, `cwd must be an absolute path, got "${cwd}"`);
  }

  private workspace(cwd: string) {
    return { workspacePath: cwd, workspaceKey: cwd };
  }

  /** available_commands_update goes out after the response (editors drop updates for unknown sessions). */
  private announceCommands(sessionId: string): void {
    this.watchCapabilities();
    setTimeout(() => {
      const s = this.core.registry.get(sessionId);
      if (s) this.sendCommands(s);
    }, 0);
  }

  private sendCommands(s: SessionState, onlyIfChanged = false): void {
    const list = availableCommands(this.api.capabilities());
    const key = list.map((c) => c.name).join(" ");
    if (onlyIfChanged && key === s.commandsKey) return;
    s.commandsKey = key;
    this.core.emit(s, { sessionUpdate: "available_commands_update", availableCommands: list });
  }

  private readonly watchedCaps = new WeakSet<object>();

  /** A method that answers -32601 leaves the menu: every open session gets the new list. */
  private watchCapabilities(): void {
    const caps = this.api.capabilities();
    if (!caps || this.watchedCaps.has(caps)) return;
    this.watchedCaps.add(caps);
    caps.onChange(() => {
      if (this.api.capabilities() !== caps) return;
      for (const s of this.core.registry.all()) this.sendCommands(s);
    });
  }

  private async newSession(p: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    AcpAgent.checkCwd(p.cwd);
    const info = await this.conn.start();
    const mcpServers = zcodeMcpServers(p.mcpServers);
    const created = await this.api.create({
      workspace: this.workspace(p.cwd),
      ...(this.config.mode ? { mode: this.config.mode } : {}),
      ...(mcpServers ? { mcpServers } : {}),
    });
    const id = created.session.sessionId;
    const s = this.core.register(id, p.cwd, created.settings, info.generation, { title: created.session.title, mcpServers });
    await this.readSettings(s);
    this.announceCommands(id);
    return { sessionId: id, ...sessionSetup(s.options) };
  }

  /** session/read for settings (authoritative for the current mode); failures keep what we have. */
  private async readSettings(s: SessionState) {
    try {
      const r = await this.core.withActive(s, () => this.api.read(s.id));
      if (r.settings) s.options = optionsFromSettings(r.settings, s.options);
      if (r.session?.title) s.title = r.session.title;
      return r;
    } catch (err) {
      logger.debug("session/read failed:", err);
      return undefined;
    }
  }

  private async activate(sessionId: string, cwd: string, acpMcpServers?: acp.McpServer[]): Promise<SessionState> {
    AcpAgent.checkCwd(cwd);
    const info = await this.conn.start();
    const mcpServers = zcodeMcpServers(acpMcpServers);
    const r = await this.api.resume({ sessionId, workspace: this.workspace(cwd), mcpServers });
    return this.core.register(sessionId, cwd, r.settings, info.generation, { title: r.session.title, mcpServers });
  }

  private async loadSession(p: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
    const s = await this.activate(p.sessionId, p.cwd, p.mcpServers);
    const [history, read] = await Promise.all([
      this.core.withActive(s, () => this.api.messages(s.id)),
      this.readSettings(s),
    ]);
    const todos = read?.todos ?? undefined;
    const updates = historyToUpdates(history.messages, { cwd: s.cwd, ...(todos ? { todos } : {}) });
    if (todos?.length) s.lastPlanKey = JSON.stringify(planEntries(todos));
    const usage = usageUpdate(read?.projection?.contextUsed ?? 0, read?.projection?.contextWindow ?? s.options.model?.contextWindow);
    if (usage) {
      updates.push(usage);
      s.lastUsageKey = `${usage.used}/${usage.size}`;
    }
    if (s.title) updates.push({ sessionUpdate: "session_info_update", title: s.title });
    for (const u of updates) this.core.emit(s, u);
    // The whole conversation is on the wire before the answer.
    await this.sink.flush(s.id);
    this.announceCommands(s.id);
    return sessionSetup(s.options);
  }

  private async resumeSession(p: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse> {
    const s = await this.activate(p.sessionId, p.cwd, p.mcpServers);
    await this.readSettings(s);
    this.announceCommands(s.id);
    return sessionSetup(s.options);
  }

  private async listSessions(p: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    const cwd = p.cwd ?? undefined;
    if (cwd) AcpAgent.checkCwd(cwd);
    const r = await this.api.list(cwd ? { workspace: this.workspace(cwd) } : {});
    const items = r.sessions
      .filter((x) => {
        const where = x.workspace?.workspacePath;
        return cwd ? where === cwd : !!where;
      })
      .sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0))
      .map(
        (x): acp.SessionInfo => ({
          sessionId: x.sessionId,
          cwd: x.workspace?.workspacePath ?? cwd ?? "",
          ...(x.title ? { title: x.title } : {}),
          ...rfc3339(x.updatedAt),
        }),
      );
    const start = p.cursor ? decodeCursor(p.cursor) : 0;
    const page = items.slice(start, start + LIST_PAGE);
    const next = start + LIST_PAGE < items.length ? encodeCursor(start + LIST_PAGE) : undefined;
    return { sessions: page, ...(next ? { nextCursor: next } : {}) };
  }

  private async closeSession(p: acp.CloseSessionRequest): Promise<acp.CloseSessionResponse> {
    const s = this.requireSession(p.sessionId);
    if (s.turn instanceof Turn) {
      // Let the turn see ZCode's own `cancelled` (bounded by the cancel grace)
      // before its events stop being routed.
      const turn = s.turn;
      turn.cancel();
      await turn.settled;
    }
    s.cancelCommand?.();
    this.core.opts.cancelInteractions?.(s.id);
    await this.sink.flush(s.id);
    // Only our side forgets it. ZCode's own session/close would delete the
    // user's conversation; the session stays listed and loadable.
    this.core.forget(s.id);
    return {};
  }

  private async forkSession(p: acp.ForkSessionRequest): Promise<acp.ForkSessionResponse> {
    AcpAgent.checkCwd(p.cwd);
    // ZCode forks only an active session: one this bridge has not opened
    // (the editor restarted us) is resumed first, in the one cwd ACP gives.
    const src = this.core.registry.get(p.sessionId) ?? (await this.activate(p.sessionId, p.cwd));
    const fork = await this.core.withActive(src, () => forkSession(this.api, p.sessionId));
    const s = await this.activate(fork.sessionId, p.cwd);
    await this.readSettings(s);
    this.announceCommands(s.id);
    return { sessionId: s.id, ...sessionSetup(s.options) };
  }

  // ------------------------------------------------------------------ prompt

  private async prompt(p: acp.PromptRequest, signal: AbortSignal): Promise<acp.PromptResponse> {
    const s = this.requireSession(p.sessionId);
    const input = promptToInput(p.prompt, { cwd: s.cwd, stagingDir: () => stagingDirFor(this.config.env) });
    const match = matchCommand(input.typed, this.api.capabilities());
    if (match?.command.runsBesideTurn) {
      await this.runCommand(s, match.command, match.args);
      return { stopReason: "end_turn" };
    }
    return s.exclusive(async () => {
      if (signal.aborted) return { stopReason: "cancelled" as const };
      // Closed while this prompt waited for the one before it.
      if (s.closed) throw acp.RequestError.sessionNotFound(s.id);
      if (match) return this.commandPrompt(s, match.command, match.args, signal);
      const turn = new Turn(this.core, s, input);
      const onAbort = () => turn.cancel();
      signal.addEventListener("abort", onAbort, { once: true });
      try {
        return await turn.run();
      } finally {
        signal.removeEventListener("abort", onAbort);
      }
    });
  }

  /**
   * A slash command as a prompt: `end_turn` once it is done, `cancelled` at
   * once on session/cancel, `$/cancel_request` or session/close. ZCode
   * finishes its request unseen: nothing of the command reaches the editor
   * after the answer, and a tool call it left open is failed first.
   */
  private async commandPrompt(
    s: SessionState,
    command: { run(ctx: CommandContext): Promise<void> },
    args: string,
    signal: AbortSignal,
  ): Promise<acp.PromptResponse> {
    const abort = new AbortController();
    const cancel = () => abort.abort();
    s.cancelCommand = cancel;
    signal.addEventListener("abort", cancel, { once: true });
    const cancelled = new Promise<void>((r) => abort.signal.addEventListener("abort", () => r(), { once: true }));
    const openTools = new Set<string>();
    const state = { signal: abort.signal, openTools, zcodeWorking: false };
    try {
      const run = this.runCommand(s, command, args, state);
      if (await Promise.race([run.then(() => true), cancelled.then(() => false)])) return { stopReason: "end_turn" };
      run.catch((err) => logger.debug("cancelled command failed:", err));
      if (state.zcodeWorking) {
        // ZCode is working for the command (a goal, a compaction): the cancel stops
        // it, and what it still streams is not shown after the answer.
        s.dropStale = true;
        s.needsIdleWait = true;
        this.api.stop(s.id).catch((err) => logger.debug("session/stop failed:", err));
      }
      for (const toolCallId of openTools) {
        this.core.emit(s, {
          sessionUpdate: "tool_call_update",
          toolCallId,
          status: "failed",
          content: [{ type: "content", content: { type: "text", text: "Cancelled" } }],
        });
      }
      await this.sink.flush(s.id);
      return { stopReason: "cancelled" };
    } finally {
      signal.removeEventListener("abort", cancel);
      if (s.cancelCommand === cancel) s.cancelCommand = undefined;
    }
  }

  private async runCommand(
    s: SessionState,
    command: { run(ctx: CommandContext): Promise<void> },
    args: string,
    run?: { signal: AbortSignal; openTools: Set<string>; zcodeWorking: boolean },
  ) {
    await this.core.ensureActive(s);
    // Cancelled while the session was being resumed: ZCode never hears of it.
    if (run?.signal.aborted) return;
    const messageId = crypto.randomUUID();
    // Once the prompt answered `cancelled`, the command goes on unseen.
    const emit = (u: acp.SessionUpdate) => {
      if (!run) return this.core.emit(s, u);
      if (run.signal.aborted) return;
      if (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") {
        if (u.status === "completed" || u.status === "failed") run.openTools.delete(u.toolCallId);
        else if (u.sessionUpdate === "tool_call") run.openTools.add(u.toolCallId);
      }
      this.core.emit(s, u);
    };
    const ctx: CommandContext = {
      sessionId: s.id,
      cwd: s.cwd,
      args,
      api: this.api,
      say: async (text) => emit({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } }),
      update: async (u) => emit(u),
      turnRunning: () => s.turn instanceof Turn && s.turn.running,
      waitIdle: async (budgetMs) => {
        if (run) run.zcodeWorking = true;
        try {
          return await this.core.waitIdle(s, budgetMs, () => run?.signal.aborted === true);
        } finally {
          if (run) run.zcodeWorking = false;
        }
      },
      options: () => s.options,
      setMode: (mode) => this.setMode(s, mode),
      setThoughtLevel: (level) => this.setThoughtLevel(s, level),
      cliVersion: () => this.api.capabilities()?.version ?? "unknown",
    };
    try {
      await command.run(ctx);
    } catch (err) {
      // Evicted since the last call: resume and run it once more, silently.
      if (!isNotActive(err)) throw err;
      s.markInactive();
      await this.core.ensureActive(s);
      if (run?.signal.aborted) return;
      await command.run(ctx);
    }
    await this.sink.flush(s.id);
  }

  // ------------------------------------------------------------------ modes and options

  private async setMode(s: SessionState, mode: string): Promise<void> {
    const r = await this.core.withActive(s, () => this.api.setMode({ sessionId: s.id, mode }));
    this.applyChoice(s, "mode", r.settings?.mode?.current ?? mode);
  }

  private async setThoughtLevel(s: SessionState, level: string): Promise<void> {
    const r = await this.core.withActive(s, () => this.api.setThoughtLevel({ sessionId: s.id, thoughtLevel: level }));
    this.applyChoice(s, "thought", r.settings?.thoughtLevel?.current ?? level);
  }

  /** ZCode took a new value: remember it and tell the editor what changed. */
  private applyChoice(s: SessionState, key: "mode" | "thought", current: string): void {
    const before = s.options;
    s.options = withCurrent(before, key, current);
    for (const u of optionUpdates(before, s.options)) this.core.emit(s, u);
  }

  /** session/setModel with the level the model needs; ZCode's settings afterwards are the truth. */
  private async setModel(s: SessionState, value: string): Promise<void> {
    const { choice, info } = modelChoiceFor(s.options, value);
    const r = await this.core.withActive(s, () => this.api.setModel({ sessionId: s.id, model: choice }));
    s.modelChoice = choice;
    if (r.settings) this.core.applySettings(s, r.settings);
    const used = s.lastUsageKey ? Number(s.lastUsageKey.split("/")[0]) : 0;
    emitUsage(this.core.ctx(s), used, info.contextWindow);
  }

  private async setModeRequest(p: acp.SetSessionModeRequest): Promise<acp.SetSessionModeResponse> {
    const s = this.requireSession(p.sessionId);
    validateChoice(s.options, "mode", p.modeId);
    await this.setMode(s, p.modeId);
    await this.sink.flush(s.id);
    return {};
  }

  private async setConfigOption(p: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
    const s = this.requireSession(p.sessionId);
    if (typeof p.value !== "string") {
      throw acp.RequestError.invalidParams(undefined, `option "${p.configId}" takes one of its listed values`);
    }
    switch (p.configId) {
      case CONFIG_IDS.mode:
        validateChoice(s.options, "mode", p.value);
        await this.setMode(s, p.value);
        break;
      case CONFIG_IDS.thought:
        validateChoice(s.options, "thought", p.value);
        await this.setThoughtLevel(s, p.value);
        break;
      case CONFIG_IDS.model:
        if (p.value !== s.options.model?.current) await this.setModel(s, p.value);
        break;
      default:
        throw acp.RequestError.invalidParams(undefined, `unknown config option "${p.configId}"`);
    }
    await this.sink.flush(s.id);
    return { configOptions: sessionSetup(s.options).configOptions };
  }
}

/** `{updatedAt}` as RFC 3339 when ZCode's epoch milliseconds make a date (one odd record must not fail the list). */
function rfc3339(ms: number | undefined): { updatedAt?: string } {
  if (ms === undefined) return {};
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? {} : { updatedAt: d.toISOString() };
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString("base64url");
}

function decodeCursor(cursor: string): number {
  try {
    const o = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")).o;
    if (Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw acp.RequestError.invalidParams({ cursor }, "invalid cursor");
}
