// Every method the simulator answers, as ZCode's server-operations.ts does
// (see /work/notes/zcode-server-facts.md): params are parsed by server.ts with
// ZCode's strict schemas before a handler runs; most methods need the session
// ACTIVE in this process (-32004 "Session is not active: <id>").
import { mapAttachments } from "./attachments.ts";
import { checkModelSelection, findModel, type ModelSel } from "./catalog.ts";
import { parsePrompt, prepareTurn, runTurn, type TurnInput } from "./runner.ts";
import { formatIssues, validate } from "./schema.ts";
import type { Runtime, Sim } from "./sim.ts";
import { settings, snapshot } from "./snapshot.ts";
import { newId, uuid } from "./store.ts";
import type { Checkpoint, Message, SessionRecord, Workspace } from "./types.ts";
import { v4Methods } from "./v4.ts";
import { v4OnlyMethod } from "./v4-only.ts";
import { admitLegacySendIntoV4Turn } from "./v4-queue.ts";
import { log } from "./wire.ts";
import { runtimePreferencesResult } from "./zcode-schemas.ts";

export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

type Params = Record<string, any>;
export interface CallCtx {
  /** Runs after the response line is written (requests the CLI sends after answering). */
  after(fn: () => void): void;
  /** The response is never written (hang-request). */
  dropAnswer(): void;
}
export type Handler = (sim: Sim, p: Params, ctx: CallCtx) => unknown | Promise<unknown>;

const RUNTIME_PREFS_TIMEOUT_MS = 15_000;

function requireSession(sim: Sim, id: string): { s: SessionRecord; r: Runtime } {
  const s = sim.store.get(id);
  const r = sim.rt(id);
  // A running subagent's session has an event log but no record (sim.ts Runtime.detached).
  if (!s || !r || r.detached) throw new RpcError(-32004, `Session is not active: ${id}`);
  return { s, r };
}

function assertRevision(r: Runtime, expected: number | undefined): void {
  if (expected !== undefined && expected !== r.revision) {
    throw new RpcError(-32009, "Session state revision mismatch", { actualRevision: r.revision, expectedRevision: expected });
  }
}

function ensureNoActiveTurn(r: Runtime, message: string): void {
  if (r.turn) throw new RpcError(-32010, message);
}

/** afterStateMutation: revision+1, a snapshot (current model only) and state.updated with its settings. */
function mutated(sim: Sim, s: SessionRecord, r: Runtime, reason: string): Record<string, unknown> {
  r.revision++;
  sim.store.touch(s, { activity: !["model_changed", "thought_level_changed", "mode_changed"].includes(reason) });
  const snap = snapshot(sim, s, { availability: "current" });
  sim.stateUpdated(s, reason, snap.settings);
  return snap;
}

/**
 * session/requestRuntimePreferences, sent after the create/resume answer.
 * -32601 (or -32020) means defaults; any other error, an invalid answer or no
 * answer within 15 s is logged and makes the session's next send fail.
 */
function requestRuntimePreferences(sim: Sim, s: SessionRecord, r: Runtime): void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((res) => {
    timer = setTimeout(() => res("timeout"), RUNTIME_PREFS_TIMEOUT_MS);
  });
  const pending = Promise.race([
    sim.outgoing.request("session/requestRuntimePreferences", { sessionId: s.id, scope: "runtime-materialization" }),
    timeout,
  ]).then((a) => {
    clearTimeout(timer);
    const fail = (msg: string) => {
      r.prefsError = msg;
      log(`session ${s.id}: ${msg}`);
    };
    if (a === "timeout") return fail("Client request timed out: session/requestRuntimePreferences");
    if ("error" in a) {
      if (a.error.code === -32601 || a.error.code === -32020) {
        r.prefs = {
          askUserQuestionAutoResolutionEnabled: true,
          memoryEnabled: false,
          modelContextBudgetStrategy: "preflight-v1",
          nativeSearchEnhancementsEnabled: true,
        };
        return;
      }
      return fail(`session/requestRuntimePreferences failed: ${a.error.message} (${a.error.code})`);
    }
    const v = validate(runtimePreferencesResult, a.result);
    if (!v.ok) return fail(`Invalid session/requestRuntimePreferences result — ${formatIssues(v.issues)}`);
    r.prefs = v.value;
  });
  r.prefsPending = pending;
  void pending.finally(() => {
    if (r.prefsPending === pending) r.prefsPending = undefined;
  });
}

