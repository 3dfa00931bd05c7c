// The session snapshot of create/resume/read/fork/goal/compact/set* results
// (`buildSessionSnapshot` of the CLI) and the pieces it is made of.
import { findModel, isWithdrawn, offeredModels, type ModelEntry } from "./catalog.ts";
import type { Sim } from "./sim.ts";
import type { Goal, SessionRecord } from "./types.ts";

export type ModelAvailability = "full" | "current";

export function currentModelEntry(s: SessionRecord): ModelEntry | undefined {
  return findModel(s.model);
}

export function contextWindow(s: SessionRecord): number {
  return currentModelEntry(s)?.contextWindow ?? 200000;
}

export function goalInfo(s: SessionRecord, g: Goal | null): Record<string, unknown> | null {
  if (!g) return null;
  return {
    sessionId: s.id,
    targetId: g.targetId,
    objective: g.objective,
    summaryTitle: null,
    status: g.status,
    tokenBudget: null,
    tokensUsed: g.tokensUsed,
    timeUsedSeconds: Math.max(0, Math.floor((Date.now() - g.createdAt) / 1000)),
    createdAt: g.createdAt,
    updatedAt: g.updatedAt,
  };
}

/** The runtime projection's status: idle once the core's turn ended, even while the prompt lock is still held (Turn.coreEnded). */
export function status(sim: Sim, s: SessionRecord): "idle" | "running" {
  const turn = sim.rt(s.id)?.turn;
  return turn && !turn.coreEnded ? "running" : "idle";
}

/** ZCodeSessionInfo (also the items of session/list). */
export function sessionInfo(sim: Sim, s: SessionRecord): Record<string, unknown> {
  const info: Record<string, unknown> = {
    sessionId: s.id,
    workspace: s.workspace,
  };
  if (s.parentSessionId) info.parentSessionId = s.parentSessionId;
  info.traceId = s.traceId;
  info.sessionKind = s.taskType ?? "interactive";
  info.title = s.title;
  if (s.titleSource) info.titleSource = s.titleSource;
  info.mode = s.mode;
  info.status = status(sim, s);
  info.model = { providerId: s.model.providerId, modelId: s.model.modelId };
  if (s.goal) info.target = goalInfo(s, s.goal);
  info.createdAt = s.createdAt;
  info.updatedAt = s.updatedAt;
  return info;
}

export function settings(s: SessionRecord, availability: ModelAvailability): Record<string, unknown> {
  const entry = currentModelEntry(s);
  // A withdrawn model is in no list, even as the current one.
  const available = availability === "full" ? offeredModels() : entry && !isWithdrawn(entry.ref) ? [entry] : [];
  const levels = entry?.reasoning?.levels ?? [];
  const level = s.model.options?.reasoningLevel;
  const thoughtLevel: Record<string, unknown> = { enabled: levels.length > 0 };
  if (level && levels.length > 0) thoughtLevel.current = level;
  if (entry?.reasoning?.defaultLevel) thoughtLevel.defaultLevel = entry.reasoning.defaultLevel;
  thoughtLevel.available = levels;
  const model: Record<string, unknown> = { current: structuredClone(s.model), available: structuredClone(available) };
  if (s.lastUsed) model.lastUsed = s.lastUsed;
  return { model, thoughtLevel, mode: { current: s.mode }, permission: { mode: s.mode } };
}

export function projection(sim: Sim, s: SessionRecord): Record<string, unknown> {
  const r = sim.rt(s.id);
  const p: Record<string, unknown> = {
    sessionId: s.id,
    status: status(sim, s),
    mode: s.mode,
    turnCount: s.turnCount,
    totalTokenCount: s.totalTokens,
    contextUsed: s.contextUsed,
    contextWindow: contextWindow(s),
  };
  if (r?.turn) p.currentTurnId = r.turn.id;
  p.pendingPermissions = r ? [...r.pendingPermissions.values()] : [];
  p.activeToolCalls = r ? [...r.activeTools.values()] : [];
  p.backgroundJobs = [];
  if (s.goal) p.target = goalInfo(s, s.goal);
  return p;
}

export function runtimeState(sim: Sim, s: SessionRecord): Record<string, unknown> {
  const r = sim.rt(s.id);
  // Every snapshot's eventSeq comes from getProtocolEventSeq (server-operations.ts): a re-read, which numbers a held tail.
  const rt: Record<string, unknown> = { eventSeq: r ? sim.eventSeq(s) : 0, stateRevision: r?.revision ?? 0 };
  if (r?.deliveryKind) rt.deliveryKind = r.deliveryKind;
  if (r?.turn) {
    rt.activeTurnId = r.turn.id;
    rt.activeTurnKind = r.turn.kind;
  }
  rt.pendingRequestIds = r ? [...r.pendingPermissions.keys()] : [];
  return rt;
}

export function snapshot(
  sim: Sim,
  s: SessionRecord,
  opts: { availability?: ModelAvailability; messageLimit?: number } = {},
): Record<string, unknown> {
  const limit = opts.messageLimit;
  const messages = limit && limit > 0 ? s.messages.slice(-limit) : s.messages;
  return {
    protocol: { name: "ZCode Protocol", version: 1 },
    session: sessionInfo(sim, s),
    settings: settings(s, opts.availability ?? "full"),
    projection: projection(sim, s),
    runtime: runtimeState(sim, s),
    messages: structuredClone(messages),
    todos: structuredClone(s.todos),
  };
}
