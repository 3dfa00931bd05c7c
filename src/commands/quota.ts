import { QuotaCache, cacheId } from "../quota/cache.ts";
import { t } from "../i18n/index.ts";
import { quotaReply } from "../quota/card.ts";
import { quotaTimeoutMs, requestQuota } from "../quota/client.ts";
import { quotaTarget } from "../quota/target.ts";
import type { SlashCommand } from "./types.ts";
import { usageLine } from "./text.ts";

// One cache for the bridge process: every session shares the plan's quota.
const cache = new QuotaCache();

/**
 * `/quota`: the GLM Coding Plan's usage windows as a card. It asks the plan's
 * quota service directly and never ZCode, so it has no `requires` (every CLI
 * version gets it) and is bridge-only (it works whatever state the ZCode
 * child is in).
 */
export const quotaCommand: SlashCommand = {
  name: "quota",
  get description() {
    return t().quota.description;
  },
  bridgeOnly: true,
  async run(ctx) {
    if (ctx.args.trim()) {
      await ctx.say(usageLine(quotaCommand, t().quota.noArguments));
      return;
    }
    const found = quotaTarget(ctx.env, ctx.options().model?.current);
    if (!found.ok) {
      await ctx.say(found.reason === "bad_override" ? t().quota.badOverride : t().quota.notSignedIn);
      return;
    }
    const { target } = found;
    const timeoutMs = quotaTimeoutMs(ctx.env);
    const outcome = await cache.get(cacheId(target.url, target.key), () => requestQuota(target, { timeoutMs }));
    await ctx.say(quotaReply(outcome, { now: Date.now(), providerName: target.providerName }));
  },
};
