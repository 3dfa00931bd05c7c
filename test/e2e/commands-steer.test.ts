// /steer beside a running turn, and the command list reacting to a method
// that answers -32601.
import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Harness, sharedBridge, withBridge } from "../support/acp-harness.ts";
import {
  EXPECTED_COMMANDS,
  advertised,
  chunkText,
  lyingCli,
  promptAndCollect,
  sessionWithOneTurn,
  simRequests,
  waitForCommands,
} from "./commands-support.ts";

describe("/steer during a running turn", () => {
  test("both prompts answered; the turn's updates intact and complete", () =>
    withBridge({ simVersion: "0.15.3", record: true }, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const before = h.received.updates.length;
      const framesBefore = h.simFrames().length;
      const turn = h.prompt(sid, "#scenario:slow n=100");
      // Steer once the turn is visibly streaming.
      await h.waitFor(
        () => h.received.updates.slice(before).some((u) => u.update.sessionUpdate === "agent_message_chunk"),
        "the slow turn to stream",
      );
      const steerAt = h.received.updates.length;
      // Answered while the turn still runs: the turn's answer has not come before the steer's.
      let turnDone = false;
      void turn.then(() => (turnDone = true));
      const steer = await h.prompt(sid, "/steer use tabs, not spaces");
      expect(steer.stopReason).toBe("end_turn");
      expect(turnDone).toBe(false);
      const confirmation = "Steering the running turn with:\n\n> use tabs, not spaces";
      expect(chunkText(h.received.updates.slice(steerAt).map((u) => u.update))).toContain(confirmation);

      const done = await turn;
      expect(done.stopReason).toBe("end_turn");

      const frames = simRequests(h, framesBefore);
      expect(frames.filter((f) => f.method === "session/send").map((f) => f.params)).toEqual([
        { sessionId: sid, content: "#scenario:slow n=100" },
      ]);
      expect(frames.filter((f) => f.method === "session/steer").map((f) => f.params)).toEqual([
        { sessionId: sid, content: "use tabs, not spaces" },
      ]);
      // Every delta of the slow turn reached the editor, none lost to the
      // steer: the same turn in a session nobody steered says the same.
      const all = chunkText(
        h.received.updates
          .slice(before)
          .filter((u) => u.sessionId === sid)
          .map((u) => u.update),
      );
      const turnText = all.replace(confirmation, "");
      const other = await sessionWithOneTurn(h);
      const baseline = await promptAndCollect(h, other, "#scenario:slow n=100");
      expect(baseline.text.length).toBeGreaterThan(0);
      expect(turnText).toBe(baseline.text);
    }));
});

describe("command list follows what the CLI really supports", () => {
  test("0.16.2: /steer typed by hand answers 'not supported' without calling ZCode", () =>
    withBridge({ simVersion: "0.16.2", record: true }, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const out = await promptAndCollect(h, sid, "/steer use tabs");
      expect(out.response.stopReason).toBe("end_turn");
      expect(out.text).toBe("`/steer` is not supported by ZCode CLI 0.16.2");
      expect(out.frames).toEqual([]);
      expect(advertised(h, sid)).toEqual(EXPECTED_COMMANDS["0.16.2"]!);
    }));

  test("a -32601 removes the command: a new available_commands_update without it arrives", () => {
    // Claims 0.15.3 (so the table advertises steer and rewind) but behaves as 0.16.2.
    const bin = lyingCli("0.15.3", "0.16.2");
    return withBridge({ record: true, env: { ZCODE_BIN: bin } }, async (h) => {
      const sid = await sessionWithOneTurn(h);
      expect(advertised(h, sid)).toEqual(EXPECTED_COMMANDS["0.15.3"]!);

      const turn = h.prompt(sid, "#scenario:slow n=100");
      await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the slow turn to stream");
      const steer = await promptAndCollect(h, sid, "/steer use tabs");
      expect(steer.response.stopReason).toBe("end_turn");
      // The turn keeps streaming meanwhile, so its chunks may surround the reply.
      expect(steer.text).toContain("`/steer` is not supported by ZCode CLI 0.15.3");
      expect(steer.frames.filter((f) => f.method === "session/steer").map((f) => f.params)).toEqual([
        { sessionId: sid, content: "use tabs" },
      ]);
      const withoutSteer = await waitForCommands(h, sid, 2);
      expect(withoutSteer).toEqual(["fork", "rewind", "goal", "compact", "mode", "model", "thought", "quota", "help"]);
      expect((await turn).stopReason).toBe("end_turn");

      // Now it is known: a second /steer costs no round trip.
      const again = await promptAndCollect(h, sid, "/steer use tabs");
      expect(again.text).toBe("`/steer` is not supported by ZCode CLI 0.15.3");
      expect(again.frames).toEqual([]);

      const rewind = await promptAndCollect(h, sid, "/rewind");
      expect(rewind.text).toBe("`/rewind` is not supported by ZCode CLI 0.15.3");
      expect(await waitForCommands(h, sid, 3)).toEqual(["fork", "goal", "compact", "mode", "model", "thought", "quota", "help"]);
    });
  });
});

