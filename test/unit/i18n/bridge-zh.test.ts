// The Chinese table of what the bridge says in the conversation, in its
// dialogs and menus, around tool calls and in the errors the editor shows:
// every string and every message function (called with sample arguments that
// reach each of its branches) is Chinese and leaves no English outside code,
// paths, ids and kept names. Then a few call sites, switched to zh after
// import, prove they look their words up when they speak.
import { afterEach, describe, expect, test } from "bun:test";
import { toRequestError } from "../../../src/translate/errors.ts";
import { configOptions, optionsFromSettings } from "../../../src/translate/options/options.ts";
import { planForm, questionsForm } from "../../../src/translate/interactions/question-forms.ts";
import { presentTool } from "../../../src/translate/tools/presentation.ts";
import { setLanguage, t } from "../../../src/i18n/index.ts";
import { zh } from "../../../src/i18n/zh/index.ts";
import { ZCodeExitedError, ZCodeNotFoundError, ZCodeTimeoutError } from "../../../src/zcode/errors.ts";
import { englishLeft } from "../../support/english-left.ts";

const CJK = /[\u4e00-\u9fff]/;

/** Stands in for words that are passed through (ZCode's message, a label, a reason). */
const WORDS = "示例";

/**
 * Arguments for the functions that take more than words, each list one call;
 * several lists reach the branches (optional parts, singular and plural).
 * Every other function is called with WORDS for each parameter.
 */
const SAMPLES: Record<string, unknown[][]> = {
  "bridge.turn.retrying": [[WORDS, "2.0", 2, 3]],
  "bridge.autoCompact.notice": [
    ["150,000", "200,000", 75, "上下文窗口的 70%"],
    ["150,000", "200,000", undefined, "120,000 Token"],
  ],
  "bridge.autoCompact.percentThreshold": [[70]],
  "bridge.autoCompact.tokenThreshold": [
    ["1", 1],
    ["120,000", 120_000],
  ],
  "bridge.model.gone": [
    ["GLM-5.3", "builtin:zai-coding-plan/GLM-5.3", WORDS],
    ["GLM-5.3", "builtin:zai-coding-plan/GLM-5.3"],
  ],
  "bridge.model.notAvailable": [[WORDS, WORDS], [WORDS]],
  "bridge.question.answerAll": [[3]],
  "tools.read": [["src/app.ts"], ["src/app.ts", 10], ["src/app.ts", 10, 29]],
  "tools.edit": [["src/app.ts"]],
  "tools.write": [["/tmp/work/notes.md"]],
  "tools.grep": [[WORDS], [WORDS, "src/lib", "src/*.ts"]],
  "tools.find": [["src/**/*.ts"], ["src/**/*.ts", "src/lib", "src/*.ts"]],
  "tools.fetch": [["https://example.com/docs"]],
  "tools.exitCode": [[1], [0]],
  "tools.moreCharacters": [[1234]],
  "tools.moreItems": [[5]],
  "tools.foundFiles": [[1], [3]],
  "errors.unsupportedMethod": [["session/compact", WORDS]],
  "errors.turnFailed": [[WORDS], [WORDS, 1113], [WORDS, "1302"]],
  "errors.tooManyBlocks": [[100, 120]],
  "errors.attachmentsTooBig": [["50", "50.5", "52,953,088"]],
  "errors.v4Cannot.attachmentTooBig": [["x1", 20 * 1024 * 1024]],
  "errors.imageTooBig": [["10", "10.5", "11,010,048"]],
  "errors.promptTooBig": [["81", "84,934,656", "80", "83,886,080"]],
  "errors.thePdf": [["file:///tmp/report.pdf"]],
  "errors.theFile": [["file:///tmp/data.bin"]],
  "errors.imageType": [[JSON.stringify("image/bmp")]],
  "errors.emptyResource": [["file:///tmp/data.bin"]],
  "errors.attachmentDirNotPrivate": [["/tmp/zcode-acp-server-1000/attachments"]],
  "errors.cwdNotAbsolute": [["./work"]],
  "errors.unknownAuthMethod": [["x1", ["zcode-app"]]],
  "errors.noOption": [["mode"], ["thought"]],
  "errors.notAChoice": [
    ["ultra", "mode", ["plan", "build"]],
    ["ultra", "thought", ["low", "high"]],
  ],
  "errors.notAModel": [
    ["some-model", ["builtin:zai-coding-plan/GLM-5.3"]],
    ["some-model", []],
  ],
  "errors.optionTakesListed": [["thought_level"]],
  "errors.unknownOption": [["thought_level"]],
  "errors.modelRefused": [
    [WORDS, WORDS, WORDS],
    [WORDS, WORDS],
  ],
  "errors.exited": [
    [{ code: null, signal: "SIGKILL", method: "session/send", stderrTail: [] }],
    [{ code: 3, signal: null, method: "", stderrTail: [WORDS, WORDS] }],
    [{ code: null, signal: null, method: "", stderrTail: [] }],
  ],
  "errors.timeout": [["session/send", "30.0"]],
  "errors.notRunning": [["session/send"]],
  "errors.notFound": [
    [WORDS, []],
    [WORDS, ["/usr/local/bin/zcode", WORDS]],
  ],
  "errors.binMissing": [["/opt/zcode/bin/zcode"]],
  "errors.onPath": [["/usr/local/bin:/usr/bin"], [undefined]],
  "errors.cmdShim": [["C:\\Users\\me\\AppData\\Roaming\\npm\\zcode.cmd"]],
  "errors.notExecutable": [["/opt/zcode/bin/zcode"]],
  "errors.cannotStart": [["/opt/zcode/bin/zcode", WORDS]],
  "errors.nodeNotWorking": [["/opt/node/bin/node"]],
  "errors.nodeMissing": [["/opt/zcode/zcode.cjs", 22]],
  "errors.nodeTooOld": [["/opt/zcode/zcode.cjs", 22, ["/usr/bin/node（v18.19.0）", "/opt/node（v20.1.0）"]]],
  "errors.nodeTried": [["/usr/bin/node", "18.19.0"], ["/usr/bin/node"]],
  "errors.tooOld": [["0.14.0", "0.14.8", "0.15"]],
  "errors.versionTimeout": [["/opt/zcode/bin/zcode --version", "5.0"]],
  "errors.logoutFailed": [
    [2, ["凭据文件已锁定"]],
    [null, []],
  ],
  "errors.noVersion": [
    ["/opt/zcode/bin/zcode --version", { signal: "SIGKILL" }, ""],
    ["/opt/zcode/bin/zcode --version", { code: 1 }, WORDS],
  ],
};