function startTurn(sim: Sim, s: SessionRecord, r: Runtime, ctx: CallCtx, input: TurnInput) {
  const turn = prepareTurn(sim, s, r, input);
  ctx.after(() => {
    const go = () => runTurn(turn).catch((e) => log(`turn crashed: ${(e as Error).stack ?? e}`));
    const wait = r.prefsPending;
    if (wait) void wait.then(go);
    else setImmediate(go);
  });
  return turn;
}

function applyCreateModel(s: SessionRecord, model: ModelSel | undefined, thoughtLevel: string | undefined): void {
  if (model) {
    // session/create applies the model as a "provider/model" string; its options are dropped.
    const entry = findModel(model);
    if (!entry || entry.disabledReason !== undefined) {
      const e = new Error(`Provider Registry 中不存在 Model: ${model.providerId}/${model.modelId}`);
      e.name = "ModelProtocolError";
      (e as Error & { code: string }).code = "model_not_found";
      throw e;
    }
    s.model = { providerId: model.providerId, modelId: model.modelId };
    if (entry.reasoning?.defaultLevel) s.model.options = { reasoningLevel: entry.reasoning.defaultLevel };
  }
  if (thoughtLevel) {
    const levels = findModel(s.model)?.reasoning?.levels ?? [];
    // Applied only when the model offers it; otherwise silently skipped (as the CLI).
    if (levels.some((l) => l.value === thoughtLevel.trim())) s.model.options = { reasoningLevel: thoughtLevel.trim() };
    else log(`session/create skipped unsupported thought level ${JSON.stringify(thoughtLevel)}`);
  }
}

function workspaceMatches(s: SessionRecord, w: Workspace): boolean {
  const a = s.workspace.workspaceIdentity?.trim() || s.workspace.workspacePath;
  const b = w.workspaceIdentity?.trim() || w.workspacePath;
  return a === b;
}

function latestCheckpoint(s: SessionRecord): Checkpoint | undefined {
  return s.checkpoints[s.checkpoints.length - 1];
}

function goalText(title: string, s: SessionRecord): string {
  return `${title}\nObjective: ${s.goal!.objective}`;
}

/**
 * closeSession (jimpablo/ZCode@aac4755 …/zcode-protocol/server-operations.ts, `closeSession`): the runtime is
 * closed, the v4 publisher disposed (session.removed to the live sessions index), the record and the in-memory
 * event store dropped. The session store is not touched: `listSessions` (`store.listSessions`, archived rows
 * only left out) still returns the conversation and session/resume reopens it. A draft (`deferred`) never
 * reached the store (sendPrompt promotes it), so closing it leaves nothing.
 */
export function closeLive(sim: Sim, s: SessionRecord): void {
  sim.deactivate(s.id);
  if (s.persistence === "deferred") sim.store.delete(s);
}

/** Rewrites a copied transcript into another session. */
function copyMessages(messages: Message[], sessionId: string): Message[] {
  const out = structuredClone(messages);
  for (const m of out) {
    m.info.sessionId = sessionId;
    for (const p of m.parts) p.sessionId = sessionId;
  }
  return out;
}