// ---- 0.16.9: ZCode's held queue, a steer's ACK, ZCode's own turns ---------------------------
//
// ZCode's source (jimpablo/ZCode@aac4755, CLI 0.16.9), as the simulator copies it
// (test/simulator/v4-queue.ts):
// - a cancelled turn's guides fall back with guide.turnInterrupted and the queue
//   is held (core runtime/methods/steering.ts:479-514; commands/handlers/session-flow.ts:302-310);
// - a failed turn keeps them held and sends no event (core runtime/methods/turn.ts, executeTurn catch);
// - while held and idle, every v4 sendText without heldQueueDisposition fails
//   heldQueueDispositionRequired (commands/input-admission.ts applyHeldQueueDisposition);
// - guide.noToolBoundary: the steer is auto-drained as a turn of its own (v4-bridge.ts);
// - legacy session/send during a v4-started turn is queued, not refused
//   (zcode-protocol/server-operations.ts sendPrompt checks only activeAbortController).

function v4Commands(h: Harness, from = 0) {
  return simRequests(h, from)
    .filter((f) => f.method === "v4/command")
    .map((f) => f.params);
}

async function newV4Session(h: Harness): Promise<string> {
  const { sessionId } = await h.newSession();
  await waitForCommands(h, sessionId);
  return sessionId;
}

/** ZCode's turns of a session as the simulator stored them (its session file): input and state. */
function zcodeTurns(h: Harness, sessionId: string): { state: string }[] {
  const file = join(h.stateDir, `${sessionId}.json`);
  if (!existsSync(file)) return [];
  try {
    return (JSON.parse(readFileSync(file, "utf8")) as { turnLog?: { state: string }[] }).turnLog ?? [];
  } catch {
    return [];
  }
}

function extRequest(h: Harness, method: string, params: unknown): Promise<unknown> {
  return (h.agent.request as (m: string, p: unknown) => Promise<unknown>)(method, params);
}

/** A turn waiting at its tool call for a guide (#scenario:guided), and the index of updates before it. */
async function guidedTurn(h: Harness, sid: string, params = "") {
  const before = h.received.updates.length;
  const turn = h.prompt(sid, `#scenario:guided ${params}`.trim());
  turn.catch(() => {});
  await h.waitFor(() => h.updates(sid).some((u) => u.sessionUpdate === "tool_call"), "the turn's tool call");
  return { turn, before };
}

function textSince(h: Harness, sid: string, from: number): string {
  return chunkText(
    h.received.updates
      .slice(from)
      .filter((u) => u.sessionId === sid)
      .map((u) => u.update),
  );
}

const STOPPED =
  "This steer did not reach the turn: the turn was stopped first. It will not run; send it again as a prompt if you still want it.";
const FAILED = "This steer did not reach the turn: the turn failed first. It will not run; send it again as a prompt if you still want it.";

