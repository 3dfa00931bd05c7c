import { join } from "node:path";
import { readBoundedText } from "../read-bounded.ts";

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

/** Where the ZCode app keeps its settings, the language among them. */
export function appSettingPath(home: string): string {
  return join(home, ".zcode", "v2", "setting.json");
}

/** The ZCode app's own language setting (~/.zcode/v2/setting.json: localePreference, then locale). */
export function appLanguage(home: string | undefined): Language | undefined {
  if (!home) return undefined;
  // Read before anything else is done, so bounded: a FIFO or /dev/zero in its
  // place must not hang or swell the bridge (read-bounded.ts).
  const raw = readBoundedText(appSettingPath(home));
  if (raw === undefined) return undefined;
  try {
    const setting = JSON.parse(raw.replace(/^\uFEFF/, "")) as Record<string, unknown> | null;
    if (!setting || typeof setting !== "object") return undefined;
    // A preference like "system" names no language: the app then follows its locale.
    return languageOf(setting.localePreference) ?? languageOf(setting.locale);
  } catch {
    return undefined;
  }
}

/** The locale variable in charge of messages, POSIX order: LC_ALL overrides LC_MESSAGES overrides LANG; an empty one counts as unset. */
function localeVariable(env: Env): { variable: string; value: string } | undefined {
  for (const variable of ["LC_ALL", "LC_MESSAGES", "LANG"]) {
    const value = env[variable];
    if (value) return { variable, value };
  }
  return undefined;
}

/** The language of the locale variable in charge (a C or fr_FR one names none: the later ones are not consulted). */
export function localeLanguage(env: Env): Language | undefined {
  const v = localeVariable(env);
  return v ? languageOf(v.value) : undefined;
}

/** What decided the language; doctor reports it so a surprising choice can be traced. */
export type LanguageSource =
  | { kind: "flag" }
  | { kind: "env" }
  | { kind: "app"; path: string }
  | { kind: "locale"; variable: string; value: string }
  | { kind: "default" };

export interface LanguageChoice {
  language: Language;
  source: LanguageSource;
}

/**
 * The language and what chose it: `explicit` (--lang / ZCODE_ACP_LANG,
 * already checked, with which of the two gave it), else the ZCode app's
 * setting, else the locale, else English.
 */
export function languageChoice(explicit: { language: Language; from: "flag" | "env" } | undefined, env: Env): LanguageChoice {
  if (explicit) return { language: explicit.language, source: { kind: explicit.from } };
  const home = env.HOME ?? env.USERPROFILE;
  const app = appLanguage(home);
  if (app && home) return { language: app, source: { kind: "app", path: appSettingPath(home) } };
  const locale = localeVariable(env);
  const fromLocale = locale ? languageOf(locale.value) : undefined;
  if (locale && fromLocale) return { language: fromLocale, source: { kind: "locale", ...locale } };
  return { language: "en", source: { kind: "default" } };
}

/**
 * The language: `explicit` (--lang / ZCODE_ACP_LANG, already checked), else
 * the ZCode app's setting, else the locale, else English.
 */
export function resolveLanguage(explicit: Language | undefined, env: Env): Language {
  return languageChoice(explicit ? { language: explicit, from: "flag" } : undefined, env).language;
}
