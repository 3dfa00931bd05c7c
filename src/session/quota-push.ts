import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { askQuota } from "../quota/cache.ts";
import { localTime, percentText, untilText, windowLabel } from "../quota/card.ts";
import type { QuotaSnapshot, QuotaWindow } from "../quota/parse.ts";
import { quotaTarget } from "../quota/target.ts";
import { isQuotaSpent, QuotaWatch, spentWindows } from "../quota/watch.ts";
import type { Env } from "../zcode/host.ts";
import type { QuotaPort, SessionHost } from "./host.ts";

// The plan's quota, pushed to the editor after a turn (unless switched off:
// --no-quota-push / ZCODE_ACP_QUOTA_PUSH=0): at most once a minute, only
// with a GLM Coding Plan sign-in (what /quota asks about), as
// `usage_update._meta.quota` (SDK 2.4.0's schemas have no quota update of
// their own, stable or unstable), with a warning once per window period when
// a window passes 80% and 95%. When ZCode fails a turn because the plan is
// spent, the error says which window and when it resets.

const logger = log.withTag("quota");

/** The most a failed turn's answer waits for the quota service to name the spent window. */
const SPENT_LOOKUP_MS = 3_000;

/** A window as `_meta.quota` carries it (times as ISO 8601). */
function windowMeta(w: QuotaWindow) {
  return {
    kind: w.kind,
    label: windowLabel(w),
    ...(w.minutes !== undefined ? { minutes: w.minutes } : {}),
    usedPercent: w.usedPercent,
    ...(w.used !== undefined ? { used: w.used } : {}),
    ...(w.limit !== undefined ? { limit: w.limit } : {}),
    ...(w.resetsAt !== undefined ? { resetsAt: new Date(w.resetsAt).toISOString() } : {}),
  };
}

/** The `_meta.quota` of a usage_update: the plan's windows as the quota service last gave them. */
export function quotaMeta(s: QuotaSnapshot, provider: string, at: number) {
  return {
    plan: "glm-coding-plan",
    provider,
    ...(s.level ? { level: s.level } : {}),
    checkedAt: new Date(at).toISOString(),
    windows: s.windows.map(windowMeta),
  };
}

function resetsWords(w: QuotaWindow, now: number): string {
  return w.resetsAt === undefined ? "" : t().quota.resets(localTime(w.resetsAt), untilText(w.resetsAt, now));
}

export class QuotaPush implements QuotaPort {
  private readonly watch: QuotaWatch;

  constructor(
    private readonly env: Env,
    private readonly enabled: boolean,
    private readonly now: () => number = Date.now,
  ) {
    this.watch = new QuotaWatch(now);
  }

  /** After a turn that ended (not cancelled): windows to the editor, a warning per threshold newly passed. */
  async afterTurn(s: SessionHost): Promise<void> {
    if (!this.enabled) return;
    const found = quotaTarget(this.env, s.options.model?.current);
    if (!found.ok || !this.watch.takeTurn()) return;
    const outcome = await askQuota(found.target, this.env);
    if (outcome.kind !== "ok") {
      logger.debug(`quota after a turn: ${outcome.kind}`);
      return;
    }
    if (s.winding) return;
    const crossings = this.watch.observe(outcome.snapshot);
    const usage = s.memory.lastUsage;
    // usage_update needs the context figures: the last ones the editor was told, unchanged.
    if (usage) {
      const meta = { quota: quotaMeta(outcome.snapshot, found.target.providerName, this.now()) };
      s.emit({ sessionUpdate: "usage_update", used: usage.used, size: usage.size, _meta: meta } as SessionUpdate);
    }
    for (const c of crossings) {
      s.notice(
        "warning",
        t().quota.push.crossed(windowLabel(c.window), percentText(c.window.usedPercent), resetsWords(c.window, this.now())),
      );
    }
  }

  /** Words to add to a failed turn's error when the plan is spent (undefined otherwise, or when switched off). */
  async spentWords(s: Pick<SessionHost, "options">, message: string | undefined, code?: string): Promise<string | undefined> {
    if (!this.enabled || !isQuotaSpent(message, code)) return undefined;
    const found = quotaTarget(this.env, s.options.model?.current);
    if (!found.ok) return undefined;
    let snapshot = this.watch.latest();
    if (!snapshot) {
      const outcome = await askQuota(found.target, this.env, SPENT_LOOKUP_MS);
      if (outcome.kind === "ok") {
        snapshot = outcome.snapshot;
        this.watch.observe(snapshot);
      }
    }
    const words = t().quota.push;
    const windows = snapshot ? spentWindows(snapshot) : [];
    if (windows.length === 0) return words.spentUnknown;
    const now = this.now();
    return words.spent(windows.map((w) => words.spentWindow(windowLabel(w), resetsWords(w, now))).join("; "));
  }
}
