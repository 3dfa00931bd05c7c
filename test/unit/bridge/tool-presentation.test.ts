import { describe, expect, test } from "bun:test";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import {
  displayPath,
  fenced,
  languageOf,
  oneLine,
  presentTool,
  resultContent,
  resultLocations,
  reversePatch,
} from "../../../src/bridge/tool-presentation.ts";
import { CWD, EDITED_TS, ORIGINAL_TS, RESULTS, expectValid } from "../support/bridge-fixtures.ts";

function text(c: ToolCallContent[]): string {
  return c.map((x) => (x.type === "content" && x.content.type === "text" ? x.content.text : "")).join("\n");
}

/** Wraps presentation output into a tool_call so the SDK schema checks it. */
function asUpdate(name: string, input: unknown, output?: string, result?: unknown): SessionUpdate {
  const p = presentTool(name, input, CWD);
  return {
    sessionUpdate: "tool_call",
    toolCallId: "t1",
    title: p.title,
    kind: p.kind,
    status: "completed",
    locations: p.locations,
    rawInput: input,
    rawOutput: result,
    content: result === undefined ? p.content : resultContent(name, input, output, result, CWD),
  };
}

describe("presentTool: title, kind, locations per tool", () => {
  const cases: Array<[string, unknown, string, string]> = [
    ["Bash", { command: "ls -la" }, "ls -la", "execute"],
    ["Read", { file_path: `${CWD}/src/x.ts` }, "Read src/x.ts", "read"],
    ["Read", { file_path: `${CWD}/src/x.ts`, offset: 10, limit: 20 }, "Read src/x.ts (lines 10–29)", "read"],
    ["Read", { file_path: "/etc/hosts", offset: 5 }, "Read /etc/hosts (from line 5)", "read"],
    ["Edit", { file_path: `${CWD}/src/x.ts`, old_string: "a", new_string: "b" }, "Edit src/x.ts", "edit"],
    ["MultiEdit", { file_path: "src/y.ts", edits: [] }, "Edit src/y.ts", "edit"],
    ["Write", { file_path: `${CWD}/src/new.ts`, content: "x" }, "Write src/new.ts", "edit"],
    ["Grep", { pattern: "TODO", path: `${CWD}/src` }, 'grep "TODO" in src', "search"],
    ["Grep", { pattern: "x", glob: "*.ts" }, 'grep "x" (*.ts)', "search"],
    ["Grep", { pattern: "greet\\(" }, 'grep "greet\\("', "search"],
    ["Glob", { pattern: "**/*.ts", path: "lib" }, 'Find "**/*.ts" in lib', "search"],
    ["LS", { path: CWD }, "List .", "search"],
    ["WebFetch", { url: "https://example.com" }, "Fetch https://example.com", "fetch"],
    ["WebSearch", { query: "bun test" }, 'Search the web for "bun test"', "fetch"],
    ["Task", { description: "Find the bug", subagent_type: "explore" }, "Find the bug (explore)", "think"],
    ["Agent", { description: "Review" }, "Review", "think"],
    ["ExitPlanMode", { plan: "1. do it" }, "Ready to code?", "switch_mode"],
    ["TodoWrite", { todos: [] }, "Update plan", "think"],
    ["AskUserQuestion", { questions: [{ question: "Which?", header: "Pick", options: [] }] }, "Ask: Pick", "other"],
    ["FrobnicateTool", { x: 1 }, "FrobnicateTool", "other"],
    ["bash", { command: "pwd" }, "pwd", "execute"],
  ];
  for (const [name, input, title, kind] of cases) {
    test(`${name} ${JSON.stringify(input).slice(0, 40)}`, () => {
      const p = presentTool(name, input, CWD);
      expect(p.title).toBe(title);
      expect(p.kind).toBe(kind as never);
      expectValid([asUpdate(name, input)]);
    });
  }

  test("locations are absolute with 1-based lines", () => {
    expect(presentTool("Read", { file_path: "src/x.ts", offset: 10 }, CWD).locations).toEqual([{ path: `${CWD}/src/x.ts`, line: 10 }]);
    expect(presentTool("Read", { file_path: "src/x.ts", offset: 0 }, CWD).locations).toEqual([{ path: `${CWD}/src/x.ts` }]);
    expect(presentTool("Edit", { file_path: "a/b.ts" }, CWD).locations).toEqual([{ path: `${CWD}/a/b.ts` }]);
    expect(presentTool("Grep", { pattern: "x" }, CWD).locations).toEqual([]);
    expect(presentTool("Bash", { command: "x" }, CWD).locations).toEqual([]);
  });

  test("long and multi-line commands are shortened to one line", () => {
    const long = `echo ${"x".repeat(300)}`;
    const t = presentTool("Bash", { command: long }, CWD).title;
    expect(t.length).toBeLessThanOrEqual(120);
    expect(t.endsWith("…")).toBe(true);
    expect(presentTool("Bash", { command: "set -e\nmake all" }, CWD).title).toBe("set -e …");
    expect(oneLine("  a   b  ")).toBe("a b");
  });

  test("missing or malformed input falls back to readable titles", () => {
    expect(presentTool("Bash", undefined, CWD).title).toBe("Run command");
    expect(presentTool("Read", { file_path: 42 }, CWD).title).toBe("Read file");
    expect(presentTool("Edit", null, CWD).title).toBe("Edit file");
    expect(presentTool("", {}, CWD).title).toBe("Tool");
  });

  test("previews: the plan, an edit's strings, a subagent's prompt", () => {
    expect(text(presentTool("ExitPlanMode", { plan: "1. a\n2. b" }, CWD).content)).toBe("1. a\n2. b");
    expect(presentTool("Edit", RESULTS.edit.input, CWD).content).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" },
    ]);
    expect(text(presentTool("Task", RESULTS.task.input, CWD).content)).toBe("Look for the bug in src");
  });
});

