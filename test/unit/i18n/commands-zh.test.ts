// The commands and quota areas of the zh table: every entry, and every
// function called with sample arguments (each branch), is Chinese with no
// English left outside code spans and kept names; the zh and en tables have
// the same entries, and functions take the same arguments. Also: the menu
// and replies follow the language chosen after the modules loaded.
import { afterEach, describe, expect, test } from "bun:test";
import { availableCommands } from "../../../src/commands/registry.ts";
import { en } from "../../../src/i18n/en/index.ts";
import { setLanguage } from "../../../src/i18n/index.ts";
import { zh } from "../../../src/i18n/zh/index.ts";
import { englishLeft } from "../../support/english-left.ts";
import { CAPS_016, runCommand } from "../support/commands-fakes.ts";

afterEach(() => setLanguage("en"));

/** Arguments to call each function of the two areas with: one list per branch worth seeing. */
const SAMPLES: Record<string, unknown[][]> = {
  "commands.usage": [["/goal [目标 | replace <目标> | clear | pause | resume]"], ["/mode <plan|build>"]],
  "commands.notSupported": [["rewind", "0.16.2"]],
  "commands.busy": [["compact"]],
  "commands.goal.shown": [
    ["active", "上线登录页", 42],
    ["paused", "上线登录页", undefined],
  ],
  "commands.rejected": [["goal", "无效的参数"]],
  "commands.fork.forked": [
    ["`sess_9f2c`", "规划登录页"],
    ["`sess_9f2c`", ""],
  ],
  "commands.rewind.rewound": [
    ["`cp_12`", 2, 14],
    ["`cp_12`", 1, undefined],
    [undefined, undefined, undefined],
  ],
  "commands.rewind.conflict": [[7], [undefined]],
  "commands.rewind.filesRewound": [[1], [3]],
  "commands.rewind.fileLine": [
    ["`/w/src/a.ts`", "restore"],
    ["`/w/src/b.ts`", "delete"],
  ],
  "commands.rewind.unsafeLine": [["`/w/src/a.ts`", "该回合之后被修改过"]],
  "commands.rewind.unsafeOther": [["`checkpoint_new`"]],
  "commands.rewind.promptNeedsV4": [["0.15.3"]],
  "commands.rewind.blocked": [
    ["上一个回合的文件无法安全恢复", true],
    ["上一个回合的文件无法安全恢复", false],
  ],
  "commands.steer.fellBackOther": [["`guide.somethingNew`"]],
  "commands.steer.unconfirmed": [["10"]],
  "commands.steer.notTaken": [["ZCode 拒绝了该输入。"]],
  "commands.compact.finished": [
    [false, { used: "12,345", size: "200,000" }],
    [true, { used: "12,345", size: "200,000" }],
    [false, undefined],
    [true, undefined],
  ],
  "commands.setting.none": [["模式"], ["推理强度"]],
  "commands.setting.list": [["模式", "`build`", ["`plan`", "`build`", "`yolo`"], "/mode <plan|build|yolo>"]],
  "commands.setting.unknown": [["模式", "`TURBO`"]],
  "commands.setting.set": [["推理强度", "`low`"]],
  "commands.model.unavailable": [["当前套餐不包含"]],
  "commands.model.notes": [[["当前"]], [["当前", "已不再提供"]]],
  "commands.model.listHead": [
    ["GLM-5.3", "`builtin:zai-coding-plan/GLM-5.3`", "`max`"],
    ["GLM-4.5-Air", "`builtin:zai-coding-plan/GLM-4.5-Air`", undefined],
  ],
  "commands.model.already": [["GLM-5.3 (builtin:zai-coding-plan/GLM-5.3)"]],
  "commands.model.set": [
    ["GLM-4.7 (builtin:zai-coding-plan/GLM-4.7)", "`high`"],
    ["GLM-4.5-Air (builtin:zai-coding-plan/GLM-4.5-Air)", undefined],
  ],
  "commands.help.notSupported": [["0.16.2"]],
  "commands.terminalOnly.reply": [
    ["login", undefined],
    ["effort", "在这里请使用 `/thought <级别>`。"],
  ],
  "quota.windowOf": [
    [24, "hour"],
    [30, "day"],
    [2, "week"],
    [90, "minute"],
  ],
  "quota.used": [["48"], ["<1"], ["100"]],
  "quota.amount": [["5,710", "12,000"]],
  "quota.resets": [
    ["05-14 18:30", "2 小时 14 分钟"],
    ["05-14 18:30", undefined],
  ],
  "quota.duration.days": [
    [4, 3],
    [30, 0],
  ],
  "quota.duration.hours": [[2, 14]],
  "quota.duration.minutes": [[45]],
  "quota.authError": [["Z.ai Coding Plan"]],
  "quota.unavailable": [["额度服务在 8 秒内没有响应"]],
  "quota.reasons.timeout": [["0.3"]],
  "quota.reasons.http": [[500]],
  "quota.reasons.refused": [[1234], [undefined]],
  "quota.reasons.tooLarge": [["256"]],
  "quota.push.crossed": [
    ["5 小时", "85", "05-14 18:30 重置（2 小时 14 分钟后）"],
    ["每周", "96", ""],
  ],
  "quota.push.spent": [["5 小时 额度 05-14 18:30 重置（2 小时 14 分钟后）"]],
  "quota.push.spentWindow": [
    ["5 小时", "05-14 18:30 重置（2 小时 14 分钟后）"],
    ["每周", ""],
  ],
};

type Leaf = { path: string; value: unknown };

/** Every leaf (string or function) of a table area, with its dotted path. */
function leaves(node: unknown, path: string): Leaf[] {
  if (typeof node === "object" && node !== null && !Array.isArray(node)) {
    return Object.entries(node).flatMap(([k, v]) => leaves(v, `${path}.${k}`));
  }
  return [{ path, value: node }];
}

