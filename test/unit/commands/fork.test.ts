// /fork and ACP's session/fork share one request: session/fork at the latest
// checkpoint; the new session is named by ZCode's forkedSessionId and its
// snapshot's title.
import { describe, expect, test } from "bun:test";
import { forkAtLatestCheckpoint as forkSession } from "../../../src/zcode/fork.ts";
import { fakeApi, runCommand, snapshot, zerr } from "../support/commands-fakes.ts";

/** session/fork's answer: {forkedSessionId, parentSessionId, …, response, snapshot}. */
const forked = (title: string) => ({
  forkedSessionId: "sess_fork_9",
  parentSessionId: "sess_1",
  targetMessageId: "msg_8",
  targetCheckpointId: "cp_3",
  response: "",
  snapshot: snapshot({ session: { sessionId: "sess_fork_9", title, sessionKind: "fork" } }),
});

describe("/fork", () => {
  test("sends session/fork at the latest checkpoint and names the new session", async () => {
    const r = await runCommand("/fork", { fork: forked("Refactor auth") });
    expect(r.calls).toEqual([{ method: "session/fork", params: { sessionId: "sess_1", target: { kind: "latestCheckpoint" } } }]);
    expect(r.said).toHaveLength(1);
    expect(r.said[0]).toContain("`sess_fork_9`");
    expect(r.said[0]).toContain("“Refactor auth”");
    expect(r.said[0]).toContain("session list");
    expect(r.said[0]).toContain("This session is unchanged");
  });

  test("forkSession (shared with ACP session/fork) returns id and title", async () => {
    const { api, calls } = fakeApi({ fork: forked("Refactor auth") });
    expect(await forkSession(api, "sess_1")).toEqual({ sessionId: "sess_fork_9", title: "Refactor auth" });
    expect(calls[0]?.params).toEqual({ sessionId: "sess_1", target: { kind: "latestCheckpoint" } });
  });

  test("an untitled fork says so", async () => {
    for (const answer of [forked(""), forked("   "), { forkedSessionId: "sess_fork_9" }]) {
      const r = await runCommand("/fork", { fork: answer });
      expect(r.said[0]).toContain("(untitled)");
    }
    const { api } = fakeApi({ fork: { forkedSessionId: "s2" } });
    expect(await forkSession(api, "sess_1")).toEqual({ sessionId: "s2", title: "" });
  });

  test("a fork answer without the new id is an error, not an invented id", async () => {
    const { api } = fakeApi({ fork: { snapshot: { session: { sessionId: "x" } } } });
    await expect(forkSession(api, "sess_1")).rejects.toThrow();
  });

  test("-32010 while a prompt runs is explained", async () => {
    const r = await runCommand("/fork", { fork: zerr(-32010, "Cannot fork while a prompt is running", "session/fork") });
    expect(r.said[0]).toContain("busy with a running turn");
  });

  test("a session ZCode does not know propagates (the agent maps it to an ACP error)", async () => {
    await expect(runCommand("/fork", { fork: zerr(-32004, "Session is not active: sess_1", "session/fork") })).rejects.toThrow(
      "not active",
    );
  });
});
