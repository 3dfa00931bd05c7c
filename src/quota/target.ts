import { parseModelValue } from "../zcode/model-ref.ts";
import { appProviderFor, type AppProvider } from "../zcode/app-config.ts";
import { cliSignIn, type CliProviderSignIn } from "../zcode/cli-credentials.ts";
import { API_KEY_ENV, appSignIn, envApiKey, isPlanProvider, planFamily, type PlanFamily } from "../zcode/sign-in.ts";
import type { Env } from "../zcode/host.ts";

// Where /quota asks and with which key: the key that signs the model
// requests (ZCODE_API_KEY, else the one the ZCode app stored for a GLM Coding
// Plan provider in ~/.zcode/v2/config.json, else the API key `zcode login`
// stored for a plan). It goes only to that plan's own service (Z.ai or
// BigModel, by the provider's base URL or the plan's id), never to a host
// chosen from anything else, except the URL the user sets in
// ZCODE_ACP_QUOTA_URL.

export const QUOTA_PATH = "/api/monitor/usage/quota/limit";
export const QUOTA_URL_ENV = "ZCODE_ACP_QUOTA_URL";

export type { PlanFamily };
export { planFamily };

export interface QuotaTarget {
  url: string;
  /** Sent in `Authorization` (bare, then `Bearer <key>` if refused); never logged or shown. */
  key: string;
  /** The config.json provider the key is from (safe to show). */
  providerId: string;
  /** Its name in the app, for messages (the id when it has none). */
  providerName: string;
}

export type TargetResult = { ok: true; target: QuotaTarget } | { ok: false; reason: "not_signed_in" | "bad_override" };

const ORIGIN: Record<PlanFamily, string> = {
  zai: "https://api.z.ai",
  bigmodel: "https://open.bigmodel.cn",
};

/**
 * The provider whose quota /quota shows: the one behind the session's current
 * model when that is a GLM plan with a key (so the card matches what the
 * session spends), else the first enabled GLM plan provider with a key in
 * config.json's order.
 */
export function activeQuotaProvider(
  providers: readonly AppProvider[],
  currentModel: string | undefined,
): (AppProvider & { apiKey: string }) | undefined {
  const providerId = currentModel ? parseModelValue(currentModel)?.providerId : undefined;
  const current = providerId ? appProviderFor(providers, providerId) : undefined;
  if (isPlanProvider(current)) return current;
  return providers.find(isPlanProvider);
}

/** ZCODE_ACP_QUOTA_URL when set: the whole endpoint URL, http(s) only. */
function overrideUrl(env: Env): string | undefined | false {
  const raw = env[QUOTA_URL_ENV]?.trim();
  if (!raw) return undefined;
  try {
    const u = new URL(raw);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : false;
  } catch {
    return false;
  }
}

/** The request /quota makes for this environment and current model (`providerId/modelId`). */
export function quotaTarget(env: Env, currentModel: string | undefined): TargetResult {
  const override = overrideUrl(env);
  if (override === false) return { ok: false, reason: "bad_override" };
  // Signed in as doctor judges it (src/zcode/sign-in.ts), to a GLM Coding Plan.
  // The key that signs the model requests (src/zcode/sign-in.ts signInInUse): ZCODE_API_KEY first.
  const envKey = envApiKey(env);
  const modelProvider = currentModel ? parseModelValue(currentModel)?.providerId : undefined;
  if (envKey) {
    // A key alone says not whose it is: the current model's plan says where it goes, or nowhere.
    const family = modelProvider ? accountFamily(modelProvider) : undefined;
    if (!family) return { ok: false, reason: "not_signed_in" };
    return {
      ok: true,
      target: { url: override ?? `${ORIGIN[family]}${QUOTA_PATH}`, key: envKey, providerId: API_KEY_ENV, providerName: API_KEY_ENV },
    };
  }
  const signIn = appSignIn(env);
  const provider = signIn.kind === "plan" ? activeQuotaProvider(signIn.providers, currentModel) : undefined;
  if (provider) {
    const url = override ?? `${ORIGIN[planFamily(provider)!]}${QUOTA_PATH}`;
    return { ok: true, target: { url, key: provider.apiKey, providerId: provider.id, providerName: provider.name ?? provider.id } };
  }
  // `zcode login`'s API key, for the current model's plan, else the first plan it signed in to.
  const cli = cliSignIn(env);
  const keys = cli.kind === "signed-in" ? cli.providers.filter((p) => p.kind === "key" && accountFamily(p.providerId)) : [];
  const chosen = (keys.find((p) => p.providerId === modelProvider) ?? keys[0]) as Extract<CliProviderSignIn, { kind: "key" }> | undefined;
  if (!chosen) return { ok: false, reason: "not_signed_in" };
  const url = override ?? `${ORIGIN[accountFamily(chosen.providerId)!]}${QUOTA_PATH}`;
  return { ok: true, target: { url, key: chosen.key, providerId: chosen.providerId, providerName: chosen.providerId } };
}

/** The GLM plan of a ZCode provider id (`account:zai-individual-coding-plan`, `builtin:bigmodel-coding-plan`…). */
export function accountFamily(providerId: string): PlanFamily | undefined {
  const m = /^(?:account|builtin):(zai|bigmodel)-/i.exec(providerId);
  return m ? (m[1]!.toLowerCase() as PlanFamily) : undefined;
}
