// The /quota card and messages in Chinese: the table's words, en-US number
// grouping and MM-DD HH:MM dates as in English, and columns that still line
// up although a Chinese character takes two cells in a monospace font.
import { afterEach, describe, expect, test } from "bun:test";
import { setLanguage } from "../../../src/i18n/index.ts";
import { displayWidth, quotaCard, quotaReply, untilText } from "../../../src/quota/card.ts";
import type { QuotaSnapshot } from "../../../src/quota/parse.ts";
import { englishLeft } from "../../support/english-left.ts";

afterEach(() => setLanguage("en"));

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
    { kind: "weekly", minutes: 10080, usedPercent: 100, used: 60000, limit: 60000, resetsAt: NOW + 4 * DAY + 3 * HOUR, details: [] },
    { kind: "tokens", minutes: 1440, usedPercent: 0.5, resetsAt: NOW + 30 * 1000, details: [] },
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

describe("the card in zh", () => {
  test("the whole card", () => {
    setLanguage("zh");
    expect(quotaCard(SNAPSHOT, { now: NOW, timeZone: "Asia/Shanghai" })).toBe(
      [
        "```text",
        "GLM Coding Plan · Pro",
        "───────────────────────────────────────",
        "5 小时  ██████████░░░░░░░░░░   已用 48%",
        "        05-01 22:30 重置（2 小时 14 分钟后） · 5,710 / 12,000",
        "每周    ████████████████████  已用 100% · 已达上限",
        "        05-05 23:16 重置（4 天 3 小时后） · 60,000 / 60,000",
        "1 天    █░░░░░░░░░░░░░░░░░░░   已用 <1%",
        "        05-01 20:16 重置（不到 1 分钟后）",
        "MCP     █░░░░░░░░░░░░░░░░░░░    已用 3%",
        "        05-31 20:16 重置（30 天后） · 125 / 4,000",
        "        ├ search-prime  100",
        "        └ web-reader     25",
        "```",
      ].join("\n"),
    );
  });

  test("bars start and percentages end in the same column on every window line", () => {
    setLanguage("zh");
    const lines = quotaCard(SNAPSHOT, { now: NOW })
      .split("\n")
      .filter((l) => /[█░]/.test(l));
    const barAt = lines.map((l) => displayWidth(l.slice(0, l.search(/[█░]/))));
    expect(new Set(barAt).size).toBe(1);
    const percentEnd = lines.map((l) => displayWidth(l.replace(/ · .*$/, "")));
    expect(new Set(percentEnd).size).toBe(1);
  });

  test("durations, and every failure message, with no English left", () => {
    setLanguage("zh");
    expect(untilText(NOW + 4 * DAY + 3 * HOUR, NOW)).toBe("4 天 3 小时");
    expect(untilText(NOW + HOUR, NOW)).toBe("1 小时 0 分钟");
    expect(untilText(NOW + 59 * MIN, NOW)).toBe("59 分钟");
    const opts = { now: NOW, providerName: "Z.ai Coding Plan" };
    const replies = [
      quotaReply({ kind: "auth_error" }, opts),
      quotaReply({ kind: "rate_limited" }, opts),
      ...(
        [
          { why: "timeout", ms: 8000 },
          { why: "network" },
          { why: "http", status: 502 },
          { why: "refused", code: 1234 },
          { why: "refused" },
          { why: "unreadable" },
          { why: "too_large", bytes: 262144 },
        ] as const
      ).map((reason) => quotaReply({ kind: "unavailable", reason }, opts)),
    ];
    for (const r of replies) expect({ r, english: englishLeft(r) }).toEqual({ r, english: [] });
    expect(replies[2]).toBe("暂时无法获取额度信息：额度服务在 8 秒内没有响应。请稍后再运行 `/quota`。");
    expect(replies.at(-1)).toBe(
      "暂时无法获取额度信息：额度服务的响应超过 256 KB，远大于正常的额度信息，因此未读取。请稍后再运行 `/quota`。",
    );
  });

  test("displayWidth: two cells for CJK and fullwidth punctuation, one for the rest", () => {
    expect(displayWidth("5-hour")).toBe(6);
    expect(displayWidth("5 小时")).toBe(6);
    expect(displayWidth("（重置）")).toBe(8);
    expect(displayWidth("█░─·")).toBe(4);
  });
});
