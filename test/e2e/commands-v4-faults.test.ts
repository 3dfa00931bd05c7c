// The v4 command channel when ZCode answers otherwise than "accepted at
// once" (issues 26, 27): a turn that changed no file, a turn longer than one
// rowsRange page, a probe that fails or hangs, a retry ZCode refuses, a
// /rewind refused or answered unreadably, a stale /steer, and a cancel while
// a command's ACK is still on its way. Faults come from the simulator's
// ZCODE_SIM_V4_PROBE / ZCODE_SIM_V4_ACK switches (test/simulator/v4-faults.ts);
// what ZCode itself does is cited there and in test/simulator/v4.ts
// (fork-edit-retry.ts, prompt-turn.ts, transport.ts rowsRange).
import { describe, expect, test } from "bun:test";
import { en } from "../../src/i18n/en/index.ts";
import { V4_TIMEOUTS } from "../../src/zcode/v4/channel.ts";
import { type Harness, sharedBridge, withBridge } from "../support/acp-harness.ts";
import { advertised, expectHistory, newSession, promptAndCollect, simFile, v4Commands } from "./commands-support.ts";

const V4 = en.errors.v4;
const REWIND = en.commands.rewind;

describe("26.3: /rewind <new prompt> after a turn that changed no files", () => {
  test(
    "the prompt is replaced with workspaceMode preserve (ZCode blocks rewind there: fork-edit-retry.ts); told so",
    () =>
      withBridge({ record: true }, async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "hello");
        const out = await promptAndCollect(h, sid, "/rewind say hi instead");
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.text).toContain(REWIND.rerunningChatOnly);
        expect(out.text).toContain("Echo: say hi instead");
        expect(out.frames.find((f) => f.method === "v4/command")!.params.payload).toMatchObject({ workspaceMode: "preserve" });
        await expectHistory(h, sid, ["say hi instead"]);
      }),
    20_000,
  );
});

describe("26.4: a turn longer than one rowsRange page (200 rows)", () => {
  const env = { ZCODE_SIM_DELAY_MS: "0" };
  const bridge = sharedBridge({ record: true, env });

  test(
    "/rewind finds the turn's header by paging back with beforeRowId",
    () =>
      bridge.run(async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "#scenario:edit rows=250");
        const out = await promptAndCollect(h, sid, "/rewind");
        expect(out.text).toStartWith("Rewound the last turn's changes to 1 file");
        const reads = out.frames.filter((f) => f.method === "v4/conversation/rowsRange").map((f) => f.params);
        expect(reads[0]).toEqual({ sessionId: sid, limit: 200 });
        expect(reads[1]).toEqual({ sessionId: sid, beforeRowId: expect.any(Number), limit: 200 });
      }),
    60_000,
  );

  test(
    "/rewind <new prompt> finds the prompt and its header by paging back",
    () =>
      bridge.run(async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "#scenario:default rows=250");
        const out = await promptAndCollect(h, sid, "/rewind say hi instead");
        expect(out.text).toContain(REWIND.rerunningChatOnly);
        await expectHistory(h, sid, ["say hi instead"]);
      }),
    60_000,
  );

  test(
    "a long turn that failed is retried through ZCode (its prompt found by paging back): one copy in its history",
    () =>
      bridge.run(async (h) => {
        const sid = await newSession(h);
        const prompt = "#scenario:fail-transient fails=1 rows=250";
        const out = await promptAndCollect(h, sid, prompt);
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.frames.filter((f) => f.method === "session/send")).toHaveLength(1);
        expect(v4Commands(h).map((c) => c.type)).toEqual(["editUserQuery"]);
        await expectHistory(h, sid, [prompt]);
      }),
    60_000,
  );
});

