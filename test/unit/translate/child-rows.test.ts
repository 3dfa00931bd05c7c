// A subagent's session from its v4 rows: each read says only what is new
// (a text's grown tail, a tool's next step), once, whatever the reads repeat.
import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { ChildRows } from "../../../src/translate/child-rows.ts";
import { ToolCallTracker } from "../../../src/translate/tools/tracker.ts";
import type { Row } from "../../../src/zcode/v4/schemas.ts";

const header = (state: string): Row => ({ rowId: 1, turnId: "t1", entityId: "t1", kind: "turnHeader", state });
const user: Row = { rowId: 2, turnId: "t1", entityId: "u1", kind: "userInput", text: "the task" };
const thought = (text: string, state = "streaming"): Row => ({ rowId: 3, turnId: "t1", entityId: "m1:0", kind: "reasoning", text, state });
const said = (text: string, state = "streaming"): Row => ({ rowId: 4, turnId: "t1", entityId: "m1:1", kind: "assistantText", text, state });
const grep = (status: string, extra: Partial<Row> = {}): Row => ({
  rowId: 5,
  turnId: "t1",
  entityId: "call_9",
  kind: "toolCall",
  toolCallId: "call_9",
  toolName: "Grep",
  status,
  input: { pattern: "greet\\(" },
  ...extra,
});

function view() {
  const tracker = new ToolCallTracker({ cwd: "/w", terminalOutput: false });
  return { rows: new ChildRows(tracker), tracker };
}

const kinds = (us: SessionUpdate[]) => us.map((u) => u.sessionUpdate);
const text = (u: SessionUpdate) => (u as { content: { text: string } }).content.text;

describe("ChildRows", () => {
  test("text and thoughts grow by their new tail under one message id each; the parent's task is not repeated", () => {
    const { rows } = view();
    const first = rows.apply([header("running"), user, thought("I will "), said("Search")]);
    expect(kinds(first)).toEqual(["agent_thought_chunk", "agent_message_chunk"]);
    expect(first.map(text)).toEqual(["I will ", "Search"]);
    expect(rows.settled).toBe(false);
    const second = rows.apply([header("running"), user, thought("I will look.", "complete"), said("Searching.", "complete")]);
    expect(second.map(text)).toEqual(["look.", "ing."]);
    expect((second[1] as { messageId: string }).messageId).toBe((first[1] as { messageId: string }).messageId);
    expect(rows.apply([header("completedSuccess"), user, thought("I will look.", "complete"), said("Searching.", "complete")])).toEqual([]);
    expect(rows.settled).toBe(true);
  });

  test("a tool: announced with its input, started, completed with its output; a repeated status says nothing", () => {
    const { rows } = view();
    const a = rows.apply([grep("running")]);
    expect(kinds(a)).toEqual(["tool_call", "tool_call_update"]);
    expect(a[0]).toMatchObject({ toolCallId: "call_9", rawInput: { pattern: "greet\\(" } });
    expect(a[1]).toMatchObject({ status: "in_progress" });
    expect(rows.apply([grep("running")])).toEqual([]);
    expect(rows.settled).toBe(false);
    const b = rows.apply([grep("success", { output: { text: "src/index.ts:3:greet(x)" } })]);
    expect(b.at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_9", status: "completed" });
    expect(JSON.stringify(b)).toContain("src/index.ts:3");
    expect(rows.settled).toBe(true);
  });

  test("a tool the mirror already announced (same tracker, same id) is not announced again", () => {
    const { rows, tracker } = view();
    tracker.onToolUpdated({ kind: "scheduled", toolCallId: "call_9", toolName: "Grep", input: { pattern: "greet\\(" } });
    tracker.onToolUpdated({ kind: "started", toolCallId: "call_9", toolName: "Grep" });
    const us = rows.apply([grep("running")]);
    expect(kinds(us).filter((k) => k === "tool_call")).toEqual([]);
    const failed = rows.apply([grep("cancelled", { error: { code: "tool_cancelled", message: "Tool execution cancelled" } })]);
    expect(failed.at(-1)).toMatchObject({ toolCallId: "call_9", status: "failed" });
  });

  test("knows the rows it has seen (a page read further back stops there)", () => {
    const { rows } = view();
    rows.apply([said("x")]);
    expect(rows.knows(said("xy"))).toBe(true);
    expect(rows.knows(grep("running"))).toBe(false);
  });
});
