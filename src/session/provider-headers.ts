import { createHash } from "node:crypto";
import * as v from "valibot";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { appProviderFor, appProviders } from "../zcode/app-config.ts";
import { cliProviderSignIn } from "../zcode/cli-credentials.ts";
import { API_KEY_ENV, envApiKey } from "../zcode/sign-in.ts";
import { ProviderHeadersParamsSchema, type ProviderHeadersAnswer } from "../zcode/request-schemas.ts";
import type { Env } from "../zcode/host.ts";

// interaction/requestProviderRuntimeHeaders: before a model request on an
// account-type provider (a GLM Coding Plan), ZCode asks its host for the
// request's credentials. The desktop app answers from its sign-in; we answer
// with a key from ZCODE_API_KEY, the app's config.json or `zcode login`'s
// credentials.json (src/zcode/sign-in.ts `signInInUse`), or say plainly why we cannot (never -32601: the model request would then fail with
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

/** A key that can answer for `providerId`, and where it came from (for the words of a refusal). */
type Found =
  | { from: "env"; key: string; owner: string }
  | { from: "app"; key: string; owner: string }
  | { from: "cli"; key: string; owner: string };

function keyFor(providerId: string, env: Env): { found?: Found; why?: string; logged?: string } {
  const errors = t().errors;
  const envKey = envApiKey(env);
  if (envKey) return { found: { from: "env", key: envKey, owner: API_KEY_ENV } };
  const provider = appProviderFor(appProviders(env), providerId);
  if (provider?.apiKey && provider.enabled) return { found: { from: "app", key: provider.apiKey, owner: provider.id } };
  const cli = cliProviderSignIn(env, providerId);
  if (cli?.kind === "key") return { found: { from: "cli", key: cli.key, owner: providerId } };
  // Nothing usable: the most specific reason first (an app provider turned off
  // or keyless says more than "no sign-in", `zcode login`'s state says more still).
  if (cli?.kind === "oauth") return { why: errors.cliOAuthOnly(providerId), logged: "zcode login signed in through the browser (no key)" };
  if (cli?.kind === "keychain") return { why: errors.cliKeychain(providerId), logged: "the sign-in is in the app's OS keychain" };
  if (cli?.kind === "unreadable") return { why: errors.cliUnreadable(providerId), logged: "zcode login's sign-in is unreadable" };
  if (provider && !provider.enabled)
    return { why: errors.providerOff(provider.id), logged: `${provider.id} is turned off in the ZCode app` };
  if (provider) return { why: errors.noApiKey(provider.id), logged: `no API key stored for ${provider.id}` };
  return { why: errors.noSignIn(providerId), logged: "no sign-in anywhere" };
}

function refusedWords(f: Found): string {
  const errors = t().errors;
  return f.from === "env" ? errors.envKeyRefused(f.owner) : f.from === "cli" ? errors.cliKeyRefused(f.owner) : errors.keyRefused(f.owner);
}

export function providerHeadersAnswer(params: unknown, env: Env): ProviderHeadersAnswer {
  const parsed = v.safeParse(ProviderHeadersParamsSchema, params);
  if (!parsed.success) {
    return { headersApplied: false, errorMessage: t().errors.providerUnreadable };
  }
  const providerId = parsed.output.providerId;
  const { found, why, logged } = keyFor(providerId, env);
  if (!found) {
    // ZCode shows this as the turn's error, so it is said in the user's language;
    // the log names the case in English.
    logger.info(`cannot provide credentials for ${providerId}: ${logged}`);
    return { headersApplied: false, errorMessage: t().errors.cannotSign(why!) };
  }
  const rejected = parsed.output.rejectedProjectTokenFingerprint;
  if (rejected && fingerprint(found.key) === rejected.toLowerCase()) {
    // The provider refused this very key: answering it again would only fail again.
    logger.info(`the key of ${found.owner} (${found.from}) was refused by the provider; not offered again`);
    return { headersApplied: false, errorMessage: t().errors.cannotSign(refusedWords(found)) };
  }
  const accountScope = accountScopeOf(found.owner, found.key);
  const expected = parsed.output.expectedAccountScope;
  if (expected && expected.toLowerCase() !== accountScope) {
    // A long task (off-peak) began under another key: ZCode must not carry it over to this one.
    logger.info(`the key of ${found.owner} changed since the task began; not offered for it`);
    return { headersApplied: false, errorMessage: t().errors.cannotSign(t().errors.accountChanged(found.owner)) };
  }
  // The key itself is never logged (the trace redacts `apiKey`, and every log hides it by value).
  logger.debug(`answering ${providerId} with the key of ${found.owner} (${SOURCE_WORDS[found.from]})`);
  return { headersApplied: true, requestAuth: { apiKey: found.key, accountScope } };
}

const SOURCE_WORDS = { env: "the environment", app: "the ZCode app's config", cli: "zcode login's credentials" } as const;
