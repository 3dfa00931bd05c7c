// How ZCode's tools look in an ACP editor, from real tool results
// (`result.content` is the text a person reads; `display` and `perf` add the
// rest): titles, kinds, locations, result content (outcomes: outcome.test.ts).
import { describe, expect, test } from "bun:test";
import type { SessionUpdate, ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { denialText, outcomeOfPart, outcomeOfResult } from "../../../../src/translate/tools/outcome.ts";
import { presentTool, rawResult, resultContent, resultLocations, streamsOutput } from "../../../../src/translate/tools/presentation.ts";
import { CWD, EDITED_TS, ORIGINAL_TS, TOOLS, expectValid, type ToolFixture } from "../../support/bridge-fixtures.ts";

function text(c: ToolCallContent[]): string {
  return c.map((x) => (x.type === "content" && x.content.type === "text" ? x.content.text : "")).join("\n");
}

/** The content a finished fixture shows. */
function shown(t: ToolFixture): ToolCallContent[] {
  return resultContent(t.name, t.input, outcomeOfResult(streamsOutput(t.name), t.result), CWD);
}

/** Wraps presentation output into a tool_call so the SDK schema checks it. */
function asUpdate(t: ToolFixture, finished = true): SessionUpdate {
  const p = presentTool(t.name, t.input, CWD);
  const outcome = outcomeOfResult(streamsOutput(t.name), t.result);
  return {
    sessionUpdate: "tool_call",
    toolCallId: "t1",
    title: p.title,
    kind: p.kind,
    status: finished ? (outcome.failed ? "failed" : "completed") : "pending",
    locations: finished ? resultLocations(t.name, t.input, outcome, CWD) : p.locations,
    rawInput: t.input,
    ...(finished && rawResult(t.name, t.input, outcome) !== undefined ? { rawOutput: rawResult(t.name, t.input, outcome) } : {}),
    content: finished ? resultContent(t.name, t.input, outcome, CWD) : p.content,
  };
}

describe("presentTool: title, kind per tool", () => {
  const cases: Array<[string, unknown, string, string]> = [
    ["Bash", { command: "ls -la" }, "ls -la", "execute"],
    ["Bash", { description: "List files" }, "List files", "execute"],
    ["Read", { file_path: `${CWD}/src/x.ts` }, "Read src/x.ts", "read"],
    ["Read", { file_path: `${CWD}/src/x.ts`, offset: 10, limit: 20 }, "Read src/x.ts (lines 10–29)", "read"],
    ["Read", { file_path: "/etc/hosts", offset: 5 }, "Read /etc/hosts (from line 5)", "read"],
    ["Read", { file_path: "a.ts", limit: 5 }, "Read a.ts (lines 1–5)", "read"],
    ["Edit", { file_path: `${CWD}/src/x.ts`, old_string: "a", new_string: "b" }, "Edit src/x.ts", "edit"],
    ["Write", { file_path: `${CWD}/src/new.ts`, content: "x" }, "Write src/new.ts", "edit"],
    ["Grep", { pattern: "TODO", path: `${CWD}/src` }, 'grep "TODO" in src', "search"],
    ["Grep", { pattern: "x", glob: "*.ts" }, 'grep "x" (*.ts)', "search"],
    ["Grep", { pattern: "greet\\(" }, 'grep "greet\\("', "search"],
    ["Glob", { pattern: "**/*.ts", path: "lib" }, 'Find "**/*.ts" in lib', "search"],
    ["WebFetch", { url: "https://example.com" }, "Fetch https://example.com", "fetch"],
    ["WebSearch", { query: "bun test" }, 'Search the web for "bun test"', "fetch"],
    ["Agent", { description: "Find the bug", subagent_type: "Explore" }, "Find the bug (Explore)", "think"],
    ["Agent", { prompt: "p", subagent_type: "Explore" }, "Run Explore agent", "think"],
    ["Task", { description: "Review" }, "Review", "think"],
    ["ExitPlanMode", { plan: "1. do it" }, "Ready to code?", "switch_mode"],
    ["EnterPlanMode", {}, "Plan first", "switch_mode"],
    ["TodoWrite", { todos: [] }, "Update plan", "think"],
    ["TodoRead", {}, "Read plan", "think"],
    ["AskUserQuestion", { questions: [{ question: "Which?", header: "Pick", options: [] }] }, "Ask: Pick", "other"],
    ["AskUserQuestion", { questions: [{ question: "Which one?", options: [] }] }, "Ask: Which one?", "other"],
    ["FrobnicateTool", { x: 1 }, "FrobnicateTool", "other"],
    ["mcp__github__create_issue", { title: "x" }, "mcp__github__create_issue", "other"],
    ["bash", { command: "pwd" }, "pwd", "execute"],
  ];
  for (const [name, input, title, kind] of cases) {
    test(`${name} ${JSON.stringify(input).slice(0, 40)}`, () => {
      const p = presentTool(name, input, CWD);
      expect(p.title).toBe(title);
      expect(p.kind).toBe(kind as never);
      expectValid([asUpdate({ name, input: input as Record<string, unknown>, result: {} }, false)]);
    });
  }

  test("locations are absolute with 1-based lines", () => {
    expect(presentTool("Read", { file_path: "src/x.ts", offset: 10 }, CWD).locations).toEqual([{ path: `${CWD}/src/x.ts`, line: 10 }]);
    expect(presentTool("Read", { file_path: "src/x.ts", offset: 0 }, CWD).locations).toEqual([{ path: `${CWD}/src/x.ts` }]);
    expect(presentTool("Edit", { file_path: "a/b.ts" }, CWD).locations).toEqual([{ path: `${CWD}/a/b.ts` }]);
    expect(presentTool("Grep", { pattern: "x", path: "src" }, CWD).locations).toEqual([{ path: `${CWD}/src` }]);
    expect(presentTool("Grep", { pattern: "x" }, CWD).locations).toEqual([]);
    expect(presentTool("Bash", { command: "x" }, CWD).locations).toEqual([]);
  });

  test("long and multi-line commands are shortened to one line", () => {
    const t = presentTool("Bash", { command: `echo ${"x".repeat(300)}` }, CWD).title;
    expect(t.length).toBeLessThanOrEqual(120);
    expect(t.endsWith("…")).toBe(true);
    expect(presentTool("Bash", { command: "set -e\nmake all" }, CWD).title).toBe("set -e …");
  });

  test("missing or malformed input falls back to readable titles", () => {
    expect(presentTool("Bash", undefined, CWD).title).toBe("Run command");
    expect(presentTool("Read", { file_path: 42 }, CWD).title).toBe("Read file");
    expect(presentTool("Edit", null, CWD).title).toBe("Edit file");
    expect(presentTool("Write", [], CWD).title).toBe("Write file");
    expect(presentTool("", {}, CWD).title).toBe("Tool");
  });

  test("previews: the command's description, the plan, an edit's strings, a write's text, a subagent's prompt", () => {
    expect(text(presentTool("Bash", TOOLS.bash.input, CWD).content)).toBe("List files");
    expect(text(presentTool("ExitPlanMode", { plan: "1. a\n2. b" }, CWD).content)).toBe("1. a\n2. b");
    expect(presentTool("Edit", TOOLS.edit.input, CWD).content).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" },
    ]);
    expect(text(presentTool("Write", TOOLS.writeCreate.input, CWD).content)).toBe("```typescript\nhello\n```");
    expect(text(presentTool("Agent", TOOLS.agent.input, CWD).content)).toBe("Look for the bug in src");
    expect(text(presentTool("WebFetch", TOOLS.webfetch.input, CWD).content)).toBe("Summarize");
    expect(presentTool("Read", TOOLS.read.input, CWD).content).toEqual([]);
  });

  test("only Bash streams its output", () => {
    expect(streamsOutput("Bash")).toBe(true);
    expect(streamsOutput("bash")).toBe(true);
    for (const n of ["Read", "Edit", "Agent", "Mystery", ""]) expect(streamsOutput(n)).toBe(false);
  });
});

