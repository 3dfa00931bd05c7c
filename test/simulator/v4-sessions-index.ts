// The `sessions-index/<workspaceId>` topic of a v4-only CLI: the session list
// as a snapshot of summaries, then `session.upserted` / `session.removed`
// deltas (rayn1314/ZCode packages/shared/src/zcode-protocol-v4/sessions-index.ts
// sessionsIndexSnapshotSchema, sessionSummarySchema, sessionsIndexDeltaSchema;
// "conflated 最新态，永不溢出"; drafts are listed: snapshot.ts sessionPhaseSchema
// "draft … sessions-index 可见"). Subscribed through v4/conversation/subscribe
// (transport.ts: "sessions-index 与 conversation 共用同一 subscribe RPC"), framed
// like the conversation topic (transport.ts sessionsIndexTopicFrameSchema).
import type { CallCtx } from "./methods.ts";
import type { Sim } from "./sim.ts";
import { uuid } from "./store.ts";
import type { SessionRecord } from "./types.ts";
import { pendingInteractionsOf } from "./v4-interactions.ts";
import { encodeTopicWireFrames } from "./v4-wire.ts";

interface IndexSub {
  subscriptionId: string;
  connectionId: string;
  ordinal: number;
  sentSeq: number;
}

interface IndexTopic {
  workspaceId: string;
  logEpoch: string;
  seq: number;
  summaries: Map<string, string>;
  subs: Map<string, IndexSub>;
  nextSub: number;
  nextFrame: number;
  scheduled: boolean;
  /** Sessions changed since the last step (only they are summarized again: the store's full list reads the disk). */
  pending: Set<string>;
}

const topics = new Map<string, IndexTopic>();

function phaseOf(sim: Sim, s: SessionRecord): string {
  if (sim.rt(s.id)?.turn) return "running";
  const last = (s.turnLog ?? []).at(-1);
  if (!last) return "draft";
  return last.state === "failed" ? "error" : last.state;
}

/** sessionSummarySchema. */
function summaryOf(sim: Sim, s: SessionRecord): Record<string, unknown> {
  const phase = phaseOf(sim, s);
  const pending = pendingInteractionsOf(s.id);
  const lastReply = [...s.messages].reverse().find((m) => m.info.role === "assistant");
  const preview = lastReply?.parts
    .map((p) => (p.type === "text" ? p.text : ""))
    .join("")
    .slice(0, 120);
  return {
    sessionId: s.id,
    workspaceId: s.workspace.workspacePath,
    ...(s.parentSessionId ? { parentSessionId: s.parentSessionId } : {}),
    title: s.title,
    titleSource:
      s.titleSource === "custom" ? "custom" : s.titleSource === "generated" || s.titleSource === "first_input" ? "generated" : "default",
    phase,
    sessionEnded: phase === "completedSuccess" || phase === "completedInterrupted",
    hasBackgroundWork: false,
    ...(pending.length
      ? {
          pendingInteraction: {
            interactionId: pending[0]!.view.interactionId,
            kind: pending[0]!.view.kind,
            toolName: (pending[0]!.view.payload as { toolName?: string }).toolName,
          },
          pendingInteractionSummary: {
            permissionCount: pending.filter((p) => p.view.kind === "permission").length,
            userInputCount: pending.filter((p) => p.view.kind === "userInput").length,
          },
        }
      : {}),
    lastActivityAt: s.updatedAt,
    ...(preview ? { lastAssistantPreview: preview } : {}),
    createdAt: s.createdAt,
  };
}

function members(sim: Sim, workspaceId: string): SessionRecord[] {
  // A subagent's session is no entry of the list (as legacy session/list: task-list-session-membership.ts).
  return sim.store.all().filter((s) => s.workspace.workspacePath === workspaceId && s.taskType !== "subagent_child");
}

