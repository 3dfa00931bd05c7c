// The quota service's answer, read into what the card shows. The service is
// not documented; the shape is what it returns in practice:
//   {success, code, msg, data: {level, limits: [{type, unit, number, usage,
//    currentValue, remaining, percentage, nextResetTime, usageDetails}]}}
// It reports failures both as HTTP statuses and as HTTP 200 with its own
// `code` (401 "token expired or incorrect", 1000-1004 authentication, 1302/
// 1303/1305 too many requests), so both are read. Anything unexpected is
// "unavailable", never an exception: /quota must always answer.

export type WindowKind = "five_hour" | "weekly" | "tokens" | "mcp";

export interface QuotaWindow {
  kind: WindowKind;
  /** The window's length in minutes, when the service says (unit × number). */
  minutes?: number;
  /** Share of the window's allowance used, 0-100. */
  usedPercent: number;
  used?: number;
  limit?: number;
  /** When the window resets, epoch ms. */
  resetsAt?: number;
  /** Per-model (MCP tool) usage inside the window. */
  details: Array<{ model: string; usage: number }>;
}

export interface QuotaSnapshot {
  /** The plan's level as the service names it ("lite", "pro", …). */
  level?: string;
  windows: QuotaWindow[];
}

export type UnavailableReason =
  | { why: "timeout"; ms: number }
  | { why: "network" }
  | { why: "http"; status: number }
  | { why: "refused"; code?: number }
  | { why: "unreadable" }
  /** The answer was longer than `bytes` (decompressed) and was not read further. */
  | { why: "too_large"; bytes: number };

export type QuotaOutcome =
  | { kind: "ok"; snapshot: QuotaSnapshot }
  | { kind: "auth_error" }
  | { kind: "rate_limited" }
  | { kind: "unavailable"; reason: UnavailableReason };

const AUTH_CODES = new Set([401, 1000, 1001, 1002, 1003, 1004]);
const RATE_CODES = new Set([429, 1302, 1303, 1305]);
const RATE_WORDS = /rate[ _-]?limit|too many requests|请求过多|频率|并发/i;
// "token expired or incorrect", "invalid API key", "Unauthorized",
// "身份验证失败": a refused key, and nothing else ("plan expired" is not).
const AUTH_WORDS =
  /unauthori[sz]ed|authenticat|\b(?:token|api[ _-]?key|key|credentials?)\b[^.\n]{0,30}\b(?:expired|incorrect|invalid)\b|\b(?:expired|incorrect|invalid)\b[^.\n]{0,30}\b(?:token|api[ _-]?key|key|credentials?)\b|身份验证|令牌|鉴权/i;

// `unit` of a limit, in minutes, as the service numbers them.
const UNIT_MINUTES: Record<number, number> = { 1: 24 * 60, 3: 60, 5: 1, 6: 7 * 24 * 60 };
const FIVE_HOURS = 5 * 60;
const ONE_WEEK = 7 * 24 * 60;

function obj(v: unknown): Record<string, unknown> | undefined {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
}

