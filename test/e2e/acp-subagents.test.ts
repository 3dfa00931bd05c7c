// ZCode's subagents (issue 21, point 5). A client that advertises
// `clientCapabilities.subagents` sees the Agent tool's subagent as a child
// session: subagent_update on the parent (announced before any traffic of
// the child, linked to the Agent tool call), the task and the report as
// session_message, the child's own messages and tools on its own session id,
// and its end as an idle state. Any other client sees the flat tool calls it
// always saw, and nothing of the child. Every message is checked against the
// SDK's unstable schema by the harness.
import { expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { withBridge, type Harness } from "../support/acp-harness.ts";

const SUBAGENT_KINDS = ["subagent_update", "session_message", "session_message_chunk"];

function agentCall(h: Harness, sessionId: string) {
  return h.updatesOfKind(sessionId, "tool_call").find((c) => c.name === "Agent")!;
}

function childOf(h: Harness, sessionId: string): string {
  return h.updatesOfKind(sessionId, "subagent_update")[0]!.sessionId;
}

test("subagents opted in: subagent_update, session_message and the child's own session", async () => {
  await withBridge({ clientCapabilities: { subagents: {} } as acp.ClientCapabilities, record: true }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "#scenario:subagent")).stopReason).toBe("end_turn");
    const child = childOf(h, sessionId);
    await h.waitFor(
      () =>
        h.updatesOfKind(sessionId, "subagent_update").some((u) => u.state?.state === "idle") && h.text(child).includes("Found 2 callers"),
      "the child's answer and its end",
    );

    const call = agentCall(h, sessionId);
    const [announce, ...rest] = h.updatesOfKind(sessionId, "subagent_update");
    expect(announce).toMatchObject({ title: "Find callers of greet", state: { state: "running" } });
    expect(announce!.description).toContain("Search the codebase for every call of greet()");
    expect((announce!._meta as { zcode: Record<string, string> }).zcode).toMatchObject({
      agentType: "general-purpose",
      parentToolCallId: call.toolCallId,
    });
    expect(child).toMatch(/^sess_subagent_agent_/);
    expect(rest.at(-1)).toEqual({ sessionUpdate: "subagent_update", sessionId: child, state: { state: "idle", stopReason: "end_turn" } });

    // Announced before anything of the child reaches the editor.
    const firstOfChild = h.received.updates.findIndex((n) => n.sessionId === child);
    const announced = h.received.updates.findIndex((n) => n.update.sessionUpdate === "subagent_update");
    expect(announced).toBeGreaterThanOrEqual(0);
    expect(firstOfChild).toBeGreaterThan(announced);

    // The task goes from the parent to the child; the report from the child to the parent.
    const messages = h.updatesOfKind(sessionId, "session_message");
    expect(messages[0]).toMatchObject({ senderSessionId: sessionId, recipientSessionId: child, content: [{ type: "text" }] });
    const report = messages.find((m) => m.senderSessionId === child)!;
    expect(report.recipientSessionId).toBe(sessionId);
    const chunk = h.updatesOfKind(sessionId, "session_message_chunk").find((c) => c.messageId === report.messageId)!;
    expect(chunk.content).toEqual({ type: "text", text: "Scanned src/ for greet() calls." });

    // The child's own session: its thoughts, its text, its Grep.
    expect(h.text(child, "agent_thought_chunk")).toContain("I will search");
    expect(h.text(child)).toContain("Searching the sources. ");
    const grep = h.updatesOfKind(child, "tool_call").find((c) => c.name === "Grep")!;
    expect(grep).toBeDefined();
    const done = h.updatesOfKind(child, "tool_call_update").filter((u) => u.toolCallId === grep.toolCallId);
    expect(done.at(-1)!.status).toBe("completed");

    // The parent keeps its Agent tool call, without the child's tools mirrored into it.
    expect(h.updatesOfKind(sessionId, "tool_call").map((c) => c.name)).toEqual(["Agent"]);
    expect(
      h
        .updatesOfKind(sessionId, "tool_call_update")
        .filter((u) => u.toolCallId === call.toolCallId)
        .at(-1)!.status,
    ).toBe("completed");
    expect(h.simFrames().some((f) => f.method === "session/subscribe" && f.params?.sessionId === child && f.params?.afterSeq === 0)).toBe(
      true,
    );
  });
});

test("subagents not opted in: the flat tool calls as before, nothing of the child", async () => {
  await withBridge({ record: true }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "#scenario:subagent")).stopReason).toBe("end_turn");
    const calls = h.updatesOfKind(sessionId, "tool_call");
    expect(calls.map((c) => c.name)).toEqual(["Agent", "Grep"]);
    // The subagent's Grep, mirrored into the parent by ZCode, shown there as it always was.
    expect(calls[1]!.toolCallId).toMatch(/^tool_subagent_agent_/);
    for (const c of calls) {
      expect(
        h
          .updatesOfKind(sessionId, "tool_call_update")
          .filter((u) => u.toolCallId === c.toolCallId)
          .at(-1)!.status,
      ).toBe("completed");
    }
    expect(h.text(sessionId)).toContain("The subagent found two callers.");
    expect(h.received.updates.every((n) => n.sessionId === sessionId)).toBe(true);
    for (const k of SUBAGENT_KINDS) expect(h.updates(sessionId).some((u) => u.sessionUpdate === k)).toBe(false);
    expect(
      h
        .simFrames()
        .filter((f) => f.method === "session/subscribe")
        .every((f) => f.params?.sessionId === sessionId),
    ).toBe(true);
  });
});

test("subagents opted in, cancelled under a running subagent: the child ends idle and cancelled, its tool failed", async () => {
  await withBridge({ clientCapabilities: { subagents: {} } as acp.ClientCapabilities }, async (h) => {
    const { sessionId } = await h.newSession();
    const answer = h.prompt(sessionId, "#scenario:subagent hold=60000");
    await h.waitFor(() => h.updatesOfKind(sessionId, "subagent_update").length > 0, "the announce");
    const child = childOf(h, sessionId);
    await h.waitFor(() => h.updatesOfKind(child, "tool_call").length > 0, "the child's Grep");
    await h.cancel(sessionId);
    expect((await answer).stopReason).toBe("cancelled");
    await h.waitFor(() => h.updatesOfKind(sessionId, "subagent_update").some((u) => u.state?.state === "idle"), "the child's end");
    expect(h.updatesOfKind(sessionId, "subagent_update").at(-1)!.state).toEqual({ state: "idle", stopReason: "cancelled" });
    const grep = h.updatesOfKind(child, "tool_call")[0]!;
    await h.waitFor(
      () => h.updatesOfKind(child, "tool_call_update").some((u) => u.toolCallId === grep.toolCallId && u.status === "failed"),
      "the child's Grep cancelled",
    );
  });
});
