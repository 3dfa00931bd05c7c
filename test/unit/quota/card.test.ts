// The /quota card and messages, with a fixed clock and time zone.
import { describe, expect, test } from "bun:test";
import { bar, compactNumber, localTime, percentText, quotaCard, quotaReply, untilText } from "../../../src/quota/card.ts";
import type { QuotaSnapshot } from "../../../src/quota/parse.ts";

// 2026-05-01 12:16:00 UTC = 20:16 in Shanghai.
const NOW = Date.UTC(2026, 4, 1, 12, 16, 0);
const MIN = 60_000;
const HOUR = 60 * MIN;
const DAY = 24 * HOUR;

const SNAPSHOT: QuotaSnapshot = {
  level: "pro",
  windows: [
    {
      kind: "five_hour",
      minutes: 300,
      usedPercent: 47.58,
      used: 5710,
      limit: 12000,
      resetsAt: NOW + 2 * HOUR + 14 * MIN + 30_000,
      details: [],
    },
    { kind: "weekly", minutes: 10080, usedPercent: 9.5, used: 5710, limit: 60000, resetsAt: NOW + 4 * DAY + 3 * HOUR, details: [] },
    {
      kind: "mcp",
      usedPercent: 3.125,
      used: 125,
      limit: 4000,
      resetsAt: NOW + 30 * DAY,
      details: [
        { model: "search-prime", usage: 100 },
        { model: "web-reader", usage: 25 },
      ],
    },
  ],
};

describe("quotaCard", () => {
  test("the whole card: title with level, divider, bars, percentages, local reset times, amounts, details", () => {
    expect(quotaCard(SNAPSHOT, { now: NOW, timeZone: "Asia/Shanghai" })).toBe(
      [
        "```text",
        "GLM Coding Plan · Pro",
        "───────────────────────────────────────",
        "5-hour  ██████████░░░░░░░░░░   48% used",
        "        resets 05-01 22:30 (in 2h 14m) · 5,710 of 12,000",
        "Weekly  ██░░░░░░░░░░░░░░░░░░   10% used",
        "        resets 05-05 23:16 (in 4d 3h) · 5,710 of 60,000",
        "MCP     █░░░░░░░░░░░░░░░░░░░    3% used",
        "        resets 05-31 20:16 (in 30d) · 125 of 4,000",
        "        ├ search-prime  100",
        "        └ web-reader     25",
        "```",
      ].join("\n"),
    );
  });

  test("reset times follow the zone (the bridge's local time by default)", () => {
    const utc = quotaCard(SNAPSHOT, { now: NOW, timeZone: "UTC" });
    expect(utc).toContain("resets 05-01 14:30 (in 2h 14m)");
    expect(localTime(Date.UTC(2026, 0, 2, 3, 4), "America/New_York")).toBe("01-01 22:04");
  });

  test("a spent window says so; a window without figures or reset is one line; no level, no dot", () => {
    const card = quotaCard(
      {
        windows: [
          { kind: "five_hour", usedPercent: 100, resetsAt: NOW + 30 * MIN, details: [] },
          { kind: "tokens", minutes: 1440, usedPercent: 0, details: [] },
          { kind: "tokens", usedPercent: 0.2, details: [] },
        ],
      },
      { now: NOW, timeZone: "UTC" },
    );
    expect(card.split("\n")).toEqual([
      "```text",
      "GLM Coding Plan",
      "───────────────────────────────────────",
      "5-hour  ████████████████████  100% used · limit reached",
      "        resets 05-01 12:46 (in 30m)",
      "1-day   ░░░░░░░░░░░░░░░░░░░░    0% used",
      "Tokens  █░░░░░░░░░░░░░░░░░░░   <1% used",
      "```",
    ]);
  });

  test("text from the service cannot break out of the block or the line", () => {
    const card = quotaCard(
      {
        level: "pro```\n# injected",
        windows: [{ kind: "mcp", usedPercent: 1, details: [{ model: "a```b\nc\u0007", usage: 1 }] }],
      },
      { now: NOW, timeZone: "UTC" },
    );
    const lines = card.split("\n");
    expect(lines[0]).toBe("```text");
    expect(lines.at(-1)).toBe("```");
    expect(lines.slice(1, -1).join("\n")).not.toContain("`");
    expect(lines[1]).toBe("GLM Coding Plan · Pro# injected");
    // The details hang under the bar, past the (3-letter) label.
    expect(lines.at(-2)).toBe("     └ abc  1");
  });
});

