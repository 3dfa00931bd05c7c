import type { PlanEntry, SessionUpdate, ToolCallStatus } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import type { Message, MessageInfo, MessagePart, Todo } from "../zcode/schemas.ts";
import { capped, withoutReminders } from "./tools/format.ts";
import { outcomeOfPart } from "./tools/outcome.ts";
import { presentTool, rawResult, resultContent, resultLocations, streamsOutput } from "./tools/presentation.ts";

// session/load replays the conversation from ZCode's session/messages. Tool
// calls are replayed whole (one tool_call with the final status and content),
// through the same presentation as live ones, but never through the terminal
// extension: the command finished long ago and there is no terminal to stream.
// Messages ZCode wrote for the model (system reminders, notices, synthetic
// inputs) are not the user's words and are left out.

const TOOL_STATUS: Record<string, ToolCallStatus> = {
  completed: "completed",
  error: "failed",
  // A tool still pending/running in history belongs to a turn that is still
  // going (live events will finish it under the same id) or that died; either
  // way the stored status is the honest one.
  pending: "pending",
  running: "in_progress",
};

const PLAN_STATUS: Record<string, PlanEntry["status"]> = {
  pending: "pending",
  in_progress: "in_progress",
  completed: "completed",
  // ZCode has been seen to keep cancelled todos; ACP has no such state.
  cancelled: "completed",
};

const PLAN_PRIORITY: Record<string, PlanEntry["priority"]> = { high: "high", medium: "medium", low: "low" };

/** ZCode todos → ACP plan entries (the full list, as ACP wants every time). */
export function planEntries(todos: readonly Todo[]): PlanEntry[] {
  return todos
    .filter((todo) => typeof todo.content === "string" && todo.content.length > 0)
    .map((todo) => ({
      content: todo.content,
      status: PLAN_STATUS[String(todo.status)] ?? "pending",
      priority: PLAN_PRIORITY[String(todo.priority)] ?? "medium",
    }));
}

/** The id of the session's todo list as a plan (there is one list per session). */
export const TODO_PLAN_ID = "todos";

/** The todo list as a `plan_update` (for a client that opted in to plans by id). */
export function planUpdate(entries: PlanEntry[]): SessionUpdate {
  return { sessionUpdate: "plan_update", plan: { type: "items", planId: TODO_PLAN_ID, entries } };
}

/** Semantics kinds that are the user's own words or the agent's answer; every other kind is ZCode's bookkeeping. */
const SHOWN_KINDS = new Set(["user_prompt", "slash_command", "assistant_response"]);

/** Whether a message is part of what the user saw (not a reminder or notice written for the model). */
function visible(info: MessageInfo): boolean {
  if (info.visibility === "model-only") return false;
  const sem = info.semantics;
  if (sem?.uiVisibility !== undefined && sem.uiVisibility !== "visible") return false;
  if (sem?.transcriptVisibility === "hidden") return false;
  if (sem?.kind !== undefined && !SHOWN_KINDS.has(sem.kind) && sem.kind !== "compact_summary") return false;
  // A user message ZCode made up (fork, rewind, goal and background notices) is not something the user typed.
  if (info.role === "user" && info.synthetic === true) return false;
  return true;
}

function toolUpdate(part: Extract<MessagePart, { type: "tool" }>, cwd: string): SessionUpdate {
  const known = part.state.input;
  const input = known ?? {};
  const status = TOOL_STATUS[part.state.status] ?? "completed";
  const view = presentTool(part.tool, input, cwd);
  const finished = status === "completed" || status === "failed";
  const outcome = outcomeOfPart(streamsOutput(part.tool), part.state);
  const content = finished ? resultContent(part.tool, input, outcome, cwd) : view.content;
  const locations = finished ? resultLocations(part.tool, input, outcome, cwd) : view.locations;
  const u: SessionUpdate = {
    sessionUpdate: "tool_call",
    toolCallId: part.callId,
    title: view.title,
    kind: view.kind,
    status: finished && outcome.failed ? "failed" : status,
    locations: locations.length > 0 ? locations : view.locations,
    content: content.length > 0 ? content : view.content,
  };
  if (part.tool) u.name = part.tool;
  if (known !== undefined) u.rawInput = boundedInput(known);
  // The same rawOutput the live tool got (docs/raw-output.md).
  const raw = finished ? rawResult(part.tool, input, outcome) : undefined;
  if (raw !== undefined) u.rawOutput = raw;
  return u;
}

