// The quota after turns: at most once a minute, each threshold told once per
// window period; with the system clock faked, never waited for.
import { afterEach, describe, expect, setSystemTime, test } from "bun:test";
import type { QuotaSnapshot, QuotaWindow } from "../../../src/quota/parse.ts";
import { isQuotaSpent, QUOTA_PUSH_INTERVAL_MS, QuotaWatch, spentWindows } from "../../../src/quota/watch.ts";

const T0 = Date.parse("2026-12-04T10:00:00Z");
afterEach(() => setSystemTime());

const five = (usedPercent: number, resetsAt = T0 + 3_600_000): QuotaWindow => ({
  kind: "five_hour",
  minutes: 300,
  usedPercent,
  resetsAt,
  details: [],
});
const week = (usedPercent: number): QuotaWindow => ({
  kind: "weekly",
  minutes: 10080,
  usedPercent,
  resetsAt: T0 + 86_400_000,
  details: [],
});
const snap = (...windows: QuotaWindow[]): QuotaSnapshot => ({ level: "pro", windows });

describe("QuotaWatch", () => {
  test("a turn may ask once a minute, whatever the number of turns in between", () => {
    setSystemTime(new Date(T0));
    const w = new QuotaWatch();
    expect(w.takeTurn()).toBe(true);
    expect(w.takeTurn()).toBe(false);
    setSystemTime(new Date(T0 + QUOTA_PUSH_INTERVAL_MS - 1));
    expect(w.takeTurn()).toBe(false);
    setSystemTime(new Date(T0 + QUOTA_PUSH_INTERVAL_MS));
    expect(w.takeTurn()).toBe(true);
    expect(w.takeTurn()).toBe(false);
  });

  test("80% and 95% told once each per period; a jump past both tells 95% only; a new period starts again", () => {
    setSystemTime(new Date(T0));
    const w = new QuotaWatch();
    expect(w.observe(snap(five(50), week(10)))).toEqual([]);
    expect(w.observe(snap(five(81), week(10))).map((c) => [c.window.kind, c.threshold])).toEqual([["five_hour", 80]]);
    expect(w.observe(snap(five(85), week(10)))).toEqual([]);
    expect(w.observe(snap(five(96), week(99))).map((c) => [c.window.kind, c.threshold])).toEqual([
      ["five_hour", 95],
      ["weekly", 95],
    ]);
    expect(w.observe(snap(five(100), week(100)))).toEqual([]);
    // The 5-hour window reset: a new period, told again when it fills.
    expect(w.observe(snap(five(82, T0 + 5 * 3_600_000), week(100))).map((c) => c.threshold)).toEqual([80]);
  });

  test("the last answer is kept for a minute", () => {
    setSystemTime(new Date(T0));
    const w = new QuotaWatch();
    expect(w.latest()).toBeUndefined();
    w.observe(snap(five(10)));
    expect(w.latest()?.windows[0]?.usedPercent).toBe(10);
    setSystemTime(new Date(T0 + QUOTA_PUSH_INTERVAL_MS + 1));
    expect(w.latest()).toBeUndefined();
  });
});

describe("a spent plan", () => {
  test("known by ZCode's terminal rate-limit codes or the provider's words", () => {
    expect(isQuotaSpent("anything", "1308")).toBe(true);
    expect(isQuotaSpent(undefined, "1310")).toBe(true);
    expect(isQuotaSpent(undefined, "1319")).toBe(true);
    expect(isQuotaSpent("Usage limit reached for 5 hour. Your limit will reset at 2026-12-04 17:00:00")).toBe(true);
    expect(isQuotaSpent("已达到 5 小时的使用上限")).toBe(true);
    expect(isQuotaSpent("Insufficient balance", "1113")).toBe(false);
    expect(isQuotaSpent("High concurrency", "1302")).toBe(false);
  });
  test("names the full windows, else the fullest", () => {
    expect(spentWindows(snap(five(100), week(40))).map((w) => w.kind)).toEqual(["five_hour"]);
    expect(spentWindows(snap(five(60), week(97))).map((w) => w.kind)).toEqual(["weekly"]);
    expect(spentWindows(snap())).toEqual([]);
  });
});
