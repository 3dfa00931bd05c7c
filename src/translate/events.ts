import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdated, TurnCompleted, TurnFailed, TurnStarted, ZCodeEvent, ZCodeEventType } from "../zcode/event-schemas.ts";
import type { Todo } from "../zcode/schemas.ts";
import { t } from "../i18n/index.ts";
import type { ClientFeatures } from "./client-features.ts";
import { planEntries, planUpdate, TODO_PLAN_ID } from "./history.ts";
import { optionUpdates, withCurrent, type SessionOptions } from "./options/options.ts";
import { subagentEventOf, type SubagentEvent } from "./subagents.ts";
import type { ToolCallTracker } from "./tools/tracker.ts";

/** What a running turn learns from its events (the table below feeds it). */
export interface TurnHooks {
  started(p: TurnStarted): void;
  completed(p: TurnCompleted): void;
  /** `turnId`: ZCode's id of the failed turn (0.16 puts it on the envelope), for a retry of that turn. */
  failed(p: TurnFailed, turnId: string | undefined): void;
  /** A model request of the turn ended, for this reason. */
  modelStopped(reason: string): void;
}

/** The part of a session its events read and change. */
export interface EventState {
  options: SessionOptions;
  title: string | undefined;
  tracker: ToolCallTracker;
  /** Message ids of the current agent message and thought (one per contiguous run). */
  messageIds: { text?: string; reasoning?: string };
  /** JSON of the last plan sent, so an unchanged todo list is not re-sent. */
  lastPlanKey: string | undefined;
  /** The context figures of the last usage_update sent. */
  lastUsage: { used: number; size: number } | undefined;
  /** Steers admitted into the running turn and not yet taken in, by ZCode's pendingInputId. */
  steers: Map<string, string>;
  /** What the client opted in to (plan_update instead of plan, …). */
  readonly features: Pick<ClientFeatures, "plans" | "compaction">;
  /** The compaction in progress as the editor knows it (its compactionId), if any. */
  compactionId: string | undefined;
}

/** Where a parent session's subagents go (present for a client that takes child sessions). */
export interface SubagentHooks {
  event(e: SubagentEvent): void;
  /**
   * A child's tool that ZCode mirrored into the parent (live-only: never
   * replayed): true when the child's own session took it (shown there,
   * under the child's tool id), false when the parent must show it.
   */
  mirrored(p: import("../zcode/event-schemas.ts").ToolUpdated): boolean;
}

export interface EventContext {
  session: EventState;
  emit(u: SessionUpdate): void;
  /**
   * ZCode holds this steer in its queue, paused (its turn was stopped or
   * failed first): the session removes it, so that it never runs unasked
   * and a held queue never refuses the next v4 input.
   */
  steerHeld?(pendingInputId: string): void;
  /** Present while one of our prompt turns consumes the events. */
  turn?: TurnHooks;
  subagents?: SubagentHooks;
}

type Handler<T extends ZCodeEventType> = (ctx: EventContext, e: Extract<ZCodeEvent, { type: T }>) => void;

const TODO_TOOLS = /^todowrite$/i;
const PLAN_APPROVAL_TOOLS = /^exitplanmode$/i;