describe("27.7: a v4 probe that fails or hangs", () => {
  test(
    "a hung probe does not hold session/new; it is tried again and /steer arrives in the menu",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_V4_PROBE: "hang*1" } }, async (h) => {
        const t0 = performance.now();
        const { sessionId } = await h.newSession();
        // Answered long before the probe's own timeout (the old bridge held it for that whole time).
        expect(performance.now() - t0).toBeLessThan(V4_TIMEOUTS.probe);
        await h.waitFor(() => advertised(h, sessionId)?.includes("steer") === true, "/steer in the menu", 40_000);
        expect(h.simFrames().filter((f) => f.method === "v4/commands/query").length).toBeGreaterThanOrEqual(2);
      }),
    60_000,
  );

  for (const fault of ["error", "garbage"])
    test(
      `a probe answered with ${fault === "error" ? "-32603" : "a garbled result"} is tried again: /steer and /rewind come back`,
      () =>
        withBridge({ record: true, env: { ZCODE_SIM_V4_PROBE: `${fault}*1` } }, async (h) => {
          const { sessionId } = await h.newSession();
          await h.waitFor(() => advertised(h, sessionId)?.includes("steer") === true, "/steer in the menu", 20_000);
          expect(advertised(h, sessionId)).toContain("rewind");
          const out = await promptAndCollect(h, sessionId, "hello");
          await h.prompt(sessionId, "#scenario:edit");
          expect((await promptAndCollect(h, sessionId, "/rewind")).text).toStartWith("Rewound the last turn's changes");
          expect(out.response.stopReason).toBe("end_turn");
        }),
      40_000,
    );
});

describe("27.10: a retry ZCode refuses", () => {
  const cases = [
    { ack: "retryTurn:rejected=guard.actionUnavailable", prompt: "#scenario:fail-transient fails=1 after=1", type: "retryTurn" },
    { ack: "retryTurn:stale*2", prompt: "#scenario:fail-transient fails=1 after=1", type: "retryTurn" },
    { ack: "editUserQuery:failed=fault.command.executionFailed", prompt: "#scenario:fail-transient fails=1", type: "editUserQuery" },
  ];
  for (const c of cases)
    test(
      `${c.ack}: the prompt is sent again (session/send), not failed`,
      () =>
        withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: c.ack } }, async (h) => {
          const sid = await newSession(h);
          const out = await promptAndCollect(h, sid, c.prompt);
          expect(out.response.stopReason).toBe("end_turn");
          expect(out.text).toContain("Echo:");
          expect(v4Commands(h)[0]?.type).toBe(c.type);
          expect(out.frames.filter((f) => f.method === "session/send")).toHaveLength(2);
        }),
      20_000,
    );

  test(
    "failed activePrompt (Core still settling; ZCode already cut the turn): waits and sends again, one copy in history",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "retryTurn:activePrompt*1" } }, async (h) => {
        const sid = await newSession(h);
        const prompt = "#scenario:fail-transient fails=1 after=1";
        const out = await promptAndCollect(h, sid, prompt);
        expect(out.response.stopReason).toBe("end_turn");
        expect(v4Commands(h).map((c) => c.type)).toEqual(["retryTurn"]);
        expect(out.frames.filter((f) => f.method === "session/send")).toHaveLength(2);
        await expectHistory(h, sid, [prompt]);
      }),
    20_000,
  );
});

