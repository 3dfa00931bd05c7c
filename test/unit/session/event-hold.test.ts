// A command's answer and the first events of the work it started can reach
// the bridge in one read of ZCode's stdout; the events are then routed before
// the code awaiting the answer runs. The session holds its events while such
// an answer is handled (src/session/event-hold.ts), so what the bridge says
// of the answer comes first. Here: the hold's order and bounds, and a turn
// whose start sees its events arrive before its answer is handled.
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import { EventHold } from "../../../src/session/event-hold.ts";
import { Turn } from "../../../src/session/turn.ts";
import { advance, fakeSession, settle } from "../support/session-fakes.ts";

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

describe("EventHold", () => {
  test("holds while held, lets everything through in order on release; nothing is held after", () => {
    const hold = new EventHold();
    const seen: number[] = [];
    const offer = (n: number) => {
      if (!hold.offer(() => seen.push(n))) seen.push(n);
    };
    offer(1);
    const release = hold.hold();
    offer(2);
    offer(3);
    expect(seen).toEqual([1]);
    release();
    expect(seen).toEqual([1, 2, 3]);
    release(); // a second release does nothing
    offer(4);
    expect(seen).toEqual([1, 2, 3, 4]);
  });

  test("holds nest: the last release lets them through", () => {
    const hold = new EventHold();
    const seen: number[] = [];
    const a = hold.hold();
    const b = hold.hold();
    hold.offer(() => seen.push(1));
    a();
    expect(seen).toEqual([]);
    b();
    expect(seen).toEqual([1]);
  });

  test("bounded in events: at maxHeld everything goes through, and the rest of that hold is not held", () => {
    const hold = new EventHold({ maxHeld: 3, maxHoldMs: 1_000 });
    const seen: number[] = [];
    const release = hold.hold();
    for (const n of [1, 2]) expect(hold.offer(() => seen.push(n))).toBe(true);
    expect(seen).toEqual([]);
    hold.offer(() => seen.push(3));
    expect(seen).toEqual([1, 2, 3]);
    expect(hold.offer(() => seen.push(4))).toBe(false);
    release();
  });

  test("bounded in time: a release that never comes lets the events through at maxHoldMs", async () => {
    const hold = new EventHold({ maxHeld: 100, maxHoldMs: 1_000 });
    const seen: number[] = [];
    hold.hold();
    hold.offer(() => seen.push(1));
    await advance(999, 111);
    expect(seen).toEqual([]);
    await advance(1);
    expect(seen).toEqual([1]);
    expect(hold.offer(() => seen.push(2))).toBe(false);
  });

  test("an event that throws does not keep the others back", () => {
    const hold = new EventHold();
    const seen: number[] = [];
    const release = hold.hold();
    hold.offer(() => {
      throw new Error("odd event");
    });
    hold.offer(() => seen.push(2));
    release();
    expect(seen).toEqual([2]);
  });
});

describe("a turn a command starts", () => {
  test("its events, arrived before the command's answer was handled, come after what the command said of it", async () => {
    const f = await fakeSession();
    const turn = new Turn(
      f.s,
      { text: "/rewind say hi", attachments: [] },
      {
        start: async () => {
          // The answer and the turn's first events in one read: the events are routed first.
          f.zcode.emit("turn.started", { turnNumber: 2, input: "say hi" });
          f.zcode.emit("model.streaming", { kind: "text_delta", delta: "Echo" });
          await settle();
          f.s.emit({ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "[note]" } });
          return { commandId: "c1" };
        },
      },
    );
    const answer = turn.run();
    await settle();
    f.zcode.emit("model.streaming", { kind: "text_delta", delta: ": say hi" });
    f.zcode.emit("turn.completed", { response: "Echo: say hi", resultType: "success" });
    expect(await answer).toEqual({ stopReason: "end_turn" });
    expect(f.editor.text()).toBe("[note]Echo: say hi");
  });
});