/** ZCode event type → what the editor is told. Types not listed consume their seq and nothing else. */
const HANDLERS: { [T in ZCodeEventType]: Handler<T> } = {
  "turn.started": (ctx, e) => {
    ctx.session.messageIds = {};
    ctx.turn?.started(e.payload);
  },
  "turn.steerQueued": (ctx, e) => {
    const { pendingInputId, input, delivery } = e.payload;
    // An input queued behind the turn (delivery "queue") is no steer: it runs as a turn of its own.
    if (pendingInputId && input !== undefined && (delivery === undefined || delivery === "guide"))
      rememberSteer(ctx.session, pendingInputId, input);
  },
  "turn.steerDrained": (ctx, e) => {
    // The steer is now the user's words in this turn: the editor shows it as such, between the replies.
    ctx.session.messageIds = {};
    for (const d of e.payload.drainedInputs ?? []) {
      if (d.pendingInputId) ctx.session.steers.delete(d.pendingInputId);
      if (d.text)
        ctx.emit({ sessionUpdate: "user_message_chunk", messageId: crypto.randomUUID(), content: { type: "text", text: d.text } });
    }
  },
  "model.streaming": (ctx, e) => {
    const p = e.payload;
    switch (p.kind) {
      case "text_delta":
        return emitDelta(ctx, "text", p.delta);
      case "reasoning_delta":
        return emitDelta(ctx, "reasoning", p.delta);
      case "tool_input_start":
      case "tool_call":
        // Text after a tool call is a new message.
        ctx.session.messageIds = {};
        for (const u of ctx.session.tracker.onModelStreaming(p)) ctx.emit(u);
        return;
      // Markers (start, finish, text_start, …) and input deltas carry nothing to show.
    }
  },
  "tool.updated": (ctx, e) => {
    const p = e.payload;
    // A subagent's tool mirrored into the parent: its own session shows it, unless the parent
    // already does (a permission request for it announced it there) and must see it finish.
    if (
      p.source === "subagent" &&
      p.childSessionId &&
      p.toolCallId &&
      !ctx.session.tracker.pending(p.toolCallId) &&
      ctx.subagents?.mirrored(p)
    )
      return;
    ctx.session.messageIds = {};
    // The plan is the TodoWrite input; the result does not repeat it (and the tracker forgets it on finishing).
    const todo = p.kind === "result" && p.toolCallId ? ctx.session.tracker.pending(p.toolCallId) : undefined;
    // An approved plan-mode plan, for a client that takes plans: a Markdown plan of its own (its plan panel,
    // by id), and shown there only: the tool call keeps the verdict, not the plan a second time.
    const approved = todo && PLAN_APPROVAL_TOOLS.test(todo.name) && p.result?.success !== false && ctx.session.features.plans;
    const plan = approved ? (todo.input as { plan?: unknown } | undefined)?.plan : undefined;
    const planShown = typeof plan === "string" && plan.trim() ? plan : undefined;
    for (const u of ctx.session.tracker.onToolUpdated(p)) ctx.emit(planShown ? withoutText(u, planShown) : u);
    if (todo && TODO_TOOLS.test(todo.name) && p.result?.success !== false) {
      const todos = todosOf(todo.input);
      if (todos) emitPlan(ctx, todos);
    }
    if (planShown)
      ctx.emit({ sessionUpdate: "plan_update", plan: { type: "markdown", planId: `plan-${p.toolCallId}`, content: planShown } });
  },
  "permission.resolved": (ctx, e) => {
    for (const u of ctx.session.tracker.onPermissionResolved(e.payload.toolCallId, e.payload.decision, e.payload.reason)) ctx.emit(u);
  },
  "turn.completed": (ctx, e) => {
    // What was not taken in fell back before this (session.updated); nothing of this turn is pending any more.
    ctx.session.steers.clear();
    ctx.turn?.completed(e.payload);
  },
  "turn.failed": (ctx, e) => {
    // core turn.ts: a failed turn keeps the guides it never took in, queue paused, and says nothing of them.
    for (const id of [...ctx.session.steers.keys()]) steerNotDelivered(ctx, id, t().commands.steer.failedBeforeSteer, true);
    ctx.turn?.failed(e.payload, e.turnId ?? undefined);
  },
  "session.titleUpdated": (ctx, e) => {
    const title = e.payload.title;
    if (!title || title === ctx.session.title) return;
    ctx.session.title = title;
    ctx.emit({ sessionUpdate: "session_info_update", title });
  },
  "session.updated": (ctx, e) => {
    const subagent = subagentEventOf(e.payload);
    if (subagent) return ctx.subagents?.event(subagent);
    const compaction = compactionUpdate(ctx.session, e.payload);
    if (compaction) return ctx.emit(compaction);
    for (const u of sessionUpdatedToUpdates(ctx.session, e.payload)) ctx.emit(u);
    const fell = e.payload.fallbackReasonCode;
    if (fell && e.payload.pendingInputId) steerFellBack(ctx, e.payload.pendingInputId, fell);
    if (e.payload.stopReason) ctx.turn?.modelStopped(e.payload.stopReason);
  },
};