describe("0.16.9: a steer ZCode holds", () => {
  const bridge = sharedBridge({ record: true });
  test(
    "stopped first: the user is told, the steer is deleted from ZCode's queue, and the next idle v4 input is not refused",
    () =>
      bridge.run(async (h) => {
        const sid = await newV4Session(h);
        const framesBefore = h.simFrames().length;
        const { turn, before } = await guidedTurn(h, sid, "hold=1");
        expect((await promptAndCollect(h, sid, "/steer also lint")).text).toContain("Steering the running turn with:");
        await h.cancel(sid);
        expect((await turn).stopReason).toBe("cancelled");
        expect(textSince(h, sid, before)).toContain(`${STOPPED}_\n\n> also lint`);
        const steerId = v4Commands(h, framesBefore).find((c) => c.type === "sendText")!.commandId;
        await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "deleteQueueItem"), "the held steer deleted");
        const del = v4Commands(h, framesBefore).find((c) => c.type === "deleteQueueItem")!;
        expect(del.payload).toEqual({ queueItemId: `queue_${steerId}` });
        expect(typeof del.baseRevision).toBe("number");

        // The bridge believes a turn runs while ZCode is idle already (its end held back, #scenario:stall):
        // a /steer now is a v4 sendText on an idle session, which a held queue would refuse.
        const stalled = h.prompt(sid, "#scenario:stall");
        await h.waitFor(() => zcodeTurns(h, sid).at(-1)?.state === "completedSuccess", "ZCode to end the stalled turn");
        const steer = await promptAndCollect(h, sid, "/steer one more");
        expect(steer.text).toContain("The turn had just ended, so ZCode runs this as a new turn:\n\n> one more");
        expect(steer.text).not.toContain("heldQueueDisposition");
        expect((await stalled).stopReason).toBe("end_turn");
      }),
    30_000,
  );

  test(
    "failed first: ZCode says nothing, the user is told all the same, and the steer is deleted from ZCode's queue",
    () =>
      bridge.run(async (h) => {
        const sid = await newV4Session(h);
        const framesBefore = h.simFrames().length;
        const { turn, before } = await guidedTurn(h, sid, "fail=1");
        expect((await promptAndCollect(h, sid, "/steer also lint")).text).toContain("Steering the running turn with:");
        await expect(turn).rejects.toThrow();
        expect(textSince(h, sid, before)).toContain(`${FAILED}_\n\n> also lint`);
        const steerId = v4Commands(h, framesBefore).find((c) => c.type === "sendText")!.commandId;
        await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "deleteQueueItem"), "the held steer deleted");
        expect(v4Commands(h, framesBefore).find((c) => c.type === "deleteQueueItem")!.payload).toEqual({ queueItemId: `queue_${steerId}` });
      }),
    30_000,
  );
});

describe("0.16.9: a steer ZCode runs as a turn of its own (guide.noToolBoundary)", () => {
  const bridge = sharedBridge({ record: true });
  test(
    "its events are shown, and session/cancel stops it with v4 stop naming its execution",
    () =>
      bridge.run(async (h) => {
        const sid = await newV4Session(h);
        const { turn } = await guidedTurn(h, sid, "noboundary=1");
        await promptAndCollect(h, sid, "/steer #scenario:slow n=3000");
        expect((await turn).stopReason).toBe("end_turn");
        // ZCode's own turn streams with no prompt pending: the editor sees it.
        await h.waitFor(() => h.text(sid).includes("chunk 3 "), "ZCode's own turn to stream");
        const framesBefore = h.simFrames().length;
        await h.cancel(sid);
        await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "stop"), "a v4 stop");
        const stop = v4Commands(h, framesBefore).find((c) => c.type === "stop")!;
        expect(stop.payload.expectedForegroundExecutionId).toMatch(/^runtime_command_/);
        await h.waitFor(() => zcodeTurns(h, sid).at(-1)?.state === "completedInterrupted", "ZCode's own turn to stop");
        expect(simRequests(h, framesBefore).filter((f) => f.method === "session/stop")).toHaveLength(0);
      }),
    30_000,
  );

  test(
    "a prompt sent meanwhile waits for it to end: session/send is never queued behind it",
    () =>
      bridge.run(async (h) => {
        const sid = await newV4Session(h);
        const { turn } = await guidedTurn(h, sid, "noboundary=1");
        await promptAndCollect(h, sid, "/steer #scenario:slow n=400");
        expect((await turn).stopReason).toBe("end_turn");
        await h.waitFor(() => h.text(sid).includes("chunk 1 "), "ZCode's own turn to stream");
        // Sent now, ZCode would queue it behind its own turn (and the prompt would answer at that turn's end).
        const out = await promptAndCollect(h, sid, "hello there");
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.text).toContain("Echo: hello there");
        // Three turns in ZCode, each ended: the guided one, its steer's, the prompt's.
        await h.waitFor(
          () => JSON.stringify(zcodeTurns(h, sid).map((t) => t.state)) === JSON.stringify(Array(3).fill("completedSuccess")),
          "three ended turns in ZCode",
        );
      }),
    30_000,
  );
});

