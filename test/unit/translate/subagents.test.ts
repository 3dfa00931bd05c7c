// ZCode's subagent payloads (session.updated, untyped) → ACP child-session updates.
import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { applyEvent, type EventContext, type EventState, type SubagentHooks } from "../../../src/translate/events.ts";
import {
  announceChild,
  childStopped,
  reportMessage,
  subagentEventOf,
  taskMessage,
  type SubagentEvent,
} from "../../../src/translate/subagents.ts";
import { ToolCallTracker } from "../../../src/translate/tools/tracker.ts";
import { parseEvent, readEnvelope, type SessionUpdated, type ZCodeEvent } from "../../../src/zcode/event-schemas.ts";
import { CWD, expectValid } from "../support/bridge-fixtures.ts";

/** SubagentSpawned as runner.ts emits it on the parent. */
const SPAWNED = {
  agentId: "agent_1",
  agentType: "general-purpose",
  childSessionId: "sess_subagent_agent_1",
  description: "Find callers of greet",
  prompt: "Search the codebase for greet()",
  parentToolCallId: "call_1",
  status: "running",
  allowedTools: ["Read", "Grep"],
};
const STOPPED = {
  agentId: "agent_1",
  agentType: "general-purpose",
  childSessionId: "sess_subagent_agent_1",
  parentToolCallId: "call_1",
  status: "completed",
  totalDurationMs: 10,
  totalToolUseCount: 1,
};

let seq = 0;
function ev(type: string, payload: unknown): ZCodeEvent {
  const raw = readEnvelope({ eventId: `e${++seq}`, sessionId: "s1", seq, timestamp: 1, traceId: "tr", type, payload });
  if (typeof raw === "string") throw new Error(raw);
  const r = parseEvent(raw);
  if (!r.ok) throw new Error(JSON.stringify(r));
  return r.event;
}

function payload(p: Record<string, unknown>): SessionUpdated {
  const e = ev("session.updated", p);
  if (e.type !== "session.updated") throw new Error("not session.updated");
  return e.payload;
}

describe("subagentEventOf", () => {
  test("Spawned, Message and Stopped as ZCode sends them", () => {
    expect(subagentEventOf(payload(SPAWNED))).toEqual({
      kind: "spawned",
      agentId: "agent_1",
      childSessionId: "sess_subagent_agent_1",
      parentToolCallId: "call_1",
      agentType: "general-purpose",
      description: "Find callers of greet",
      prompt: "Search the codebase for greet()",
    });
    expect(subagentEventOf(payload({ agentId: "agent_1", childSessionId: "c", summaryText: "scanned" }))).toEqual({
      kind: "message",
      agentId: "agent_1",
      childSessionId: "c",
      text: "scanned",
    });
    expect(subagentEventOf(payload({ agentId: "agent_1", text: "progress" }))).toEqual({
      kind: "message",
      agentId: "agent_1",
      text: "progress",
    });
    expect(subagentEventOf(payload(STOPPED))).toEqual({
      kind: "stopped",
      agentId: "agent_1",
      childSessionId: "sess_subagent_agent_1",
      status: "completed",
    });
    expect(subagentEventOf(payload({ ...STOPPED, status: "failed", error: "429 rate limited" }))).toMatchObject({
      kind: "stopped",
      status: "failed",
      error: "429 rate limited",
    });
  });

  test("other session.updated payloads are not subagent events", () => {
    // A background task of a subagent names the child but is a task, not the subagent.
    expect(
      subagentEventOf(payload({ taskId: "agent_1", taskKind: "subagent", childSessionId: "c", status: "completed", agentId: "agent_1" })),
    ).toBeUndefined();
    expect(subagentEventOf(payload({ mode: "build", previousMode: "plan" }))).toBeUndefined();
    expect(subagentEventOf(payload({ stopReason: "stop", usage: { inputTokens: 3 } }))).toBeUndefined();
    expect(subagentEventOf(payload({ trigger: "manual", preCompactTokenCount: 9, status: "failed" }))).toBeUndefined();
    // A spawn without its child session cannot be shown as one.
    expect(subagentEventOf(payload({ ...SPAWNED, childSessionId: undefined }))).toBeUndefined();
    expect(subagentEventOf(payload({ agentId: "agent_1", status: "running", childSessionId: 42 }))).toBeUndefined();
  });
});

