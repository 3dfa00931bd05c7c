// What chose the language (doctor reports it): the flag or ZCODE_ACP_LANG,
// the ZCode app's setting (and which file), the locale (and which variable),
// or the default. resolveLanguage answers the same language.
import { afterEach, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { languageChoice, resolveLanguage } from "../../../src/i18n/language.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

function home(setting?: object): string {
  const h = mkdtempSync(join(tmpdir(), "zcode-lang-choice-"));
  homes.push(h);
  if (setting) {
    mkdirSync(join(h, ".zcode/v2"), { recursive: true });
    writeFileSync(join(h, ".zcode/v2/setting.json"), JSON.stringify(setting));
  }
  return h;
}

test("an explicit choice names the flag or the variable it came from", () => {
  const env = { HOME: home({ localePreference: "zh-CN" }), LANG: "zh_CN.UTF-8" };
  expect(languageChoice({ language: "en", from: "flag" }, env)).toEqual({ language: "en", source: { kind: "flag" } });
  expect(languageChoice({ language: "zh", from: "env" }, env)).toEqual({ language: "zh", source: { kind: "env" } });
});

test("the app's setting names its file", () => {
  const h = home({ localePreference: "zh-CN" });
  expect(languageChoice(undefined, { HOME: h, LANG: "en_US.UTF-8" })).toEqual({
    language: "zh",
    source: { kind: "app", path: join(h, ".zcode", "v2", "setting.json") },
  });
});

test("the locale names the variable in charge and its value", () => {
  expect(languageChoice(undefined, { HOME: home(), LC_ALL: "", LC_MESSAGES: "zh_TW", LANG: "en_US" })).toEqual({
    language: "zh",
    source: { kind: "locale", variable: "LC_MESSAGES", value: "zh_TW" },
  });
});

test("nothing naming zh or en: the default, English", () => {
  for (const env of [{}, { HOME: home({ localePreference: "system" }) }, { HOME: home(), LC_ALL: "C", LANG: "zh_CN" }]) {
    expect(languageChoice(undefined, env)).toEqual({ language: "en", source: { kind: "default" } });
  }
});

test("resolveLanguage agrees with the choice", () => {
  const zhApp = home({ locale: "zh" });
  for (const env of [{}, { HOME: zhApp }, { LANG: "zh_CN.UTF-8" }, { HOME: zhApp, LANG: "en_US" }]) {
    expect(resolveLanguage(undefined, env)).toBe(languageChoice(undefined, env).language);
    expect(resolveLanguage("en", env)).toBe("en");
  }
});
