// Text that only looks like a command goes to ZCode unchanged, and ACP's own
// session/fork maps to the same ZCode call as /fork.
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { sharedBridge } from "../support/acp-harness.ts";
import { promptAndCollect, sessionWithOneTurn, simRequests, waitForCommands } from "./commands-support.ts";

// One bridge for the file: each test starts sessions of its own.
const bridge = sharedBridge({ record: true });

test("/usr/lib-style text and unknown /words are ordinary prompts, sent unchanged", () =>
  bridge.run(async (h) => {
    const { sessionId } = await h.newSession();
    await waitForCommands(h, sessionId);
    for (const text of ["/usr/lib/libssl.so.3 is missing", "/deploy to staging", "  /fork-me please", "why does /fork exist?"]) {
      const out = await promptAndCollect(h, sessionId, text);
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.frames.filter((f) => f.method === "session/send").map((f) => f.params)).toEqual([{ sessionId, content: text }]);
      expect(out.text).toContain(text.trim());
    }
  }));

test("ACP session/fork returns the new session, which can be loaded", () =>
  bridge.run(async (h) => {
    expect(h.initializeResponse?.agentCapabilities?.sessionCapabilities?.fork).toBeDefined();
    const sid = await sessionWithOneTurn(h);
    const framesBefore = h.simFrames().length;
    const fork = await h.agent.request(acp.methods.agent.session.fork, { sessionId: sid, cwd: h.stateDir, mcpServers: [] });
    expect(fork.sessionId).toBeString();
    expect(fork.sessionId).not.toBe(sid);
    const frames = simRequests(h, framesBefore);
    expect(frames[0]).toEqual({
      id: expect.anything(),
      method: "session/fork",
      params: { sessionId: sid, target: { kind: "latestCheckpoint" } },
    });
    expect(frames.map((f) => f.method)).not.toContain("session/send");
    // Commands are advertised for the fork too, after its response.
    await waitForCommands(h, fork.sessionId);

    await h.agent.request(acp.methods.agent.session.load, { sessionId: fork.sessionId, cwd: h.stateDir, mcpServers: [] });
    const replayed = h.updates(fork.sessionId).filter((u) => u.sessionUpdate === "user_message_chunk");
    expect(replayed.map((u) => (u.content.type === "text" ? u.content.text : "")).join("")).toContain("Plan the login page");

    // The fork is a session of its own: a prompt there leaves the original alone.
    const out = await promptAndCollect(h, fork.sessionId, "continue in the fork");
    expect(out.frames.filter((f) => f.method === "session/send").map((f) => f.params.sessionId)).toEqual([fork.sessionId]);
  }));