describe("resultContent", () => {
  test("Bash: console block with stdout, stderr and the exit code", () => {
    const c = resultContent("Bash", RESULTS.bash.input, RESULTS.bash.output, RESULTS.bash.result, CWD);
    expect(text(c)).toBe("```console\ntotal 0\nfile.txt\n```\nexit code 0");
    const failed = resultContent("Bash", {}, "", { stdout: "", stderr: "boom", exitCode: 2 }, CWD);
    expect(text(failed)).toBe("```console\nboom\n```\nexit code 2");
    expectValid([asUpdate("Bash", RESULTS.bash.input, RESULTS.bash.output, RESULTS.bash.result)]);
  });

  test("fences survive backticks in the output", () => {
    const f = fenced("a ``` b ```` c");
    expect(f.startsWith("`````\n")).toBe(true);
    expect(f.endsWith("\n`````")).toBe(true);
  });

  test("Read: the excerpt as fenced code in the file's language; location at startLine", () => {
    const c = resultContent("Read", RESULTS.read.input, RESULTS.read.output, RESULTS.read.result, CWD);
    expect(text(c)).toBe("```typescript\nconst x = 1;\n```");
    expect(resultLocations("Read", RESULTS.read.input, RESULTS.read.result, CWD)).toEqual([{ path: `${CWD}/src/x.ts`, line: 10 }]);
    expect(languageOf("a/Dockerfile")).toBe("dockerfile");
    expect(languageOf("x.unknownext")).toBe("");
  });

  test("Edit: a diff of the whole file built from originalFile", () => {
    const c = resultContent("Edit", RESULTS.edit.input, RESULTS.edit.output, RESULTS.edit.result, CWD);
    expect(c).toEqual([{ type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS }]);
    expect(resultLocations("Edit", RESULTS.edit.input, RESULTS.edit.result, CWD)).toEqual([{ path: `${CWD}/src/x.ts`, line: 1 }]);
    expectValid([asUpdate("Edit", RESULTS.edit.input, RESULTS.edit.output, RESULTS.edit.result)]);
  });

  test("Edit with replace_all replaces every occurrence", () => {
    const c = resultContent(
      "Edit",
      { file_path: "f.txt", old_string: "a", new_string: "b", replace_all: true },
      undefined,
      { filePath: `${CWD}/f.txt`, oldString: "a", newString: "b", originalFile: "a a a" },
      CWD,
    );
    expect(c).toEqual([{ type: "diff", path: `${CWD}/f.txt`, oldText: "a a a", newText: "b b b" }]);
  });

  test("Edit without originalFile: the hunks, else the strings", () => {
    const { originalFile: _, ...noOriginal } = RESULTS.edit.result;
    const c = resultContent("Edit", RESULTS.edit.input, undefined, noOriginal, CWD);
    expect(c).toEqual([
      {
        type: "diff",
        path: `${CWD}/src/x.ts`,
        oldText: "export const a = 1;\nexport const b = 2;\nexport const c = 3;",
        newText: "export const a = 1;\nexport const b = 42;\nexport const c = 3;",
      },
    ]);
    const bare = resultContent("Edit", RESULTS.edit.input, undefined, {}, CWD);
    expect(bare).toEqual([{ type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" }]);
  });

  test("MultiEdit applies every edit to the original", () => {
    const c = resultContent(
      "MultiEdit",
      { file_path: "m.ts", edits: [{ old_string: "1", new_string: "one" }, { old_string: "3", new_string: "three" }] },
      undefined,
      { filePath: `${CWD}/m.ts`, originalFile: ORIGINAL_TS },
      CWD,
    );
    expect(c).toEqual([
      { type: "diff", path: `${CWD}/m.ts`, oldText: ORIGINAL_TS, newText: ORIGINAL_TS.replace("1", "one").replace("3", "three") },
    ]);
  });

  test("Write create: oldText null; update: old text rebuilt from the patch", () => {
    const created = resultContent("Write", RESULTS.writeCreate.input, RESULTS.writeCreate.output, RESULTS.writeCreate.result, CWD);
    expect(created).toEqual([{ type: "diff", path: `${CWD}/src/new.ts`, oldText: null, newText: "hello\n" }]);
    const updated = resultContent("Write", RESULTS.writeUpdate.input, RESULTS.writeUpdate.output, RESULTS.writeUpdate.result, CWD);
    expect(updated).toEqual([{ type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS }]);
    const withOriginal = resultContent("Write", RESULTS.writeUpdate.input, undefined, { ...RESULTS.writeUpdate.result, originalFile: "zzz" }, CWD);
    expect(withOriginal).toEqual([{ type: "diff", path: `${CWD}/src/x.ts`, oldText: "zzz", newText: EDITED_TS }]);
    expectValid([asUpdate("Write", RESULTS.writeCreate.input, RESULTS.writeCreate.output, RESULTS.writeCreate.result)]);
  });

  test("reversePatch rebuilds the old file, several hunks, and refuses a patch that does not fit", () => {
    const newText = "a\nB\nc\nd\ne\nF\ng";
    const patch = [
      { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" a", "-b", "+B", " c"] },
      { oldStart: 5, oldLines: 3, newStart: 5, newLines: 4, lines: [" e", "-f", "+F", "+g"] },
    ];
    expect(reversePatch(newText, patch)).toBe("a\nb\nc\nd\ne\nf");
    expect(reversePatch("nothing alike", patch)).toBeUndefined();
    expect(reversePatch("x", [])).toBeUndefined();
  });

  test("Grep and Glob: file lists relative to cwd", () => {
    const g = text(resultContent("Grep", RESULTS.grep.input, RESULTS.grep.output, RESULTS.grep.result, CWD));
    expect(g).toBe("Found 2 files\n- src/a.ts\n- src/b.ts");
    const withContent = text(resultContent("Grep", {}, undefined, { mode: "content", content: "src/a.ts:3: TODO" }, CWD));
    expect(withContent).toBe("```\nsrc/a.ts:3: TODO\n```");
    const gl = text(resultContent("Glob", RESULTS.glob.input, RESULTS.glob.output, { ...RESULTS.glob.result, truncated: true }, CWD));
    expect(gl).toBe("Found 1 file\n- src/a.ts\n- … (results truncated)");
    const many = text(resultContent("Glob", {}, undefined, { filenames: Array.from({ length: 250 }, (_, i) => `f${i}`) }, CWD));
    expect(many).toContain("- … and 50 more");
  });

  test("WebFetch: status, size and the summary", () => {
    const c = text(resultContent("WebFetch", RESULTS.webfetch.input, RESULTS.webfetch.output, RESULTS.webfetch.result, CWD));
    expect(c).toBe("HTTP 200, 1234 bytes\n\nThe page explains things.");
  });

  test("Task, unknown tools: the output text; unknown tool with only a result: JSON", () => {
    expect(text(resultContent("Task", RESULTS.task.input, RESULTS.task.output, RESULTS.task.result, CWD))).toBe("Found it in src/x.ts");
    expect(text(resultContent("Mystery", {}, "did it", { a: 1 }, CWD))).toBe("did it");
    expect(text(resultContent("Mystery", {}, undefined, { a: 1 }, CWD))).toBe('```json\n{\n  "a": 1\n}\n```');
    expect(resultContent("Mystery", {}, undefined, undefined, CWD)).toEqual([]);
  });

  test("ExitPlanMode, TodoWrite, AskUserQuestion", () => {
    expect(text(resultContent("ExitPlanMode", { plan: "P" }, undefined, { approved: true }, CWD))).toBe("P\nPlan approved.");
    const todos = { todos: [{ content: "a", status: "completed" }, { content: "b", status: "in_progress" }, { content: "c", status: "pending" }] };
    expect(text(resultContent("TodoWrite", todos, undefined, {}, CWD))).toBe("- [x] a\n- [~] b\n- [ ] c");
    expect(text(resultContent("AskUserQuestion", {}, undefined, { answers: { "Which?": ["a", "b"] } }, CWD))).toBe("Which?: a, b");
  });

  test("displayPath: inside cwd relative, outside absolute", () => {
    expect(displayPath(`${CWD}/a/b`, CWD)).toBe("a/b");
    expect(displayPath("a/b", CWD)).toBe("a/b");
    expect(displayPath("/etc/x", CWD)).toBe("/etc/x");
    expect(displayPath("/home/dev/projectX/y", CWD)).toBe("/home/dev/projectX/y");
  });

  test("every tool's result content validates as ACP", () => {
    const all = Object.entries({
      Bash: RESULTS.bash,
      Read: RESULTS.read,
      Edit: RESULTS.edit,
      Write: RESULTS.writeUpdate,
      Grep: RESULTS.grep,
      Glob: RESULTS.glob,
      WebFetch: RESULTS.webfetch,
      Task: RESULTS.task,
    }).map(([name, r]) => asUpdate(name, r.input, r.output, r.result));
    expectValid(all);
  });
});
