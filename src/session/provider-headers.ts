import { createHash } from "node:crypto";
import * as v from "valibot";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { appProviderFor, appProviders } from "../zcode/app-config.ts";
import { ProviderHeadersParamsSchema, type ProviderHeadersAnswer } from "../zcode/request-schemas.ts";
import type { Env } from "../zcode/host.ts";

// interaction/requestProviderRuntimeHeaders: before a model request on an
// account-type provider (a GLM Coding Plan signed in through the app), ZCode
// asks its host for the request's credentials. The desktop app answers from
// its sign-in; we answer with the key the app stored for that plan, or say
// plainly why we cannot (never -32601: the model request would then fail with
// an error that names nothing the user can do).

const logger = log.withTag("provider");

/**
 * The request auth's `accountScope`: an irreversible value ZCode checks a long
 * task's later requests against (`expectedAccountScope`), so a task never
 * runs on after the account changed. Ours changes with the plan and its key.
 */
export function accountScopeOf(providerId: string, key: string): string {
  return createHash("sha256")
    .update(`zcode-acp-server account scope\n${providerId}\n${fingerprint(key)}`, "utf8")
    .digest("hex");
}

/** ZCode's projectAccessTokenFingerprint: the SHA-256 of the key, hex. */
export function fingerprint(key: string): string {
  return createHash("sha256").update(key, "utf8").digest("hex");
}

export function providerHeadersAnswer(params: unknown, env: Env): ProviderHeadersAnswer {
  const parsed = v.safeParse(ProviderHeadersParamsSchema, params);
  if (!parsed.success) {
    return { headersApplied: false, errorMessage: t().errors.providerUnreadable };
  }
  const providerId = parsed.output.providerId;
  const provider = appProviderFor(appProviders(env), providerId);
  const rejected = parsed.output.rejectedProjectTokenFingerprint;
  if (provider?.apiKey && provider.enabled && rejected && fingerprint(provider.apiKey) === rejected.toLowerCase()) {
    // The provider refused this very key: answering it again would only fail again.
    logger.info(`the key of ${provider.id} was refused by the provider; not offered again`);
    return { headersApplied: false, errorMessage: t().errors.cannotSign(t().errors.keyRefused(provider.id)) };
  }
  if (provider?.apiKey && provider.enabled) {
    const accountScope = accountScopeOf(provider.id, provider.apiKey);
    const expected = parsed.output.expectedAccountScope;
    if (expected && expected.toLowerCase() !== accountScope) {
      // A long task (off-peak) began under another key: ZCode must not carry it over to this one.
      logger.info(`the key of ${provider.id} changed since the task began; not offered for it`);
      return { headersApplied: false, errorMessage: t().errors.cannotSign(t().errors.accountChanged(provider.id)) };
    }
    // The key itself is never logged (the trace redacts `apiKey` too).
    logger.debug(`answering ${providerId} with the key of ${provider.id} from the ZCode app's config`);
    return { headersApplied: true, requestAuth: { apiKey: provider.apiKey, accountScope } };
  }
  // ZCode shows this as the turn's error, so it is said in the user's language;
  // the log names the case in English.
  const errors = t().errors;
  const [why, logged] = !provider
    ? [errors.noSignIn(providerId), "no sign-in in the ZCode app"]
    : !provider.enabled
      ? [errors.providerOff(provider.id), `${provider.id} is turned off in the ZCode app`]
      : [errors.noApiKey(provider.id), `no API key stored for ${provider.id}`];
  logger.info(`cannot provide credentials for ${providerId}: ${logged}`);
  return { headersApplied: false, errorMessage: errors.cannotSign(why) };
}
