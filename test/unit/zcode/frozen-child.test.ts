// Frozen or merely slow: the rule (SilenceWatch) and the connection acting on
// it against the fake CLI (support/fake-zcode-child.ts), on Bun's fake timers
// so that no verdict depends on the machine's speed. The child's I/O is real;
// only time is faked.
import { afterEach, describe, expect, jest, test } from "bun:test";
import path from "node:path";
import { defaultConfig } from "../../../src/config.ts";
import { ZCodeConnection } from "../../../src/zcode/connection.ts";
import { ZCodeTimeoutError } from "../../../src/zcode/errors.ts";
import { FROZEN_AFTER_TIMEOUTS, SilenceWatch } from "../../../src/zcode/frozen-child.ts";
import type { ZCodeLaunch } from "../../../src/zcode/resolve.ts";

const SCRIPT = path.join(import.meta.dir, "../support/fake-zcode-child.ts");
const LAUNCH: ZCodeLaunch = { command: [process.execPath, SCRIPT], entry: SCRIPT, source: "env" };
const TIMEOUT = 30_000;

afterEach(() => {
  jest.useRealTimers();
});

describe("SilenceWatch", () => {
  test(`frozen: owing answers and silent for ${FROZEN_AFTER_TIMEOUTS} timeouts' worth`, () => {
    jest.useFakeTimers();
    const w = new SilenceWatch();
    w.sent();
    jest.advanceTimersByTime(TIMEOUT);
    expect(w.frozen(TIMEOUT)).toBe(false);
    // Timed-out requests are still owed; new ones do not restart the clock.
    w.sent();
    jest.advanceTimersByTime(TIMEOUT);
    expect(w.frozen(TIMEOUT)).toBe(false);
    w.sent();
    jest.advanceTimersByTime(TIMEOUT - 1);
    expect(w.frozen(TIMEOUT)).toBe(false);
    jest.advanceTimersByTime(1);
    expect(w.frozen(TIMEOUT)).toBe(true);
    expect(w.silentMs()).toBe(3 * TIMEOUT);
  });

  test("slow: requests queued behind a slow one time out together, 6 s after the child last answered", () => {
    jest.useFakeTimers();
    const w = new SilenceWatch();
    for (let i = 0; i < 4; i++) w.sent();
    jest.advanceTimersByTime(TIMEOUT - 6_000);
    // An answer to something else: the child is alive, and still owes the four.
    w.heard(true);
    jest.advanceTimersByTime(6_000);
    for (let i = 0; i < 4; i++) expect(w.frozen(TIMEOUT)).toBe(false);
    expect(w.silentMs()).toBe(6_000);
  });

  test("a child that keeps writing (events, stderr) is never frozen, however long one request hangs", () => {
    jest.useFakeTimers();
    const w = new SilenceWatch();
    w.sent();
    for (let s = 0; s < 10 * TIMEOUT; s += 1_000) {
      jest.advanceTimersByTime(1_000);
      w.heard(true);
    }
    expect(w.frozen(TIMEOUT)).toBe(false);
  });

  test("idle time owing nothing does not count: the clock starts with the first request sent", () => {
    jest.useFakeTimers();
    const w = new SilenceWatch();
    w.heard(false);
    jest.advanceTimersByTime(10 * TIMEOUT);
    expect(w.silentMs()).toBe(0);
    w.sent();
    jest.advanceTimersByTime(TIMEOUT);
    expect(w.frozen(TIMEOUT)).toBe(false);
  });
});

describe("the connection's frozen-child check", () => {
  async function started() {
    const config = defaultConfig({ env: { PATH: process.env.PATH, HOME: process.env.HOME } });
    const conn = new ZCodeConnection(config, { launch: LAUNCH, killGraceMs: 500, defaultTimeoutMs: 5_000 });
    const info = await conn.start();
    let written = 0;
    conn.onWire = (direction) => {
      if (direction === "to-zcode") written++;
    };
    const exits: number[] = [];
    const exited = new Promise<void>((resolve) =>
      conn.onExit((e) => {
        exits.push(e.generation);
        resolve();
      }),
    );
    /** Until `n` lines in all have been written to the child (request() starts asynchronously). */
    const writtenReaches = async (n: number) => {
      for (let i = 0; written < n && i < 10_000; i++) await Promise.resolve();
      expect(written).toBe(n);
    };
    return { conn, info, exits, exited, writtenReaches };
  }

  test("slow: four requests queued behind a slow one time out together, 6 s after an answer: the child is kept", async () => {
    const { conn, info, exits, writtenReaches } = await started();
    try {
      jest.useFakeTimers();
      const slow = Array.from({ length: 4 }, () =>
        conn.request("session/slow", {}, { timeoutMs: TIMEOUT }).then(
          () => undefined,
          (e: unknown) => e,
        ),
      );
      await writtenReaches(4);
      jest.advanceTimersByTime(TIMEOUT - 6_000);
      // The child answers something else: it is slow on those four, not frozen.
      await conn.request("session/read", { sessionId: "s", messageLimit: 1 });
      jest.advanceTimersByTime(6_000);
      for (const e of await Promise.all(slow)) expect(e).toBeInstanceOf(ZCodeTimeoutError);
      // Still the same child, and it still answers.
      const after = await conn.request<{ session: { sessionId: string } }>("session/read", { sessionId: "after", messageLimit: 1 });
      expect(after.session.sessionId).toBe("after");
      expect(conn.pid).toBe(info.pid);
      expect(exits).toEqual([]);
    } finally {
      jest.useRealTimers();
      await conn.close();
    }
  });

  test("frozen: silent while owing answers through three timeouts in a row: killed, and the next request starts a new child", async () => {
    const { conn, info, exits, exited, writtenReaches } = await started();
    try {
      jest.useFakeTimers();
      for (let i = 1; i <= 3; i++) {
        const p = conn.request("session/slow", {}, { timeoutMs: TIMEOUT }).then(
          () => undefined,
          (e: unknown) => e,
        );
        await writtenReaches(i);
        jest.advanceTimersByTime(TIMEOUT);
        expect(await p).toBeInstanceOf(ZCodeTimeoutError);
        // Not before the whole window is silent.
        if (i < 3) expect(exits).toEqual([]);
      }
      // Asked right away, before the killed child is reaped: answered by its successor, not failed with its death.
      const read = conn.request<{ session: { sessionId: string } }>("session/read", { sessionId: "next", messageLimit: 1 });
      await exited;
      expect(exits).toEqual([info.generation]);
      expect((await read).session.sessionId).toBe("next");
      const next = await conn.start();
      expect(next.generation).toBe(info.generation + 1);
      expect(next.pid).not.toBe(info.pid);
    } finally {
      jest.useRealTimers();
      await conn.close();
    }
  });
});
