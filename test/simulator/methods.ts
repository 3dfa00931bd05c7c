// Every method of ZCODE-PROTOCOL.md with the results and errors of
// ZCODE-SHAPES.md, over real per-session state.
import { parsePrompt, prepareTurn, runTurn } from "./runner.ts";
import type { Sim } from "./sim.ts";
import { newId } from "./store.ts";
import type { Checkpoint, Goal, SessionRecord, Workspace } from "./types.ts";
import { CONTEXT_WINDOW, MODELS, MODES, THOUGHT_LEVELS } from "./types.ts";
import { log } from "./wire.ts";

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const invalid = (msg: string) => new RpcError(-32602, `Invalid params: ${msg}`);

type Params = Record<string, unknown>;
export interface CallCtx {
  /** false for a notification (no answer expected). */
  isRequest: boolean;
}
export type Handler = (sim: Sim, p: Params, ctx: CallCtx) => unknown | Promise<unknown>;

function str(p: Params, key: string): string {
  const v = p[key];
  if (typeof v !== "string" || v === "") throw invalid(`${key} must be a non-empty string`);
  return v;
}

function workspaceOf(p: Params, required: boolean): Workspace | undefined {
  const w = p.workspace;
  if (w === undefined && !required) return undefined;
  if (!w || typeof w !== "object") throw invalid("workspace must be {workspacePath, workspaceKey}");
  const { workspacePath, workspaceKey } = w as Params;
  if (typeof workspacePath !== "string" || workspacePath === "") throw invalid("workspace.workspacePath must be a non-empty string");
  if (workspaceKey !== undefined && typeof workspaceKey !== "string") throw invalid("workspace.workspaceKey must be a string");
  return { workspacePath, workspaceKey: (workspaceKey as string | undefined) || workspacePath };
}

/** A known session (else -32002). */
function known(sim: Sim, p: Params): SessionRecord {
  const id = str(p, "sessionId");
  const s = sim.store.get(id);
  if (!s) throw new RpcError(-32002, `Session not found: ${id}`, { sessionId: id });
  return s;
}

/** A session active in this process (else -32004): created or resumed here, not evicted. */
function active(sim: Sim, p: Params): SessionRecord {
  const s = known(sim, p);
  if (!sim.rt(s.id).active) throw new RpcError(-32004, "Session is not active", { sessionId: s.id });
  return s;
}

function settings(s: SessionRecord) {
  const model = MODELS.find((m) => m.modelId === s.model.modelId) ?? MODELS[0]!;
  return {
    mode: { current: s.mode, available: MODES },
    model: { current: { providerId: s.model.providerId, modelId: s.model.modelId }, available: MODELS },
    thoughtLevel: { current: s.thoughtLevel, available: THOUGHT_LEVELS, defaultLevel: model.defaultLevel },
  };
}

function info(s: SessionRecord) {
  return { sessionId: s.id, title: s.title, traceId: s.traceId, workspace: s.workspace, createdAt: s.createdAt, updatedAt: s.updatedAt };
}

function projection(s: SessionRecord) {
  return {
    status: s.status,
    mode: s.projectionMode,
    contextUsed: s.contextUsed,
    contextWindow: CONTEXT_WINDOW,
    totalTokenCount: s.usage.totalTokens,
    turnCount: s.turnCount,
    currentTurnId: s.currentTurnId,
    revision: s.revision,
  };
}

function promptText(p: Params): string {
  const c = p.content;
  if (typeof c === "string") return c;
  // Tolerate content blocks: [{type:"text", text}].
  if (Array.isArray(c)) {
    const texts = c.map((b) => (b && typeof b === "object" && typeof (b as Params).text === "string" ? ((b as Params).text as string) : undefined));
    if (texts.every((t) => t !== undefined)) return texts.join("\n");
  }
  throw invalid("content must be a string");
}

function checkpointFor(s: SessionRecord, p: Params): Checkpoint {
  const target = (p.target ?? { kind: "latestCheckpoint" }) as Params;
  if (!target || typeof target !== "object") throw invalid("target must be an object");
  let cp: Checkpoint | undefined;
  if (target.kind === "latestCheckpoint") cp = s.checkpoints[s.checkpoints.length - 1];
  else if (target.kind === "checkpoint") {
    if (typeof target.checkpointId !== "string") throw invalid("target.checkpointId must be a string");
    cp = s.checkpoints.find((c) => c.checkpointId === target.checkpointId);
  } else throw invalid(`unknown target kind ${JSON.stringify(target.kind)}`);
  if (!cp) throw new RpcError(1410, "No checkpoint available", { sessionId: s.id });
  return cp;
}

let runtimePreferences: Promise<unknown> | undefined;

