import { askQuota } from "../quota/cache.ts";
import { t } from "../i18n/index.ts";
import { quotaReply } from "../quota/card.ts";
import { quotaTarget } from "../quota/target.ts";
import type { SlashCommand } from "./types.ts";
import { usageLine } from "./text.ts";

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
    const outcome = await askQuota(target, ctx.env);
    await ctx.say(quotaReply(outcome, { now: Date.now(), providerName: target.providerName }));
  },
};
