// /rewind (CLI 0.15.x only): the session's revision from the read's
// runtime.stateRevision goes along as expectedRevision.
import { describe, expect, test } from "bun:test";
import { CAPS_015, CAPS_016, CAPS_V4, FakeCaps, runCommand, snapshot, zerr } from "../support/commands-fakes.ts";

const caps = { caps: CAPS_015(), version: "0.15.3" };

describe("/rewind", () => {
  test("reads runtime.stateRevision, sends it as expectedRevision, reports what was removed", async () => {
    const r = await runCommand(
      "/rewind",
      {
        read: snapshot({ runtime: { eventSeq: 12, stateRevision: 7 } }),
        rewind: { revision: 8, checkpointId: "cp_3", removedMessages: 2 },
      },
      caps,
    );
    expect(r.calls).toEqual([
      { method: "session/read", params: "sess_1" },
      { method: "session/rewind", params: { sessionId: "sess_1", target: { kind: "latestCheckpoint" }, expectedRevision: 7 } },
    ]);
    expect(r.said).toEqual(["Rewound to the latest checkpoint `cp_3`: removed 2 messages. Session revision is now 8."]);
  });

  test("a revision only in the projection (older CLIs) is used too", async () => {
    const r = await runCommand(
      "/rewind",
      { read: snapshot({ runtime: { eventSeq: 1 }, projection: { status: "idle", revision: 4 } }), rewind: { removedMessages: 1 } },
      caps,
    );
    expect((r.calls[1]?.params as { expectedRevision?: number }).expectedRevision).toBe(4);
  });

  test("no revision reported: expectedRevision is left out", async () => {
    const r = await runCommand(
      "/rewind",
      { read: snapshot({ runtime: { eventSeq: 1 }, projection: { status: "idle" } }), rewind: { removedMessages: 1, checkpointId: null } },
      caps,
    );
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
      const r = await runCommand(
        "/rewind",
        { read: snapshot(), rewind: zerr(code, "A prompt is already running for this session", "session/rewind") },
        caps,
      );
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

describe("/rewind on a CLI with v4", () => {
  const v4 = () => ({ caps: CAPS_V4(), version: "0.16.9" });
  const HEADER = {
    rowId: 1,
    turnId: "turn_1",
    entityId: "turn_1",
    kind: "turnHeader",
    state: "completedSuccess",
    fileChanges: { files: 1, state: "active" },
    actions: { canRewindFiles: true },
  };
  const PROMPT = {
    rowId: 2,
    turnId: "turn_1",
    entityId: "msg_1",
    kind: "userInput",
    text: "change it",
    origin: "realUser",
    actions: { canEdit: true },
  };
  const rows = (...r: unknown[]) => ({ rows: r, atSeq: 9, atRevision: 18, atLogEpoch: "mx79rtwf-7822837b", hasMore: false });
  const preview = (unsafe: boolean) => ({
    canApply: !unsafe,
    ignoredFiles: [],
    safeFiles: unsafe ? [] : [{ action: "restore", operationCount: 1, path: "/w/src/greet.ts", toolNames: ["Edit"] }],
    unsafeFiles: unsafe ? [{ operationCount: 1, path: "/w/src/greet.ts", reason: "external_modified", toolNames: ["Edit"] }] : [],
  });

  test("/rewind: applyFileRewind on the last turn's header with the read's revision and logEpoch; lists the files", async () => {
    const r = await runCommand(
      "/rewind",
      {
        "v4/conversation/rowsRange": rows(HEADER, PROMPT),
        "v4/command": (p: any) => ({
          commandId: p.commandId,
          status: "accepted",
          revisionAtDecision: 18,
          result: { type: "applyFileRewind", applied: true, preview: preview(false), response: "Rewound 1 file" },
        }),
      },
      v4(),
    );
    expect(r.calls.map((c) => c.method)).toEqual(["v4/conversation/rowsRange", "v4/command"]);
    expect(r.calls[1]!.params).toMatchObject({
      type: "applyFileRewind",
      payload: { target: { rowId: 1, entityId: "turn_1" } },
      baseRevision: 18,
      baseLogEpoch: "mx79rtwf-7822837b",
    });
    expect(r.said).toEqual(["Rewound the last turn's changes to 1 file; the conversation is unchanged:\n\n- `/w/src/greet.ts` (restored)"]);
  });

  test("unsafe files: nothing changed, which files and why", async () => {
    const r = await runCommand(
      "/rewind",
      {
        "v4/conversation/rowsRange": rows(HEADER),
        "v4/command": (p: any) => ({
          commandId: p.commandId,
          status: "accepted",
          revisionAtDecision: 18,
          result: { type: "applyFileRewind", applied: false, preview: preview(true) },
        }),
      },
      v4(),
    );
    expect(r.said[0]).toStartWith("Nothing was rewound");
    expect(r.said[0]).toContain("- `/w/src/greet.ts`: changed since the turn");
  });

  test("stale: rows read again, the same commandId sent once more", async () => {
    let n = 0;
    const r = await runCommand(
      "/rewind",
      {
        "v4/conversation/rowsRange": rows(HEADER),
        "v4/command": (p: any) =>
          ++n === 1
            ? { commandId: p.commandId, status: "stale", reasonCode: "proto.staleRevision", revisionAtDecision: 19 }
            : {
                commandId: p.commandId,
                status: "accepted",
                revisionAtDecision: 19,
                result: { type: "applyFileRewind", applied: true, preview: preview(false) },
              },
      },
      v4(),
    );
    const sent = r.calls.filter((c) => c.method === "v4/command").map((c) => (c.params as any).commandId);
    expect(sent).toHaveLength(2);
    expect(sent[0]).toBe(sent[1]);
    expect(r.calls.filter((c) => c.method === "v4/conversation/rowsRange")).toHaveLength(2);
    expect(r.said[0]).toStartWith("Rewound the last turn's changes");
  });

  test("stale twice: said, not thrown", async () => {
    const r = await runCommand(
      "/rewind",
      {
        "v4/conversation/rowsRange": rows(HEADER),
        "v4/command": (p: any) => ({ commandId: p.commandId, status: "stale", reasonCode: "proto.staleRevision", revisionAtDecision: 19 }),
      },
      v4(),
    );
    expect(r.said[0]).toStartWith("The conversation changed while the command was prepared");
  });

  test("no header offering a file rewind: nothing sent", async () => {
    const r = await runCommand("/rewind", { "v4/conversation/rowsRange": rows({ ...HEADER, actions: undefined }) }, v4());
    expect(r.calls.map((c) => c.method)).toEqual(["v4/conversation/rowsRange"]);
    expect(r.said[0]).toStartWith("Nothing to rewind");
  });

  test("/rewind <new prompt>: editUserQuery on the last prompt with workspaceMode rewind", async () => {
    const r = await runCommand(
      "/rewind do it in Go",
      {
        "v4/conversation/rowsRange": rows(HEADER, PROMPT),
        "v4/command": (p: any) => ({
          commandId: p.commandId,
          status: "accepted",
          revisionAtDecision: 18,
          result: { type: "editUserQuery", disposition: "rewind", sessionId: "sess_1" },
        }),
      },
      v4(),
    );
    expect(r.calls[1]!.params).toMatchObject({
      type: "editUserQuery",
      payload: { target: { rowId: 2, entityId: "msg_1" }, newText: "do it in Go", workspaceMode: "rewind" },
      baseRevision: 18,
    });
    expect(r.said[0]).toStartWith("Rewound the last turn (files and chat)");
  });

  test("/rewind <new prompt> blocked by unsafe files: nothing changed, files listed", async () => {
    const r = await runCommand(
      "/rewind again",
      {
        "v4/conversation/rowsRange": rows(HEADER, PROMPT),
        "v4/command": (p: any) => ({
          commandId: p.commandId,
          status: "accepted",
          revisionAtDecision: 18,
          result: {
            type: "editUserQuery",
            disposition: "blocked",
            sessionId: "sess_1",
            reasonCode: "guard.workspaceRewindUnsafeFiles",
            preview: preview(true),
          },
        }),
      },
      v4(),
    );
    expect(r.said[0]).toStartWith("Nothing was changed");
    expect(r.said[0]).toContain("`/w/src/greet.ts`");
  });

  test("/rewind <new prompt> without v4 (0.15): says what it needs, nothing sent", async () => {
    const r = await runCommand("/rewind again", {}, { caps: CAPS_015(), version: "0.15.3" });
    expect(r.calls).toEqual([]);
    expect(r.said[0]).toContain("needs ZCode CLI 0.16.5 or newer");
  });
});
