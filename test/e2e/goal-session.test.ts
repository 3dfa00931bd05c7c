import { expect, test } from "bun:test";
import type * as acp from "@agentclientprotocol/sdk/unstable";
import { withBridge, type Harness } from "../support/acp-harness.ts";
import { pollUntil } from "../support/poll.ts";

// A goal belongs to the session, not to a prompt (claude-agent-acp
// docs/goal-extension.md): `_session/goal set` answers once ZCode took the
// goal, and the work toward it is the session's turn, steered and cancelled
// as one.

const AIR = { _meta: { jetbrains: { air: { version: 1, capabilities: [] } } } } as acp.ClientCapabilities;

function extRequest(h: Harness, method: string, params: unknown): Promise<unknown> {
  return (h.agent.request as (m: string, p: unknown) => Promise<unknown>)(method, params);
}

function goalStates(h: Harness, sessionId: string): Array<{ objective: string; status: string } | null> {
  return h
    .updatesOfKind(sessionId, "session_info_update")
    .filter((u) => u._meta && "goal" in u._meta)
    .map((u) => u._meta!.goal as { objective: string; status: string } | null);
}

test("_session/goal set answers while ZCode works on the goal; the work is shown, steered and cancelled", async () => {
  // A CLI with session/steer (0.15): /steer reaches ZCode as itself.
  await withBridge({ clientCapabilities: AIR, record: true, simVersion: "0.15.3" }, async (h) => {
    const { sessionId } = await h.newSession();
    // The objective is the simulator's prompt for the goal's turn: a long stream.
    expect(await extRequest(h, "_session/goal", { sessionId, action: "set", objective: "#scenario:slow n=4000" })).toEqual({});
    // Answered, and ZCode still works on the goal.
    expect(goalStates(h, sessionId).at(-1)).toMatchObject({ objective: "#scenario:slow n=4000", status: "active" });
    await h.waitFor(() => h.text(sessionId).includes("chunk 3 "), "the goal's work to reach the editor");
    expect(await extRequest(h, "_session/steering", { sessionId, prompt: [{ type: "text", text: "use tabs" }] })).toEqual({
      outcome: "injected",
    });
    expect(h.simFrames().find((f) => f.method === "session/steer")?.params).toMatchObject({ sessionId, content: "use tabs" });
    // /steer typed as a prompt steers it too.
    expect((await h.prompt(sessionId, "/steer and spaces")).stopReason).toBe("end_turn");
    expect(
      h
        .simFrames()
        .filter((f) => f.method === "session/steer")
        .map((f) => f.params.content),
    ).toEqual(["use tabs", "and spaces"]);
    await h.cancel(sessionId);
    expect(await pollUntil(() => h.simFrames().some((f) => f.method === "session/stop"), 10_000)).toBe(true);
    // Stopping the work pauses the goal in ZCode; the panel follows.
    await h.waitFor(() => goalStates(h, sessionId).at(-1)?.status === "paused", "the goal to show as paused");
    // The session is free again: an ordinary prompt runs.
    expect((await h.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
  });
}, 30_000);

test("/goal typed in the prompt publishes the goal to a client that takes goals", async () => {
  await withBridge({ clientCapabilities: AIR }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "/goal write the docs")).stopReason).toBe("end_turn");
    expect(goalStates(h, sessionId).at(-1)).toMatchObject({ objective: "write the docs", status: "active" });
    expect((await h.prompt(sessionId, "/goal clear")).stopReason).toBe("end_turn");
    expect(goalStates(h, sessionId).at(-1)).toBeNull();
  });
}, 20_000);
