// ZCode's subagents (issue 21 point 5, issue 26 point 1, issue 27 point 4).
// A client that advertises `clientCapabilities.subagents` sees the Agent
// tool's subagent as a child session: subagent_update on the parent
// (announced before any traffic of the child, linked to the Agent tool call),
// the task and the report as session_message, the child's own messages and
// tools on its own session id, and its end as an idle state. ZCode gives no
// legacy stream of a child (the simulator, like ZCode, refuses session/subscribe
// on it with -32004): the child is read from its v4 rows while it runs, or from
// its transcript once it ended on a CLI without v4, and its tools come as
// ZCode mirrors them into the parent. The child is read-only for the editor.
// Any other client sees the flat tool calls it always saw, and nothing of the
// child. Every message is checked against the SDK's unstable schema by the
// harness.
import { expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { rejection, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";

const SUBAGENT_KINDS = ["subagent_update", "session_message", "session_message_chunk"];

function agentCall(h: Harness, sessionId: string) {
  return h.updatesOfKind(sessionId, "tool_call").find((c) => c.name === "Agent")!;
}

function childOf(h: Harness, sessionId: string): string {
  return h.updatesOfKind(sessionId, "subagent_update")[0]!.sessionId;
}

const OPTED_IN = { subagents: {} } as acp.ClientCapabilities;

/** One bridge for the opted-in tests without settings of their own: each starts its own sessions. */
const optedIn = sharedBridge({ clientCapabilities: OPTED_IN, record: true });

/** The subagent scenario to its end on the parent, and the child's end seen by the editor. */
async function subagentRun(h: Harness, opts: { childText?: boolean } = {}): Promise<{ sessionId: string; child: string }> {
  const { sessionId } = await h.newSession();
  expect((await h.prompt(sessionId, "#scenario:subagent")).stopReason).toBe("end_turn");
  const child = childOf(h, sessionId);
  await h.waitFor(
    () =>
      h.updatesOfKind(sessionId, "subagent_update").some((u) => u.state?.state === "idle") &&
      (opts.childText === false || h.text(child).includes("Found 2 callers")),
    "the child's answer and its end",
  );
  return { sessionId, child };
}

/** The child's last words reached the editor before its idle state. */
function expectIdleAfterLastWords(h: Harness, sessionId: string, child: string): void {
  const last = h.received.updates.findIndex(
    (n) =>
      n.sessionId === child && n.update.sessionUpdate === "agent_message_chunk" && JSON.stringify(n.update).includes("Found 2 callers"),
  );
  const idle = h.received.updates.findIndex(
    (n) => n.sessionId === sessionId && n.update.sessionUpdate === "subagent_update" && n.update.state?.state === "idle",
  );
  expect(last).toBeGreaterThanOrEqual(0);
  expect(idle).toBeGreaterThan(last);
}

/** The child's Grep: on the child's own session, announced once, completed; not in the parent. */
function expectGrepOnChildOnce(h: Harness, sessionId: string, child: string): void {
  const greps = h.updatesOfKind(child, "tool_call").filter((c) => c.name === "Grep" || c.title?.includes("greet"));
  expect(greps).toHaveLength(1);
  expect(greps[0]!.toolCallId).toMatch(/^call_/);
  const done = h.updatesOfKind(child, "tool_call_update").filter((u) => u.toolCallId === greps[0]!.toolCallId);
  expect(done.at(-1)!.status).toBe("completed");
  expect(h.updatesOfKind(sessionId, "tool_call").map((c) => c.name)).toEqual(["Agent"]);
}

test("subagents opted in: subagent_update, session_message and the child's own session, read from its v4 rows", async () => {
  await optedIn.run(async (h) => {
    const { sessionId, child } = await subagentRun(h);

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
    const announced = h.received.updates.findIndex((n) => n.sessionId === sessionId && n.update.sessionUpdate === "subagent_update");
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
    // ZCode has no legacy stream of a child: it was read through v4, never subscribed nor resumed.
    const ofChild = h.simFrames().filter((f) => f.params?.sessionId === child);
    expect(ofChild.some((f) => f.method === "v4/conversation/rowsRange")).toBe(true);
    expect(ofChild.filter((f) => f.method === "session/subscribe" || f.method === "session/resume")).toEqual([]);
    expectGrepOnChildOnce(h, sessionId, child);
    expectIdleAfterLastWords(h, sessionId, child);
  });
}, 30_000);

test("a CLI without v4: the mirrored tool reaches the child before any read of it, the transcript fills the rest, nothing twice", async () => {
  await withBridge({ clientCapabilities: OPTED_IN, record: true, simVersion: "0.16.2" }, async (h) => {
    const { sessionId, child } = await subagentRun(h);
    // The Grep came live, mirrored, while nothing of the child could be read yet.
    const grepAt = h.received.updates.findIndex((n) => n.sessionId === child && n.update.sessionUpdate === "tool_call");
    const textAt = h.received.updates.findIndex((n) => n.sessionId === child && n.update.sessionUpdate === "agent_message_chunk");
    expect(grepAt).toBeGreaterThanOrEqual(0);
    expect(grepAt).toBeLessThan(textAt);
    expectGrepOnChildOnce(h, sessionId, child);
    expect(h.text(child)).toContain("Searching the sources. ");
    expect(h.text(child, "agent_thought_chunk")).toContain("I will search");
    // The ended child's transcript: resumed (it had ended), read once; the parent's task is not repeated as the child's words.
    const methods = h
      .simFrames()
      .filter((f) => f.params?.sessionId === child && f.method)
      .map((f) => f.method);
    expect(methods.filter((m) => m === "session/resume")).toHaveLength(1);
    expect(methods).toContain("session/messages");
    expect(methods).not.toContain("session/subscribe");
    expect(h.updatesOfKind(child, "user_message_chunk")).toEqual([]);
    expectIdleAfterLastWords(h, sessionId, child);
  });
}, 30_000);

test("the child is read-only: prompt, load, resume, fork, mode, close and delete of its id are refused, once each", async () => {
  await optedIn.run(async (h) => {
    const { sessionId, child } = await subagentRun(h, { childText: false });
    const cwd = h.stateDir;
    const tries: Array<[string, Promise<unknown>]> = [
      ["prompt", h.prompt(child, "hello")],
      ["load", h.agent.request(acp.methods.agent.session.load, { sessionId: child, cwd, mcpServers: [] })],
      ["resume", h.agent.request(acp.methods.agent.session.resume, { sessionId: child, cwd, mcpServers: [] })],
      ["fork", h.agent.request(acp.methods.agent.session.fork, { sessionId: child, cwd, mcpServers: [] })],
      ["mode", h.agent.request(acp.methods.agent.session.setMode, { sessionId: child, modeId: "plan" })],
      ["close", h.agent.request(acp.methods.agent.session.close, { sessionId: child })],
      ["delete", h.agent.request(acp.methods.agent.session.delete, { sessionId: child })],
    ];
    for (const [what, p] of tries) {
      const e = await rejection(p);
      expect({ what, code: e.code }).toEqual({ what, code: -32602 });
      expect(e.message).toContain("subagent's session, read-only");
      expect(e.data).toMatchObject({ sessionId: child, parentSessionId: sessionId, reason: "subagentReadOnly" });
    }
    // Nothing of it reached ZCode: no resume of a child (a second runtime of it), no send, no fork, no delete.
    const touched = h.simFrames().filter((f) => f.params?.sessionId === child && f.method !== "v4/conversation/rowsRange");
    expect(touched).toEqual([]);
    // The parent goes on as before.
    expect((await h.prompt(sessionId, "hello again")).stopReason).toBe("end_turn");
  });
}, 30_000);

test("a child this bridge never announced (another bridge ran its parent) is refused on load too", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "zcode-acp-subagents-"));
  try {
    const child = await withBridge(
      { clientCapabilities: OPTED_IN, stateDir },
      async (h) => (await subagentRun(h, { childText: false })).child,
    );
    await withBridge({ stateDir }, async (h) => {
      const e = await rejection(h.agent.request(acp.methods.agent.session.load, { sessionId: child, cwd: stateDir, mcpServers: [] }));
      expect(e.code).toBe(-32602);
      expect(e.message).toContain("subagent's session, read-only");
      expect(h.updates(child)).toEqual([]);
    });
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}, 30_000);

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
}, 30_000);

test("subagents opted in, cancelled under a running subagent: the child ends idle and cancelled, its tool failed", async () => {
  await withBridge({ clientCapabilities: OPTED_IN }, async (h) => {
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
}, 30_000);
