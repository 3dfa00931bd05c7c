import path from "node:path";
import { readBoundedText } from "../read-bounded.ts";
import { rememberSecret } from "../redact.ts";
import { homeDir, type Env } from "./host.ts";

// The ZCode app's own configuration, read-only: ~/.zcode/v2/config.json holds
// the providers the user signed in to (`provider.<id>.options.{apiKey, baseURL}`).
// The bridge reads it for what ZCode asks of its host (a provider's key for an
// account-type model) and for the plan's quota. Any problem reads as "nothing
// configured": the app owns this file, and its shape may change.

export interface AppProvider {
  id: string;
  name?: string;
  enabled: boolean;
  apiKey?: string;
  baseURL?: string;
}

/** ~/.zcode/v2 for this environment (undefined without an absolute home). */
export function zcodeAppDir(env: Env): string | undefined {
  const home = homeDir(env);
  return home ? path.join(home, ".zcode", "v2") : undefined;
}

/** Parses a JSON file the app wrote (a BOM tolerated); undefined when absent, unreadable, not a regular file or over 1 MiB. */
export function readAppJson(file: string): unknown {
  const text = readBoundedText(file);
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch {
    return undefined;
  }
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function text(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/** The providers of config.json, in the file's order. */
export function appProviders(env: Env): AppProvider[] {
  const dir = zcodeAppDir(env);
  if (!dir) return [];
  const providers = obj(obj(readAppJson(path.join(dir, "config.json"))).provider);
  return Object.entries(providers).map(([id, raw]) => {
    const p = obj(raw);
    const options = obj(p.options);
    const key = text(options.apiKey);
    if (key) rememberSecret(key);
    return {
      id,
      ...(text(p.name) ? { name: text(p.name) } : {}),
      enabled: p.enabled !== false,
      ...(text(options.apiKey) ? { apiKey: text(options.apiKey) } : {}),
      ...(text(options.baseURL) ? { baseURL: text(options.baseURL) } : {}),
    };
  });
}

/**
 * The config.json provider behind a ZCode provider id. Account providers
 * (`account:<family>-individual-coding-plan`, `account:<family>-start-plan`)
 * are stored under the built-in id of the same plan
 * (`builtin:<family>-coding-plan`, `builtin:<family>-start-plan`); a team plan
 * (`account:<family>-team-coding-plan`) only under its own
 * `builtin:<family>-team-coding-plan`; an `…-off-peak` account under its plan.
 */
export function appProviderFor(providers: readonly AppProvider[], providerId: string): AppProvider | undefined {
  const exact = providers.find((p) => p.id === providerId);
  if (exact) return exact;
  // An off-peak account is the same plan's off-peak channel: the plan's key serves it.
  const id = providerId.replace(/-off-peak$/i, "");
  if (id !== providerId) {
    const plan = providers.find((p) => p.id === id);
    if (plan) return plan;
  }
  const m = /^account:([a-z0-9]+)(?:-(individual|team))?(?:-(coding-plan|start-plan))?$/i.exec(id);
  if (!m) return undefined;
  const family = m[1]!.toLowerCase();
  const plan = (m[3] ?? "coding-plan").toLowerCase();
  // A team plan has a key of its own: never answered with the individual plan's.
  if (m[2]?.toLowerCase() === "team") return providers.find((p) => p.id === `builtin:${family}-team-${plan}`);
  return providers.find((p) => p.id === `builtin:${family}-${plan}`);
}