describe("pieces", () => {
  test("percentText: never 100 early, never 0 once used", () => {
    expect([0, 0.4, 1, 49.5, 99.4, 99.6, 100, 150].map(percentText)).toEqual(["0", "<1", "1", "50", "99", "99", "100", "100"]);
  });

  test("bar: 20 cells, at least one when used, all only when spent", () => {
    expect(bar(0)).toBe("░".repeat(20));
    expect(bar(0.1)).toBe(`█${"░".repeat(19)}`);
    expect(bar(50)).toBe(`${"█".repeat(10)}${"░".repeat(10)}`);
    expect(bar(99.9)).toBe(`${"█".repeat(19)}░`);
    expect(bar(100)).toBe("█".repeat(20));
  });

  test("compactNumber: exact below 100k, short above", () => {
    expect([0, 125, 5710, 99_999, 127_694, 54_290_000, 800_000_000, 1_250_000_000].map(compactNumber)).toEqual([
      "0",
      "125",
      "5,710",
      "99,999",
      "128k",
      "54.3M",
      "800M",
      "1.3B",
    ]);
  });

  test("untilText: days and hours, hours and minutes, minutes; nothing once past", () => {
    expect(untilText(NOW + 4 * DAY + 3 * HOUR + 59 * MIN, NOW)).toBe("4d 3h");
    expect(untilText(NOW + 2 * DAY, NOW)).toBe("2d");
    expect(untilText(NOW + HOUR, NOW)).toBe("1h 0m");
    expect(untilText(NOW + 59 * MIN + 59_000, NOW)).toBe("59m");
    expect(untilText(NOW + 1000, NOW)).toBe("<1m");
    expect(untilText(NOW, NOW)).toBeUndefined();
    expect(untilText(NOW - HOUR, NOW)).toBeUndefined();
  });
});

describe("quotaReply", () => {
  const opts = { now: NOW, timeZone: "UTC", providerName: "Z.ai Coding Plan" };

  test("ok is the card; each failure its own message", () => {
    expect(quotaReply({ kind: "ok", snapshot: SNAPSHOT }, opts)).toBe(quotaCard(SNAPSHOT, opts));
    expect(quotaReply({ kind: "auth_error" }, opts)).toBe(
      "Not signed in, or the sign-in expired: the GLM Coding Plan refused the key the ZCode app stored for Z.ai Coding Plan. Sign in again in the ZCode app (Settings → Models), then run `/quota` again.",
    );
    expect(quotaReply({ kind: "rate_limited" }, opts)).toBe(
      "The quota service is rate-limiting requests right now. Wait a minute, then run `/quota` again.",
    );
    const un = (reason: Parameters<typeof quotaReply>[0] & { kind: "unavailable" }) => quotaReply(reason, opts);
    expect(un({ kind: "unavailable", reason: { why: "timeout", ms: 8000 } })).toBe(
      "Quota information is unavailable right now: the quota service did not answer within 8 s. Try `/quota` again later.",
    );
    expect(un({ kind: "unavailable", reason: { why: "timeout", ms: 250 } })).toContain("within 0.3 s");
    expect(un({ kind: "unavailable", reason: { why: "http", status: 500 } })).toContain("answered HTTP 500");
    expect(un({ kind: "unavailable", reason: { why: "network" } })).toContain("could not be reached");
    expect(un({ kind: "unavailable", reason: { why: "refused", code: 9 } })).toContain("declined the request (code 9)");
    expect(un({ kind: "unavailable", reason: { why: "refused" } })).toContain("declined the request.");
    expect(un({ kind: "unavailable", reason: { why: "unreadable" } })).toContain("answer could not be read");
    expect(un({ kind: "unavailable", reason: { why: "too_large", bytes: 262144 } })).toBe(
      "Quota information is unavailable right now: the quota service's answer was larger than 256 KB, far more than a quota answer, so it was not read. Try `/quota` again later.",
    );
  });
});
