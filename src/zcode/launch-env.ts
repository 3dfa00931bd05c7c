import { statSync } from "node:fs";
import path from "node:path";
import { homeDir, type Env } from "./host.ts";
import { BUILTIN_PROVIDER_VAR, PERSONAL_PROVIDER_VAR } from "./provider-vars.ts";
import type { ZCodeLaunch } from "./resolve.ts";

// The environment the ZCode CLI is started with (both `--version` and
// `app-server`). The CLI bundled with the desktop app (3.12 and later) exits
// at boot ("无法定位 CLI ZCode Built-in Provider Config") unless told where the
// app's built-in provider table is, and uses the user's personal provider
// table only when pointed at it. ZCODE_BASE_URL is the CLI's own service
// origin (config, sign-in, billing): a value meant for something else must
// not reach it.

export { BUILTIN_PROVIDER_VAR, PERSONAL_PROVIDER_VAR } from "./provider-vars.ts";
const DROPPED = ["ZCODE_BASE_URL"];

function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** The app's zcode-builtin.json next to a JS entry (`<dir>/provider/…`, `<dir>/../config/provider/…`). */
export function builtinProviderConfig(entry: string): string | undefined {
  const dir = path.dirname(entry);
  return [path.join(dir, "provider", "zcode-builtin.json"), path.join(dir, "..", "config", "provider", "zcode-builtin.json")]
    .map((p) => path.resolve(p))
    .find(isFile);
}

/** ~/.zcode/v2/provider_config.json, when it exists. */
export function personalProviderConfig(env: Env): string | undefined {
  const home = homeDir(env);
  const p = home ? path.join(home, ".zcode", "v2", "provider_config.json") : undefined;
  return p && isFile(p) ? p : undefined;
}

/** What each provider-config variable is set to for this launch, and where the value came from. */
export interface ProviderConfigVars {
  builtin?: { path: string; from: "user" | "bridge" };
  personal?: { path: string; from: "user" | "bridge" };
}

export function providerConfigVars(launch: ZCodeLaunch, env: Env): ProviderConfigVars {
  const out: ProviderConfigVars = {};
  const userBuiltin = env[BUILTIN_PROVIDER_VAR];
  const userPersonal = env[PERSONAL_PROVIDER_VAR];
  // Only the app's JS bundle needs them; a standalone `zcode` binary finds its own.
  const jsEntry = launch.node !== undefined;
  if (userBuiltin) out.builtin = { path: userBuiltin, from: "user" };
  else if (jsEntry) {
    const found = builtinProviderConfig(launch.entry);
    if (found) out.builtin = { path: found, from: "bridge" };
  }
  if (userPersonal) out.personal = { path: userPersonal, from: "user" };
  else if (jsEntry) {
    const found = personalProviderConfig(env);
    if (found) out.personal = { path: found, from: "bridge" };
  }
  return out;
}

/** The child's environment: ours, plus the provider tables for a JS entry, minus what would mislead the CLI. */
export function launchEnv(launch: ZCodeLaunch, env: Env): Env {
  const out: Env = { ...env };
  for (const k of DROPPED) delete out[k];
  const vars = providerConfigVars(launch, env);
  if (vars.builtin) out[BUILTIN_PROVIDER_VAR] = vars.builtin.path;
  if (vars.personal) out[PERSONAL_PROVIDER_VAR] = vars.personal.path;
  return out;
}