const methods: Record<string, Handler> = {
  async "session/create"(sim, p) {
    const workspace = workspaceOf(p, true)!;
    const mode = p.mode === undefined ? "build" : str(p, "mode");
    if (!MODES.some((m) => m.value === mode)) throw invalid(`unknown mode ${JSON.stringify(mode)}`);
    // The real CLI asks for runtime preferences before its first create answers.
    runtimePreferences ??= sim.outgoing.request("session/requestRuntimePreferences", { workspace });
    await runtimePreferences;
    const s = sim.store.create(workspace, mode);
    sim.rt(s.id).active = true;
    return { session: { sessionId: s.id, title: s.title, traceId: s.traceId }, settings: settings(s) };
  },

  "session/list"(sim, p) {
    const ws = workspaceOf(p, false);
    const sessions = sim.store
      .all()
      .filter((s) => !ws || s.workspace.workspaceKey === ws.workspaceKey || s.workspace.workspacePath === ws.workspacePath)
      .sort((a, b) => b.updatedAt - a.updatedAt)
      .map((s) => ({ ...info(s), status: s.status, turnCount: s.turnCount }));
    return { sessions };
  },

  "session/resume"(sim, p) {
    const s = known(sim, p);
    workspaceOf(p, false);
    sim.rt(s.id).active = true;
    return { session: info(s), settings: settings(s) };
  },

  "session/read"(sim, p) {
    const s = active(sim, p);
    return { session: info(s), projection: projection(s), settings: settings(s), todos: s.todos, goal: s.goal };
  },

  "session/messages"(sim, p) {
    const s = active(sim, p);
    return { messages: s.messages, hasMore: false };
  },

  "session/subscribe"(sim, p) {
    const s = active(sim, p);
    const r = sim.rt(s.id);
    if (p.afterSeq !== undefined && (typeof p.afterSeq !== "number" || !Number.isInteger(p.afterSeq) || p.afterSeq < 0)) {
      throw invalid("afterSeq must be a non-negative integer");
    }
    r.subscribed = true;
    r.holdLive = false;
    const res: Record<string, unknown> = { eventSeq: s.seq };
    if (typeof p.afterSeq === "number") res.events = sim.eventsAfter(s, p.afterSeq);
    if (p.includeSnapshot === true) res.snapshot = { projection: projection(s), messages: s.messages };
    return res;
  },

  "session/send"(sim, p) {
    const s = active(sim, p);
    const r = sim.rt(s.id);
    const content = promptText(p);
    if (r.turn) throw new RpcError(1308, "prompt is running");
    const prompt = parsePrompt(content, sim.cfg.defaultScenario);
    const count = (s.promptCounts[content] ?? 0) + 1;
    s.promptCounts[content] = count;
    if (r.hangNextSend || (prompt.scenario === "hang-request" && prompt.params.next === undefined)) {
      r.hangNextSend = false;
      log(`session/send on ${s.id} will never be answered (hang-request)`);
      return new Promise(() => {});
    }
    if (prompt.scenario === "hang-request") r.hangNextSend = true;
    if (prompt.scenario === "evict" && count === 1) {
      r.active = false;
      r.subscribed = false;
      throw new RpcError(-32004, "Session is not active", { sessionId: s.id });
    }
    const turn = prepareTurn(sim, s, content, prompt);
    // Answer first, then stream: the turn starts on the next tick.
    setImmediate(() => {
      runTurn(turn).catch((e) => log(`turn crashed: ${(e as Error).stack ?? e}`));
    });
    return { accepted: true };
  },

  "session/stop"(sim, p, ctx) {
    let s: SessionRecord;
    try {
      s = active(sim, p);
    } catch (e) {
      if (ctx.isRequest) throw e;
      return {};
    }
    sim.rt(s.id).turn?.requestStop();
    return {};
  },

  "session/close"(sim, p) {
    const s = known(sim, p);
    const r = sim.rt(s.id);
    r.turn?.requestStop();
    r.subscribed = false;
    r.active = false;
    sim.store.markDirty(s);
    return {};
  },

  "session/fork"(sim, p) {
    const src = active(sim, p);
    const cp = checkpointFor(src, p);
    const fork = sim.store.create(src.workspace, src.mode);
    fork.title = src.title ? `${src.title} (fork)`.slice(0, 60) : "";
    fork.thoughtLevel = src.thoughtLevel;
    fork.model = { ...src.model };
    fork.messages = structuredClone(src.messages.slice(0, cp.messagesAfter));
    fork.todos = structuredClone(cp.todosAfter);
    fork.checkpoints = structuredClone(src.checkpoints.slice(0, src.checkpoints.indexOf(cp) + 1));
    fork.turnCount = fork.checkpoints.length;
    fork.goal = src.goal ? { ...src.goal } : null;
    sim.store.touch(fork);
    sim.rt(fork.id).active = true;
    return { forkedSessionId: fork.id, session: info(fork) };
  },

  "session/rewind"(sim, p) {
    const s = active(sim, p);
    if (sim.rt(s.id).turn) throw new RpcError(1308, "prompt is running");
    if (p.expectedRevision !== undefined && p.expectedRevision !== s.revision) {
      throw new RpcError(1409, `revision conflict: expected ${String(p.expectedRevision)}, current ${s.revision}`, { revision: s.revision });
    }
    const cp = checkpointFor(s, p);
    const removedMessages = s.messages.length - cp.messagesBefore;
    s.messages.splice(cp.messagesBefore);
    s.todos = structuredClone(cp.todosBefore);
    s.checkpoints.splice(s.checkpoints.indexOf(cp));
    s.turnCount = s.checkpoints.length;
    sim.store.touch(s);
    return { revision: s.revision, checkpointId: cp.checkpointId, removedMessages };
  },

  "session/goal"(sim, p) {
    const s = active(sim, p);
    const action = p.action ?? "show";
    const need = (): Goal => {
      if (!s.goal) throw invalid("no goal is set");
      return s.goal;
    };
    switch (action) {
      case "show":
        break;
      case "set":
      case "replace":
        s.goal = { objective: str(p, "objective"), status: "active", setAt: Date.now() };
        break;
      case "clear":
        s.goal = null;
        break;
      case "pause":
        need().status = "paused";
        break;
      case "resume":
        need().status = "active";
        break;
      default:
        throw invalid(`action must be one of show, set, replace, clear, pause, resume`);
    }
    if (action !== "show") sim.store.touch(s);
    return { goal: s.goal };
  },

  "session/compact"(sim, p) {
    const s = active(sim, p);
    if (sim.rt(s.id).turn) throw new RpcError(1308, "prompt is running");
    if (p.instructions !== undefined && typeof p.instructions !== "string") throw invalid("instructions must be a string");
    const messagesBefore = s.messages.length;
    const summary = `Summary of ${messagesBefore} earlier messages${p.instructions ? ` (focus: ${p.instructions})` : ""}.`;
    s.messages.push({ info: { id: newId("msg"), role: "assistant", createdAt: Date.now(), finish: "success" }, parts: [{ type: "text", text: summary }], semantics: { kind: "compact_summary" } });
    const inputTokens = Math.max(100, Math.floor(s.contextUsed / 10));
    s.contextUsed = inputTokens;
    sim.store.touch(s);
    sim.emit(s, "session.updated", { usage: { inputTokens, outputTokens: 0 }, contextWindow: CONTEXT_WINDOW });
    return { compacted: true, summary, messagesBefore };
  },

  async "session/steer"(sim, p) {
    const s = active(sim, p);
    const content = promptText(p);
    const turn = sim.rt(s.id).turn;
    if (!turn) throw new RpcError(1309, "no turn is running");
    await turn.emit("turn.steerQueued", { content }).catch(() => {});
    return { accepted: true };
  },

  "session/setMode"(sim, p) {
    const s = active(sim, p);
    const mode = str(p, "mode");
    if (!MODES.some((m) => m.value === mode)) throw invalid(`unknown mode ${JSON.stringify(mode)} (available: ${MODES.map((m) => m.value).join(", ")})`);
    s.mode = mode;
    sim.store.touch(s);
    return { mode: { current: s.mode } };
  },

  "session/setThoughtLevel"(sim, p) {
    const s = active(sim, p);
    const level = str(p, "thoughtLevel");
    if (!THOUGHT_LEVELS.some((l) => l.value === level)) {
      throw invalid(`unknown thoughtLevel ${JSON.stringify(level)} (available: ${THOUGHT_LEVELS.map((l) => l.value).join(", ")})`);
    }
    s.thoughtLevel = level;
    sim.store.touch(s);
    return { thoughtLevel: { current: s.thoughtLevel } };
  },

  "workspace/list"(sim) {
    const byKey = new Map<string, { workspacePath: string; workspaceKey: string; sessionCount: number; updatedAt: number }>();
    for (const s of sim.store.all()) {
      const w = byKey.get(s.workspace.workspaceKey) ?? { ...s.workspace, sessionCount: 0, updatedAt: 0 };
      w.sessionCount++;
      w.updatedAt = Math.max(w.updatedAt, s.updatedAt);
      byKey.set(s.workspace.workspaceKey, w);
    }
    return { workspaces: [...byKey.values()].sort((a, b) => b.updatedAt - a.updatedAt) };
  },
};

export function lookup(sim: Sim, method: string): Handler | undefined {
  if (sim.pers.missing(method)) return undefined;
  return Object.hasOwn(methods, method) ? methods[method] : undefined;
}
