// session/load replays ZCode's session/messages: real message infos and
// parts ({callId, tool, state:{status, input, output, error, metadata}}),
// without what ZCode wrote for the model.
import { describe, expect, test } from "bun:test";
import { historyToUpdates, planEntries } from "../../../src/translate/history.ts";
import { CWD, EDITED_TS, ORIGINAL_TS, TOOLS, expectValid, msg, toolPart } from "../support/bridge-fixtures.ts";

type Any = Record<string, any>;

const REMINDER = "<system-reminder>\nToday's date is 2026-12-02. The workspace is a git repository.\n</system-reminder>\n\n";

const MESSAGES = [
  msg({
    info: {
      messageId: "m1",
      role: "user",
      time: { created: 1 },
      semantics: { origin: "user", kind: "user_prompt", uiVisibility: "visible" },
    },
    parts: [{ type: "text", text: `${REMINDER}fix it` }],
  }),
  msg({
    info: { messageId: "m2", role: "assistant", time: { created: 2 }, semantics: { kind: "assistant_response" } },
    parts: [
      { type: "step-start" },
      { type: "reasoning", text: "thinking" },
      { type: "text", text: "On it." },
      toolPart("t1", TOOLS.edit),
      {
        type: "tool",
        callId: "t2",
        tool: "Bash",
        state: { status: "error", input: { command: "sleep 999" }, error: "Command timed out after 120000ms", metadata: {} },
      },
      toolPart("t3", TOOLS.bash),
      {
        type: "tool",
        callId: "t4",
        tool: "Read",
        state: { status: "running", input: { file_path: "a" }, title: "Read", metadata: {}, startedAt: 3 },
      },
      toolPart("t5", TOOLS.writeCreate),
      toolPart("t6", TOOLS.bashFailed),
      toolPart("t7", TOOLS.writeUpdate),
      { type: "tool", callId: "t8", tool: "Grep", state: { status: "pending", input: { pattern: "x" }, raw: "" } },
      { type: "text", text: "" },
      { type: "step-finish", tokens: { input: 1, output: 2, reasoning: 0, cache: { read: 0, write: 0 } } },
    ],
  }),
  msg({
    info: { messageId: "m3", role: "user", semantics: { kind: "compact_summary", uiVisibility: "hidden" } },
    parts: [{ type: "text", text: `${REMINDER}summary of before` }],
  }),
];

