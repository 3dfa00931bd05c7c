import path from "node:path";
import { existsSync } from "node:fs";
import { rememberSecret } from "../redact.ts";
import { appProviders, zcodeAppDir, type AppProvider } from "./app-config.ts";
import { cliSignIn, type CliProviderSignIn, type CliSignIn } from "./cli-credentials.ts";
import type { Env } from "./host.ts";

// Whether the ZCode app is signed in, judged once for everyone who asks
// (doctor, /quota): ZCode runs a model with a provider's key from
// ~/.zcode/v2/config.json, enabled and with an API key. A GLM Coding Plan
// sign-in (Z.ai, BigModel) is such a provider whose service is that plan's;
// a user may instead have only their own provider's key, which runs models
// but has no plan quota. A config.json that merely exists signs in no one.

export type PlanFamily = "zai" | "bigmodel";

export type KeyedProvider = AppProvider & { apiKey: string };

export type SignIn =
  /** At least one enabled GLM Coding Plan provider with a key (and maybe others). */
  | { kind: "plan"; file: string; providers: AppProvider[]; plans: KeyedProvider[]; keyed: KeyedProvider[] }
  /** Enabled providers with a key, none of them a GLM Coding Plan. */
  | { kind: "provider-key"; file: string; providers: AppProvider[]; keyed: KeyedProvider[] }
  /** No enabled provider with a key; `exists` tells a missing config.json from one without keys. */
  | { kind: "none"; file: string; exists: boolean; providers: AppProvider[] }
  /** No absolute HOME: nothing can be read. */
  | { kind: "no-home" };

function onDomain(host: string, domain: string): boolean {
  return host === domain || host.endsWith(`.${domain}`);
}

/**
 * The plan a provider belongs to: by the host of its base URL, or, when the
 * app stored no base URL, by its built-in id. A provider whose base URL is
 * some other host (a proxy, another vendor) is no GLM plan, even with a GLM
 * id: its key is not ours to send to Z.ai or BigModel.
 */
export function planFamily(p: Pick<AppProvider, "id" | "baseURL">): PlanFamily | undefined {
  if (p.baseURL) {
    let host: string;
    try {
      host = new URL(p.baseURL).hostname.toLowerCase();
    } catch {
      return undefined;
    }
    if (onDomain(host, "z.ai")) return "zai";
    if (onDomain(host, "bigmodel.cn")) return "bigmodel";
    return undefined;
  }
  const m = /^builtin:(zai|bigmodel)-/i.exec(p.id);
  return m ? (m[1]!.toLowerCase() as PlanFamily) : undefined;
}

export function hasKey(p: AppProvider | undefined): p is KeyedProvider {
  return !!p && p.enabled && !!p.apiKey;
}

/** An enabled GLM Coding Plan provider with a key: what /quota can ask about. */
export function isPlanProvider(p: AppProvider | undefined): p is KeyedProvider {
  return hasKey(p) && planFamily(p) !== undefined;
}

/** The sign-in of the ZCode app in this environment. */
export function appSignIn(env: Env): SignIn {
  const dir = zcodeAppDir(env);
  if (!dir) return { kind: "no-home" };
  const file = path.join(dir, "config.json");
  const providers = appProviders(env);
  const keyed = providers.filter(hasKey);
  const plans = keyed.filter(isPlanProvider);
  if (plans.length > 0) return { kind: "plan", file, providers, plans, keyed };
  if (keyed.length > 0) return { kind: "provider-key", file, providers, keyed };
  return { kind: "none", file, exists: existsSync(file), providers };
}

// ---------------------------------------------------------------- the sign-in in use
//
// ZCode in app-server mode asks its host for a plan's key before each model
// request (interaction/requestProviderRuntimeHeaders). The bridge answers
// from, in this order: a key in the environment (the user said so
// explicitly), the ZCode app's config.json, then what `zcode login` stored
// (src/zcode/cli-credentials.ts).

/**
 * The variable a GLM Coding Plan key is taken from. ZCode 0.16.9's own source
 * (jimpablo/ZCode@aac4755) reads no provider key from the environment: its
 * credential code reads only ZCODE_DATA_BASE_DIR (where credentials.json is)
 * and ZCODE_CREDENTIAL_SECRET (the cipher's secret). The name follows the
 * ZCODE_ prefix of those, and is the one tools that drive ZCode already use.
 */
export const API_KEY_ENV = "ZCODE_API_KEY";

/** The key of ZCODE_API_KEY, when set (remembered as a secret: it is hidden in every log). */
export function envApiKey(env: Env): string | undefined {
  const v = env[API_KEY_ENV]?.trim();
  if (!v) return undefined;
  rememberSecret(v);
  return v;
}

export type SignInInUse =
  | { kind: "env"; variable: string }
  | { kind: "app"; signIn: Extract<SignIn, { kind: "plan" | "provider-key" }> }
  | { kind: "cli"; signIn: Extract<CliSignIn, { kind: "signed-in" }>; usable: CliProviderSignIn[] }
  | { kind: "none"; app: SignIn; cli: CliSignIn };

/** Which sign-in answers ZCode's credential requests here (doctor says it; /quota and the headers use it). */
export function signInInUse(env: Env): SignInInUse {
  if (envApiKey(env)) return { kind: "env", variable: API_KEY_ENV };
  const app = appSignIn(env);
  if (app.kind === "plan" || app.kind === "provider-key") return { kind: "app", signIn: app };
  const cli = cliSignIn(env);
  if (cli.kind === "signed-in") {
    const usable = cli.providers.filter((p) => p.kind === "key");
    if (usable.length > 0) return { kind: "cli", signIn: cli, usable };
  }
  return { kind: "none", app, cli };
}
