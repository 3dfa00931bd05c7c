import type { PlanEntry, SessionUpdate, ToolCallContent, ToolCallStatus } from "@agentclientprotocol/sdk/unstable";
import type { Message, Todo } from "../zcode/schemas.ts";
import { presentTool, resultContent, resultLocations, textContent } from "./tool-presentation.ts";

// session/load replays the conversation from ZCode's session/messages. Tool
// calls are replayed whole (one tool_call with the final status and content),
// through the same presentation as live ones, but never through the terminal
// extension: the command finished long ago and there is no terminal to stream.

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
    .filter((t) => typeof t.content === "string" && t.content.length > 0)
    .map((t) => ({
      content: t.content as string,
      status: PLAN_STATUS[String(t.status)] ?? "pending",
      priority: PLAN_PRIORITY[String(t.priority)] ?? "medium",
    }));
}

function str(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function errorText(e: unknown): string {
  if (typeof e === "string" && e) return e;
  if (typeof e === "object" && e !== null) {
    const m = (e as { message?: unknown }).message;
    if (typeof m === "string" && m) return m;
  }
  return "Tool failed";
}

function toolUpdate(part: Extract<Message["parts"][number], { type: "tool" }>, cwd: string): SessionUpdate | undefined {
  const id = str(part.toolCallId);
  if (!id) return undefined;
  const name = str(part.toolName) ?? "";
  const input = part.input ?? {};
  const state = (typeof part.state === "object" && part.state !== null ? part.state : {}) as Record<string, unknown>;
  const status = TOOL_STATUS[String(state.status)] ?? "completed";
  const view = presentTool(name, input, cwd);
  const output = str(state.output);
  let content: ToolCallContent[] = view.content;
  let locations = view.locations;
  let rawOutput: unknown = state.result !== undefined ? state.result : (output ?? null);
  if (status === "completed") {
    const c = resultContent(name, input, output, state.result, cwd);
    if (c.length > 0) content = c;
    const l = resultLocations(name, input, state.result, cwd);
    if (l.length > 0) locations = l;
  } else if (status === "failed") {
    content = [textContent(errorText(state.error))];
    rawOutput = state.error ?? rawOutput;
  }
  return {
    sessionUpdate: "tool_call",
    toolCallId: id,
    title: view.title,
    kind: view.kind,
    status,
    rawInput: input,
    rawOutput,
    locations,
    content,
  };
}

/**
 * The updates that replay a conversation: user and agent messages, thoughts
 * (each with the message id), tool calls with their outcome, compaction
 * summaries as an agent message, and the plan last.
 */
export function historyToUpdates(
  messages: readonly Message[],
  opts: { cwd: string; todos?: readonly Todo[] | null },
): SessionUpdate[] {
  const out: SessionUpdate[] = [];
  for (const m of messages) {
    const messageId = str(m.info?.id);
    const idField = messageId ? { messageId } : {};
    const parts = Array.isArray(m.parts) ? m.parts : [];
    if (m.semantics?.kind === "compact_summary") {
      const text = parts
        .filter((p) => p.type === "text" && typeof p.text === "string")
        .map((p) => p.text as string)
        .join("\n");
      out.push({
        sessionUpdate: "agent_message_chunk",
        ...idField,
        content: { type: "text", text: text ? `**Conversation summary** (earlier messages were compacted)\n\n${text}` : "**Earlier messages were compacted.**" },
      });
      continue;
    }
    const user = m.info?.role === "user";
    for (const p of parts) {
      if (p.type === "text" && typeof p.text === "string" && p.text.length > 0) {
        out.push({
          sessionUpdate: user ? "user_message_chunk" : "agent_message_chunk",
          ...idField,
          content: { type: "text", text: p.text },
        });
      } else if (p.type === "reasoning" && typeof p.text === "string" && p.text.length > 0) {
        out.push({ sessionUpdate: "agent_thought_chunk", ...idField, content: { type: "text", text: p.text } });
      } else if (p.type === "tool") {
        const u = toolUpdate(p, opts.cwd);
        if (u) out.push(u);
      }
    }
  }
  const entries = planEntries(opts.todos ?? []);
  if (entries.length > 0) out.push({ sessionUpdate: "plan", entries });
  return out;
}