describe("historyToUpdates", () => {
  const updates = historyToUpdates(MESSAGES, {
    cwd: CWD,
    todos: [
      { content: "one", status: "completed", priority: "high" },
      { content: "two", status: "in_progress" },
      { content: "three", status: "weird", priority: "urgent" },
      { content: "four", status: "cancelled", priority: "low" },
    ],
  }) as Any[];

  test("every update is valid ACP", () => expectValid(updates as never));

  test("messages, thoughts and tools in order, with the message ids", () => {
    expect(updates.map((u) => u.sessionUpdate)).toEqual([
      "user_message_chunk",
      "agent_thought_chunk",
      "agent_message_chunk",
      ...Array(8).fill("tool_call"),
      "agent_message_chunk",
      "plan",
    ]);
    expect(updates[1]).toMatchObject({ messageId: "m2", content: { text: "thinking" } });
    expect(updates[2]).toMatchObject({ messageId: "m2", content: { text: "On it." } });
  });

  test("the user's text without ZCode's system reminders", () => {
    expect(updates[0]).toEqual({ sessionUpdate: "user_message_chunk", messageId: "m1", content: { type: "text", text: "fix it" } });
  });

  test("tool calls replay whole: final status, diff content, command output without the terminal extension", () => {
    expect(updates[3]).toMatchObject({
      toolCallId: "t1",
      title: "Edit src/x.ts",
      kind: "edit",
      status: "completed",
      content: [{ type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" }],
      locations: [{ path: `${CWD}/src/x.ts`, line: 2 }],
      rawInput: TOOLS.edit.input,
      name: "Edit",
    });
    // ZCode's confirmation of an edit is written for the model: no rawOutput.
    expect("rawOutput" in updates[3]!).toBe(false);
    expect(updates[4]).toMatchObject({
      toolCallId: "t2",
      title: "sleep 999",
      status: "failed",
      rawOutput: "Command timed out after 120000ms",
    });
    expect(updates[5]).toMatchObject({ toolCallId: "t3", kind: "execute", status: "completed", title: "ls -la" });
    expect(updates[5]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\n```");
    expect(updates[5]!._meta).toBeUndefined();
    expect(updates[6]).toMatchObject({ toolCallId: "t4", status: "in_progress", title: "Read a" });
    expect(updates[7]).toMatchObject({
      toolCallId: "t5",
      status: "completed",
      content: [{ type: "diff", oldText: null, newText: "hello\n" }],
    });
  });

  test("a command whose output starts `Exit code N` replays failed, with its exit code", () => {
    expect(updates[8]).toMatchObject({ toolCallId: "t6", status: "failed" });
    expect(updates[8]!.content[0].content.text).toBe("```console\nmake: *** [test] Error 2\n```\nexit code 2");
  });

  test("an overwrite's old text comes back from the stored file_diff view", () => {
    expect(updates[9]).toMatchObject({
      toolCallId: "t7",
      content: [{ type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS }],
    });
  });

  test("a tool still pending shows what it was about to do", () => {
    expect(updates[10]).toMatchObject({ toolCallId: "t8", status: "pending", title: 'grep "x"' });
    expect("rawOutput" in updates[10]!).toBe(false);
  });

  test("a compaction summary is one agent message saying so; the plan comes last", () => {
    expect(updates[11]).toMatchObject({ sessionUpdate: "agent_message_chunk", messageId: "m3" });
    expect(updates[11]!.content.text).toBe("**Conversation summary** (earlier messages were compacted)\n\nsummary of before");
    expect(updates[12]).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "one", status: "completed", priority: "high" },
        { content: "two", status: "in_progress", priority: "medium" },
        { content: "three", status: "pending", priority: "medium" },
        { content: "four", status: "completed", priority: "low" },
      ],
    });
  });

  test("an empty compaction summary still says the history was compacted", () => {
    const u = historyToUpdates(
      [msg({ info: { role: "user", semantics: { kind: "compact_summary" } }, parts: [{ type: "compaction", auto: true }] })],
      { cwd: CWD },
    );
    expect(u).toEqual([{ sessionUpdate: "agent_message_chunk", content: { type: "text", text: "**Earlier messages were compacted.**" } }]);
  });

  test("no todos, no plan; empty history, no updates", () => {
    expect(historyToUpdates([], { cwd: CWD })).toEqual([]);
    expect(historyToUpdates(MESSAGES.slice(0, 1), { cwd: CWD, todos: [] }).map((u) => u.sessionUpdate)).toEqual(["user_message_chunk"]);
    expect(historyToUpdates(MESSAGES.slice(0, 1), { cwd: CWD, todos: null }).map((u) => u.sessionUpdate)).toEqual(["user_message_chunk"]);
    expect(planEntries([])).toEqual([]);
    expect(planEntries([{ content: "" }])).toEqual([]);
  });
});

describe("what ZCode wrote for the model is not replayed", () => {
  const user = (text: string, info: Record<string, unknown> = {}, part: Record<string, unknown> = {}) =>
    msg({ info: { messageId: "x", role: "user", ...info }, parts: [{ type: "text", text, ...part }] });

  test("model-only, synthetic user messages, hidden semantics, reminders and notices", () => {
    const hidden = [
      user("Forked from sess_1 at checkpoint cp_3.", { synthetic: true }),
      user("internal context", { visibility: "model-only" }),
      user("<system-reminder>todo list is empty</system-reminder>", { semantics: { kind: "system_reminder" } }),
      user("background task finished", { semantics: { kind: "background_notice", uiVisibility: "visible" } }),
      user("kept out of the transcript", { semantics: { kind: "user_prompt", transcriptVisibility: "hidden" } }),
      user("not shown in the UI", { semantics: { kind: "user_prompt", uiVisibility: "hidden" } }),
      user("a synthetic part", {}, { synthetic: true }),
      user("an ignored part", {}, { ignored: true }),
      user(REMINDER),
    ];
    for (const m of hidden) expect(historyToUpdates([m], { cwd: CWD })).toEqual([]);
  });

  test("what the user typed and the agent answered is replayed", () => {
    const shown = [
      user("typed", { semantics: { kind: "user_prompt", origin: "user" } }),
      user("/compact", { semantics: { kind: "slash_command" } }),
      user("no semantics at all"),
      msg({
        info: { role: "assistant", synthetic: true },
        parts: [{ type: "text", text: "an assistant's synthetic text is still its answer" }],
      }),
    ];
    expect(historyToUpdates(shown, { cwd: CWD }).map((u) => (u as Any).content.text)).toEqual([
      "typed",
      "/compact",
      "no semantics at all",
      "an assistant's synthetic text is still its answer",
    ]);
  });

  test("reminders in an agent's text are kept (only the user's text is cleaned)", () => {
    const a = msg({ info: { role: "assistant" }, parts: [{ type: "text", text: "see <system-reminder>x</system-reminder> here" }] });
    expect((historyToUpdates([a], { cwd: CWD })[0] as Any).content.text).toBe("see <system-reminder>x</system-reminder> here");
  });
});