/** Past this, a string in a replayed tool's input is cut (a Write of a huge file): rawInput stays small. */
const INPUT_STRING_MAX = 64 * 1024;

/** The input with any huge string cut, and a note saying how much (top-level strings; ZCode's inputs are flat). */
function boundedInput(input: unknown): unknown {
  if (!input || typeof input !== "object" || Array.isArray(input)) return input;
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    if (typeof v === "string" && v.length > INPUT_STRING_MAX) {
      out[k] = capped(v, INPUT_STRING_MAX);
      changed = true;
    } else out[k] = v;
  }
  return changed ? out : input;
}

function partsText(parts: readonly MessagePart[]): string {
  return parts
    .filter((p): p is Extract<MessagePart, { type: "text" }> => p.type === "text")
    .map((p) => p.text)
    .join("\n");
}

/**
 * The summary text of a compaction's message ("" when it has none), or
 * undefined for any other message.
 */
export function compactionSummary(m: Message): string | undefined {
  if (m.info.semantics?.kind !== "compact_summary") return undefined;
  return withoutReminders(partsText(m.parts)).trim();
}

/**
 * One text of a replayed message in pieces of at most CHUNK_MAX characters
 * (one message id, so the editor joins them): no single update an editor has
 * to parse grows with a huge message.
 */
const CHUNK_MAX = 256 * 1024;

function* pieces(text: string): Generator<string> {
  for (let i = 0; i < text.length; i += CHUNK_MAX) yield text.slice(i, i + CHUNK_MAX);
}

export interface HistoryOptions {
  cwd: string;
  todos?: readonly Todo[] | null;
  compaction?: boolean;
  plans?: boolean;
}

/** historyUpdates as a list (tests, small histories). */
export function historyToUpdates(messages: readonly Message[], opts: HistoryOptions): SessionUpdate[] {
  return [...historyUpdates(messages, opts)];
}

/**
 * The updates that replay a conversation, one message at a time: user and
 * agent messages, thoughts (each with the message id), tool calls with
 * their outcome, a compaction summary as one agent message, and the plan
 * last. Every update is bounded (texts in pieces, tool output capped).
 */
export function* historyUpdates(messages: readonly Message[], opts: HistoryOptions): Generator<SessionUpdate> {
  let n = 0;
  for (const m of messages) {
    n++;
    const messageId = m.info.messageId;
    const idField = messageId ? { messageId } : {};
    const text = compactionSummary(m);
    if (text !== undefined && opts.compaction) {
      // A client that takes compactions gets the entity, its summary attached.
      yield {
        sessionUpdate: "compaction_update",
        compactionId: messageId ?? `compaction-${n}`,
        status: "completed",
        ...(text ? { summary: [{ type: "text", text }] } : {}),
      };
      continue;
    }
    if (text !== undefined) {
      yield {
        sessionUpdate: "agent_message_chunk",
        ...idField,
        content: { type: "text", text: text ? t().bridge.history.summary(text) : t().bridge.history.compacted },
      };
      continue;
    }
    if (!visible(m.info)) continue;
    const user = m.info.role === "user";
    for (const p of m.parts) {
      if (p.type === "text") {
        if (p.synthetic === true || p.ignored === true) continue;
        const text = user ? withoutReminders(p.text) : p.text;
        if (text.trim().length === 0) continue;
        for (const piece of pieces(text)) {
          yield { sessionUpdate: user ? "user_message_chunk" : "agent_message_chunk", ...idField, content: { type: "text", text: piece } };
        }
      } else if (p.type === "reasoning" && p.text.length > 0) {
        for (const piece of pieces(p.text))
          yield { sessionUpdate: "agent_thought_chunk", ...idField, content: { type: "text", text: piece } };
      } else if (p.type === "tool") {
        yield toolUpdate(p, opts.cwd);
      }
    }
  }
  const entries = planEntries(opts.todos ?? []);
  if (entries.length > 0) yield opts.plans ? planUpdate(entries) : { sessionUpdate: "plan", entries };
}
