// session/event notifications to the listeners of the session they name.
import { describe, expect, test } from "bun:test";
import { EventRouter } from "../../../src/zcode/event-router.ts";
import type { RawEvent } from "../../../src/zcode/event-schemas.ts";

describe("EventRouter", () => {
  test("every envelope goes to every listener of its session, and only of its session", () => {
    const r = new EventRouter(() => {});
    const a: RawEvent[] = [];
    const b: RawEvent[] = [];
    r.on("s1", (e) => a.push(e));
    r.on("s2", (e) => b.push(e));
    r.route({ sessionId: "s1", seq: 1, type: "turn.started" }, "");
    r.route({ sessionId: "s1", seq: 2, type: "anything.new" }, "");
    expect(a.map((e) => e.seq)).toEqual([1, 2]);
    expect(b).toEqual([]);
  });

  test("unsubscribed listeners hear nothing more; a throwing listener does not stop the others", () => {
    const r = new EventRouter(() => {});
    const heard: number[] = [];
    r.on("s1", () => {
      throw new Error("listener bug");
    });
    const off = r.on("s1", (e) => heard.push(e.seq));
    r.route({ sessionId: "s1", seq: 1, type: "t" }, "");
    off();
    r.route({ sessionId: "s1", seq: 2, type: "t" }, "");
    expect(heard).toEqual([1]);
  });

  test("an event without a usable envelope is a bad frame, through the budget given", () => {
    const warned: string[] = [];
    const r = new EventRouter((m) => warned.push(m));
    r.on("s1", () => {
      throw new Error("must not be called");
    });
    r.route({ sessionId: "s1", type: "t" }, '{"bad":1}');
    expect(warned).toEqual([expect.stringContaining("seq: expected a non-negative integer")]);
  });

  test("the last listener gone: unwatched, once the code that removed it ran on; a listener replaced at once is no end", async () => {
    const r = new EventRouter(() => {});
    const gone: string[] = [];
    r.onUnwatched((id) => gone.push(id));
    const stop1 = r.on("s1", () => {});
    const stop2 = r.on("s1", () => {});
    stop1();
    await Promise.resolve();
    expect(gone).toEqual([]);
    // Replaced in the same turn (bridge.ts adopt): still watched.
    stop2();
    const stop3 = r.on("s1", () => {});
    await Promise.resolve();
    expect(gone).toEqual([]);
    stop3();
    expect(gone).toEqual([]);
    await Promise.resolve();
    expect(gone).toEqual(["s1"]);
  });
});
