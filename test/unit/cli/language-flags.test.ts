// --lang / ZCODE_ACP_LANG: which of the two chose, a bad value is a usage
// error in the language otherwise in use, and the language for complaining
// about argv is found before argv is parsed.
import { afterEach, describe, expect, test } from "bun:test";
import { explicitLanguage, languageInArgv } from "../../../src/cli/config.ts";
import { parseStrict } from "../../../src/cli/strict-args.ts";
import { UsageError } from "../../../src/cli/usage-error.ts";
import { serveFlags } from "../../../src/cli/flags.ts";
import { setLanguage } from "../../../src/i18n/index.ts";

afterEach(() => setLanguage("en"));

describe("explicitLanguage", () => {
  test("the flag wins over the variable, and says so", () => {
    expect(explicitLanguage({ lang: "zh-CN" }, { ZCODE_ACP_LANG: "en" })).toEqual({ language: "zh", from: "flag" });
    expect(explicitLanguage({}, { ZCODE_ACP_LANG: "en_US.UTF-8" })).toEqual({ language: "en", from: "env" });
    expect(explicitLanguage({}, { ZCODE_ACP_LANG: "" })).toBeUndefined();
  });

  test("a value naming no language is a usage error naming where it came from, in the language in use", () => {
    expect(() => explicitLanguage({ lang: "fr" }, {})).toThrow("--lang: 'fr' is not a language the bridge speaks");
    setLanguage("zh");
    expect(() => explicitLanguage({}, { ZCODE_ACP_LANG: "fr" })).toThrow("ZCODE_ACP_LANG：'fr' 不是桥接程序支持的语言");
  });
});

describe("languageInArgv", () => {
  test("--lang x and --lang=x, before --; a malformed one is left to the parser", () => {
    expect(languageInArgv(["--bogus", "--lang", "zh"], {})).toEqual({ language: "zh", from: "flag" });
    expect(languageInArgv(["doctor", "--lang=zh_CN"], { ZCODE_ACP_LANG: "en" })).toEqual({ language: "zh", from: "flag" });
    expect(languageInArgv(["--", "--lang", "zh"], {})).toBeUndefined();
    expect(languageInArgv(["--lang", "fr"], { ZCODE_ACP_LANG: "zh" })).toEqual({ language: "zh", from: "env" });
    expect(languageInArgv(["--lang"], {})).toBeUndefined();
  });
});

test("strict parsing complains in the language in use", () => {
  setLanguage("zh");
  const error = (argv: string[]) => {
    try {
      parseStrict(argv, serveFlags);
    } catch (e) {
      expect(e).toBeInstanceOf(UsageError);
      return (e as Error).message;
    }
    throw new Error("no usage error");
  };
  expect(error(["--bogus"])).toBe("未知选项 --bogus");
  expect(error(["--version=yes"])).toBe("选项 --version 不接受值");
  expect(error(["--mode"])).toBe("选项 --mode 需要一个值");
  expect(error(["--mode="])).toBe("选项 --mode 的值不能为空");
  expect(error(["serve-please"])).toBe("多余的参数 'serve-please'");
});