const CHUNK_KIND = { text: "agent_message_chunk", reasoning: "agent_thought_chunk" } as const;
const OTHER = { text: "reasoning", reasoning: "text" } as const;

/** A text or thought delta: one messageId per contiguous run of the same kind; empty deltas are dropped. */
function emitDelta(ctx: EventContext, kind: keyof typeof CHUNK_KIND, delta: string | undefined): void {
  if (!delta) return;
  const ids = ctx.session.messageIds;
  ids[OTHER[kind]] = undefined;
  ctx.emit({ sessionUpdate: CHUNK_KIND[kind], messageId: (ids[kind] ??= crypto.randomUUID()), content: { type: "text", text: delta } });
}

/** At most this many steers are remembered (a turn takes one per step; a flood must not grow memory). */
const MAX_STEERS = 64;

function rememberSteer(s: EventState, pendingInputId: string, text: string): void {
  s.steers.set(pendingInputId, text);
  while (s.steers.size > MAX_STEERS) s.steers.delete(s.steers.keys().next().value!);
}

/**
 * A steer ZCode could not take into its turn (TurnSteerDeliveryChanged, which
 * reaches the legacy stream as session.updated): the user is told, with what
 * becomes of it. Stopped turn: ZCode holds it in its queue and does not run it
 * by itself. No step boundary left: ZCode runs it as a turn of its own.
 */
function steerFellBack(ctx: EventContext, pendingInputId: string, reasonCode: string): void {
  const words = t().commands.steer;
  // Stopped: held in a paused queue (core turn.ts sets queueAutoDrain false; session-flow.ts stop does too).
  if (reasonCode === "guide.turnInterrupted") return steerNotDelivered(ctx, pendingInputId, words.fellBackStopped, true);
  const why = reasonCode === "guide.noToolBoundary" ? words.fellBackNoBoundary : words.fellBackOther(`\`${reasonCode}\``);
  steerNotDelivered(ctx, pendingInputId, why, false);
}

/** The user is told a steer did not reach its turn (with its text); a held one is removed from ZCode's queue. */
function steerNotDelivered(ctx: EventContext, pendingInputId: string, why: string, held: boolean): void {
  const text = ctx.session.steers.get(pendingInputId);
  ctx.session.steers.delete(pendingInputId);
  if (held) ctx.steerHeld?.(pendingInputId);
  ctx.session.messageIds = {};
  const quoted =
    text !== undefined
      ? `\n\n${text
          .split("\n")
          .map((l) => `> ${l}`)
          .join("\n")}`
      : "";
  ctx.emit({
    sessionUpdate: "agent_message_chunk",
    messageId: crypto.randomUUID(),
    content: { type: "text", text: `\n\n_${why}_${quoted}\n\n` },
  });
}

export function applyEvent(ctx: EventContext, e: ZCodeEvent): void {
  (HANDLERS[e.type] as Handler<typeof e.type>)(ctx, e as never);
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

type UsageUpdate = Extract<SessionUpdate, { sessionUpdate: "usage_update" }>;

/** usage_update when both figures are what ACP accepts (unsigned integers, a window > 0); a nonsensical one is dropped, not forwarded. */
export function usageUpdate(used: number | undefined | null, size: number | undefined | null): UsageUpdate | undefined {
  if (used === undefined || used === null || size === undefined || size === null) return undefined;
  if (!isCount(used) || !isCount(size) || size === 0) return undefined;
  return { sessionUpdate: "usage_update", used, size };
}

/** Sends a usage_update unless the editor already shows these figures. */
export function emitUsage(
  ctx: { session: EventState; emit(u: SessionUpdate): void },
  used: number | undefined | null,
  size: number | undefined | null,
): void {
  const u = usageUpdate(used, size ?? ctx.session.options.model?.contextWindow);
  if (!u) return;
  const last = ctx.session.lastUsage;
  if (last?.used === u.used && last.size === u.size) return;
  ctx.session.lastUsage = { used: u.used, size: u.size };
  ctx.emit(u);
}

/**
 * `session.updated` carries ZCode's runtime payloads untagged. Two matter to
 * the editor: a mode change (`{mode, previousMode}`: plan approved, a tool
 * switched it) and a model request's usage, whose input tokens are the
 * context in use.
 */
/** ZCode's session modes (its protocol's mode enum); follow-up modes (queue, guide) are not among them. */
const ZCODE_MODES: ReadonlySet<string> = new Set(["plan", "build", "edit", "yolo", "guarded", "auto"]);

export function sessionUpdatedToUpdates(s: EventState, p: SessionUpdated): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  const emit = (u: SessionUpdate) => out.push(u);
  // Only a real mode change moves the editor's mode: ZCode's mode_changed payload
  // carries previousMode; other payloads with a `mode` (the follow-up mode
  // queue/guide, hooks) are not modes.
  const mode = s.options.mode;
  const knownMode = typeof p.mode === "string" && (ZCODE_MODES.has(p.mode) || mode?.choices.some((c) => c.value === p.mode) === true);
  if (typeof p.mode === "string" && p.mode && typeof p.previousMode === "string" && knownMode && p.mode !== mode?.current) {
    const before = s.options;
    s.options = withCurrent(before, "mode", p.mode);
    for (const u of optionUpdates(before, s.options)) emit(u);
  }
  // ZCode's own meter counts the last completion's input and output (what the next request carries).
  if (p.usage && typeof p.usage.inputTokens === "number")
    emitUsage({ session: s, emit }, p.usage.inputTokens + (p.usage.outputTokens ?? 0), p.contextWindow);
  return out;
}

