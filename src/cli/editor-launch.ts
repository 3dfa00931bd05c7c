import { existsSync } from "node:fs";
import path from "node:path";
import type { BridgeConfig } from "../config.ts";
import { BUILTIN_PROVIDER_VAR, PERSONAL_PROVIDER_VAR } from "../zcode/launch-env.ts";
import { HOMEBREW_FORMULA, NPM_PACKAGE } from "./distribution.ts";
import { realPath } from "./install-origin.ts";

// What doctor's paste-ready editor settings launch: a command that stays valid
// (not a versioned Homebrew keg `brew upgrade` removes, not a path in npx's
// cache that npm prunes), and the environment doctor itself ran with, so a
// setup that works for doctor (ZCODE_BIN=… zcode-acp-server doctor) works
// the same once pasted.

export interface EditorLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Settings passed through as they were given to doctor, when set. */
const PASSED_THROUGH = [
  "ZCODE_ACP_MODE",
  "ZCODE_ACP_MODEL",
  "ZCODE_ACP_AUTO_COMPACT",
  "ZCODE_ACP_APP_HISTORY",
  "ZCODE_ACP_QUOTA_PUSH",
  "ZCODE_ACP_PREWARM",
  "ZCODE_ACP_MAX_LINE_BYTES",
  "ZCODE_ACP_MAX_MESSAGE_BYTES",
  "ZCODE_ACP_QUOTA_URL",
  BUILTIN_PROVIDER_VAR,
  PERSONAL_PROVIDER_VAR,
];

/** The command an editor should run for the binary at `self` (this process's own path). */
export function stableCommand(self: string, version: string): { command: string; args: string[] } {
  const real = realPath(self);
  const parts = real.split(/[\\/]+/);
  // npx keeps packages in <npm cache>/_npx/<hash>/node_modules: pruned at npm's will.
  if (parts.includes("_npx") && parts.includes("node_modules")) {
    return { command: "npx", args: ["-y", `${NPM_PACKAGE}@${version}`] };
  }
  // <prefix>/Cellar/<formula>/<version>/bin/<name> -> <prefix>/opt/<formula>/bin/<name>, which follows upgrades.
  const cellar = parts.map((p) => p.toLowerCase()).lastIndexOf("cellar");
  if (cellar > 0 && parts[cellar + 1] === HOMEBREW_FORMULA && parts.length > cellar + 3) {
    const prefix = parts.slice(0, cellar).join("/") || "/";
    const opt = path.join(prefix, "opt", HOMEBREW_FORMULA, ...parts.slice(cellar + 3));
    if (existsSync(opt)) return { command: opt, args: [] };
  }
  return { command: self, args: [] };
}

/**
 * The environment of the snippet: the settings doctor ran with, by the
 * variable the bridge reads (a flag given to doctor becomes its variable;
 * paths made absolute, as an editor starts the agent elsewhere).
 */
export function editorEnv(config: BridgeConfig, language: string | undefined, cwd = process.cwd()): Record<string, string> {
  const out: Record<string, string> = {};
  const abs = (p: string) => path.resolve(cwd, p);
  if (config.zcodeBin) out.ZCODE_BIN = abs(config.zcodeBin);
  if (config.zcodeNode) out.ZCODE_NODE = abs(config.zcodeNode);
  if (config.zcodeProtocol !== "auto") out.ZCODE_ACP_ZCODE_PROTOCOL = config.zcodeProtocol;
  if (language) out.ZCODE_ACP_LANG = language;
  const level = config.env.ZCODE_ACP_LOG_LEVEL;
  if (config.logLevel !== "warn" || level) out.ZCODE_ACP_LOG_LEVEL = config.logLevel;
  if (config.logFile) out.ZCODE_ACP_LOG_FILE = abs(config.logFile);
  for (const name of PASSED_THROUGH) {
    const v = config.env[name];
    if (v !== undefined && v !== "") out[name] = v;
  }
  return out;
}