describe("resultContent", () => {
  test("Bash: console block and the exit code", () => {
    expect(text(shown(TOOLS.bash))).toBe("```console\ntotal 0\nfile.txt\n```\nexit code 0");
    expect(text(shown(TOOLS.bashFailed))).toBe("```console\nmake: *** [test] Error 2\n```\nexit code 2");
    expect(text(shown(TOOLS.bashSilent))).toBe("exit code 0");
  });

  test("Bash: the bash_output display is shown rather than the persisted-output notice", () => {
    const t = text(shown(TOOLS.bashLarge));
    expect(t).toBe("```console\nline 1\nline 2\nline 3\n```\nexit code 0");
    expect(t).not.toContain("persisted-output");
  });

  test("Read: the file without ZCode's `N\\t` numbering, fenced in its language; reminders dropped", () => {
    expect(text(shown(TOOLS.read))).toBe("```typescript\nconst x = 1;\nconst y = 2;\n```");
    expect(text(shown(TOOLS.readWithReminder))).toBe("```markdown\n# Title\n\nText\n```");
    // Text that is not all numbered lines is shown as it is.
    const mixed = resultContent(
      "Read",
      { file_path: "a.txt" },
      outcomeOfResult(streamsOutput("Read"), { success: true, content: "1\tone\nnot numbered" }),
      CWD,
    );
    expect(text(mixed)).toBe("```\n1\tone\nnot numbered\n```");
    expect(resultLocations("Read", TOOLS.read.input, outcomeOfResult(streamsOutput("Read"), TOOLS.read.result), CWD)).toEqual([
      { path: `${CWD}/src/x.ts`, line: 10 },
    ]);
  });

  test("Edit: the diff of the input's strings; the location's line from the view's hunk", () => {
    expect(shown(TOOLS.edit)).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" },
    ]);
    const top = { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] };
    const at = (newStart: number) =>
      outcomeOfResult(streamsOutput("Edit"), {
        success: true,
        content: "ok",
        display: { kind: "file_diff", filePath: `${CWD}/src/x.ts`, structuredPatch: [{ ...top, oldStart: newStart, newStart }] },
      });
    expect(resultLocations("Edit", TOOLS.edit.input, at(1), CWD)).toEqual([{ path: `${CWD}/src/x.ts`, line: 1 }]);
    expect(resultLocations("Edit", TOOLS.edit.input, at(42), CWD)).toEqual([{ path: `${CWD}/src/x.ts`, line: 42 }]);
    expect(
      resultLocations("Edit", TOOLS.edit.input, outcomeOfResult(streamsOutput("Edit"), { success: true, content: "ok" }), CWD),
    ).toEqual([{ path: `${CWD}/src/x.ts` }]);
  });

  test("Edit without strings in the input: ZCode's hunks; without either: its status line", () => {
    expect(resultContent("Edit", { file_path: "src/x.ts" }, outcomeOfResult(streamsOutput("Edit"), TOOLS.edit.result), CWD)).toEqual([
      {
        type: "diff",
        path: `${CWD}/src/x.ts`,
        oldText: "export const a = 1;\nexport const b = 2;\nexport const c = 3;",
        newText: "export const a = 1;\nexport const b = 42;\nexport const c = 3;",
      },
    ]);
    expect(
      text(
        resultContent("Edit", {}, outcomeOfResult(streamsOutput("Edit"), { success: true, content: "The file f has been updated." }), CWD),
      ),
    ).toBe("The file f has been updated.");
  });

  test("Write create: oldText null; overwrite: the old text rebuilt from the view's hunks", () => {
    expect(shown(TOOLS.writeCreate)).toEqual([{ type: "diff", path: `${CWD}/src/new.ts`, oldText: null, newText: "hello\n" }]);
    expect(shown(TOOLS.writeUpdate)).toEqual([{ type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS }]);
  });

  test("Grep and Glob: path lists relative to cwd; content and count modes as a block", () => {
    expect(text(shown(TOOLS.grep))).toBe("Found 2 files\n- src/a.ts\n- src/b.ts");
    expect(text(shown(TOOLS.glob))).toBe("Found 2 files\n- src/a.ts\n- src/b.ts");
    expect(text(shown(TOOLS.grepContent))).toBe("```\nsrc/a.ts:3:// TODO fix\nsrc/b.ts:9:// TODO test\n```");
    expect(text(shown(TOOLS.grepCount))).toBe("```\nsrc/a.ts:2\nsrc/b.ts:1\n\nFound 3 total occurrences across 2 files.\n```");
    expect(text(shown(TOOLS.globTruncated))).toBe(
      "Found 1 file\n- a.ts\n(Results are truncated. Consider using a more specific path or pattern.)",
    );
    const paged = resultContent(
      "Grep",
      {},
      outcomeOfResult(streamsOutput("Grep"), { success: true, content: "Found 3 files limit: 250, offset: 0\n/etc/a\nb\nc" }),
      CWD,
    );
    expect(text(paged)).toBe("Found 3 files limit: 250, offset: 0\n- /etc/a\n- b\n- c");
    const many = Array.from({ length: 250 }, (_, i) => `${CWD}/f${i}`).join("\n");
    expect(text(resultContent("Glob", {}, outcomeOfResult(streamsOutput("Glob"), { success: true, content: many }), CWD))).toContain(
      "- … and 50 more",
    );
  });

  test("WebFetch and unknown tools: ZCode's text", () => {
    expect(text(shown(TOOLS.webfetch))).toBe("The page explains things.");
    expect(text(resultContent("Mystery", {}, outcomeOfResult(streamsOutput("Mystery"), { success: true, content: "did it" }), CWD))).toBe(
      "did it",
    );
    expect(resultContent("Mystery", {}, outcomeOfResult(streamsOutput("Mystery"), undefined), CWD)).toEqual([]);
  });

  test("Agent: the report without the agentId line and <usage> block", () => {
    expect(text(shown(TOOLS.agent))).toBe("Found it in src/x.ts");
  });

  test("TodoWrite: nothing of its own (the list reaches the editor once, as the plan), no rawOutput", () => {
    expect(shown(TOOLS.todo)).toEqual([]);
    expect(rawResult("TodoWrite", TOOLS.todo.input, outcomeOfResult(false, TOOLS.todo.result))).toBeUndefined();
    expect(text(resultContent("TodoWrite", {}, outcomeOfResult(streamsOutput("TodoWrite"), { success: true, content: "{}" }), CWD))).toBe(
      "{}",
    );
  });

  test("ExitPlanMode, AskUserQuestion", () => {
    expect(
      text(
        resultContent(
          "ExitPlanMode",
          { plan: "P" },
          outcomeOfResult(streamsOutput("ExitPlanMode"), { success: true, content: "User has approved your plan." }),
          CWD,
        ),
      ),
    ).toBe("P\nPlan approved.");
    const answered = 'User has answered your questions: "Which?"="A". You can now continue with the user\'s answers in mind.';
    expect(
      text(
        resultContent("AskUserQuestion", {}, outcomeOfResult(streamsOutput("AskUserQuestion"), { success: true, content: answered }), CWD),
      ),
    ).toBe(answered);
  });

  test("nothing found is said as ZCode says it, not listed as a path", () => {
    expect(text(resultContent("Glob", {}, outcomeOfResult(streamsOutput("Glob"), { success: true, content: "No files found" }), CWD))).toBe(
      "No files found",
    );
    expect(
      text(resultContent("Grep", {}, outcomeOfResult(streamsOutput("Grep"), { success: true, content: "No matches found" }), CWD)),
    ).toBe("No matches found");
  });

  test("a command that could not run shows why, after any output", () => {
    const timedOut = outcomeOfPart(streamsOutput("Bash"), { status: "error", error: "Command timed out after 120000ms" });
    expect(text(resultContent("Bash", { command: "sleep 999" }, timedOut, CWD))).toBe("Command timed out after 120000ms");
    const refused = outcomeOfResult(streamsOutput("Bash"), { success: false, content: "", error: { message: "Sandbox refused" } });
    expect(text(resultContent("Bash", { command: "x" }, refused, CWD))).toBe("Sandbox refused");
    const partial = outcomeOfResult(streamsOutput("Bash"), { success: false, content: "half", error: { message: "killed" } });
    expect(text(resultContent("Bash", { command: "x" }, partial, CWD))).toBe("```console\nhalf\n```\n\nkilled");
  });

  test("Write over a truncated diff view: the old text is not rebuilt from the hunks it has", () => {
    const truncated = { ...TOOLS.writeUpdate.result, display: { ...(TOOLS.writeUpdate.result as any).display, truncated: true } };
    const c = resultContent("Write", TOOLS.writeUpdate.input, outcomeOfResult(streamsOutput("Write"), truncated), CWD);
    expect(c[0]).toMatchObject({ type: "diff" });
    expect((c[0] as { oldText: string }).oldText).not.toBe(ORIGINAL_TS);
  });

  test("a failed tool shows why", () => {
    const denied = outcomeOfResult(streamsOutput("Edit"), {
      success: false,
      content: "",
      error: { message: "File has not been read yet. Read it first before writing to it." },
    });
    expect(text(resultContent("Edit", TOOLS.edit.input, denied, CWD))).toBe(
      "File has not been read yet. Read it first before writing to it.",
    );
    expect(
      text(resultContent("Read", {}, outcomeOfPart(streamsOutput("Read"), { status: "error", error: "File does not exist." }), CWD)),
    ).toBe("File does not exist.");
    expect(text(resultContent("Read", {}, { display: {}, failed: true }, CWD))).toBe("Tool failed");
  });

  test("every tool's finished update is valid ACP", () => {
    expectValid(Object.values(TOOLS).map((t) => asUpdate(t)));
    expectValid(Object.values(TOOLS).map((t) => asUpdate(t, false)));
  });
});

