// Zed's terminal extension `_meta`, exactly as Zed reads it.
import { describe, expect, test } from "bun:test";
import {
  terminalContent,
  terminalExit,
  terminalExitUpdate,
  terminalInfo,
  terminalOutput,
  terminalOutputUpdate,
} from "../../../../src/translate/tools/terminal-meta.ts";
import { expectValid } from "../../support/bridge-fixtures.ts";

describe("terminal _meta", () => {
  test("info, output and exit objects", () => {
    expect(terminalInfo("call_1", "/w")).toEqual({ terminal_info: { terminal_id: "call_1", cwd: "/w" } });
    expect(terminalOutput("call_1", "hi\n")).toEqual({ terminal_output: { terminal_id: "call_1", data: "hi\n" } });
    expect(terminalExit("call_1", 2)).toEqual({ terminal_exit: { terminal_id: "call_1", exit_code: 2, signal: null } });
    expect(terminalExit("call_1", null)).toEqual({ terminal_exit: { terminal_id: "call_1", exit_code: null, signal: null } });
  });

  test("they ride on valid ACP updates", () => {
    expectValid([
      {
        sessionUpdate: "tool_call",
        toolCallId: "c",
        title: "ls",
        kind: "execute",
        status: "pending",
        content: [{ type: "terminal", terminalId: "c" }],
        _meta: terminalInfo("c", "/w"),
      },
      { sessionUpdate: "tool_call_update", toolCallId: "c", _meta: terminalOutput("c", "x") },
      { sessionUpdate: "tool_call_update", toolCallId: "c", _meta: terminalExit("c", 0) },
    ]);
  });

  test("the updates that carry them name the tool call's own terminal", () => {
    expect(terminalOutputUpdate("c", "x")).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "c", _meta: terminalOutput("c", "x") });
    expect(terminalExitUpdate("c", null)).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "c", _meta: terminalExit("c", null) });
    expect(terminalContent("c")).toEqual({ type: "terminal", terminalId: "c" });
    expectValid([terminalOutputUpdate("c", "x"), terminalExitUpdate("c", 1)]);
  });
});