describe("0.16.9: a steer whose ACK is late, lost or a refusal (ZCODE_SIM_STEER_ACK, test/simulator/v4-queue.ts)", () => {
  test(
    "no ACK: /steer answers in words within its bound, though ZCode took the guide in",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_STEER_ACK: "drop", ZCODE_ACP_REQUEST_TIMEOUT_MS: "4000" } }, async (h) => {
        const sid = await newV4Session(h);
        const { turn } = await guidedTurn(h, sid);
        const steer = await promptAndCollect(h, sid, "/steer use tabs");
        expect(steer.response.stopReason).toBe("end_turn");
        expect(steer.text).toContain("ZCode did not confirm this steer within 4 s. It may still reach the turn");
        expect(steer.text).toContain("> use tabs");
        expect((await turn).stopReason).toBe("end_turn");
        // ZCode did deliver it: the user's words in the turn.
        expect(
          h
            .updates(sid)
            .some((u) => u.sessionUpdate === "user_message_chunk" && u.content.type === "text" && u.content.text === "use tabs"),
        ).toBe(true);
      }),
    30_000,
  );

  test(
    "an ACK no schema reads: /steer says so in words, not as an error",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_STEER_ACK: "garble" } }, async (h) => {
        const sid = await newV4Session(h);
        const { turn } = await guidedTurn(h, sid);
        const steer = await promptAndCollect(h, sid, "/steer use tabs");
        expect(steer.response.stopReason).toBe("end_turn");
        expect(steer.text).toContain("ZCode's answer to this steer could not be read. It may still reach the turn");
        expect((await turn).stopReason).toBe("end_turn");
      }),
    30_000,
  );

  test(
    "session/cancel while the ACK is on its way answers /steer `cancelled` at once",
    () =>
      withBridge({ record: true, env: { ZCODE_SIM_STEER_ACK: "delay=8000" } }, async (h) => {
        const sid = await newV4Session(h);
        const framesBefore = h.simFrames().length;
        const { turn } = await guidedTurn(h, sid, "hold=1");
        const steer = h.prompt(sid, "/steer also lint");
        await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "sendText"), "the steer to reach ZCode");
        await h.cancel(sid);
        // Not the ACK's 8 s later, as `end_turn`.
        expect((await steer).stopReason).toBe("cancelled");
        expect((await turn).stopReason).toBe("cancelled");
      }),
    30_000,
  );

  test("_session/steering answers injected only when ZCode admitted the steer", async () => {
    const steering = (h: Harness, sessionId: string) =>
      extRequest(h, "_session/steering", { sessionId, prompt: [{ type: "text", text: "use tabs" }] });
    // ZCode refused it (failed fault.command.inputRejected): an error, and the reply says why.
    await withBridge({ record: true, env: { ZCODE_SIM_STEER_ACK: "reject" } }, async (h) => {
      const sid = await newV4Session(h);
      const { turn } = await guidedTurn(h, sid);
      const before = h.received.updates.length;
      await expect(steering(h, sid)).rejects.toThrow("the steer did not reach the running turn");
      expect(textSince(h, sid, before)).toContain("ZCode did not take this steer:");
      await h.cancel(sid);
      await turn;
    });
    // 0.16.2 has no way to steer: never `injected`.
    await withBridge({ simVersion: "0.16.2", record: true }, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const turn = h.prompt(sid, "#scenario:slow n=2000");
      await h.waitFor(() => h.text(sid).includes("chunk 0 "), "the slow turn to stream");
      await expect(steering(h, sid)).rejects.toThrow("the steer did not reach the running turn");
      await h.cancel(sid);
      await turn;
    });
  }, 30_000);
});

describe("0.16.9: a steer that arrives after its turn was cancelled", () => {
  test(
    "ZCode starts a turn with it (no turn ran any more): that turn is stopped with v4 stop",
    () =>
      // Every handler waits 1 s in the simulator's queue (legacy session/stop does not), so the
      // stop overtakes the steer, which then finds no turn (session-flow.ts sendText: startNow).
      withBridge({ record: true, env: { ZCODE_SIM_HANDLER_DELAY_MS: "1000" } }, async (h) => {
        const sid = await newV4Session(h);
        const framesBefore = h.simFrames().length;
        const { turn } = await guidedTurn(h, sid, "hold=1");
        const steer = h.prompt(sid, "/steer #scenario:slow n=5000");
        await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "sendText"), "the steer to reach ZCode");
        await h.cancel(sid);
        expect((await steer).stopReason).toBe("cancelled");
        expect((await turn).stopReason).toBe("cancelled");
        await h.waitFor(() => v4Commands(h, framesBefore).some((c) => c.type === "stop"), "a v4 stop for the steer's turn", 20_000);
        await h.waitFor(
          () => zcodeTurns(h, sid).length === 2 && zcodeTurns(h, sid).at(-1)?.state === "completedInterrupted",
          "the steer's turn to be stopped",
          20_000,
        );
      }),
    60_000,
  );
});