export const methods: Record<string, Handler> = {
  "session/create"(sim, p, ctx) {
    if (p.sessionId && !p.importedHistory) throw new RpcError(-32602, "sessionId is only supported for imported history creates");
    const s = sim.store.create(p.workspace, p.mode ?? "build", { persistence: p.persistence, ...(p.sessionId ? { id: p.sessionId } : {}) });
    const r = sim.activate(s);
    try {
      applyCreateModel(s, p.model, p.thoughtLevel);
    } catch (e) {
      sim.deactivate(s.id);
      sim.store.delete(s);
      throw e;
    }
    if (p.model) r.revision++;
    if (p.parentSessionId) s.parentSessionId = p.parentSessionId;
    s.mcpServerNames = (p.mcpServers ?? []).map((m: { name: string }) => m.name);
    s.lastUsed = { providerId: s.model.providerId, modelId: s.model.modelId };
    sim.store.touch(s);
    ctx.after(() => requestRuntimePreferences(sim, s, r));
    return snapshot(sim, s);
  },

  "session/resume"(sim, p, ctx) {
    const existing = sim.store.get(p.sessionId);
    const live = sim.rt(p.sessionId);
    if (existing && live && !live.detached) return snapshot(sim, existing);
    if (!existing) throw new RpcError(-32004, `Session not found: ${p.sessionId}`);
    if (live?.detached && existing.subagent && !existing.subagent.status) {
      // activateSessionForResume (server-operations.ts) finds no record for a running child and
      // cold-resumes a second runtime from the store ("不能为了只读查询 cold resume 第二个 child
      // runtime", v4-bridge.ts). The simulator keeps one runtime per session: it answers the stored
      // snapshot and the child stays detached (its live events never reach the legacy stream).
      log(`session/resume of the running subagent session ${existing.id}: ZCode would start a second runtime for it`);
      return snapshot(sim, existing);
    }
    const s = existing;
    const r = sim.activate(s);
    if (sim.cfg.resumeResetsModel || s.forgetModelOnResume) {
      s.model = structuredClone(sim.cfg.defaultModel);
      s.forgetModelOnResume = false;
      log(`session ${s.id} resumed on the default model ${s.model.providerId}/${s.model.modelId}`);
    }
    if (p.mcpServers) s.mcpServerNames = p.mcpServers.map((m: { name: string }) => m.name);
    sim.emit(s, "session.resumed", {
      directory: s.workspace.workspacePath,
      interruptedToolCount: 0,
      messageCount: s.messages.length,
      partCount: s.messages.reduce((n, m) => n + m.parts.length, 0),
      recoveredCompactTimelineCount: 0,
      recoveredSteerInputCount: 0,
      resumedTodoCount: s.todos.length,
    });
    sim.store.touch(s, { activity: false });
    ctx.after(() => requestRuntimePreferences(sim, s, r));
    return snapshot(sim, s);
  },

  "session/list"(sim, p) {
    // A subagent's session is no task of the list (task-list-session-membership.ts).
    let list = sim.store.all().filter((s) => s.persistence !== "deferred" && (p.sessionIds || s.taskType !== "subagent_child"));
    if (p.sessionIds) list = list.filter((s) => p.sessionIds.includes(s.id));
    if (p.workspace) list = list.filter((s) => workspaceMatches(s, p.workspace));
    list.sort((a, b) => b.updatedAt - a.updatedAt);
    if (!p.sessionIds) list = list.slice(0, p.limit ?? 50);
    return { sessions: list.map((s) => snapshot(sim, s).session) };
  },

  "session/read"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    // A read with deliveryKind turns live session/event pushes on, like subscribe.
    if (p.deliveryKind) r.deliveryKind = p.deliveryKind;
    return snapshot(sim, s, { availability: "current", messageLimit: p.messageLimit });
  },

  /**
   * listSessionSubagents (server-operations.ts) over projectSessionSubagents
   * (subagent-session-query.ts): the parent's subagent_child sessions, the
   * running ones newest first, the ended ones by endedAt (then id) newest
   * first, paged by a base64url cursor of {childSessionId, endedAt}.
   */
  "session/subagents"(sim, p) {
    const parent = sim.store.get(p.sessionId);
    if (!parent) throw new RpcError(-32004, `Session not found: ${p.sessionId}`);
    const children = sim.store.all().filter((c) => c.parentSessionId === parent.id && c.taskType === "subagent_child" && c.subagent);
    const item = (c: SessionRecord) => {
      const a = c.subagent!;
      return {
        childSessionId: c.id,
        agentId: a.agentId,
        toolCallId: a.toolCallId,
        subagentType: a.subagentType,
        title: c.title || "Subagent",
        startedAt: a.startedAt,
      };
    };
    const running = children
      .filter((c) => !c.subagent!.status)
      .map((c) => ({ ...item(c), status: "running" }))
      .sort((l, r) => r.startedAt - l.startedAt || r.childSessionId.localeCompare(l.childSessionId));
    const ended = children
      .filter((c) => c.subagent!.status)
      .map((c) => ({
        ...item(c),
        status: c.subagent!.status!,
        ...(c.subagent!.summary ? { summary: c.subagent!.summary } : {}),
        endedAt: c.subagent!.endedAt ?? c.updatedAt,
      }))
      .sort((l, r) => r.endedAt - l.endedAt || r.childSessionId.localeCompare(l.childSessionId));
    let start = 0;
    if (p.endedCursor) {
      let cur: { childSessionId?: unknown; endedAt?: unknown } = {};
      try {
        cur = JSON.parse(Buffer.from(p.endedCursor, "base64url").toString("utf8"));
      } catch {
        /* a bad cursor reads as none */
      }
      if (typeof cur.childSessionId === "string" && typeof cur.endedAt === "number") {
        const at = cur.endedAt;
        const id = cur.childSessionId;
        start = ended.findIndex((e) => e.endedAt < at || (e.endedAt === at && e.childSessionId.localeCompare(id) < 0));
      }
    }
    const items = start < 0 ? [] : ended.slice(start, start + p.endedLimit);
    const last = items.at(-1);
    const more = last && start >= 0 && start + items.length < ended.length;
    return {
      revision: sim.rt(parent.id)?.revision ?? parent.updatedAt,
      childSessionIds: children.map((c) => c.id),
      running,
      ended: {
        total: ended.length,
        items,
        ...(more
          ? {
              nextCursor: Buffer.from(JSON.stringify({ childSessionId: last.childSessionId, endedAt: last.endedAt })).toString("base64url"),
            }
          : {}),
      },
    };
  },

  "session/messages"(sim, p) {
    const { s } = requireSession(sim, p.sessionId);
    let messages = s.messages;
    if (p.afterMessageId) {
      const i = messages.findIndex((m) => m.info.messageId === p.afterMessageId);
      if (i >= 0) messages = messages.slice(i + 1);
    }
    if (p.limit) messages = messages.slice(-p.limit);
    return { messages: structuredClone(messages) };
  },

  "session/events"(sim, p) {
    const { s } = requireSession(sim, p.sessionId);
    return { events: sim.eventsAfter(s, p.afterSeq ?? 0, p.limit) };
  },

  "session/subscribe"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    // One stream per session: subscribing again replaces it (never duplicates).
    r.deliveryKind = p.deliveryKind;
    r.holdLive = false;
    const events = p.afterSeq === undefined ? [] : sim.eventsAfter(s, p.afterSeq);
    // subscribeSession (server-operations.ts): events re-read after afterSeq, eventSeq by getProtocolEventSeq.
    const res: Record<string, unknown> = { eventSeq: sim.eventSeq(s), events, sessionId: s.id };
    if (p.includeSnapshot) res.snapshot = snapshot(sim, s, { availability: "current" });
    return res;
  },

  "session/send"(sim, p, ctx) {
    const { s, r } = requireSession(sim, p.sessionId);
    // server-operations.ts sendPrompt, after requireSession (so a running child, which has no record, fails -32004
    // first; an ended one resumed gets this): "legacy 输入入口同样必须保持子代理只读", data {reasonCode: "guard.subagentReadOnly"}.
    if (s.taskType === "subagent_child")
      throw new RpcError(-32010, "Subagent sessions are read-only", { reasonCode: "guard.subagentReadOnly" });
    assertRevision(r, p.expectedRevision);
    // Only the legacy prompt's own controller refuses; a v4-started turn queues the input (v4-queue.ts).
    if (r.turn?.v4Started && admitLegacySendIntoV4Turn(sim, s, r, p.content, p.inputId ?? uuid())) {
      r.revision++;
      return { sessionId: s.id, accepted: true, stateRevision: r.revision };
    }
    if (r.turn) throw new RpcError(-32010, "A prompt is already running for this session");
    if (r.prefsError) {
      const msg = r.prefsError;
      r.prefsError = undefined;
      throw new Error(msg);
    }
    if (p.modelSelection) {
      const { level } = checkModelSelection(p.modelSelection);
      s.model = {
        providerId: p.modelSelection.providerId,
        modelId: p.modelSelection.modelId,
        ...(level ? { options: { reasoningLevel: level } } : {}),
      };
    }
    if (s.persistence === "deferred") {
      s.persistence = "immediate";
      sim.store.saveNow(s);
    }
    const content: string = p.content;
    const prompt = parsePrompt(content, sim.cfg.defaultScenario);
    const count = (s.promptCounts[content] ?? 0) + 1;
    s.promptCounts[content] = count;
    if (r.hangNextSend || (prompt.scenario === "hang-request" && prompt.params.next === undefined)) {
      r.hangNextSend = false;
      log(`the answer to this session/send on ${s.id} is never written (hang-request)`);
      ctx.dropAnswer();
      return {};
    }
    if (prompt.scenario === "hang-request") r.hangNextSend = true;
    if (prompt.scenario === "evict" && count === 1) {
      // The resident pool deactivated the session: it needs session/resume (a new seq space).
      sim.deactivate(s.id);
      throw new RpcError(-32004, `Session is not active: ${s.id}`);
    }
    if (prompt.scenario === "forget-model") s.forgetModelOnResume = true;
    const inputId: string | undefined = p.inputId ?? (p.modelSelection ? uuid() : undefined);
    const queryId: string | undefined = p.queryId ?? inputId;
    startTurn(sim, s, r, ctx, {
      raw: content,
      prompt,
      attachments: mapAttachments(p.attachments),
      ...(inputId ? { inputId } : {}),
      ...(queryId ? { queryId } : {}),
    });
    if (prompt.params.noanswer === "1") {
      // Any scenario with noanswer=1: the turn runs, its send is never answered.
      log(`the answer to this session/send on ${s.id} is never written; its turn runs (noanswer=1)`);
      ctx.dropAnswer();
    }
    r.revision++;
    s.updatedAt = Date.now();
    // Written before the answer, as afterPromptAccepted does.
    sim.stateUpdated(s, "prompt_started", { status: "running" });
    return { sessionId: s.id, accepted: true, stateRevision: r.revision };
  },

  "session/stop"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    // A turn a v4 command started is out of legacy stop's reach (ZCODE-V4.md §5.2, inferred from the source).
    if (r.turn?.v4Started) log(`session/stop on ${s.id}: the running turn was started by a v4 command; not stopped`);
    else if (r.turn) {
      const pauseGoal = s.goal?.status === "active";
      r.turn.requestStop();
      if (pauseGoal && s.goal) {
        s.goal.status = "paused";
        s.goal.updatedAt = Date.now();
        mutated(sim, s, r, "session_stop_goal_paused");
      }
    }
    return {};
  },

  "session/close"(sim, p) {
    const { s } = requireSession(sim, p.sessionId);
    if (p.expectedPersistence !== undefined && p.expectedPersistence !== s.persistence) return { closed: false };
    closeLive(sim, s);
    log(`session ${s.id} closed (ZCode keeps the conversation)`);
    return { closed: true };
  },

  "session/fork"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    assertRevision(r, p.expectedRevision);
    ensureNoActiveTurn(r, "Cannot fork while a prompt is running");
    const target = p.target as { kind: string; checkpointId?: string; messageId?: string; turnIndex?: number };
    let upTo: number;
    let targetMessageId: string | undefined;
    let checkpoint: Checkpoint | undefined;
    if (target.kind === "latestCheckpoint" || target.kind === "checkpoint") {
      checkpoint =
        target.kind === "latestCheckpoint" ? latestCheckpoint(s) : s.checkpoints.find((c) => c.checkpointId === target.checkpointId);
      // [GUESSED wording] forkFromCheckpoint without a checkpoint fails as a plain Error (-32603).
      if (!checkpoint)
        throw new Error(
          target.kind === "latestCheckpoint"
            ? "No checkpoint is available to fork from yet"
            : `Checkpoint not found: ${target.checkpointId}`,
        );
      upTo = checkpoint.messagesAfter;
      targetMessageId = checkpoint.targetMessageId;
    } else if (target.kind === "message") {
      const i = s.messages.findIndex((m) => m.info.messageId === target.messageId);
      if (i < 0) throw new Error(`Message not found: ${target.messageId}`);
      upTo = i + 1;
      targetMessageId = target.messageId;
    } else {
      const userIdx = s.messages
        .map((m, i) => (m.info.role === "user" && !(m.info as { synthetic?: boolean }).synthetic ? i : -1))
        .filter((i) => i >= 0);
      const start = userIdx[target.turnIndex!];
      const end = userIdx[target.turnIndex! + 1] ?? s.messages.length;
      let a = -1;
      if (start !== undefined)
        for (let i = end - 1; i > start; i--)
          if (s.messages[i]!.info.role === "assistant") {
            a = i;
            break;
          }
      if (a < 0) throw new RpcError(-32004, `Cannot resolve assistant message for turnIndex=${target.turnIndex}`);
      upTo = a + 1;
      targetMessageId = s.messages[a]!.info.messageId;
    }
    const fork = sim.store.create(s.workspace, s.mode);
    fork.title = s.title;
    fork.titleSource = s.titleSource;
    fork.model = structuredClone(s.model);
    fork.parentSessionId = s.id;
    fork.messages = copyMessages(s.messages.slice(0, upTo), fork.id);
    fork.todos = structuredClone(checkpoint ? checkpoint.todosAfter : s.todos);
    fork.checkpoints = structuredClone(s.checkpoints.filter((c) => c.messagesAfter <= upTo));
    fork.turnCount = fork.checkpoints.length;
    fork.goal = s.goal ? { ...s.goal, targetId: newId("target") } : null;
    fork.permissionRules = structuredClone(s.permissionRules);
    fork.mcpServerNames = [...s.mcpServerNames];
    sim.store.touch(fork);
    // The fork is active at once and inherits the parent's runtime preferences (no request).
    const fr = sim.activate(fork);
    fr.prefs = r.prefs;
    const res: Record<string, unknown> = { forkedSessionId: fork.id, parentSessionId: s.id };
    if (targetMessageId) res.targetMessageId = targetMessageId;
    if (checkpoint) res.targetCheckpointId = checkpoint.checkpointId;
    res.response = "";
    res.snapshot = snapshot(sim, fork);
    return res;
  },

  "session/compact"(sim, p, ctx) {
    const { s, r } = requireSession(sim, p.sessionId);
    if (r.turn?.kind === "compact")
      return {
        response: "",
        snapshot: snapshot(sim, s),
        compact: { state: "already_running", ...(p.inputId ? { inputId: p.inputId } : {}) },
      };
    ensureNoActiveTurn(r, "Cannot compact while a prompt is running");
    assertRevision(r, p.expectedRevision);
    const command = p.instructions ? `/compact ${p.instructions}` : "/compact";
    startTurn(sim, s, r, ctx, {
      raw: command,
      prompt: { scenario: "compact", params: {}, text: p.instructions ?? "" },
      kind: "compact",
      ...(p.inputId ? { inputId: p.inputId } : {}),
      endReasons: ["session_compacted", "session_compact_failed", "session_compact_cancelled"],
    });
    r.revision++;
    const snap = snapshot(sim, s);
    sim.stateUpdated(s, "compact_started", { status: "running" });
    return { response: "", snapshot: snap, compact: { state: "accepted", ...(p.inputId ? { inputId: p.inputId } : {}) } };
  },

  "session/goal"(sim, p, ctx) {
    const { s, r } = requireSession(sim, p.sessionId);
    assertRevision(r, p.expectedRevision);
    const action: string = p.action;
    if (action !== "pause") ensureNoActiveTurn(r, "Cannot manage goals while a prompt is running");
    const full = () => snapshot(sim, s);
    const change = (reason: string) => {
      r.revision++;
      sim.store.touch(s);
      sim.stateUpdated(s, reason, settings(s, "current"));
    };
    /** continueGoalAfterChange: a turn works on the goal unless in plan mode. */
    const continueGoal = (title: string, reason: string) => {
      change(reason);
      let response = goalText(title, s);
      const plan = s.mode === "plan";
      if (plan) response += "\n\nPlan mode 下已记录 goal，但不会自动继续。";
      const startedTurn = !plan && !r.turn;
      if (startedTurn) {
        startTurn(sim, s, r, ctx, {
          raw: s.goal!.objective,
          prompt: parsePrompt(s.goal!.objective, sim.cfg.defaultScenario),
          inputSource: "goal-continuation",
          ...(p.inputId ? { inputId: p.inputId } : {}),
          endReasons: ["goal_continuation_completed", "goal_continuation_failed", "goal_continuation_completed"],
        });
      }
      return { response, snapshot: full(), startedTurn };
    };
    switch (action) {
      case "show": {
        if (!s.goal) return { response: "No goal is set. Use /goal <objective> to set one.", snapshot: full(), startedTurn: false };
        const secs = Math.max(0, Math.floor((Date.now() - s.goal.createdAt) / 1000));
        return {
          response: `Goal ${s.goal.status}\nObjective: ${s.goal.objective}\nUsage: ${s.goal.tokensUsed} tokens / none\nTime: ${secs} seconds`,
          snapshot: full(),
          startedTurn: false,
        };
      }
      case "pause": {
        if (!s.goal) return { response: "No goal to pause.", snapshot: full(), startedTurn: false };
        s.goal.status = "paused";
        s.goal.updatedAt = Date.now();
        r.turn?.requestStop();
        change("goal_paused");
        return { response: "", snapshot: full(), startedTurn: false };
      }
      case "resume": {
        if (!s.goal) return { response: "No goal to resume.", snapshot: full(), startedTurn: false };
        s.goal.status = "active";
        s.goal.updatedAt = Date.now();
        return continueGoal("Goal resumed", "goal_resumed");
      }
      case "clear": {
        if (!s.goal) return { response: "No goal to clear.", snapshot: full(), startedTurn: false };
        s.goal = null;
        change("goal_cleared");
        return { response: "Goal cleared.", snapshot: full(), startedTurn: false };
      }
      default: {
        const objective = (p.objective ?? "").trim();
        if (!objective)
          return {
            response: action === "replace" ? "Usage: /goal replace <objective>" : "Usage: /goal <objective>",
            snapshot: full(),
            startedTurn: false,
          };
        const existed = s.goal !== null;
        const now = Date.now();
        s.goal = { targetId: newId("target"), objective, status: "active", tokensUsed: 0, createdAt: now, updatedAt: now };
        return continueGoal("Goal active", action === "replace" || existed ? "goal_replaced" : "goal_set");
      }
    }
  },

  "session/setModel"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    assertRevision(r, p.expectedRevision);
    const { level } = checkModelSelection(p.model);
    const previous = structuredClone(s.model);
    s.model = { providerId: p.model.providerId, modelId: p.model.modelId, ...(level ? { options: { reasoningLevel: level } } : {}) };
    if (p.persistAsWorkspaceLastUsed) s.lastUsed = { providerId: s.model.providerId, modelId: s.model.modelId };
    // [GUESSED fields] the core model_selected payload, streamed as session.updated.
    sim.emit(s, "session.updated", { model: structuredClone(s.model), previousModel: previous, source: "protocol" });
    return mutated(sim, s, r, "model_changed");
  },

  "session/setThoughtLevel"(sim, p) {
    if (!p.thoughtLevel) throw new RpcError(-32602, "thoughtLevel is required");
    const { s, r } = requireSession(sim, p.sessionId);
    assertRevision(r, p.expectedRevision);
    const levels = findModel(s.model)?.reasoning?.levels ?? [];
    if (!levels.some((l) => l.value === p.thoughtLevel)) {
      // [GUESSED] the shared model setter rejects a level the model does not offer.
      const e = new Error(`Reasoning effort "${p.thoughtLevel}" is not supported by ${s.model.providerId}/${s.model.modelId}`);
      e.name = "ModelProtocolError";
      (e as Error & { code: string }).code = "invalid_model_request";
      throw e;
    }
    s.model = { ...s.model, options: { reasoningLevel: p.thoughtLevel } };
    return mutated(sim, s, r, "thought_level_changed");
  },

  "session/setMode"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    assertRevision(r, p.expectedRevision);
    const previousMode = s.mode;
    s.mode = p.mode;
    sim.emit(s, "session.updated", { mode: s.mode, previousMode, source: "command" });
    return mutated(sim, s, r, "mode_changed");
  },

  "workspace/readPresentation"(_sim, p) {
    return {
      workspace: p.workspace,
      mode: "build",
      slashCommands: [
        { name: "compact", description: "Summarize the conversation to free context", source: "builtin" },
        { name: "goal", description: "Set or manage a long-running goal", inputHint: "<objective>", source: "builtin" },
      ],
    };
  },

  "runtime/capabilities"() {
    return { independentPlanState: true };
  },

  // ---- 0.15.x only (the 0.15 behaviour, unchanged) --------------------------------

  "session/steer"(sim, p) {
    const { r } = requireSession(sim, p.sessionId);
    const turn = r.turn;
    if (!turn) throw new RpcError(1309, "no turn is running");
    const content: string = p.content;
    return turn
      .emit("turn.steerQueued", {
        pendingInputId: newId("pending"),
        input: content,
        inputPreview: content.slice(0, 80),
        inputSize: content.length,
        delivery: "guide",
        targetTurnId: turn.id,
        queueLength: 1,
      })
      .catch(() => {})
      .then(() => ({ accepted: true }));
  },

  "session/rewind"(sim, p) {
    const { s, r } = requireSession(sim, p.sessionId);
    if (r.turn) throw new RpcError(1308, "prompt is running");
    if (p.expectedRevision !== undefined && p.expectedRevision !== r.revision) {
      throw new RpcError(1409, `revision conflict: expected ${String(p.expectedRevision)}, current ${r.revision}`, {
        revision: r.revision,
      });
    }
    const target = p.target as { kind: string; checkpointId?: string };
    const cp = target.kind === "checkpoint" ? s.checkpoints.find((c) => c.checkpointId === target.checkpointId) : latestCheckpoint(s);
    if (!cp) throw new RpcError(1410, "No checkpoint available", { sessionId: s.id });
    const removedMessages = s.messages.length - cp.messagesBefore;
    s.messages.splice(cp.messagesBefore);
    s.todos = structuredClone(cp.todosBefore);
    s.checkpoints.splice(s.checkpoints.indexOf(cp));
    s.turnCount = s.checkpoints.length;
    r.revision++;
    sim.store.touch(s);
    return { revision: r.revision, checkpointId: cp.checkpointId, removedMessages };
  },
};

export function lookup(sim: Sim, method: string): Handler | undefined {
  if (sim.pers.missing(method)) return undefined;
  if (sim.cfg.protocol === "v4-only") {
    // A CLI without the legacy file: only transport.ts V4_METHODS remain; the rest is -32601 "Method not found".
    const own = v4OnlyMethod(method);
    if (own) return own;
    return method.startsWith("v4/") && Object.hasOwn(v4Methods, method) ? v4Methods[method] : undefined;
  }
  if (Object.hasOwn(v4Methods, method)) return v4Methods[method];
  return Object.hasOwn(methods, method) ? methods[method] : undefined;
}