describe("the updates", () => {
  const spawned = subagentEventOf(payload(SPAWNED)) as Extract<SubagentEvent, { kind: "spawned" }>;

  test("announce: title, the task as description, running, the Agent tool call in _meta", () => {
    const u = announceChild(spawned);
    expect(u).toEqual({
      sessionUpdate: "subagent_update",
      sessionId: "sess_subagent_agent_1",
      title: "Find callers of greet",
      description: "Search the codebase for greet()",
      state: { state: "running" },
      _meta: { zcode: { agentId: "agent_1", agentType: "general-purpose", parentToolCallId: "call_1" } },
    });
    expectValid([u]);
  });

  test("task and report messages; the end as an idle state with ACP's stop reason", () => {
    const out: SessionUpdate[] = [
      taskMessage("p", "c", "c-message-1", "do it"),
      ...reportMessage("p", "c", "c-message-2", "done"),
      childStopped("c", { kind: "stopped", agentId: "a", status: "completed" }),
      childStopped("c", { kind: "stopped", agentId: "a", status: "stopped" }),
      childStopped("c", { kind: "stopped", agentId: "a", status: "failed", error: "boom" }),
    ];
    expectValid(out);
    expect(out[0]).toMatchObject({
      messageId: "c-message-1",
      senderSessionId: "p",
      recipientSessionId: "c",
      content: [{ type: "text", text: "do it" }],
    });
    expect(out[1]).toEqual({ sessionUpdate: "session_message", messageId: "c-message-2", senderSessionId: "c", recipientSessionId: "p" });
    expect(out[2]).toEqual({ sessionUpdate: "session_message_chunk", messageId: "c-message-2", content: { type: "text", text: "done" } });
    expect(out.slice(3).map((u) => (u as { state: unknown }).state)).toEqual([
      { state: "idle", stopReason: "end_turn" },
      { state: "idle", stopReason: "cancelled" },
      { state: "idle", stopReason: "error", error: { code: -32603, message: "boom" } },
    ]);
  });
});

test("a failure that was the parent's cancel reads as cancelled, as ZCode's own query reads it", () => {
  const u = childStopped("c", {
    kind: "stopped",
    agentId: "a",
    status: "failed",
    error: "Agent was cancelled before the subagent returned findings or background launch completed",
  });
  expect(u).toEqual({ sessionUpdate: "subagent_update", sessionId: "c", state: { state: "idle", stopReason: "cancelled" } });
});

describe("applyEvent with subagent hooks", () => {
  function state(): EventState {
    return {
      features: { plans: false, compaction: false },
      compactionId: undefined,
      options: {},
      title: undefined,
      tracker: new ToolCallTracker({ cwd: CWD, terminalOutput: false }),
      messageIds: {},
      lastPlanKey: undefined,
      lastUsage: undefined,
      steers: new Map(),
    };
  }
  const mirrored = (kind: string, extra: Record<string, unknown> = {}) =>
    ev("tool.updated", {
      kind,
      toolCallId: "tool_subagent_agent_1_call_9",
      toolName: "Grep",
      source: "subagent",
      childSessionId: "sess_subagent_agent_1",
      childToolCallId: "call_9",
      parentToolCallId: "call_1",
      agentId: "agent_1",
      ...extra,
    });

  test("subagent payloads go to the hooks, nothing to the parent's own stream", () => {
    const seen: SubagentEvent[] = [];
    const out: SessionUpdate[] = [];
    const hooks: SubagentHooks = { event: (e) => seen.push(e), mirrored: () => true };
    const ctx: EventContext = { session: state(), emit: (u) => out.push(u), subagents: hooks };
    applyEvent(ctx, ev("session.updated", SPAWNED));
    applyEvent(ctx, ev("session.updated", STOPPED));
    expect(seen.map((e) => e.kind)).toEqual(["spawned", "stopped"]);
    expect(out).toEqual([]);
  });

  test("a child's mirrored tool goes to the child's own session when it takes it, else the parent shows it", () => {
    for (const shown of [true, false]) {
      const out: SessionUpdate[] = [];
      const taken: string[] = [];
      const ctx: EventContext = {
        session: state(),
        emit: (u) => out.push(u),
        subagents: {
          event: () => {},
          mirrored: (p) => {
            if (shown && p.childSessionId === "sess_subagent_agent_1") taken.push(p.kind);
            return shown && p.childSessionId === "sess_subagent_agent_1";
          },
        },
      };
      applyEvent(ctx, mirrored("scheduled", { input: { pattern: "greet" } }));
      applyEvent(ctx, mirrored("started", { startedAt: 1 }));
      applyEvent(ctx, mirrored("result", { result: { success: true, content: "x" }, duration: 1 }));
      expectValid(out);
      if (shown) {
        expect(out).toEqual([]);
        expect(taken).toEqual(["scheduled", "started", "result"]);
      } else expect(out.some((u) => u.sessionUpdate === "tool_call")).toBe(true);
    }
  });

  test("a mirrored tool the parent already shows (announced for a permission request) finishes there", () => {
    const out: SessionUpdate[] = [];
    const s = state();
    const ctx: EventContext = { session: s, emit: (u) => out.push(u), subagents: { event: () => {}, mirrored: () => true } };
    applyEvent(ctx, mirrored("scheduled", { input: { pattern: "greet" } }));
    expect(out).toEqual([]);
    // What the interaction router does before asking the editor.
    out.push(...s.tracker.ensureAnnounced("tool_subagent_agent_1_call_9", { toolName: "Grep", input: { pattern: "greet" } }));
    applyEvent(ctx, mirrored("started", { startedAt: 1 }));
    applyEvent(ctx, mirrored("result", { result: { success: true, content: "x" }, duration: 1 }));
    expectValid(out);
    expect(out.at(-1)).toMatchObject({
      sessionUpdate: "tool_call_update",
      toolCallId: "tool_subagent_agent_1_call_9",
      status: "completed",
    });
  });

  test("without hooks (a client that did not opt in) the payloads change nothing", () => {
    const out: SessionUpdate[] = [];
    applyEvent({ session: state(), emit: (u) => out.push(u) }, ev("session.updated", SPAWNED));
    expect(out).toEqual([]);
  });
});
