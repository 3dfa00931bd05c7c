// /rewind (CLI 0.15.x only): the session's revision from the read's
// runtime.stateRevision goes along as expectedRevision.
import { describe, expect, test } from "bun:test";
import { CAPS_015, CAPS_016, FakeCaps, runCommand, snapshot, zerr } from "../support/commands-fakes.ts";

const caps = { caps: CAPS_015(), version: "0.15.3" };

describe("/rewind", () => {
  test("reads runtime.stateRevision, sends it as expectedRevision, reports what was removed", async () => {
    const r = await runCommand("/rewind", { read: snapshot({ runtime: { eventSeq: 12, stateRevision: 7 } }), rewind: { revision: 8, checkpointId: "cp_3", removedMessages: 2 } }, caps);
    expect(r.calls).toEqual([
      { method: "session/read", params: "sess_1" },
      { method: "session/rewind", params: { sessionId: "sess_1", target: { kind: "latestCheckpoint" }, expectedRevision: 7 } },
    ]);
    expect(r.said).toEqual(["Rewound to the latest checkpoint `cp_3`: removed 2 messages. Session revision is now 8."]);
  });

  test("a revision only in the projection (older CLIs) is used too", async () => {
    const r = await runCommand("/rewind", { read: snapshot({ runtime: { eventSeq: 1 }, projection: { status: "idle", revision: 4 } }), rewind: { removedMessages: 1 } }, caps);
    expect((r.calls[1]?.params as { expectedRevision?: number }).expectedRevision).toBe(4);
  });

  test("no revision reported: expectedRevision is left out", async () => {
    const r = await runCommand("/rewind", { read: snapshot({ runtime: { eventSeq: 1 }, projection: { status: "idle" } }), rewind: { removedMessages: 1, checkpointId: null } }, caps);
    expect(r.calls[1]?.params).toEqual({ sessionId: "sess_1", target: { kind: "latestCheckpoint" } });
    expect(r.said).toEqual(["Rewound to the latest checkpoint: removed 1 message."]);
  });

  test("no count from ZCode: says the messages after it were removed", async () => {
    const r = await runCommand("/rewind", { read: snapshot(), rewind: {} }, caps);
    expect(r.said).toEqual(["Rewound to the latest checkpoint: removed the messages after it."]);
  });

  test("1409 revision conflict is explained, not thrown", async () => {
    const r = await runCommand("/rewind", { read: snapshot(), rewind: zerr(1409, "revision conflict", "session/rewind") }, caps);
    expect(r.said).toHaveLength(1);
    expect(r.said[0]).toContain("Nothing was rewound");
    expect(r.said[0]).toContain("revision 7");
    expect(r.said[0]).toContain("`/rewind` again");
  });

  test("1410 no checkpoint is explained", async () => {
    const r = await runCommand("/rewind", { read: snapshot(), rewind: zerr(1410, "no checkpoint", "session/rewind") }, caps);
    expect(r.said).toEqual(["Nothing to rewind: this session has no checkpoint yet. A checkpoint is made each time a turn completes."]);
  });

  test("busy is explained", async () => {
    for (const code of [-32010, 1308]) {
      const r = await runCommand("/rewind", { read: snapshot(), rewind: zerr(code, "A prompt is already running for this session", "session/rewind") }, caps);
      expect(r.said[0]).toContain("busy with a running turn");
      expect(r.said[0]).toContain("`/rewind`");
    }
  });

  test("0.16.x and 0.14.8: not supported, nothing sent", async () => {
    const r = await runCommand("/rewind", {}, { caps: CAPS_016(), version: "0.16.9" });
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual(["`/rewind` is not supported by ZCode CLI 0.16.9"]);
    const old = await runCommand("/rewind", {}, { caps: new FakeCaps("0.14.8", ["session/rewind", "session/steer"]), version: "0.14.8" });
    expect(old.said).toEqual(["`/rewind` is not supported by ZCode CLI 0.14.8"]);
  });
});