describe("27.12: refusals and unreadable answers in words", () => {
  test(
    "/rewind <new prompt> refused by ZCode: a reply in words, not an error",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "editUserQuery:rejected=guard.latestQueryEditOnly" } }, async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "hello");
        const out = await promptAndCollect(h, sid, "/rewind say hi");
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.text).toBe(V4.latestOnly);
      }),
    20_000,
  );

  test(
    "/rewind <new prompt> answered with an ACK no schema knows: a reply in words",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "editUserQuery:garbage" } }, async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "hello");
        const out = await promptAndCollect(h, sid, "/rewind say hi");
        expect(out.response.stopReason).toBe("end_turn");
        // ZCode ran it (the ACK alone is garbled): its output may follow.
        expect(out.text).toStartWith(REWIND.unreadable);
      }),
    20_000,
  );

  test(
    "/rewind <new prompt> answered unreadably in the same read as the new turn's first text: the note comes first, whole",
    () =>
      // ZCODE_SIM_ACK_WITH_FIRST_TEXT (test/simulator/main.ts): the garbled ACK and the turn's events up to
      // its first text reach the bridge in one write, as a late read of the pipe gets them on a busy machine.
      withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "editUserQuery:garbage", ZCODE_SIM_ACK_WITH_FIRST_TEXT: "1" } }, async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "hello");
        const out = await promptAndCollect(h, sid, "/rewind say hi");
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.text).toStartWith(REWIND.unreadable);
        // What of the turn's text came with it follows the note, never split by it.
        const rest = out.text.slice(REWIND.unreadable.length);
        expect(rest).not.toContain(REWIND.unreadable);
        expect(rest.length).toBeGreaterThan(0);
        expect("Echo: say hi").toStartWith(rest);
      }),
    20_000,
  );

  test(
    "/rewind <new prompt> stale twice: 'twice in a row', in words",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "editUserQuery:stale*2" } }, async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "hello");
        const out = await promptAndCollect(h, sid, "/rewind say hi");
        expect(out.text).toBe(V4.staleRevision);
      }),
    20_000,
  );

  test(
    "one stale ACK to /steer says what happened (not 'twice in a row')",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "sendText:stale*1" } }, async (h) => {
        const sid = await newSession(h);
        const turn = h.prompt(sid, "#scenario:slow n=400");
        await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the turn to stream");
        const steer = await promptAndCollect(h, sid, "/steer use TypeScript");
        expect(steer.text).toContain(V4.staleOnce);
        expect(steer.text).not.toContain("twice");
        await h.cancel(sid);
        await turn;
      }),
    20_000,
  );
});

describe("27.1: a cancel while the ACK of the command that starts the turn is on its way", () => {
  const bridge = sharedBridge({ record: true, env: { ZCODE_SIM_V4_ACK: "editUserQuery:delay=1500" } });
  /** How the turn a command started ended, in ZCode's own record. */
  async function turnEnded(h: Harness, sid: string, commandId: string): Promise<string> {
    const state = () => simFile(h, sid)?.turnLog?.find((t) => t.sourceCommandId === commandId)?.state;
    await h.waitFor(() => state() !== undefined && state() !== "running", "ZCode's turn to end", 20_000);
    return state()!;
  }

  test(
    "/rewind <new prompt>: answered cancelled; the late-started turn gets v4 stop and does not run on",
    () =>
      bridge.run(async (h) => {
        const sid = await newSession(h);
        await h.prompt(sid, "hello");
        const from = h.simFrames().length;
        const turn = h.prompt(sid, "/rewind #scenario:slow n=400");
        await h.waitFor(() => v4Commands(h, from).some((c) => c.type === "editUserQuery"), "the editUserQuery");
        await h.cancel(sid);
        expect((await turn).stopReason).toBe("cancelled");
        await h.waitFor(() => v4Commands(h, from).some((c) => c.type === "stop"), "the v4 stop after the late ACK");
        const edit = v4Commands(h, from).find((c) => c.type === "editUserQuery")!;
        expect(await turnEnded(h, sid, edit.commandId)).toBe("completedInterrupted");
      }),
    40_000,
  );

  test(
    "a retry (editUserQuery): the late-started retry gets v4 stop too",
    () =>
      bridge.run(async (h) => {
        const sid = await newSession(h);
        const turn = h.prompt(sid, "#scenario:fail-transient fails=1");
        await h.waitFor(() => v4Commands(h).some((c) => c.type === "editUserQuery"), "the retry's editUserQuery");
        await h.cancel(sid);
        expect((await turn).stopReason).toBe("cancelled");
        await h.waitFor(() => v4Commands(h).some((c) => c.type === "stop"), "the v4 stop after the late ACK");
      }),
    40_000,
  );
});