/** A finite number, from a number or a numeric string. */
function num(v: unknown): number | undefined {
  const n = typeof v === "number" ? v : typeof v === "string" && v.trim() !== "" ? Number(v) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

function clampPercent(p: number): number {
  return Math.min(100, Math.max(0, p));
}

/**
 * Percent used, from the most direct figures the item has: used against
 * used + remaining, else used against the total, else the service's own
 * (older) percentage.
 */
function usedPercent(item: Record<string, unknown>): number | undefined {
  const used = num(item.currentValue);
  const remaining = num(item.remaining);
  const total = num(item.usage);
  if (used !== undefined && remaining !== undefined && used + remaining > 0) {
    return clampPercent((100 * used) / (used + remaining));
  }
  if (used !== undefined && total !== undefined && total > 0) return clampPercent((100 * used) / total);
  const percentage = num(item.percentage);
  return percentage === undefined ? undefined : clampPercent(percentage);
}

/** Epoch ms; a value in seconds (some answers use them) is scaled up. */
function resetTime(v: unknown): number | undefined {
  const n = num(v);
  if (n === undefined || n <= 0) return undefined;
  if (n >= 1e12) return n;
  return n >= 1e9 ? n * 1000 : undefined;
}

function windowKind(type: string, minutes: number | undefined, number: number | undefined): WindowKind {
  if (/^(TIME|MCP)_LIMIT$/i.test(type)) return "mcp";
  if (minutes === FIVE_HOURS) return "five_hour";
  if (minutes === ONE_WEEK) return "weekly";
  // Without a known unit, `number` alone names the usual windows.
  if (minutes === undefined && number === 5) return "five_hour";
  if (minutes === undefined && number === 7) return "weekly";
  return "tokens";
}

function details(v: unknown): QuotaWindow["details"] {
  if (!Array.isArray(v)) return [];
  const out: QuotaWindow["details"] = [];
  for (const d of v) {
    const o = obj(d);
    const model = typeof o?.modelCode === "string" ? o.modelCode : undefined;
    const usage = num(o?.usage);
    if (model && usage !== undefined) out.push({ model, usage });
  }
  return out;
}

function parseWindow(raw: unknown): QuotaWindow | undefined {
  const item = obj(raw);
  if (!item) return undefined;
  const pct = usedPercent(item);
  if (pct === undefined) return undefined;
  const type = typeof item.type === "string" ? item.type : "";
  const unit = num(item.unit);
  const number = num(item.number);
  const unitMinutes = unit === undefined ? undefined : UNIT_MINUTES[unit];
  const minutes = unitMinutes !== undefined && number !== undefined && number > 0 ? unitMinutes * number : undefined;
  const used = num(item.currentValue);
  const limit = num(item.usage);
  const resetsAt = resetTime(item.nextResetTime);
  return {
    kind: windowKind(type, minutes, number),
    ...(minutes !== undefined ? { minutes } : {}),
    usedPercent: pct,
    ...(used !== undefined ? { used } : {}),
    ...(limit !== undefined ? { limit } : {}),
    ...(resetsAt !== undefined ? { resetsAt } : {}),
    details: details(item.usageDetails),
  };
}

// Token windows shortest first (5-hour before weekly), MCP last.
function rank(w: QuotaWindow): number {
  if (w.kind === "mcp") return Number.MAX_SAFE_INTEGER;
  return w.minutes ?? (w.kind === "five_hour" ? FIVE_HOURS : w.kind === "weekly" ? ONE_WEEK : Number.MAX_SAFE_INTEGER - 1);
}

function classifyWords(text: string): "rate_limited" | "auth_error" | undefined {
  if (RATE_WORDS.test(text)) return "rate_limited";
  if (AUTH_WORDS.test(text)) return "auth_error";
  return undefined;
}

/** The outcome of one HTTP answer: its status and body text. */
export function parseQuotaResponse(status: number, body: string): QuotaOutcome {
  if (status === 429) return { kind: "rate_limited" };
  if (status === 401 || status === 403) return { kind: "auth_error" };
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    json = undefined;
  }
  const top = obj(json);
  if (!top) {
    // A proxy's or gateway's page: its words may still say what happened.
    const kind = classifyWords(body.slice(0, 2000));
    if (kind) return { kind };
    return { kind: "unavailable", reason: status >= 200 && status < 300 ? { why: "unreadable" } : { why: "http", status } };
  }
  const code = num(top.code);
  const msg = typeof top.msg === "string" ? top.msg : typeof top.message === "string" ? top.message : "";
  if (code !== undefined && RATE_CODES.has(code)) return { kind: "rate_limited" };
  if (code !== undefined && AUTH_CODES.has(code)) return { kind: "auth_error" };
  const failed = top.success === false || (code !== undefined && code !== 200 && code !== 0);
  if (failed || status < 200 || status >= 300) {
    const kind = classifyWords(msg);
    if (kind) return { kind };
    if (status < 200 || status >= 300) return { kind: "unavailable", reason: { why: "http", status } };
    return { kind: "unavailable", reason: { why: "refused", ...(code !== undefined ? { code } : {}) } };
  }
  const data = obj(top.data);
  const limits = Array.isArray(data?.limits) ? data.limits : [];
  const windows = limits.map(parseWindow).filter((w): w is QuotaWindow => w !== undefined);
  if (windows.length === 0) return { kind: "unavailable", reason: { why: "unreadable" } };
  windows.sort((a, b) => rank(a) - rank(b));
  const level = typeof data?.level === "string" && data.level.trim() ? data.level.trim() : undefined;
  return { kind: "ok", snapshot: { ...(level ? { level } : {}), windows } };
}
