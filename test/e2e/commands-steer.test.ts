// /steer beside a running turn, and the command list reacting to a method
// that answers -32601.
import { describe, expect, test } from "bun:test";
import { withBridge } from "../support/acp-harness.ts";
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