describe("rawResult: what rawOutput carries per tool (docs/raw-output.md)", () => {
  const raw = (name: string, input: unknown, result: Parameters<typeof outcomeOfResult>[1]) =>
    rawResult(name, input, outcomeOfResult(streamsOutput(name), result));

  test("a command: its output without ZCode's exit line or no-output placeholder, never the result object", () => {
    expect(raw("Bash", TOOLS.bash.input, TOOLS.bash.result)).toBe("total 0\nfile.txt");
    expect(raw("Bash", TOOLS.bashSilent.input, TOOLS.bashSilent.result)).toBeUndefined();
    expect(raw("Bash", TOOLS.bashFailed.input, TOOLS.bashFailed.result)).toContain("make: *** [test] Error 2");
  });

  test("Edit and Write: nothing (ZCode's confirmation is for the model; the diff is the content)", () => {
    expect(raw("Edit", TOOLS.edit.input, TOOLS.edit.result)).toBeUndefined();
    expect(raw("Edit", TOOLS.edit.input, { success: false, error: { message: "String to replace not found" } })).toBe(
      "String to replace not found",
    );
  });

  test("ExitPlanMode: the verdict, not ZCode's echo of the plan to the model", () => {
    const echo = "User has approved your plan. You can now start coding.\n\n## Approved Plan:\n1. a\n2. b";
    expect(raw("ExitPlanMode", { plan: "1. a\n2. b" }, { success: true, content: echo })).toBe("Plan approved.");
  });

  test("TodoWrite, TodoRead, EnterPlanMode: nothing", () => {
    expect(raw("TodoRead", {}, { success: true, content: '{"todos":[]}' })).toBeUndefined();
    expect(raw("EnterPlanMode", {}, { success: true, content: "Entered plan mode. Do not write code." })).toBeUndefined();
  });

  test("Read: the file's text without line numbers; long output is capped with a note", () => {
    expect(raw("Read", { file_path: "a.ts" }, { success: true, content: "1\tconst a = 1;\n2\tconst b = 2;" })).toBe(
      "const a = 1;\nconst b = 2;",
    );
    const long = raw("Grep", { pattern: "x" }, { success: true, content: "x".repeat(200_000) })!;
    expect(long.length).toBeLessThan(70_000);
    expect(long).toContain("more characters not shown");
  });
});

describe("denialText: a denial as the user sees it", () => {
  const MODEL_TEXT =
    "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
  test("ZCode's words to the model become 'Denied'; the user's own feedback is kept", () => {
    expect(denialText(MODEL_TEXT)).toBe("Denied");
    expect(denialText(undefined)).toBe("Denied");
    const withFeedback = `${MODEL_TEXT.replace(/ STOP.*$/, "")} To tell you how to proceed, the user said:\nuse pnpm instead`;
    expect(denialText(withFeedback)).toBe("Denied: use pnpm instead");
    expect(denialText("Blocked by rule Bash(rm:*)")).toBe("Denied: Blocked by rule Bash(rm:*)");
  });
});
