// The quota service's answers, as it gives them: windows and their figures,
// and every way it says no.
import { describe, expect, test } from "bun:test";
import { parseQuotaResponse, type QuotaOutcome, type QuotaWindow } from "../../../src/quota/parse.ts";

const RESET = 1_790_000_000_000;

function answer(limits: unknown[], extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ code: 200, msg: "Operation successful", success: true, data: { level: "pro", limits }, ...extra });
}

function windows(o: QuotaOutcome): QuotaWindow[] {
  if (o.kind !== "ok") throw new Error(`expected ok, got ${JSON.stringify(o)}`);
  return o.snapshot.windows;
}

describe("windows", () => {
  test("a full answer: 5-hour, weekly and MCP with figures, resets and per-model details, in that order", () => {
    const o = parseQuotaResponse(
      200,
      answer([
        {
          type: "TIME_LIMIT",
          unit: 5,
          number: 1,
          usage: 4000,
          currentValue: 125,
          remaining: 3875,
          percentage: 3,
          nextResetTime: RESET + 3,
          usageDetails: [{ modelCode: "search-prime", usage: 100 }, { modelCode: "web-reader", usage: 25 }, { bad: 1 }],
        },
        {
          type: "TOKENS_LIMIT",
          unit: 6,
          number: 1,
          usage: 60000,
          currentValue: 5710,
          remaining: 54290,
          percentage: 9,
          nextResetTime: RESET + 2,
        },
        {
          type: "TOKENS_LIMIT",
          unit: 3,
          number: 5,
          usage: 12000,
          currentValue: 5710,
          remaining: 6290,
          percentage: 47,
          nextResetTime: RESET + 1,
        },
      ]),
    );
    expect(o).toEqual({
      kind: "ok",
      snapshot: {
        level: "pro",
        windows: [
          {
            kind: "five_hour",
            minutes: 300,
            usedPercent: (100 * 5710) / 12000,
            used: 5710,
            limit: 12000,
            resetsAt: RESET + 1,
            details: [],
          },
          { kind: "weekly", minutes: 10080, usedPercent: (100 * 5710) / 60000, used: 5710, limit: 60000, resetsAt: RESET + 2, details: [] },
          {
            kind: "mcp",
            minutes: 1,
            usedPercent: (100 * 125) / 4000,
            used: 125,
            limit: 4000,
            resetsAt: RESET + 3,
            details: [
              { model: "search-prime", usage: 100 },
              { model: "web-reader", usage: 25 },
            ],
          },
        ],
      },
    });
  });

  test("percent used: from used and remaining, else used of total, else the service's percentage", () => {
    const [a, b, c] = windows(
      parseQuotaResponse(
        200,
        answer([
          // used + remaining wins over a total that disagrees and over `percentage`.
          { type: "TOKENS_LIMIT", unit: 3, number: 5, usage: 1000, currentValue: 30, remaining: 70, percentage: 99 },
          { type: "TOKENS_LIMIT", unit: 6, number: 1, usage: 200, currentValue: 50, percentage: 99 },
          { type: "TIME_LIMIT", percentage: 12.5 },
        ]),
      ),
    );
    expect(a!.usedPercent).toBe(30);
    expect(b!.usedPercent).toBe(25);
    expect(c!.usedPercent).toBe(12.5);
  });

  test("figures out of range are clamped; numeric strings are numbers", () => {
    const [a, b] = windows(
      parseQuotaResponse(
        200,
        answer([
          { type: "TOKENS_LIMIT", unit: "3", number: "5", usage: "100", currentValue: "150" },
          { type: "TOKENS_LIMIT", unit: 6, number: 1, percentage: -4 },
        ]),
      ),
    );
    expect(a).toMatchObject({ kind: "five_hour", usedPercent: 100 });
    expect(b).toMatchObject({ kind: "weekly", usedPercent: 0 });
  });

  test("window kinds: unit × number, `number` alone (5, 7) without a unit, other lengths as generic token windows", () => {
    const w = windows(
      parseQuotaResponse(
        200,
        answer([
          { type: "TOKENS_LIMIT", number: 7, percentage: 1 },
          { type: "TOKENS_LIMIT", number: 5, percentage: 1 },
          { type: "TOKENS_LIMIT", unit: 1, number: 7, percentage: 1 },
          { type: "CREDIT_LIMIT", unit: 1, number: 1, percentage: 1 },
          { type: "TOKENS_LIMIT", percentage: 1 },
          { type: "MCP_LIMIT", percentage: 1 },
        ]),
      ),
    );
    expect(w.map((x) => [x.kind, x.minutes])).toEqual([
      ["five_hour", undefined],
      ["tokens", 1440],
      ["weekly", undefined],
      ["weekly", 10080],
      ["tokens", undefined],
      ["mcp", undefined],
    ]);
  });

  test("reset times: epoch ms kept, epoch seconds scaled, nonsense dropped", () => {
    const w = windows(
      parseQuotaResponse(
        200,
        answer([
          { type: "TOKENS_LIMIT", unit: 3, number: 5, percentage: 1, nextResetTime: 1_790_000_000 },
          { type: "TOKENS_LIMIT", unit: 6, number: 1, percentage: 1, nextResetTime: "soon" },
          { type: "TIME_LIMIT", percentage: 1, nextResetTime: 42 },
        ]),
      ),
    );
    expect(w.map((x) => x.resetsAt)).toEqual([1_790_000_000_000, undefined, undefined]);
  });

  test("items without any figure are skipped; the level is optional", () => {
    const o = parseQuotaResponse(
      200,
      JSON.stringify({
        success: true,
        code: 200,
        data: { limits: [{ type: "TOKENS_LIMIT" }, "x", null, { type: "TIME_LIMIT", percentage: 5 }] },
      }),
    );
    expect(o.kind === "ok" && o.snapshot).toEqual({ windows: [{ kind: "mcp", usedPercent: 5, details: [] }] });
  });
});

