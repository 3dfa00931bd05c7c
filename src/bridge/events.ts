import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { SessionUpdated, Todo, TurnCompleted, TurnFailed, ZCodeEvent, ZCodeEventType } from "../zcode/schemas.ts";
import { planEntries } from "./history.ts";
import type { SessionState } from "./sessions.ts";

/** What a running turn learns from its events (the table below feeds it). */
export interface TurnHooks {
  started(): void;
  completed(p: TurnCompleted): void;
  failed(p: TurnFailed): void;
  /**
   * A todo tool finished. `planSent`: its result carried the new list and the
   * plan went out; otherwise the turn reads the todos at its end.
   */
  todosChanged(planSent: boolean): void;
  /** A tool that can switch the session's mode (plan approval) finished. */
  modeMayChange(): void;
}

export interface EventContext {
  session: SessionState;
  emit(u: SessionUpdate): void;
  /** Present while one of our prompt turns consumes the events. */
  turn?: TurnHooks;
}

type Handler<T extends ZCodeEventType> = (ctx: EventContext, e: Extract<ZCodeEvent, { type: T }>) => void;

const TODO_TOOLS = /todo/i;
const MODE_TOOLS = /^(ExitPlanMode|EnterPlanMode|SetMode)$/i;

/** ZCode event type → what the editor is told. */
const HANDLERS: { [T in ZCodeEventType]: Handler<T> } = {
  "turn.started": (ctx) => {
    ctx.session.messageIds = {};
    ctx.turn?.started();
  },
  "model.streaming": (ctx, e) => {
    const p = e.payload;
    switch (p.kind) {
      case "text_delta":
        return emitDelta(ctx, "text", p.delta);
      case "reasoning_delta":
        return emitDelta(ctx, "reasoning", p.delta);
      case "tool_call":
        // Text after a tool call is a new message.
        ctx.session.messageIds = {};
        for (const u of ctx.session.tracker.onModelToolCall(p)) ctx.emit(u);
        return;
    }
  },
  "tool.updated": (ctx, e) => {
    const p = e.payload;
    ctx.session.messageIds = {};
    for (const u of ctx.session.tracker.onToolUpdated(p)) ctx.emit(u);
    if ((p.kind === "result" || p.kind === "error") && MODE_TOOLS.test(p.toolName ?? "")) ctx.turn?.modeMayChange();
    // Todos reach session/read slightly after the result; the result's own
    // newTodos is the freshest list when ZCode includes it.
    if (p.kind === "result" && TODO_TOOLS.test(p.toolName ?? "")) {
      const todos = newTodosOf(p.result);
      if (todos) emitPlan(ctx, todos);
      ctx.turn?.todosChanged(todos !== undefined);
    } else if (p.kind === "batch") {
      for (const item of p.items) {
        if (item.kind === "result" && TODO_TOOLS.test(item.toolName ?? "")) {
          const todos = newTodosOf(item.result);
          if (todos) emitPlan(ctx, todos);
          ctx.turn?.todosChanged(todos !== undefined);
        }
      }
    }
  },
  "turn.completed": (ctx, e) => ctx.turn?.completed(e.payload),
  "turn.failed": (ctx, e) => ctx.turn?.failed(e.payload),
  "session.updated": (ctx, e) => {
    for (const u of sessionUpdatedToUpdates(ctx.session, e.payload)) ctx.emit(u);
  },
  // The steer was accepted when session/steer answered; the editor already
  // got its confirmation then.
  "turn.steerQueued": () => {},
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

export function applyEvent(ctx: EventContext, e: ZCodeEvent): void {
  (HANDLERS[e.type] as Handler<typeof e.type>)(ctx, e as never);
}

function isCount(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

type UsageUpdate = Extract<SessionUpdate, { sessionUpdate: "usage_update" }>;

/** usage_update when both figures are what ACP accepts (unsigned integers, a window > 0); a nonsensical one is dropped, not forwarded. */
export function usageUpdate(used: number | undefined, size: number | undefined): UsageUpdate | undefined {
  if (used === undefined || size === undefined || !isCount(used) || !isCount(size) || size === 0) return undefined;
  return { sessionUpdate: "usage_update", used, size };
}

export function sessionUpdatedToUpdates(s: SessionState, p: SessionUpdated): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  const usage = p.usage;
  if (usage) {
    const used = (usage.inputTokens ?? 0) + (usage.outputTokens ?? 0) || (usage.totalTokens ?? 0);
    const u = usageUpdate(used, p.contextWindow);
    if (u) out.push(u);
  }
  if (typeof p.title === "string" && p.title && p.title !== s.title) {
    s.title = p.title;
    out.push({ sessionUpdate: "session_info_update", title: p.title });
  }
  return out;
}

function newTodosOf(result: unknown): Todo[] | undefined {
  if (!result || typeof result !== "object") return undefined;
  const todos = (result as { newTodos?: unknown }).newTodos;
  if (!Array.isArray(todos)) return undefined;
  return todos.filter((t): t is Todo => !!t && typeof t === "object" && typeof (t as Todo).content === "string");
}

/** Sends `plan` with the full list unless it equals the last one sent. */
export function emitPlan(ctx: { session: SessionState; emit(u: SessionUpdate): void }, todos: readonly Todo[]): void {
  const entries = planEntries(todos);
  const key = JSON.stringify(entries);
  if (key === ctx.session.lastPlanKey) return;
  ctx.session.lastPlanKey = key;
  ctx.emit({ sessionUpdate: "plan", entries });
}