/** Every leaf of an area as `[path, text]`, functions called with their samples. */
function texts(area: string, table: unknown): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  const walk = (path: string, v: unknown) => {
    if (typeof v === "string") out.push([path, v]);
    else if (typeof v === "function") {
      const calls = SAMPLES[path] ?? [Array.from({ length: v.length }, () => WORDS)];
      calls.forEach((args, i) => out.push([`${path}#${i}`, (v as (...a: unknown[]) => string)(...args)]));
    } else if (v && typeof v === "object") {
      for (const [k, x] of Object.entries(v)) walk(`${path}.${k}`, x);
    } else throw new Error(`${path}: neither text nor a message function`);
  };
  walk(area, table);
  return out;
}

/** Texts that are only data (a path and a version; a count of Token, ZCode's own word): no words to be Chinese. */
const DATA_ONLY = new Set(["errors.nodeTried#0", "bridge.autoCompact.tokenThreshold#0", "bridge.autoCompact.tokenThreshold#1"]);

const AREAS = { bridge: zh.bridge, tools: zh.tools, errors: zh.errors };
const ALL = Object.entries(AREAS).flatMap(([name, table]) => texts(name, table));

describe("zh tables of the bridge, tools and errors", () => {
  test("every sample names an entry that exists (no stale samples)", () => {
    const paths = new Set(ALL.map(([p]) => p.replace(/#\d+$/, "")));
    for (const key of Object.keys(SAMPLES)) expect(paths.has(key)).toBe(true);
  });

  for (const [path, text] of ALL) {
    test(path, () => {
      expect(typeof text).toBe("string");
      expect(text).not.toContain("undefined");
      expect(englishLeft(text)).toEqual([]);
      if (!DATA_ONLY.has(path)) expect(CJK.test(text)).toBe(true);
    });
  }
});

describe("call sites read the table when they speak", () => {
  afterEach(() => setLanguage("en"));

  test("tool titles", () => {
    setLanguage("zh");
    expect(presentTool("Read", { file_path: "/w/src/a.ts", offset: 3, limit: 2 }, "/w").title).toBe("读取 src/a.ts（第 3–4 行）");
    expect(presentTool("Glob", { pattern: "**/*.ts" }, "/w").title).toBe('查找文件 "**/*.ts"');
    expect(presentTool("TodoWrite", {}, "/w").title).toBe(t().tools.updatePlan);
    setLanguage("en");
    expect(presentTool("TodoWrite", {}, "/w").title).toBe("Update plan");
  });

  test("option menus and forms", () => {
    setLanguage("zh");
    const opts = optionsFromSettings({ mode: { current: "plan" } } as never);
    const [mode] = configOptions(opts);
    expect(mode).toMatchObject({ name: "模式", description: zh.bridge.options.modeDescription });
    expect((mode as { options: Array<{ name: string }> }).options[0]!.name).toBe("计划模式");
    expect(planForm().title).toBe("计划审批");
    expect(questionsForm([]).other).toMatchObject({ title: "其他" });
  });

  test("errors of the ZCode CLI: English in `message` (logs), the language in use where the editor shows them", () => {
    const died = new ZCodeExitedError({ code: 3, signal: null, stderrTail: [] }, "session/send");
    const late = new ZCodeTimeoutError("session/send", 30_000);
    const missing = new ZCodeNotFoundError((e) => e.cliNotFound, ["/usr/bin/zcode"]);
    setLanguage("zh");
    expect(died.message).toBe("The ZCode CLI exited with code 3 while session/send was pending (it wrote nothing to stderr)");
    for (const err of [died, late, missing]) {
      const shown = toRequestError(err).message;
      expect(englishLeft(shown)).toEqual([]);
      expect(CJK.test(shown)).toBe(true);
    }
    expect(toRequestError(died).message).toBe(
      "ZCode CLI 意外退出：ZCode CLI 已退出，退出码 3（当时 session/send 请求尚未完成）（它没有向 stderr 输出任何内容）",
    );
    setLanguage("en");
    expect(toRequestError(late).message).toBe("The ZCode CLI did not answer session/send within 30.0 s");
  });
});