/** What a leaf says: the string itself, or the function's result for each sample. */
function said(leaf: Leaf): string[] {
  if (typeof leaf.value === "string") return [leaf.value];
  if (typeof leaf.value !== "function") throw new Error(`${leaf.path}: neither words nor a function`);
  const samples = SAMPLES[leaf.path];
  if (!samples) throw new Error(`${leaf.path}: a function with no sample arguments in SAMPLES`);
  return samples.map((args) => (leaf.value as (...a: unknown[]) => unknown)(...args) as string);
}

const AREAS = ["commands", "quota"] as const;
const zhLeaves = AREAS.flatMap((a) => leaves(zh[a], a));
const enLeaves = AREAS.flatMap((a) => leaves(en[a], a));
const CJK = /[\u3400-\u9fff]/;
/** Leaves that are names or numbers only, in Chinese too. */
const NO_CJK_NEEDED = ["quota.title", "quota.labels.mcp", "quota.amount"];
/**
 * /goal's hint, shown bare in the editor's input: its keywords are what the
 * user types (the bridge reads them in English), so they stay English.
 */
const TYPED_WORDS: Record<string, string[]> = { "commands.goal.hint": ["replace", "clear", "pause", "resume"] };
const codeSpans = (s: string) => (s.match(/`[^`]*`/g) ?? []).length;

describe("zh commands and quota", () => {
  test("the same entries as en, of the same kinds; functions take the same arguments", () => {
    const shape = (ls: Leaf[]) => ls.map((l) => [l.path, typeof l.value, typeof l.value === "function" ? l.value.length : 0]);
    expect(shape(zhLeaves)).toEqual(shape(enLeaves));
    expect(zhLeaves.length).toBeGreaterThan(60);
  });

  test("every function has samples, and every sample names a function", () => {
    const functions = zhLeaves.filter((l) => typeof l.value === "function").map((l) => l.path);
    expect(Object.keys(SAMPLES).sort()).toEqual(functions.sort());
  });

  test.each(zhLeaves.map((l) => [l.path, l] as const))("%s: Chinese, no English left", (_path, leaf) => {
    for (const text of said(leaf)) {
      const english = englishLeft(text).filter((w) => !TYPED_WORDS[leaf.path]?.includes(w));
      expect({ text, english }).toEqual({ text, english: [] });
      if (!NO_CJK_NEEDED.includes(leaf.path)) expect(text).toMatch(CJK);
      expect(text).not.toMatch(/undefined|\[object|NaN/);
    }
  });

  test.each(enLeaves.filter((l) => typeof l.value === "function").map((l) => [l.path, l] as const))(
    "%s: zh keeps every code span of en in every sample (a dropped command or id would show here)",
    (path, leaf) => {
      const zhLeaf = zhLeaves.find((l) => l.path === path)!;
      const ens = said(leaf);
      const zhs = said(zhLeaf);
      ens.forEach((e, i) => expect(codeSpans(zhs[i]!)).toBeGreaterThanOrEqual(codeSpans(e)));
    },
  );

  test("strings keep their code spans too", () => {
    for (const l of enLeaves.filter((x) => typeof x.value === "string")) {
      const z = zhLeaves.find((x) => x.path === l.path)!.value as string;
      expect({ path: l.path, enough: codeSpans(z) >= codeSpans(l.value as string) }).toEqual({ path: l.path, enough: true });
    }
  });
});

describe("the language is read when the menu is built and a command speaks, not at import", () => {
  test("the menu's descriptions and hints switch with setLanguage", () => {
    setLanguage("zh");
    const menu = availableCommands();
    for (const c of menu) {
      expect({ name: c.name, english: englishLeft(c.description) }).toEqual({ name: c.name, english: [] });
      expect(c.description).toMatch(CJK);
    }
    expect(menu.find((c) => c.name === "steer")?.input).toEqual({ hint: "<指令>" });
    expect(menu.find((c) => c.name === "quota")?.description).toBe(zh.quota.description);
    setLanguage("en");
    expect(availableCommands().find((c) => c.name === "steer")?.description).toBe(en.commands.steer.description);
  });

  test("/help in zh: usage lines with zh hints, zh descriptions, unsupported ones marked in zh", async () => {
    setLanguage("zh");
    const r = await runCommand("/help", {}, { caps: CAPS_016(), version: "0.16.9" });
    const text = r.said.join("");
    expect(englishLeft(text)).toEqual([]);
    expect(text).toContain("- `/steer <指令>` — 引导正在进行的回合：补充指令，不会中断它（ZCode CLI 0.16.9 不支持）");
    expect(text).toContain("- `/goal [目标 | replace <目标> | clear | pause | resume]` — ");
  });

  test("a usage line and a terminal-only reply in zh", async () => {
    setLanguage("zh");
    const steer = await runCommand("/steer", {});
    expect(steer.said.join("")).toBe("`/steer` 需要给出用来引导当前回合的指令。\n\n用法：`/steer <指令>`");
    const login = await runCommand("/login", {});
    expect(login.said.join("")).toBe(
      "`/login` 需要在 ZCode 终端应用中使用：请在终端中运行 `zcode`，然后在那里输入。在这里请在终端运行 `zcode-acp-server login` 登录（它运行 `zcode login`；请选择 API 密钥），或在本智能体的设置中设置 ZCODE_API_KEY，或在 ZCode 应用中登录（设置 → 模型）；`zcode-acp-server logout` 退出登录。`zcode-acp-server doctor` 会显示正在使用的登录。",
    );
    const effort = await runCommand("/effort high", {});
    expect(effort.said.join("")).toEndWith("在这里请使用 `/thought <级别>`。");
  });
});
