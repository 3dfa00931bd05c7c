// The turn's clocks under fake timers (setTimeout, Date.now and Bun.sleep are
// Bun's fakes here), with the shipped DEFAULT_TIMINGS: the cancel grace, the
// stall → resubscribe → "idle twice" end, the busy budget with its polling
// backoff, and the backoff of a retryable turn.failed. Each bound is checked
// on both sides (not yet at the last millisecond before it, done at it), which
// the end-to-end tests cannot do without reading a wall clock.
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import type { PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { DEFAULT_TIMINGS as D } from "../../../src/session/timings.ts";
import { Turn } from "../../../src/session/turn.ts";
import { t as words } from "../../../src/i18n/index.ts";
import { advance, fakeSession, settle, zcodeError } from "../support/session-fakes.ts";

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** A turn on the shipped timings; `state` shows its answer once it came. */
async function start(opts: { send?: () => unknown; read?: () => unknown } = {}) {
  const f = await fakeSession({ timings: D });
  if (opts.send) f.zcode.answers["session/send"] = opts.send;
  if (opts.read) f.zcode.answers["session/read"] = opts.read;
  const turn = new Turn(f.s, { text: "hi", attachments: [] });
  const state: { answer?: PromptResponse; error?: unknown } = {};
  turn.run().then(
    (r) => (state.answer = r),
    (e) => (state.error = e),
  );
  await settle();
  const count = (m: string) => f.zcode.methods().filter((x) => x === m).length;
  return { ...f, turn, state, count };
}

describe("cancel grace", () => {
  test("ZCode ignores the stop: the prompt answers cancelled at exactly cancelGraceMs, and the next prompt will wait for idle", async () => {
    const t = await start();
    t.zcode.emit("turn.started");
    t.turn.cancel();
    await settle();
    expect(t.count("session/stop")).toBe(1);
    await advance(D.cancelGraceMs - 1);
    expect(t.state.answer).toBeUndefined();
    await advance(1);
    expect(t.state.answer).toEqual({ stopReason: "cancelled" });
    expect(t.s.idleWaitDue).toBe(true);
  });

  test("ZCode's own `cancelled` ends it at once, without the grace; no idle wait is owed", async () => {
    const t = await start();
    t.zcode.emit("turn.started");
    t.turn.cancel();
    await advance(10);
    t.zcode.emit("turn.completed", { resultType: "cancelled" });
    await settle();
    expect(t.state.answer).toEqual({ stopReason: "cancelled" });
    expect(t.s.idleWaitDue).toBe(false);
  });
});

describe("stall", () => {
  test("silence for stallMs: resubscribe (not a moment before); ZCode idle at two stalls in a row ends the turn end_turn", async () => {
    const t = await start();
    t.zcode.emit("turn.started");
    const subscribes = t.count("session/subscribe");
    await advance(D.stallMs - 1);
    expect(t.count("session/subscribe")).toBe(subscribes);
    await advance(1);
    expect(t.count("session/subscribe")).toBe(subscribes + 1);
    expect(t.zcode.calls.findLast((c) => c.method === "session/subscribe")?.params.afterSeq).toBe(1);
    // One idle answer may be a turn about to start: not yet an end.
    expect(t.state.answer).toBeUndefined();
    await advance(D.stallMs - 1);
    expect(t.state.answer).toBeUndefined();
    await advance(1);
    expect(t.count("session/subscribe")).toBe(subscribes + 2);
    expect(t.state.answer?.stopReason).toBe("end_turn");
  });

  test("an event between two stalls starts the count again", async () => {
    const t = await start();
    t.zcode.emit("turn.started");
    await advance(D.stallMs);
    await advance(D.stallMs / 2);
    t.zcode.emit("model.streaming", { kind: "text_delta", delta: "still here" });
    // One stall after the event: only one idle answer in a row.
    await advance(D.stallMs);
    expect(t.state.answer).toBeUndefined();
    await advance(D.stallMs);
    expect(t.state.answer?.stopReason).toBe("end_turn");
  });

  test("a silent ZCode that says it is still running keeps the turn, resubscribing every stallMs, until its end arrives", async () => {
    const t = await start({ read: () => ({ session: { sessionId: "s1" }, projection: { status: "running" } }) });
    t.zcode.emit("turn.started");
    const subscribes = t.count("session/subscribe");
    await advance(10 * D.stallMs, 10);
    expect(t.count("session/subscribe")).toBe(subscribes + 10);
    expect(t.state.answer).toBeUndefined();
    t.zcode.emit("turn.completed", { resultType: "success" });
    await settle();
    expect(t.state.answer?.stopReason).toBe("end_turn");
  });
});

describe("busy", () => {
  const busy = () => zcodeError(-32010, "a prompt is already running", "session/send");

  test("busy until the budget is spent: the prompt fails busy at busyWaitMs, not before; the polls start at idlePollMs and slow to 1 s", async () => {
    const readAt: number[] = [];
    const t0 = Date.now();
    const t = await start({
      send: busy,
      read: () => {
        readAt.push(Date.now() - t0);
        return { session: { sessionId: "s1" }, projection: { status: "running" } };
      },
    });
    await advance(D.busyWaitMs - 10, 10);
    expect(t.state.error).toBeUndefined();
    await advance(20, 10);
    expect(t.state.error).toBeDefined();
    expect((t.state.error as Error).message).toBe(words().errors.stillBusy);
    // The first try, and one last when the budget ran out (ZCode may have become idle between polls).
    expect(t.count("session/send")).toBe(2);
    const gaps = readAt.slice(1).map((at, i) => at - readAt[i]!);
    expect(gaps[0]).toBe(D.idlePollMs);
    for (let i = 1; i < gaps.length - 1; i++) expect(gaps[i]!).toBeGreaterThanOrEqual(gaps[i - 1]!);
    expect(Math.max(...gaps)).toBe(1000);
  });

  test("busy, then idle: sent again at the first poll that finds it idle", async () => {
    let idleFrom = Number.POSITIVE_INFINITY;
    const t = await start({
      send: () => (Date.now() < idleFrom ? busy() : { accepted: true }),
      read: () => ({ session: { sessionId: "s1" }, projection: { status: Date.now() < idleFrom ? "running" : "idle" } }),
    });
    await advance(3000, 10);
    expect(t.count("session/send")).toBe(1);
    idleFrom = Date.now();
    await advance(1000, 10);
    expect(t.count("session/send")).toBe(2);
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.completed", { resultType: "success" });
    await settle();
    expect(t.state.answer?.stopReason).toBe("end_turn");
  });
});

describe("busy while ZCode says idle", () => {
  // ZCode's read reports the runtime's projection (idle at the turn's end) while session/send's
  // prompt lock is released only once the turn's completion resolved (server-operations.ts
  // runPromptTurnInBackground): in that window every send is busy and every read idle.
  const busy = () => zcodeError(-32010, "A prompt is already running for this session", "session/send");

  test("sends are spaced idlePollMs, doubling to 1 s, whatever the status says; at busyWaitMs the prompt fails busy", async () => {
    const sendAt: number[] = [];
    const t0 = Date.now();
    const t = await start({
      send: () => {
        sendAt.push(Date.now() - t0);
        return busy();
      },
    });
    await advance(D.busyWaitMs - 10, 10);
    expect(t.state.error).toBeUndefined();
    const gaps = sendAt.slice(1).map((at, i) => at - sendAt[i]!);
    expect(gaps.slice(0, 5)).toEqual([D.idlePollMs, D.idlePollMs * 2, D.idlePollMs * 4, D.idlePollMs * 8, 1000]);
    for (const g of gaps.slice(5)) expect(g).toBe(1000);
    // About one send a second, not thousands.
    expect(sendAt.length).toBeLessThanOrEqual(Math.ceil(D.busyWaitMs / 1000) + 5);
    await advance(20, 10);
    expect((t.state.error as Error).message).toBe(words().errors.stillBusy);
  });

  test("the lock released: sent at the next pause, and the turn runs", async () => {
    let lockedUntil = Number.POSITIVE_INFINITY;
    const t = await start({ send: () => (Date.now() < lockedUntil ? busy() : { accepted: true }) });
    await advance(300, 10);
    const sends = t.count("session/send");
    expect(sends).toBe(3);
    lockedUntil = Date.now();
    await advance(400, 10);
    expect(t.count("session/send")).toBe(sends + 1);
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.completed", { resultType: "success" });
    await settle();
    expect(t.state.answer?.stopReason).toBe("end_turn");
  });

  test("cancelled during a pause: answered cancelled at once, and nothing more is sent", async () => {
    const t = await start({ send: busy });
    await advance(150, 10);
    const sends = t.count("session/send");
    t.turn.cancel();
    await settle();
    expect(t.state.answer).toEqual({ stopReason: "cancelled" });
    await advance(5000, 50);
    expect(t.count("session/send")).toBe(sends);
  });
});

describe("transient turn.failed", () => {
  test("sent again after retryBaseMs, doubling each time; past retryTries the prompt fails", async () => {
    const t = await start();
    const failed = () => t.zcode.emit("turn.failed", { error: { message: "overloaded", attribution: { retryable: true } } });
    let delay = D.retryBaseMs;
    for (let attempt = 1; attempt <= D.retryTries; attempt++, delay *= 2) {
      t.zcode.emit("turn.started");
      failed();
      await settle();
      await advance(delay - 1);
      expect(t.count("session/send")).toBe(attempt);
      await advance(1);
      expect(t.count("session/send")).toBe(attempt + 1);
    }
    t.zcode.emit("turn.started");
    failed();
    await settle();
    expect(t.state.error).toBeDefined();
    expect(t.count("session/send")).toBe(D.retryTries + 1);
  });
});

describe("idle wait", () => {
  test("the child dies while a prompt waits for idle: the prompt fails, and its wait never goes on to send it", async () => {
    const f = await fakeSession({ timings: D });
    f.zcode.answers["session/read"] = { session: { sessionId: "s1" }, projection: { status: "running" } };
    f.s.work.idleWaitBeforeNextSend();
    const turn = new Turn(f.s, { text: "never sent", attachments: [] });
    let error: unknown;
    turn.run().catch((e) => (error = e));
    await advance(1000, 10);
    expect(f.zcode.methods()).toContain("session/read");
    f.zcode.exit();
    await settle();
    expect(error).toBeDefined();
    // A new child would answer idle at once: a wait that went on would send now.
    f.zcode.answers["session/read"] = { session: { sessionId: "s1" }, projection: { status: "idle" } };
    const reads = f.zcode.methods().filter((m) => m === "session/read").length;
    await advance(D.busyWaitMs, 100);
    expect(f.zcode.methods().filter((m) => m === "session/read").length).toBe(reads);
    expect(f.zcode.methods()).not.toContain("session/send");
  });
});

describe("a cancel while the command that starts the turn is on its way (issue 27.1)", () => {
  test("answered cancelled at the grace; when the v4 command's ACK lands later, ZCode's turn is stopped with v4 stop", async () => {
    const f = await fakeSession({ timings: D });
    let land!: (r: { commandId: string }) => void;
    const start = () => new Promise<{ commandId: string }>((resolve) => (land = resolve));
    const turn = new Turn(f.s, { text: "/rewind x", attachments: [] }, { start });
    let answer: PromptResponse | undefined;
    void turn.run().then((r) => (answer = r));
    await settle();
    turn.cancel();
    await advance(D.cancelGraceMs);
    expect(answer?.stopReason).toBe("cancelled");
    // The legacy stop went first; it cannot reach a v4-started turn (ZCODE-V4.md §5.2).
    const stops = () => f.zcode.methods().filter((m) => m.includes("stop"));
    expect(stops()).toEqual(["session/stop"]);
    land({ commandId: "c1" });
    await settle();
    expect(stops()).toEqual(["session/stop", "v4/command stop"]);
  });
});
