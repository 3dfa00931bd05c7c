import { t } from "../i18n/index.ts";
import type { QuotaOutcome, QuotaSnapshot, QuotaWindow, UnavailableReason } from "./parse.ts";

// What /quota says. The card is a fenced `text` block: every editor's chat
// renders it in a monospace font, so the bars line up, and nothing in it is
// read as markdown. Two lines per window keep it narrow enough for a side
// panel. Reset times are in the local time of the machine the bridge runs on
// (the user's). The words are the language table's (t().quota); columns are
// measured in display cells, since a CJK character takes two.

const BAR_CELLS = 20;
const INDENT_GAP = 2;
const MAX_DIVIDER = 48;

export interface CardOptions {
  /** Epoch ms the relative reset times count from. */
  now: number;
  /** IANA zone for reset times; the process's local zone when absent. */
  timeZone?: string;
}

/** A string from the service, safe inside a fenced block on one line. */
function clean(s: string, max = 40): string {
  const out = s.replace(/[\u0000-\u001f\u007f-\u009f`]/g, "").trim();
  return out.length > max ? `${out.slice(0, max - 1)}…` : out;
}

// East Asian wide and fullwidth ranges (Hangul Jamo, CJK and its punctuation,
// Hangul syllables, compatibility ideographs, vertical and fullwidth forms).
const WIDE = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6]/;

/** The cells `s` takes in a monospace font: two for a CJK character, one for the rest. */
export function displayWidth(s: string): number {
  let width = 0;
  for (const ch of s) width += WIDE.test(ch) ? 2 : 1;
  return width;
}

function padEnd(s: string, width: number): string {
  return s + " ".repeat(Math.max(0, width - displayWidth(s)));
}

function padStart(s: string, width: number): string {
  return " ".repeat(Math.max(0, width - displayWidth(s))) + s;
}

function titleCase(s: string): string {
  return s ? s[0]!.toUpperCase() + s.slice(1) : s;
}

/** 5,710 · 60,000 · 128k · 800M: exact while short, then short enough for a narrow panel. */
export function compactNumber(n: number): string {
  const abs = Math.abs(n);
  if (abs < 100_000) return Math.round(n).toLocaleString("en-US");
  for (const [div, suffix] of [
    [1e9, "B"],
    [1e6, "M"],
    [1e3, "k"],
  ] as const) {
    if (abs < div) continue;
    const v = n / div;
    return `${Math.abs(v) < 100 ? v.toFixed(1).replace(/\.0$/, "") : Math.round(v)}${suffix}`;
  }
  return String(n);
}

/** "40", "<1", "100": never 100 before the limit is reached, never 0 once something is used. */
export function percentText(p: number): string {
  if (p >= 100) return "100";
  if (p > 0 && p < 1) return "<1";
  return String(Math.min(99, Math.round(p)));
}

/** 20 cells, one per 5 %; a used window shows at least one, an unfinished one at most 19. */
export function bar(p: number): string {
  let cells = Math.round((p / 100) * BAR_CELLS);
  if (p > 0) cells = Math.max(1, cells);
  if (p < 100) cells = Math.min(BAR_CELLS - 1, cells);
  cells = Math.min(BAR_CELLS, Math.max(0, cells));
  return "█".repeat(cells) + "░".repeat(BAR_CELLS - cells);
}

/** MM-DD HH:MM in the given (or local) zone. */
export function localTime(ms: number, timeZone?: string): string {
  const parts = new Intl.DateTimeFormat("en-US", {
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
    ...(timeZone ? { timeZone } : {}),
  }).formatToParts(new Date(ms));
  const get = (t: Intl.DateTimeFormatPartTypes) => parts.find((p) => p.type === t)?.value ?? "??";
  return `${get("month")}-${get("day")} ${get("hour")}:${get("minute")}`;
}

/** "2h 14m", "4d 3h", "45m", "<1m" (in English); undefined once the time has passed. */
export function untilText(ms: number, now: number): string | undefined {
  const left = ms - now;
  if (left <= 0) return undefined;
  const minutes = Math.floor(left / 60_000);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  const say = t().quota.duration;
  if (d > 0) return say.days(d, h);
  if (h > 0) return say.hours(h, m);
  return m > 0 ? say.minutes(m) : say.underAMinute;
}

/** The window's name as the card shows it ("5-hour", "Weekly", "24-hour"…). */
export function windowLabel(w: QuotaWindow): string {
  const text = t().quota;
  if (w.kind !== "tokens" || w.minutes === undefined) return text.labels[w.kind];
  const m = w.minutes;
  if (m % (7 * 1440) === 0) return text.windowOf(m / (7 * 1440), "week");
  if (m % 1440 === 0) return text.windowOf(m / 1440, "day");
  if (m % 60 === 0) return text.windowOf(m / 60, "hour");
  return text.windowOf(m, "minute");
}

function windowLines(w: QuotaWindow, labelWidth: number, opts: CardOptions): string[] {
  const text = t().quota;
  const pct = percentText(w.usedPercent);
  const status = w.usedPercent >= 100 ? `${text.used(pct)} · ${text.limitReached}` : text.used(pct);
  const indent = " ".repeat(labelWidth + INDENT_GAP);
  const lines = [
    `${padEnd(windowLabel(w), labelWidth)}${" ".repeat(INDENT_GAP)}${bar(w.usedPercent)}  ${padStart(status, displayWidth(text.used("100")))}`,
  ];
  // The reset first: it is what a person reads the card for, and stays in view in a narrow panel.
  const facts: string[] = [];
  if (w.resetsAt !== undefined) facts.push(text.resets(localTime(w.resetsAt, opts.timeZone), untilText(w.resetsAt, opts.now)));
  if (w.used !== undefined && w.limit !== undefined && w.limit > 0) {
    facts.push(text.amount(compactNumber(w.used), compactNumber(w.limit)));
  }
  if (facts.length) lines.push(`${indent}${facts.join(" · ")}`);
  const details = w.details.map((d) => ({ model: clean(d.model), usage: compactNumber(d.usage) }));
  const modelWidth = Math.max(0, ...details.map((d) => displayWidth(d.model)));
  const usageWidth = Math.max(0, ...details.map((d) => d.usage.length));
  details.forEach((d, i) => {
    const branch = i === details.length - 1 ? "└" : "├";
    lines.push(`${indent}${branch} ${padEnd(d.model, modelWidth)}  ${d.usage.padStart(usageWidth)}`);
  });
  return lines;
}

/** The card: a title, a divider and each window's bar, percentage, amounts and reset. */
export function quotaCard(snapshot: QuotaSnapshot, opts: CardOptions): string {
  const text = t().quota;
  const level = snapshot.level ? clean(snapshot.level, 24) : "";
  const title = level ? `${text.title} · ${titleCase(level)}` : text.title;
  const labelWidth = Math.max(0, ...snapshot.windows.map((w) => displayWidth(windowLabel(w))));
  const body = snapshot.windows.flatMap((w) => windowLines(w, labelWidth, opts));
  // As wide as the card's columns (label, bar, percentage), whatever the longer lines add.
  const columns = labelWidth + INDENT_GAP + BAR_CELLS + 2 + displayWidth(text.used("100"));
  const width = Math.min(MAX_DIVIDER, Math.max(displayWidth(title), columns));
  return ["```text", title, "─".repeat(width), ...body, "```"].join("\n");
}

function reasonText(r: UnavailableReason): string {
  const reasons = t().quota.reasons;
  switch (r.why) {
    case "timeout":
      return reasons.timeout(String(Math.round(r.ms / 100) / 10));
    case "network":
      return reasons.network;
    case "http":
      return reasons.http(r.status);
    case "refused":
      return reasons.refused(r.code);
    case "unreadable":
      return reasons.unreadable;
    case "too_large":
      return reasons.tooLarge(String(Math.round(r.bytes / 1024)));
  }
}

/** The whole reply to /quota for an outcome. */
export function quotaReply(outcome: QuotaOutcome, opts: CardOptions & { providerName: string }): string {
  const text = t().quota;
  switch (outcome.kind) {
    case "ok":
      return quotaCard(outcome.snapshot, opts);
    case "auth_error":
      return text.authError(opts.providerName);
    case "rate_limited":
      return text.rateLimited;
    case "unavailable":
      return text.unavailable(reasonText(outcome.reason));
  }
}
