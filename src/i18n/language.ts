import { readFileSync } from "node:fs";
import { join } from "node:path";

// Which language the bridge speaks to the user (replies, notices, dialogs,
// errors shown in the editor, doctor, --help). Developer logs stay English.

export type Language = "en" | "zh";

type Env = Record<string, string | undefined>;

/** `zh`, `zh-CN`, `zh_TW.UTF-8`, `zh-Hans` → zh; `en…` → en; anything else (C, POSIX, fr_FR, system) → undefined. */
export function languageOf(tag: unknown): Language | undefined {
  if (typeof tag !== "string") return undefined;
  const t = tag.trim().toLowerCase();
  if (/^zh(?:$|[-_.@])/.test(t)) return "zh";
  if (/^en(?:$|[-_.@])/.test(t)) return "en";
  return undefined;
}

/** The ZCode app's own language setting (~/.zcode/v2/setting.json: localePreference, then locale). */
export function appLanguage(home: string | undefined): Language | undefined {
  if (!home) return undefined;
  let raw: string;
  try {
    raw = readFileSync(join(home, ".zcode", "v2", "setting.json"), "utf8");
  } catch {
    return undefined;
  }
  try {
    const setting = JSON.parse(raw.replace(/^\uFEFF/, "")) as Record<string, unknown> | null;
    if (!setting || typeof setting !== "object") return undefined;
    // A preference like "system" names no language: the app then follows its locale.
    return languageOf(setting.localePreference) ?? languageOf(setting.locale);
  } catch {
    return undefined;
  }
}

/** POSIX order: LC_ALL overrides LC_MESSAGES overrides LANG; an empty one counts as unset. */
export function localeLanguage(env: Env): Language | undefined {
  for (const name of ["LC_ALL", "LC_MESSAGES", "LANG"]) {
    const v = env[name];
    if (v) return languageOf(v);
  }
  return undefined;
}

/**
 * The language: `explicit` (--lang / ZCODE_ACP_LANG, already checked), else
 * the ZCode app's setting, else the locale, else English.
 */
export function resolveLanguage(explicit: Language | undefined, env: Env): Language {
  return explicit ?? appLanguage(env.HOME ?? env.USERPROFILE) ?? localeLanguage(env) ?? "en";
}
