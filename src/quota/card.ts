import type { QuotaOutcome, QuotaSnapshot, QuotaWindow, UnavailableReason } from "./parse.ts";

// What /quota says. The card is a fenced `text` block: every editor's chat
// renders it in a monospace font, so the bars line up, and nothing in it is
// read as markdown. Two lines per window keep it narrow enough for a side
// panel. Reset times are in the local time of the machine the bridge runs on
// (the user's). Every user-visible string is in QUOTA_TEXT, so the strings
// can move to per-language tables in one piece.

export const QUOTA_TEXT = {
  description: "Show the GLM Coding Plan's usage (5-hour, weekly and MCP windows) and when each resets",
  noArguments: "`/quota` takes no arguments.",
  title: "GLM Coding Plan",
  labels: { five_hour: "5-hour", weekly: "Weekly", mcp: "MCP", tokens: "Tokens" } as Record<QuotaWindow["kind"], string>,
  /** A token window of another length: "24-hour", "30-day". */
  windowOf: (n: number, unit: "minute" | "hour" | "day" | "week") => `${n}-${unit}`,
  used: (percent: string) => `${percent}% used`,
  limitReached: "limit reached",
  amount: (used: string, limit: string) => `${used} of ${limit}`,
  resets: (when: string, inText: string | undefined) => (inText ? `resets ${when} (in ${inText})` : `resets ${when}`),
  notSignedIn:
    "Not signed in: the ZCode app has no GLM Coding Plan sign-in (no enabled Z.ai or BigModel provider with an API key in `~/.zcode/v2/config.json`). Sign in to your plan in the ZCode app (Settings → Models), then run `/quota` again.",
  badOverride: "`ZCODE_ACP_QUOTA_URL` is set but is not an http:// or https:// URL, so `/quota` asked nothing. Fix or unset it in the agent's settings.",
  authError: (provider: string) =>
    `Not signed in, or the sign-in expired: the GLM Coding Plan refused the key the ZCode app stored for ${provider}. Sign in again in the ZCode app (Settings → Models), then run \`/quota\` again.`,
  rateLimited: "The quota service is rate-limiting requests right now. Wait a minute, then run `/quota` again.",
  unavailable: (why: string) => `Quota information is unavailable right now: ${why}. Try \`/quota\` again later.`,
  reasons: {
    timeout: (seconds: string) => `the quota service did not answer within ${seconds} s`,
    network: "the quota service could not be reached",
    http: (status: number) => `the quota service answered HTTP ${status}`,
    refused: (code: number | undefined) => (code === undefined ? "the quota service declined the request" : `the quota service declined the request (code ${code})`),
    unreadable: "the quota service's answer could not be read",
  },
} as const;

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
  const t = s.replace(/[\u0000-\u001f\u007f-\u009f`]/g, "").trim();
  return t.length > max ? `${t.slice(0, max - 1)}…` : t;
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

/** "2h 14m", "4d 3h", "45m", "<1m"; undefined once the time has passed. */
export function untilText(ms: number, now: number): string | undefined {
  const left = ms - now;
  if (left <= 0) return undefined;
  const minutes = Math.floor(left / 60_000);
  const d = Math.floor(minutes / 1440);
  const h = Math.floor((minutes % 1440) / 60);
  const m = minutes % 60;
  if (d > 0) return h > 0 ? `${d}d ${h}h` : `${d}d`;
  if (h > 0) return `${h}h ${m}m`;
  return m > 0 ? `${m}m` : "<1m";
}

function windowLabel(w: QuotaWindow): string {
  if (w.kind !== "tokens" || w.minutes === undefined) return QUOTA_TEXT.labels[w.kind];
  const m = w.minutes;
  if (m % (7 * 1440) === 0) return QUOTA_TEXT.windowOf(m / (7 * 1440), "week");
  if (m % 1440 === 0) return QUOTA_TEXT.windowOf(m / 1440, "day");
  if (m % 60 === 0) return QUOTA_TEXT.windowOf(m / 60, "hour");
  return QUOTA_TEXT.windowOf(m, "minute");
}

function windowLines(w: QuotaWindow, labelWidth: number, opts: CardOptions): string[] {
  const pct = percentText(w.usedPercent);
  const status = w.usedPercent >= 100 ? `${QUOTA_TEXT.used(pct)} · ${QUOTA_TEXT.limitReached}` : QUOTA_TEXT.used(pct);
  const indent = " ".repeat(labelWidth + INDENT_GAP);
  const lines = [`${windowLabel(w).padEnd(labelWidth)}${" ".repeat(INDENT_GAP)}${bar(w.usedPercent)}  ${status.padStart(QUOTA_TEXT.used("100").length)}`];
  // The reset first: it is what a person reads the card for, and stays in view in a narrow panel.
  const facts: string[] = [];
  if (w.resetsAt !== undefined) facts.push(QUOTA_TEXT.resets(localTime(w.resetsAt, opts.timeZone), untilText(w.resetsAt, opts.now)));
  if (w.used !== undefined && w.limit !== undefined && w.limit > 0) {
    facts.push(QUOTA_TEXT.amount(compactNumber(w.used), compactNumber(w.limit)));
  }
  if (facts.length) lines.push(`${indent}${facts.join(" · ")}`);
  const details = w.details.map((d) => ({ model: clean(d.model), usage: compactNumber(d.usage) }));
  const modelWidth = Math.max(0, ...details.map((d) => d.model.length));
  const usageWidth = Math.max(0, ...details.map((d) => d.usage.length));
  details.forEach((d, i) => {
    const branch = i === details.length - 1 ? "└" : "├";
    lines.push(`${indent}${branch} ${d.model.padEnd(modelWidth)}  ${d.usage.padStart(usageWidth)}`);
  });
  return lines;
}

/** The card: a title, a divider and each window's bar, percentage, amounts and reset. */
export function quotaCard(snapshot: QuotaSnapshot, opts: CardOptions): string {
  const level = snapshot.level ? clean(snapshot.level, 24) : "";
  const title = level ? `${QUOTA_TEXT.title} · ${titleCase(level)}` : QUOTA_TEXT.title;
  const labelWidth = Math.max(0, ...snapshot.windows.map((w) => windowLabel(w).length));
  const body = snapshot.windows.flatMap((w) => windowLines(w, labelWidth, opts));
  // As wide as the card's columns (label, bar, percentage), whatever the longer lines add.
  const columns = labelWidth + INDENT_GAP + BAR_CELLS + 2 + QUOTA_TEXT.used("100").length;
  const width = Math.min(MAX_DIVIDER, Math.max(title.length, columns));
  return ["```text", title, "─".repeat(width), ...body, "```"].join("\n");
}

function reasonText(r: UnavailableReason): string {
  switch (r.why) {
    case "timeout":
      return QUOTA_TEXT.reasons.timeout(String(Math.round(r.ms / 100) / 10));
    case "network":
      return QUOTA_TEXT.reasons.network;
    case "http":
      return QUOTA_TEXT.reasons.http(r.status);
    case "refused":
      return QUOTA_TEXT.reasons.refused(r.code);
    case "unreadable":
      return QUOTA_TEXT.reasons.unreadable;
  }
}

/** The whole reply to /quota for an outcome. */
export function quotaReply(outcome: QuotaOutcome, opts: CardOptions & { providerName: string }): string {
  switch (outcome.kind) {
    case "ok":
      return quotaCard(outcome.snapshot, opts);
    case "auth_error":
      return QUOTA_TEXT.authError(opts.providerName);
    case "rate_limited":
      return QUOTA_TEXT.rateLimited;
    case "unavailable":
      return QUOTA_TEXT.unavailable(reasonText(outcome.reason));
  }
}