const ENDED_COMPACTION: Record<string, "failed" | "cancelled"> = { failed: "failed", interrupted: "cancelled" };

/**
 * A compaction's progress as ZCode reports it (session.updated with a
 * trigger and token counts: /compact, or one ZCode started itself), as a
 * compaction_update for a client that takes them. /compact names the entity
 * first (compactionId), so its own updates and these patch the same one.
 * Undefined when the payload is not a compaction's or the client does not
 * take them (it sees /compact's tool call, and nothing of ZCode's own).
 */
export function compactionUpdate(s: EventState, p: SessionUpdated): SessionUpdate | undefined {
  if (typeof p.trigger !== "string" || typeof p.preCompactTokenCount !== "number") return undefined;
  if (!s.features.compaction) return undefined;
  const compactionId = (s.compactionId ??= `compaction-${crypto.randomUUID()}`);
  const ended = typeof p.status === "string" ? ENDED_COMPACTION[p.status] : undefined;
  const status = ended ?? (typeof p.postCompactTokenCount === "number" ? "completed" : "in_progress");
  if (status !== "in_progress") s.compactionId = undefined;
  return { sessionUpdate: "compaction_update", compactionId, status };
}

function todosOf(input: unknown): Todo[] | undefined {
  const todos = (input as { todos?: unknown } | undefined)?.todos;
  if (!Array.isArray(todos)) return undefined;
  return todos.filter((t): t is Todo => !!t && typeof t === "object" && typeof (t as Todo).content === "string");
}

/**
 * Sends the todo list (the full list, as ACP wants) unless it equals the
 * last one sent: `plan_update` for a client that takes plans by id (an
 * emptied list is `plan_removed`), else `plan`.
 */
export function emitPlan(ctx: { session: EventState; emit(u: SessionUpdate): void }, todos: readonly Todo[]): void {
  const entries = planEntries(todos);
  const key = JSON.stringify(entries);
  if (key === ctx.session.lastPlanKey) return;
  const hadPlan = ctx.session.lastPlanKey !== undefined && ctx.session.lastPlanKey !== "[]";
  ctx.session.lastPlanKey = key;
  if (!ctx.session.features.plans) return ctx.emit({ sessionUpdate: "plan", entries });
  if (entries.length === 0) {
    if (hadPlan) ctx.emit({ sessionUpdate: "plan_removed", planId: TODO_PLAN_ID });
    return;
  }
  ctx.emit(planUpdate(entries));
}

/** A finished tool call's update without the content block that is exactly `text` (shown elsewhere). */
function withoutText(u: SessionUpdate, text: string): SessionUpdate {
  if (u.sessionUpdate !== "tool_call_update" || !u.content) return u;
  return { ...u, content: u.content.filter((c) => !(c.type === "content" && c.content.type === "text" && c.content.text === text)) };
}
