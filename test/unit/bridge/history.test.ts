import { describe, expect, test } from "bun:test";
import { historyToUpdates, planEntries } from "../../../src/bridge/history.ts";
import { CWD, ORIGINAL_TS, EDITED_TS, RESULTS, expectValid, msg } from "../support/bridge-fixtures.ts";

type Any = Record<string, any>;

const MESSAGES = [
  msg({ info: { id: "m1", role: "user", createdAt: 1 }, parts: [{ type: "text", text: "fix it" }] }),
  msg({
    info: { id: "m2", role: "assistant", createdAt: 2 },
    parts: [
      { type: "reasoning", text: "thinking" },
      { type: "text", text: "On it." },
      { type: "tool", toolCallId: "t1", toolName: "Edit", input: RESULTS.edit.input, state: { status: "completed", output: RESULTS.edit.output, result: RESULTS.edit.result } },
      { type: "tool", toolCallId: "t2", toolName: "Bash", input: { command: "false" }, state: { status: "error", error: { message: "exit 1" } } },
      { type: "tool", toolCallId: "t3", toolName: "Bash", input: RESULTS.bash.input, state: { status: "completed", output: RESULTS.bash.output, result: RESULTS.bash.result } },
      { type: "tool", toolCallId: "t4", toolName: "Read", input: { file_path: "a" }, state: { status: "running" } },
      { type: "tool", toolCallId: "t5", toolName: "Write", input: RESULTS.writeCreate.input, state: { status: "completed", result: RESULTS.writeCreate.result } },
      { type: "unknown-part", x: 1 },
      { type: "text", text: "" },
    ],
  }),
  msg({ info: { id: "m3", role: "user" }, parts: [{ type: "text", text: "summary of before" }], semantics: { kind: "compact_summary" } }),
];

describe("historyToUpdates", () => {
  const updates = historyToUpdates(MESSAGES, {
    cwd: CWD,
    todos: [
      { content: "one", status: "completed", priority: "high" },
      { content: "two", status: "in_progress" },
      { content: "three", status: "weird", priority: "urgent" },
    ],
  }) as Any[];

  test("every update is valid ACP", () => expectValid(updates as never));

  test("messages, thoughts and tools in order, with the message ids", () => {
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "agent_thought_chunk",
      "agent_message_chunk",
      "tool_call",
      "tool_call",
      "tool_call",
      "tool_call",
      "tool_call",
      "agent_message_chunk",
      "plan",
    ]);
    expect(updates[0]).toEqual({ sessionUpdate: "user_message_chunk", messageId: "m1", content: { type: "text", text: "fix it" } });
    expect(updates[1]).toMatchObject({ messageId: "m2", content: { text: "thinking" } });
    expect(updates[2]).toMatchObject({ messageId: "m2", content: { text: "On it." } });
  });

  test("tool calls replay whole: final status, diff content, command output without the terminal extension", () => {
    expect(updates[3]).toMatchObject({
      toolCallId: "t1",
      title: "Edit src/x.ts",
      kind: "edit",
      status: "completed",
      content: [{ type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS }],
      locations: [{ path: `${CWD}/src/x.ts`, line: 1 }],
      rawOutput: RESULTS.edit.result,
    });
    expect(updates[4]).toMatchObject({ toolCallId: "t2", status: "failed", content: [{ content: { text: "exit 1" } }] });
    expect(updates[5]).toMatchObject({ toolCallId: "t3", kind: "execute", status: "completed" });
    expect(updates[5]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\n```\nexit code 0");
    expect(updates[5]!._meta).toBeUndefined();
    expect(updates[6]).toMatchObject({ toolCallId: "t4", status: "in_progress" });
    expect(updates[7]).toMatchObject({ toolCallId: "t5", content: [{ type: "diff", oldText: null, newText: "hello\n" }] });
  });

  test("a compaction summary is an agent message saying so; the plan comes last", () => {
    expect(updates[8]).toMatchObject({ sessionUpdate: "agent_message_chunk", messageId: "m3" });
    expect(updates[8]!.content.text).toContain("summary of before");
    expect(updates[8]!.content.text).toContain("compacted");
    expect(updates[9]).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "one", status: "completed", priority: "high" },
        { content: "two", status: "in_progress", priority: "medium" },
        { content: "three", status: "pending", priority: "medium" },
      ],
    });
  });

  test("no todos, no plan; empty history, no updates", () => {
    expect(historyToUpdates([], { cwd: CWD })).toEqual([]);
    expect(historyToUpdates(MESSAGES.slice(0, 1), { cwd: CWD, todos: [] }).map((u) => u.sessionUpdate)).toEqual(["user_message_chunk"]);
    expect(planEntries([])).toEqual([]);
  });
});
