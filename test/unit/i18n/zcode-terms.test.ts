// The zh tables use the ZCode app's own words (its CLI's and desktop's
// zh-CN locales): the mode names, 推理强度, Token, 引导, 供应商, 派生, and
// checkpoint kept as is. Words ZCode does not use must not come back.
import { expect, test } from "bun:test";
import { zh } from "../../../src/i18n/zh/index.ts";

/** Every text of a table, functions called with neutral arguments. */
function texts(node: unknown): string[] {
  if (typeof node === "string") return [node];
  if (typeof node === "function") {
    try {
      const args = Array.from({ length: node.length }, () => ["x"]);
      return [String((node as (...a: unknown[]) => unknown)(...args.map((a, i) => (i === 0 ? "x1" : a))))];
    } catch {
      return [];
    }
  }
  if (node && typeof node === "object") return Object.values(node).flatMap(texts);
  return [];
}

test("the modes and the option names are ZCode's", () => {
  expect(zh.bridge.options.modes).toEqual({
    plan: "计划模式",
    build: "变更前确认",
    edit: "自动编辑",
    yolo: "完全访问",
    guarded: "自主模式",
    auto: "自动",
  });
  expect(zh.bridge.options.thought).toBe("推理强度");
  expect(zh.commands.thought.noun).toBe("推理强度");
  expect(zh.bridge.autoCompact.tokenThreshold("150,000", 150_000)).toBe("150,000 Token");
});

test("no word ZCode does not use is left anywhere in the zh tables", () => {
  const all = texts(zh).join("\n");
  for (const word of ["词元", "思考级别", "思考强度", "谨慎", "服务商", "追加指令", "检查点", "分叉", "全部放行"]) {
    expect({ word, found: all.includes(word) }).toEqual({ word, found: false });
  }
  expect(all).toContain("引导正在进行的回合");
  expect(all).toContain("checkpoint");
  expect(all).toContain("供应商");
});
