import { en, type Messages } from "./en/index.ts";
import type { Language } from "./language.ts";
import { zh } from "./zh/index.ts";

// The words the bridge says to the user, in the language resolved at startup
// (language.ts). One table per language (en/, zh/), split by area; the zh
// table is typed as the en one, so a missing or extra entry does not compile.
// Developer logs stay English and do not come from here.

export type { Language } from "./language.ts";
export type { Messages } from "./en/index.ts";

const TABLES: Record<Language, Messages> = { en, zh };

let current: Language = "en";

/** Chosen once at startup (src/cli/main.ts); tests switch it. */
export function setLanguage(language: Language): void {
  current = language;
}

export function language(): Language {
  return current;
}

/** The messages of the language in use. */
export function t(): Messages {
  return TABLES[current];
}
