// sharedBridge (test/support/acp-harness.ts), the harness many e2e files run
// their tests on: one bridge for the tests of a describe, each test reading
// only its own part, and a failure not passed on to the next test.
import { describe, expect, test } from "bun:test";
import { endsSoon, sharedBridge } from "../support/acp-harness.ts";

describe("sharedBridge", () => {
  const bridge = sharedBridge({ record: true });

  test("runs share one bridge; each run reads only what came during it", async () => {
    const first = await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
      expect(h.simFrames().map((f) => f.method)).toContain("session/send");
      expect(h.updates(sessionId).length).toBeGreaterThan(0);
      return { pid: h.proc.pid, sessionId };
    });
    await bridge.run(async (h) => {
      expect(h.proc.pid).toBe(first.pid);
      // Nothing of the run before (what came before its prompt's answer: a late
      // notification about its session may still come): not the answers the
      // editor had, not its session's text, not what ZCode was asked.
      expect(h.received.messages.filter((m) => m.id !== undefined)).toEqual([]);
      expect(h.updatesOfKind(first.sessionId, "agent_message_chunk")).toEqual([]);
      expect(h.simFrames().filter((f) => f.method === "session/create" || f.method === "session/send")).toEqual([]);
      const { sessionId } = await h.newSession();
      expect(sessionId).not.toBe(first.sessionId);
      expect(h.simFrames().map((f) => f.method)).not.toContain("session/send");
    });
  });

  test("a run that fails ends its bridge, and the next run starts a fresh one", async () => {
    let pid = 0;
    const failing = bridge.run(async (h) => {
      pid = h.proc.pid;
      throw new Error("the test's own failure");
    });
    await expect(failing).rejects.toThrow("the test's own failure");
    expect(await endsSoon(pid)).toBe(true);
    await bridge.run(async (h) => {
      expect(h.proc.pid).not.toBe(pid);
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    });
  });
});