function topicOf(sim: Sim, workspaceId: string): IndexTopic {
  let t = topics.get(workspaceId);
  if (!t) {
    t = {
      workspaceId,
      logEpoch: `${Date.now().toString(36)}-${uuid().replaceAll("-", "").slice(0, 8)}`,
      seq: 0,
      summaries: new Map(members(sim, workspaceId).map((s) => [s.id, JSON.stringify(summaryOf(sim, s))])),
      subs: new Map(),
      nextSub: 1,
      nextFrame: 1,
      scheduled: false,
      pending: new Set(),
    };
    topics.set(workspaceId, t);
  }
  return t;
}

function send(sim: Sim, t: IndexTopic, sub: IndexSub, payload: unknown, fromSeq: number, deliveryKind: "initial" | "online"): void {
  const topic = `sessions-index/${t.workspaceId}`;
  const frame = { topic, subscriptionId: sub.subscriptionId, fromSeq, toSeq: t.seq, sentAt: Date.now(), payload };
  const wires = encodeTopicWireFrames(
    frame,
    {
      deliveryKind,
      topic,
      subscriptionId: sub.subscriptionId,
      logicalFrameId: `${sub.subscriptionId}-lf-${t.nextFrame++}`,
      logicalFrameOrdinal: sub.ordinal++,
    },
    sim.cfg.v4MaxFrameBytes,
  );
  sub.sentSeq = t.seq;
  for (const w of wires) sim.out.frame({ method: "v4/conversation/frame", params: w });
}

function step(sim: Sim, t: IndexTopic): void {
  const deltas: Record<string, unknown>[] = [];
  for (const id of t.pending) {
    const s = sim.store.get(id);
    if (!s || s.workspace.workspacePath !== t.workspaceId || s.taskType === "subagent_child") {
      if (t.summaries.delete(id)) deltas.push({ op: "session.removed", sessionId: id });
      continue;
    }
    const summary = summaryOf(sim, s);
    const j = JSON.stringify(summary);
    if (t.summaries.get(id) !== j) {
      t.summaries.set(id, j);
      deltas.push({ op: "session.upserted", session: summary });
    }
  }
  t.pending.clear();
  if (deltas.length === 0) return;
  const from = t.seq;
  t.seq++;
  for (const sub of t.subs.values()) send(sim, t, sub, { kind: "deltas", deltas }, from, "online");
}

/** A session of this workspace changed (stored event, create, rename …): one step per tick. */
export function sessionsIndexChanged(sim: Sim, s: SessionRecord): void {
  const t = topics.get(s.workspace.workspacePath);
  if (!t) return;
  t.pending.add(s.id);
  if (t.scheduled) return;
  t.scheduled = true;
  queueMicrotask(() => {
    t.scheduled = false;
    step(sim, t);
  });
}

/** v4/conversation/subscribe on `sessions-index/<workspaceId>`: ack, then the snapshot frame after the answer. */
export function sessionsIndexSubscribe(sim: Sim, q: Record<string, any>, ctx: CallCtx): Record<string, unknown> {
  const workspaceId = (q.topic as string).slice("sessions-index/".length);
  if (!workspaceId) throw new Error("invalid sessions-index topic");
  const t = topicOf(sim, workspaceId);
  step(sim, t);
  for (const [id, old] of t.subs) if (old.connectionId === q.connectionId) t.subs.delete(id);
  const sub: IndexSub = { subscriptionId: `sub-${t.logEpoch}-${t.nextSub++}`, connectionId: q.connectionId, ordinal: 1, sentSeq: 0 };
  t.subs.set(sub.subscriptionId, sub);
  ctx.after(() =>
    send(
      sim,
      t,
      sub,
      {
        kind: "snapshot",
        snapshot: { protocolVersion: 1, workspaceId, logEpoch: t.logEpoch, sessions: [...t.summaries.values()].map((j) => JSON.parse(j)) },
      },
      0,
      "initial",
    ),
  );
  return { subscriptionId: sub.subscriptionId, mode: "snapshot", logEpoch: t.logEpoch };
}
