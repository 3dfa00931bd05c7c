import { describe, expect, test } from "bun:test";
import { EventIntake, type IntakeOwner } from "../../../src/session/intake.ts";
import type { ZCodeApi } from "../../../src/zcode/api.ts";
import type { RawEvent, ZCodeEvent } from "../../../src/zcode/event-schemas.ts";

const env = (seq: number): RawEvent => ({ sessionId: "s", seq, type: "turn.started", payload: {} }) as RawEvent;

/** An intake whose subscribe answers the test gives, one at a time. */
function setup() {
  const got: number[] = [];
  const owner: IntakeOwner = {
    id: "s",
    isClosed: false,
    activation: 1,
    withActive: (fn) => fn(),
    dispatch: (e: ZCodeEvent) => got.push(e.seq),
  };
  const calls: Array<{ afterSeq?: number; answer: (r: { eventSeq?: number; events?: unknown[] }) => void }> = [];
  const api = {
    subscribe: (p: { sessionId: string; afterSeq?: number }) => new Promise((answer) => calls.push({ afterSeq: p.afterSeq, answer })),
  } as unknown as ZCodeApi;
  return { intake: new EventIntake(owner, api), got, calls };
}

const settle = () => new Promise((r) => setTimeout(r, 0));

/** setup(), subscribed at seq 0. */
async function subscribed() {
  const t = setup();
  const done = t.intake.ensureSubscribed();
  t.calls[0]!.answer({ eventSeq: 0, events: [] });
  await done;
  return t;
}

describe("EventIntake: holes", () => {
  test("a hole that opens while a recovery's answer is on its way is fetched again, not skipped", async () => {
    const { intake, got, calls } = await subscribed();
    intake.accept(env(1));
    intake.accept(env(4)); // 2 and 3 were not pushed: recovery asks after 1
    expect(calls.at(-1)!.afterSeq).toBe(1);
    intake.accept(env(5));
    intake.accept(env(7)); // 6 is stored after ZCode answered the recovery
    calls.at(-1)!.answer({ eventSeq: 5, events: [env(2), env(3), env(4), env(5)] });
    await settle();
    // Not "6 is gone": the answer only knew up to 5, so it is asked for.
    expect(got).toEqual([1, 2, 3, 4, 5]);
    expect(calls.at(-1)!.afterSeq).toBe(5);
    calls.at(-1)!.answer({ eventSeq: 7, events: [env(6), env(7)] });
    await settle();
    expect(got).toEqual([1, 2, 3, 4, 5, 6, 7]);
    expect(intake.hasGap).toBe(false);
  });

  test("a hole inside what ZCode answered is gone: skipped at once", async () => {
    const { intake, got, calls } = await subscribed();
    intake.accept(env(1));
    intake.accept(env(3));
    const n = calls.length;
    calls.at(-1)!.answer({ eventSeq: 3, events: [env(3)] });
    await settle();
    expect(got).toEqual([1, 3]);
    expect(calls.length).toBe(n);
  });

  test("answers that never cover the hole: skipped after a few tries, never a loop", async () => {
    const { intake, got, calls } = await subscribed();
    intake.accept(env(1));
    intake.accept(env(3));
    for (let i = 0; i < 10 && got.length < 2; i++) {
      calls.at(-1)!.answer({ events: [] });
      await settle();
    }
    expect(got).toEqual([1, 3]);
    expect(calls.length).toBe(1 + 3);
  });
});

describe("EventIntake: reached (a wait for idle waits for the events ZCode numbered before it said idle)", () => {
  test("resolves once events up to the seq are applied, a hole's recovery included", async () => {
    const { intake, got, calls } = await subscribed();
    intake.accept(env(1));
    // ZCode's read says idle at seq 4; 2 went out only in the read's numbering, 3 and 4 wait behind it.
    intake.accept(env(3));
    intake.accept(env(4));
    let reached: boolean | undefined;
    void intake.reached(4, 60_000).then((r) => (reached = r));
    await settle();
    expect(reached).toBeUndefined();
    calls.at(-1)!.answer({ eventSeq: 4, events: [env(3), env(4)] });
    await settle();
    expect(got).toEqual([1, 3, 4]);
    expect(reached).toBe(true);
    // Already there: at once.
    expect(await intake.reached(2, 60_000)).toBe(true);
  });

  test("behind with no later event to show a hole: what is missing is fetched at once", async () => {
    const { intake, got, calls } = await subscribed();
    intake.accept(env(1));
    const n = calls.length;
    const reached = intake.reached(3, 60_000);
    expect(calls.length).toBe(n + 1);
    expect(calls.at(-1)!.afterSeq).toBe(1);
    calls.at(-1)!.answer({ eventSeq: 3, events: [env(2), env(3)] });
    expect(await reached).toBe(true);
    expect(got).toEqual([1, 2, 3]);
  });

  test("false after the budget, or when the numbering starts anew; at once before the first subscribe", async () => {
    const { intake, calls } = setup();
    expect(await intake.reached(99, 60_000)).toBe(true);
    const done = intake.ensureSubscribed();
    calls[0]!.answer({ eventSeq: 0, events: [] });
    await done;
    const late = intake.reached(5, 5);
    calls.at(-1)!.answer({ eventSeq: 0, events: [] });
    expect(await late).toBe(false);
    const waiting = intake.reached(5, 60_000);
    intake.reset();
    expect(await waiting).toBe(false);
  });
});
