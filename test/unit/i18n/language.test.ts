// Which language the bridge speaks: --lang / ZCODE_ACP_LANG (checked by the
// CLI), else the ZCode app's setting, else the locale variables, else English.
import { afterEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { appLanguage, languageOf, localeLanguage, resolveLanguage } from "../../../src/i18n/language.ts";

const homes: string[] = [];
afterEach(() => {
  for (const h of homes.splice(0)) rmSync(h, { recursive: true, force: true });
});

/** A HOME whose ~/.zcode/v2/setting.json holds `text` (or no file when undefined). */
function home(text?: string): string {
  const h = mkdtempSync(join(tmpdir(), "zcode-lang-"));
  homes.push(h);
  if (text !== undefined) {
    mkdirSync(join(h, ".zcode/v2"), { recursive: true });
    writeFileSync(join(h, ".zcode/v2/setting.json"), text);
  }
  return h;
}

describe("languageOf", () => {
  test("zh and en in their usual spellings; everything else is no language", () => {
    for (const t of ["zh", "ZH", "zh-CN", "zh_TW.UTF-8", "zh-Hans", "zh@pinyin"]) expect(languageOf(t)).toBe("zh");
    for (const t of ["en", "en-US", "en_GB.UTF-8", "EN"]) expect(languageOf(t)).toBe("en");
    for (const t of ["C", "POSIX", "fr_FR.UTF-8", "zhx", "english", "system", "", 7, null, undefined])
      expect(languageOf(t)).toBeUndefined();
  });
});

describe("the ZCode app's setting", () => {
  test("localePreference first, then locale; a preference naming no language falls through", () => {
    expect(appLanguage(home(JSON.stringify({ localePreference: "zh-CN", locale: "en-US" })))).toBe("zh");
    expect(appLanguage(home(JSON.stringify({ localePreference: "system", locale: "zh-CN" })))).toBe("zh");
    expect(appLanguage(home(JSON.stringify({ locale: "en-US" })))).toBe("en");
  });

  test("a BOM is fine; non-strings, bad JSON, a missing file or HOME are no answer", () => {
    expect(appLanguage(home(`\uFEFF${JSON.stringify({ locale: "zh" })}`))).toBe("zh");
    expect(appLanguage(home(JSON.stringify({ localePreference: 1, locale: ["zh"] })))).toBeUndefined();
    expect(appLanguage(home("{not json"))).toBeUndefined();
    expect(appLanguage(home("null"))).toBeUndefined();
    expect(appLanguage(home())).toBeUndefined();
    expect(appLanguage(undefined)).toBeUndefined();
  });

  test("a FIFO, /dev/zero or a file over 1 MiB in the setting's place is no answer, at once", () => {
    const fifo = home();
    mkdirSync(join(fifo, ".zcode/v2"), { recursive: true });
    expect(Bun.spawnSync(["mkfifo", join(fifo, ".zcode/v2/setting.json")]).exitCode).toBe(0);
    expect(appLanguage(fifo)).toBeUndefined();
    const zero = home();
    mkdirSync(join(zero, ".zcode/v2"), { recursive: true });
    symlinkSync("/dev/zero", join(zero, ".zcode/v2/setting.json"));
    expect(appLanguage(zero)).toBeUndefined();
    expect(appLanguage(home(`{"locale":"zh-CN"}${" ".repeat(1024 * 1024)}`))).toBeUndefined();
  });
});

describe("the locale", () => {
  test("LC_ALL over LC_MESSAGES over LANG; empty ones are unset; C is English's business", () => {
    expect(localeLanguage({ LC_ALL: "zh_CN.UTF-8", LANG: "en_US.UTF-8" })).toBe("zh");
    expect(localeLanguage({ LC_ALL: "", LC_MESSAGES: "zh_CN", LANG: "en_US" })).toBe("zh");
    expect(localeLanguage({ LANG: "zh_CN.UTF-8" })).toBe("zh");
    expect(localeLanguage({ LC_ALL: "C", LANG: "zh_CN.UTF-8" })).toBeUndefined();
    expect(localeLanguage({})).toBeUndefined();
  });
});

describe("resolveLanguage", () => {
  test("the explicit choice, then the app, then the locale, then English", () => {
    const zhApp = home(JSON.stringify({ localePreference: "zh-CN" }));
    expect(resolveLanguage("en", { HOME: zhApp, LANG: "zh_CN" })).toBe("en");
    expect(resolveLanguage(undefined, { HOME: zhApp, LANG: "en_US" })).toBe("zh");
    expect(resolveLanguage(undefined, { HOME: home(), LANG: "zh_CN.UTF-8" })).toBe("zh");
    expect(resolveLanguage(undefined, { HOME: home(), LANG: "fr_FR" })).toBe("en");
    expect(resolveLanguage(undefined, {})).toBe("en");
  });
});
