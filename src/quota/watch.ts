import type { QuotaSnapshot, QuotaWindow } from "./parse.ts";

// The quota that comes to the user: after a turn, the plan's windows are
// asked for at most once a minute (one bridge process, every session), and a
// window that passes 80% or 95% is told once per window period (a new reset
// time starts a new period). Pure: the clock is given, so the once-a-minute
// rule is tested with fake timers.

/** The least time between two quota requests made after turns. */
export const QUOTA_PUSH_INTERVAL_MS = 60_000;
/** Thresholds (percent used) told once each per window period, lowest first. */
export const QUOTA_THRESHOLDS = [80, 95] as const;
export type QuotaThreshold = (typeof QUOTA_THRESHOLDS)[number];

export interface QuotaCrossing {
  window: QuotaWindow;
  threshold: QuotaThreshold;
}

/** A window's identity across answers: its kind and length. */
function windowKey(w: QuotaWindow): string {
  return `${w.kind}:${w.minutes ?? ""}`;
}

export class QuotaWatch {
  private lastAskAt: number | undefined;
  private snapshot: { at: number; value: QuotaSnapshot } | undefined;
  /** Per window: the period (its reset time) and the highest threshold told in it. */
  private readonly told = new Map<string, { resetsAt: number | undefined; threshold: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** May a quota request follow this turn? Marks the time when it says yes. */
  takeTurn(): boolean {
    const t = this.now();
    if (this.lastAskAt !== undefined && t - this.lastAskAt < QUOTA_PUSH_INTERVAL_MS) return false;
    this.lastAskAt = t;
    return true;
  }

  /** The last snapshot, when it is at most `maxAgeMs` old. */
  latest(maxAgeMs = QUOTA_PUSH_INTERVAL_MS): QuotaSnapshot | undefined {
    return this.snapshot && this.now() - this.snapshot.at <= maxAgeMs ? this.snapshot.value : undefined;
  }

  /** Remembers an answer; returns the thresholds it crossed that were not told yet (the highest per window). */
  observe(s: QuotaSnapshot): QuotaCrossing[] {
    this.snapshot = { at: this.now(), value: s };
    const out: QuotaCrossing[] = [];
    for (const w of s.windows) {
      const key = windowKey(w);
      let state = this.told.get(key);
      if (!state || state.resetsAt !== w.resetsAt) {
        state = { resetsAt: w.resetsAt, threshold: 0 };
        this.told.set(key, state);
      }
      const passed = QUOTA_THRESHOLDS.filter((th) => w.usedPercent >= th).at(-1);
      if (passed !== undefined && passed > state.threshold) {
        state.threshold = passed;
        out.push({ window: w, threshold: passed });
      }
    }
    return out;
  }
}

/**
 * A turn ZCode failed because the plan's allowance is spent. The GLM
 * services answer with business code 1308 (the 5-hour window), 1310 (the
 * weekly one) or 1316-1321, and words like "Usage limit reached for 5 hour";
 * ZCode passes the code and the provider's message on in turn.failed.
 */
export function isQuotaSpent(message: string | undefined, code?: string): boolean {
  // ZCode's own table makes these terminal rate limits (jimpablo/ZCode@aac4755:
  // apps/zcode-cli/packages/adapters/src/model/failure-provider-business-codes.ts).
  if (code && /^13(?:08|10|1[6-9]|2[01])$/.test(code.trim())) return true;
  if (!message) return false;
  return /\b13(?:08|10)\b|usage limit (?:reached|exceeded)|limit reached for|使用上限|用量上限|额度已用(?:完|尽)/i.test(message);
}

/** The windows to name for a spent quota: those at 100%, else the fullest one. */
export function spentWindows(s: QuotaSnapshot): QuotaWindow[] {
  const full = s.windows.filter((w) => w.usedPercent >= 100);
  if (full.length > 0) return full;
  const fullest = [...s.windows].sort((a, b) => b.usedPercent - a.usedPercent)[0];
  return fullest ? [fullest] : [];
}
