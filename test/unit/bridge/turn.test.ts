// Turn races that the simulator cannot time precisely: a cancel that lands
// while the turn is still getting ready to send (here: resuming the session
// in a new child) must end it without ever sending the prompt to ZCode.
import { describe, expect, test } from "bun:test";
import { UpdateSink } from "../../../src/acp/update-sink.ts";
import { BridgeCore, DEFAULT_TIMINGS } from "../../../src/bridge/core.ts";
import { Turn } from "../../../src/bridge/turn.ts";
import type { ZCodeApi } from "../../../src/zcode/api.ts";

/** A ZCodeApi whose child restarts after the first subscription, and whose session/resume answers only when told. */
function fakeApi() {
  const calls: string[] = [];
  let generation = 1;
  let answerResume!: () => void;
  const resumed = new Promise<void>((r) => (answerResume = r));
  let resumeCalled!: () => void;
  const resuming = new Promise<void>((r) => (resumeCalled = r));
  const api = {
    conn: { onExit: () => () => {}, onEvent: () => () => {}, start: async () => ({ generation }) },
    async subscribe() {
      calls.push("session/subscribe");
      generation = 2;
      return { eventSeq: 0, events: [] };
    },
    async resume() {
      calls.push("session/resume");
      resumeCalled();
      await resumed;
      return { session: { sessionId: "sess_1" } };
    },
    async send() {
      calls.push("session/send");
      return {};
    },
    stop() {
      calls.push("session/stop");
    },
    async read() {
      calls.push("session/read");
      return {};
    },
  };
  return { api: api as unknown as ZCodeApi, calls, resuming, answerResume };
}

describe("Turn", () => {
  test("cancelled while resuming before the send: answers cancelled at once and never sends the prompt", async () => {
    const { api, calls, resuming, answerResume } = fakeApi();
    const core = new BridgeCore(api, new UpdateSink(async () => {}), { timings: DEFAULT_TIMINGS, terminalOutput: () => false });
    const s = core.register("sess_1", "/tmp", undefined, 1);
    const turn = new Turn(core, s, "do not send me");
    const answer = turn.run();
    await resuming;
    const t0 = Date.now();
    turn.cancel();
    expect(await answer).toEqual({ stopReason: "cancelled" });
    expect(Date.now() - t0).toBeLessThan(DEFAULT_TIMINGS.cancelGraceMs);
    answerResume();
    await Bun.sleep(20);
    expect(calls).not.toContain("session/send");
    expect(calls).not.toContain("session/stop");
  });
});

describe("interactions of a cancelled turn", () => {
  test("refused from the cancel until the next turn has really started, also while that turn waits", async () => {
    let deliver!: (e: unknown) => void;
    const api = {
      conn: {
        onExit: () => () => {},
        onEvent: (_id: string, cb: (e: unknown) => void) => {
          deliver = cb;
          return () => {};
        },
        start: async () => ({ generation: 1 }),
      },
      subscribe: async () => ({ eventSeq: 0, events: [] }),
      send: async () => ({}),
      stop: () => {},
      read: async () => ({ projection: { status: "idle" } }),
    } as unknown as ZCodeApi;
    const core = new BridgeCore(api, new UpdateSink(async () => {}), {
      timings: { ...DEFAULT_TIMINGS, cancelGraceMs: 20 },
      terminalOutput: () => false,
    });
    const s = core.register("sess_1", "/tmp", undefined, 1);
    const first = new Turn(core, s, "first");
    const firstAnswer = first.run();
    deliver({ sessionId: s.id, seq: 1, type: "turn.started", payload: {} });
    expect(s.refusesInteractions).toBe(false);
    first.cancel();
    expect(s.refusesInteractions).toBe(true);
    expect(await firstAnswer).toEqual({ stopReason: "cancelled" });
    // ZCode ignored the stop: the next turn waits, and what ZCode asks meanwhile is the old turn's.
    const second = new Turn(core, s, "second");
    const secondAnswer = second.run();
    expect(s.refusesInteractions).toBe(true);
    deliver({ sessionId: s.id, seq: 2, type: "turn.completed", payload: { resultType: "cancelled" } });
    await Bun.sleep(10);
    expect(s.refusesInteractions).toBe(true);
    deliver({ sessionId: s.id, seq: 3, type: "turn.started", payload: {} });
    expect(s.refusesInteractions).toBe(false);
    deliver({ sessionId: s.id, seq: 4, type: "turn.completed", payload: { resultType: "success" } });
    expect((await secondAnswer).stopReason).toBe("end_turn");
  });
});