describe("failures", () => {
  const auth: QuotaOutcome = { kind: "auth_error" };
  const rate: QuotaOutcome = { kind: "rate_limited" };

  test("HTTP 429 is rate-limited; HTTP 401 and 403 are a refused key", () => {
    expect(parseQuotaResponse(429, "")).toEqual(rate);
    expect(parseQuotaResponse(429, answer([{ type: "TOKENS_LIMIT", percentage: 1 }]))).toEqual(rate);
    expect(parseQuotaResponse(401, "")).toEqual(auth);
    expect(parseQuotaResponse(403, "<html>Forbidden</html>")).toEqual(auth);
  });

  test("HTTP 200 carrying the service's own refusal codes", () => {
    expect(parseQuotaResponse(200, JSON.stringify({ code: 401, msg: "token expired or incorrect", success: false }))).toEqual(auth);
    for (const code of [1000, 1001, 1002, 1003, 1004]) {
      expect(parseQuotaResponse(200, JSON.stringify({ code, msg: "", success: false }))).toEqual(auth);
    }
    for (const code of [429, 1302, 1303, 1305]) {
      expect(parseQuotaResponse(200, JSON.stringify({ code, msg: "", success: false }))).toEqual(rate);
    }
  });

  test("words: rate limits before auth, in JSON messages and in non-JSON pages", () => {
    expect(parseQuotaResponse(200, JSON.stringify({ code: 500, msg: "Rate limit exceeded, token expired?", success: false }))).toEqual(
      rate,
    );
    expect(parseQuotaResponse(500, JSON.stringify({ code: 9, msg: "您当前使用该API的频率过高", success: false }))).toEqual(rate);
    expect(parseQuotaResponse(200, JSON.stringify({ code: 9, msg: "Invalid API key", success: false }))).toEqual(auth);
    expect(parseQuotaResponse(200, JSON.stringify({ code: 9, msg: "身份验证失败", success: false }))).toEqual(auth);
    expect(parseQuotaResponse(502, "<html><body>Too Many Requests</body></html>")).toEqual(rate);
    expect(parseQuotaResponse(500, "Unauthorized")).toEqual(auth);
  });

  test("an unrelated failure message is not mistaken for a sign-in problem", () => {
    expect(parseQuotaResponse(200, JSON.stringify({ code: 9, msg: "Incorrect parameter: plan expired", success: false }))).toEqual({
      kind: "unavailable",
      reason: { why: "refused", code: 9 },
    });
    expect(parseQuotaResponse(200, JSON.stringify({ success: false }))).toEqual({ kind: "unavailable", reason: { why: "refused" } });
  });

  test("nothing usable: unavailable, saying whether the status or the body was the problem", () => {
    expect(parseQuotaResponse(500, "Internal Server Error")).toEqual({ kind: "unavailable", reason: { why: "http", status: 500 } });
    expect(parseQuotaResponse(503, JSON.stringify({ oops: true }))).toEqual({ kind: "unavailable", reason: { why: "http", status: 503 } });
    expect(parseQuotaResponse(302, "")).toEqual({ kind: "unavailable", reason: { why: "http", status: 302 } });
    const unreadable: QuotaOutcome = { kind: "unavailable", reason: { why: "unreadable" } };
    for (const body of [
      "",
      "garbage{",
      "[]",
      "null",
      "42",
      JSON.stringify({ success: true, code: 200, data: { limits: [] } }),
      JSON.stringify({ success: true, data: { limits: "x" } }),
      answer([{ type: "TOKENS_LIMIT" }]),
    ]) {
      expect(parseQuotaResponse(200, body)).toEqual(unreadable);
    }
  });
});
