import type { RequestError, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { invalidParams } from "./errors.ts";
import type { SessionUpdated } from "../zcode/event-schemas.ts";

// ZCode's subagents (its Agent/Task tools) as ACP child sessions, for a
// client that advertised `clientCapabilities.subagents`.
//
// ZCode reports a subagent on the parent's stream as untyped session.updated
// payloads (core/src/subagent/runner.ts emits them, bootstrap's
// session-mapper.ts maps every such event type to session.updated):
//   SubagentSpawned {agentId, agentType, childSessionId, description, prompt,
//                    parentToolCallId, status:"running", allowedTools, model?, background?}
//   SubagentStopped {agentId, agentType, childSessionId, parentToolCallId,
//                    status:"completed"|"failed"|"stopped", totalDurationMs, error?, …}
//   SubagentMessage {agentId, childSessionId?, summaryText? | text?}
// The child is a ZCode session of its own (taskType "subagent_child") whose
// events never reach the parent's legacy stream (only its tools, mirrored;
// child-rows.ts shows the rest from its v4 rows). Here: which payload is
// which, and what the editor is told of it on the parent session.

export type SubagentEvent =
  | {
      kind: "spawned";
      agentId: string;
      childSessionId: string;
      parentToolCallId?: string;
      agentType?: string;
      description?: string;
      prompt?: string;
    }
  | { kind: "stopped"; agentId: string; childSessionId?: string; status: string; error?: string; summary?: string }
  | { kind: "message"; agentId: string; childSessionId?: string; text: string };

const STOPPED = new Set(["completed", "failed", "error", "stopped", "cancelled", "killed"]);
/** ZCode's own reading of a failure that was a cancel (subagent-session-query.ts CANCELLATION_PATTERN). */
const CANCELLATION = /abort|cancel|interrupt|stop/i;

function errorText(e: unknown): string | undefined {
  if (typeof e === "string") return e.trim() || undefined;
  const m = (e as { message?: unknown } | null)?.message;
  return typeof m === "string" && m.trim() ? m.trim() : undefined;
}

/**
 * The subagent event a session.updated payload is, if any. A background
 * task's payload (taskKind, taskId) also names the child but is not one.
 */
export function subagentEventOf(p: SessionUpdated): SubagentEvent | undefined {
  const agentId = p.agentId;
  if (!agentId || p.taskKind !== undefined) return undefined;
  const childSessionId = p.childSessionId || undefined;
  if (p.status === "running") {
    if (!childSessionId) return undefined;
    return {
      kind: "spawned",
      agentId,
      childSessionId,
      ...(p.parentToolCallId ? { parentToolCallId: p.parentToolCallId } : {}),
      ...(p.agentType ? { agentType: p.agentType } : {}),
      ...(p.description?.trim() ? { description: p.description.trim() } : {}),
      ...(p.prompt?.trim() ? { prompt: p.prompt } : {}),
    };
  }
  if (typeof p.status === "string" && STOPPED.has(p.status)) {
    const error = errorText(p.error);
    return {
      kind: "stopped",
      agentId,
      status: p.status,
      ...(childSessionId ? { childSessionId } : {}),
      ...(error ? { error } : {}),
      ...(p.summaryText?.trim() ? { summary: p.summaryText.trim() } : {}),
    };
  }
  const text = p.summaryText ?? p.text;
  if (p.status === undefined && typeof text === "string" && text.trim()) {
    return { kind: "message", agentId, text, ...(childSessionId ? { childSessionId } : {}) };
  }
  return undefined;
}

/** The first subagent_update: the child exists, belongs to the parent's Agent tool call, and is working. */
export function announceChild(e: Extract<SubagentEvent, { kind: "spawned" }>): SessionUpdate {
  const title = e.description ?? e.agentType ?? t().tools.subagent;
  return {
    sessionUpdate: "subagent_update",
    sessionId: e.childSessionId,
    title,
    ...(e.prompt && e.prompt.trim() !== title ? { description: e.prompt.trim() } : {}),
    state: { state: "running" },
    _meta: {
      zcode: {
        agentId: e.agentId,
        ...(e.agentType ? { agentType: e.agentType } : {}),
        ...(e.parentToolCallId ? { parentToolCallId: e.parentToolCallId } : {}),
      },
    },
  };
}

/** The task the parent gave the child, as a message from the parent session to the child. */
export function taskMessage(parentId: string, childId: string, messageId: string, prompt: string): SessionUpdate {
  return {
    sessionUpdate: "session_message",
    messageId,
    senderSessionId: parentId,
    recipientSessionId: childId,
    content: [{ type: "text", text: prompt }],
  };
}

/** A report of the child to the parent: the participants once, then the words as a chunk. */
export function reportMessage(parentId: string, childId: string, messageId: string, text: string): SessionUpdate[] {
  return [
    { sessionUpdate: "session_message", messageId, senderSessionId: childId, recipientSessionId: parentId },
    { sessionUpdate: "session_message_chunk", messageId, content: { type: "text", text } },
  ];
}

const STOP_REASON: Record<string, "end_turn" | "cancelled" | "error"> = {
  completed: "end_turn",
  stopped: "cancelled",
  cancelled: "cancelled",
  killed: "cancelled",
  failed: "error",
  error: "error",
};

/** The child's work ended (it stays, idle: ZCode may resume it with a SendMessage). */
export function childStopped(childId: string, e: Extract<SubagentEvent, { kind: "stopped" }>): SessionUpdate {
  const failedByCancel = STOP_REASON[e.status] === "error" && e.error !== undefined && CANCELLATION.test(e.error);
  const stopReason = failedByCancel ? "cancelled" : (STOP_REASON[e.status] ?? "end_turn");
  const state =
    stopReason === "error"
      ? { state: "idle" as const, stopReason, ...(e.error ? { error: { code: -32603, message: e.error } } : {}) }
      : { state: "idle" as const, stopReason };
  return { sessionUpdate: "subagent_update", sessionId: childId, state };
}

/**
 * ACP's answer to a mutation of an announced child (prompt, load, resume,
 * fork, mode or option, close, delete): SubagentUpdate.capabilities "If never
 * supplied, no session mutations are permitted", and ZCode runs the child for
 * its parent (its own session/send answers -32010 "Subagent sessions are
 * read-only", server-operations.ts sendPrompt).
 */
export function subagentReadOnly(childId: string, parentId: string | undefined): RequestError {
  return invalidParams(t().errors.subagentReadOnly(parentId), {
    sessionId: childId,
    ...(parentId ? { parentSessionId: parentId } : {}),
    reason: "subagentReadOnly",
  });
}
