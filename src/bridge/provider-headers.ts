import * as v from "valibot";
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

export function providerHeadersAnswer(params: unknown, env: Env): ProviderHeadersAnswer {
  const parsed = v.safeParse(ProviderHeadersParamsSchema, params);
  if (!parsed.success) {
    return { headersApplied: false, errorMessage: "zcode-acp-server could not read the provider ZCode asked about." };
  }
  const providerId = parsed.output.providerId;
  const provider = appProviderFor(appProviders(env), providerId);
  if (provider?.apiKey && provider.enabled) {
    // The key itself is never logged (the trace redacts `apiKey` too).
    logger.debug(`answering ${providerId} with the key of ${provider.id} from the ZCode app's config`);
    return { headersApplied: true, requestAuth: { apiKey: provider.apiKey } };
  }
  const why = !provider
    ? `the ZCode app has no sign-in for ${providerId}`
    : !provider.enabled
      ? `${provider.id} is turned off in the ZCode app`
      : `the ZCode app stored no API key for ${provider.id}`;
  logger.info(`cannot provide credentials for ${providerId}: ${why}`);
  return {
    headersApplied: false,
    errorMessage:
      `zcode-acp-server cannot sign this model request: ${why}. ` +
      "Sign in to this plan in the ZCode app (Settings → Models), or pick a model of a provider that has an API key, then try again.",
  };
}
