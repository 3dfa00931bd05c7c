// rows (ZCode's rows.ts, as rowsRange answers them) → the legacy
// session/messages messages that translate/history.ts replays.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { MessagesResultSchema } from "../../../../src/zcode/result-schemas.ts";
import { RowSchema } from "../../../../src/zcode/v4/schemas.ts";
import { rowsToMessages } from "../../../../src/zcode/v4/rows-history.ts";
import { assistantText, header, reasoning, toolCall, userInput } from "./frames.ts";

const rows = (...rs: unknown[]) => rs.map((r) => v.parse(RowSchema, r));

describe("rowsToMessages", () => {
  test("user text, thoughts, answers and tool calls with their results replay as legacy messages", () => {
    const messages = rowsToMessages(
      rows(
        header(1, "t1", "completedSuccess"),
        userInput(2, "t1", "list files"),
        reasoning(3, "t1", "I should run ls", "complete"),
        toolCall(4, "t1", "success", {
          input: { command: "ls" },
          output: { text: "a\nb\n", display: { kind: "bash_output", output: "a\nb\n" } },
        }),
        toolCall(5, "t1", "error", { input: { command: "x" }, error: { code: "tool.failed", message: "exit 1" } }),
        assistantText(6, "t1", "Two files.", "complete"),
        userInput(7, "t2", "[background result]", { origin: "backgroundResult" }),
        {
          rowId: 8,
          turnId: "t2",
          createdAt: 9,
          createdAtSeq: 8,
          kind: "timelineMarker",
          marker: { type: "compact", origin: "manual", status: "success" },
        },
      ),
    );
    // What session/messages answers must read as such.
    expect(v.parse(MessagesResultSchema, { messages }).messages).toHaveLength(4);
    expect(messages.map((m) => [m.info.role, m.parts.map((p) => p.type)])).toEqual([
      ["user", ["text"]],
      ["assistant", ["reasoning", "tool", "tool", "text"]],
      ["user", ["text"]],
      ["assistant", ["compaction"]],
    ]);
    expect(messages[0]?.info).toEqual({ messageId: "row-2", role: "user", time: { created: 1002 } });
    expect(messages[2]?.info.synthetic).toBe(true);
    const [, ok, failed] = messages[1]?.parts ?? [];
    expect(ok).toEqual({
      type: "tool",
      callId: "call-4",
      tool: "Bash",
      state: {
        status: "completed",
        input: { command: "ls" },
        output: "a\nb\n",
        metadata: { display: { kind: "bash_output", output: "a\nb\n" } },
      },
    });
    expect(failed).toMatchObject({ type: "tool", state: { status: "error", error: "exit 1" } });
  });
});
