// ConversationProjector: ZCode's conversation frames (rows.ts, snapshot.ts,
// delta.ts shapes; see frames.ts) → the legacy session/event envelopes the
// session layer reads (event-schemas.ts parseEvent must accept each one).
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { outcomeOfResult } from "../../../../src/translate/tools/outcome.ts";
import { resultContent, resultLocations, streamsOutput } from "../../../../src/translate/tools/presentation.ts";
import { parseEvent, type RawEvent, ToolResultSchema } from "../../../../src/zcode/event-schemas.ts";
import { ConversationFrameSchema } from "../../../../src/zcode/v4/frame-schemas.ts";
import type { PendingInteractionView } from "../../../../src/zcode/v4/interactions.ts";
import { ConversationProjector } from "../../../../src/zcode/v4/row-events.ts";
import type { AssembledFrame } from "../../../../src/zcode/v4/wire-frames.ts";
import { assistantText, control, deltasFrame, header, reasoning, SESSION, snapshot, snapshotFrame, toolCall, userInput } from "./frames.ts";

type Obj = Record<string, unknown>;

function setup(opts: { maxRows?: number } = {}) {
  const events: RawEvent[] = [];
  const asked: PendingInteractionView[] = [];
  const gone: string[] = [];
  const p = new ConversationProjector(
    SESSION,
    { event: (e) => events.push(e), interaction: (i) => asked.push(i), interactionGone: (id) => gone.push(id) },
    opts,
  );
  let seq = 10;
  const apply = (frame: Obj) => p.apply({ ...v.parse(ConversationFrameSchema, frame), deliveryKind: "online" } as AssembledFrame);
  return {
    p,
    events,
    asked,
    gone,
    snap: (rows: Obj[], extra: Obj = {}) => apply(snapshotFrame(snapshot(rows, extra), seq)),
    deltas: (...ds: Obj[]) => {
      apply(deltasFrame(seq, ds));
      seq += ds.length;
    },
    /** Every event the session layer reads, in seq order with no hole, and none it would refuse. */
    checked(): RawEvent[] {
      events.forEach((e, i) => {
        expect(e.seq).toBe(i + 1);
        const r = parseEvent(e);
        if (!r.ok) throw new Error(`event ${e.type} refused: ${JSON.stringify(r)}`);
      });
      return events;
    },
  };
}

const text = (es: RawEvent[]) =>
  es
    .filter((e) => e.type === "model.streaming" && (e.payload as Obj).kind === "text_delta")
    .map((e) => (e.payload as Obj).delta)
    .join("");
const types = (es: RawEvent[]) => es.map((e) => e.type);
const state = (patch: Obj) => ({ op: "state.updated", patch });

describe("ConversationProjector", () => {
  test("a streamed text split over deltas, then the whole row upserted: no text twice, none lost", () => {
    const t = setup();
    t.snap([]);
    t.deltas(
      { op: "row.appended", row: header(1, "turn_1", "running", { sourceCommandId: "cmd-1" }) },
      { op: "row.appended", row: userInput(2, "turn_1", "hello") },
      state({
        control: control("running", {
          activeWorks: [{ kind: "primaryTurn", foregroundExecutionId: "fx-1", sourceCommandId: "cmd-1", startedAt: 1 }],
        }),
      }),
      { op: "row.appended", row: assistantText(3, "turn_1", "Hel") },
    );
    t.deltas({ op: "row.delta", rowId: 3, path: "text", append: "lo, " }, { op: "row.delta", rowId: 3, path: "text", append: "wor" });
    t.deltas({ op: "row.upserted", row: assistantText(3, "turn_1", "Hello, world", "complete") });
    t.deltas({ op: "row.upserted", row: assistantText(3, "turn_1", "Hello, world", "complete", { actions: { canRetry: true } }) });
    const es = t.checked();
    expect(text(es)).toBe("Hello, world");
    const started = es.find((e) => e.type === "turn.started");
    expect(started?.payload).toEqual({ queryId: "cmd-1", foregroundExecutionId: "fx-1", input: "hello" });
    expect(started?.turnId).toBe("turn_1");
  });

  test("reasoning streams as thought deltas", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t", "running") }, { op: "row.appended", row: reasoning(2, "t", "think") });
    t.deltas({ op: "row.delta", rowId: 2, path: "text", append: "ing" });
    const deltas = t.checked().filter((e) => (e.payload as Obj).kind === "reasoning_delta");
    expect(deltas.map((e) => (e.payload as Obj).delta)).toEqual(["think", "ing"]);
  });

  test("a completed turn; a cancelled turn ends with the legacy cancelled result", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") });
    t.deltas(
      { op: "row.upserted", row: header(1, "t1", "completedSuccess") },
      state({
        usage: { contextWindow: null, cumulative: { inputTokens: 100, outputTokens: 20, cacheReadTokens: 5, cacheWriteTokens: 0 } },
      }),
    );
    t.deltas({ op: "row.appended", row: header(2, "t2", "running") });
    t.deltas({ op: "row.upserted", row: header(2, "t2", "completedInterrupted") });
    // Told again (actions recomputed): nothing more.
    t.deltas({ op: "row.upserted", row: header(2, "t2", "completedInterrupted", { actions: { canRewindFiles: true } }) });
    const es = t.checked();
    expect(types(es)).toEqual(["turn.started", "turn.completed", "turn.started", "turn.completed"]);
    expect(es[1]?.payload).toEqual({
      resultType: "success",
      usage: { inputTokens: 100, outputTokens: 20, totalTokens: 120, cacheReadTokens: 5, cacheWriteTokens: 0 },
    });
    expect((es[3]?.payload as Obj).resultType).toBe("cancelled");
  });

  test("a failed turn carries control.lastError as the error detail", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") });
    const lastError = {
      code: "fault.provider.rateLimited",
      message: "Too many requests",
      recoverable: true,
      at: 5,
      source: "provider",
      attribution: { retryable: true, statusCode: 429 },
    };
    // The row comes before the state that explains it, in the same frame.
    t.deltas({ op: "row.upserted", row: header(1, "t1", "failed") }, state({ control: control("error", { lastError }) }));
    const failed = t.checked().at(-1);
    expect(failed?.type).toBe("turn.failed");
    expect(failed?.turnId).toBe("t1");
    expect((failed?.payload as Obj).error).toEqual({
      code: "fault.provider.rateLimited",
      message: "Too many requests",
      recoverable: true,
      retryable: true,
      attribution: { retryable: true, statusCode: 429 },
    });
  });

  test("a turn failed with no session error (an error_* result) ends as a completed turn cut short", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") });
    t.deltas({ op: "row.upserted", row: header(1, "t1", "failed") });
    const last = t.checked().at(-1);
    expect([last?.type, (last?.payload as Obj).resultType]).toEqual(["turn.completed", "error_during_execution"]);
  });

  test("a tool waiting for permission: announced, asked once, then its result", () => {
    const t = setup();
    t.snap([]);
    const input = { command: "ls" };
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") }, { op: "row.appended", row: toolCall(2, "t1", "inputStreaming") });
    const interaction = {
      interactionId: "perm-1",
      kind: "permission",
      anchorRowId: 2,
      createdAt: 1,
      payload: {
        kind: "permission",
        toolCallId: "call-2",
        toolName: "Bash",
        summary: "Run ls",
        detail: input,
        options: [
          { optionId: "allowOnce", label: "Allow", kind: "allowOnce" },
          { optionId: "deny", label: "Deny", kind: "deny" },
        ],
      },
    };
    t.deltas(
      { op: "row.upserted", row: toolCall(2, "t1", "pendingApproval", { input, approvalInteractionId: "perm-1" }) },
      state({ pendingInteractions: [interaction] }),
    );
    // Re-sent state: the interaction is asked only once.
    t.deltas(state({ pendingInteractions: [interaction] }));
    t.deltas(state({ pendingInteractions: [] }), { op: "row.upserted", row: toolCall(2, "t1", "running", { input }) });
    t.deltas({ op: "row.upserted", row: toolCall(2, "t1", "success", { input, output: { text: "a\nb\n" } }) });
    const es = t.checked();
    expect(t.asked.map((i) => i.interactionId)).toEqual(["perm-1"]);
    expect(t.asked[0]?.sessionId).toBe(SESSION);
    expect(t.gone).toEqual(["perm-1"]);
    const tools = es.filter((e) => e.type === "tool.updated").map((e) => e.payload as Obj);
    expect(tools.map((x) => x.kind)).toEqual(["scheduled", "scheduled", "started", "result"]);
    expect(tools[1]?.input).toEqual(input);
    expect(tools[3]?.result).toEqual({ success: true, content: "a\nb\n" });
  });

  test("a denied permission is the legacy permission.resolved deny, not a failure", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") }, { op: "row.appended", row: toolCall(2, "t1", "inputStreaming") });
    t.deltas({
      op: "row.upserted",
      row: toolCall(2, "t1", "pendingApproval", { input: { command: "rm -rf /" }, approvalInteractionId: "p-1" }),
    });
    // interactions-permission.ts onPermissionResolved: deny → settlePermission(…, "cancelled").
    t.deltas({ op: "row.upserted", row: toolCall(2, "t1", "cancelled", { input: { command: "rm -rf /" }, approvalInteractionId: "p-1" }) });
    const es = t.checked().slice(1);
    expect(es.map((e) => [e.type, (e.payload as Obj).kind ?? (e.payload as Obj).decision])).toEqual([
      ["tool.updated", "scheduled"],
      ["tool.updated", "scheduled"],
      ["permission.resolved", "deny"],
    ]);
  });

  test("a failed tool reports ZCode's error; a Bash tool's output streams as tails", () => {
    const t = setup();
    t.snap([]);
    t.deltas(
      { op: "row.appended", row: header(1, "t1", "running") },
      { op: "row.appended", row: toolCall(2, "t1", "running", { output: { text: "" } }) },
    );
    t.deltas({ op: "row.delta", rowId: 2, path: "output.text", append: "line 1\n" });
    t.deltas({ op: "row.upserted", row: toolCall(2, "t1", "error", { error: { code: "tool.failed", message: "exit 1" } }) });
    const tools = t
      .checked()
      .filter((e) => e.type === "tool.updated")
      .map((e) => e.payload as Obj);
    expect(tools.map((x) => x.kind)).toEqual(["scheduled", "started", "progress", "error"]);
    expect(tools[2]?.stdoutTail).toBe("line 1\n");
    expect(tools[3]?.error).toEqual({ type: "tool.failed", code: "tool.failed", message: "exit 1" });
  });

  // product-projection.ts onToolCallResult / projection-rows.ts buildToolOutput: the row's output is the legacy
  // result's content and display, so the editor shows the same title, diff, location and output as on legacy.
  describe("a finished tool's row with ZCode's output.display → the legacy tool.updated result", () => {
    const cwd = "/work/proj";
    const patch = [{ oldStart: 3, oldLines: 1, newStart: 3, newLines: 1, lines: ["-old", "+new"] }];
    const fileDiff = { kind: "file_diff", filePath: `${cwd}/src/a.ts`, additions: 1, deletions: 1, structuredPatch: patch };
    const bashOut = { kind: "bash_output", output: "hello\n", truncated: false };
    const resultOfRow = (row: Obj): Obj => {
      const t = setup();
      t.snap([]);
      t.deltas({ op: "row.appended", row: header(1, "t1", "running") }, { op: "row.appended", row });
      const es = t.checked().filter((e) => e.type === "tool.updated" && (e.payload as Obj).kind !== "scheduled");
      const last = es[es.length - 1]?.payload as Obj;
      return last;
    };
    /** What the editor is shown of a result (translate/tools), the way tools/tracker.ts reads it. */
    const shown = (name: string, input: unknown, result: unknown) => {
      const o = outcomeOfResult(streamsOutput(name), v.parse(ToolResultSchema, result));
      return { locations: resultLocations(name, input, o, cwd), content: resultContent(name, input, o, cwd), failed: o.failed };
    };

    test("an Edit: its file_diff display → result.display; the diff and the location's line as legacy", () => {
      const input = { file_path: `${cwd}/src/a.ts`, old_string: "old", new_string: "new" };
      const text = "The file src/a.ts has been updated.";
      const p = resultOfRow(toolCall(2, "t1", "success", { toolName: "Edit", input, output: { text, display: fileDiff } }));
      const legacy = { success: true, content: text, display: fileDiff };
      expect(p).toMatchObject({ kind: "result", toolCallId: "call-2", toolName: "Edit", result: legacy });
      expect(shown("Edit", input, p.result)).toEqual(shown("Edit", input, legacy));
      expect(shown("Edit", input, p.result).locations).toEqual([{ path: `${cwd}/src/a.ts`, line: 3 }]);
    });

    test("a Bash call: its bash_output display and text as legacy; the exit code legacy kept in perf has no v4 field", () => {
      const input = { command: "echo hello" };
      const p = resultOfRow(toolCall(2, "t1", "success", { input, output: { text: "hello\n", display: bashOut } }));
      expect(p.result).toEqual({ success: true, content: "hello\n", display: bashOut });
      const legacy = { success: true, content: "hello\n", display: bashOut };
      expect(shown("Bash", input, p.result)).toEqual(shown("Bash", input, legacy));
      // ZCode's "Exit code N" line (a failed command) is in the text, so a failure reads the same.
      const failed = resultOfRow(toolCall(2, "t1", "success", { input, output: { text: "Exit code 1\nboom" } }));
      expect(shown("Bash", input, failed.result)).toEqual(shown("Bash", input, { success: true, content: "Exit code 1\nboom" }));
      expect(shown("Bash", input, failed.result).failed).toBe(true);
    });

    test("output cut by buildToolOutput: truncated; a failed result keeps its text, display and error", () => {
      const cut = resultOfRow(
        toolCall(2, "t1", "success", { output: { text: "head\n…\ntail", truncated: { totalBytes: 70_000, ref: "tool-output/call-2" } } }),
      );
      expect(cut.result).toEqual({ success: true, content: "head\n…\ntail", truncated: true });
      const failed = resultOfRow(
        toolCall(2, "t1", "error", {
          toolName: "Edit",
          output: { text: "no match", display: fileDiff },
          error: { code: "tool_execution_error", message: "old_string not found" },
        }),
      );
      expect(failed).toMatchObject({ kind: "result", toolName: "Edit" });
      expect(failed.result).toEqual({
        success: false,
        content: "no match",
        display: fileDiff,
        error: { type: "tool_execution_error", message: "old_string not found" },
      });
    });

    test("node_repl_images, which buildToolOutput moves to row.display, is the result's display", () => {
      const images = { kind: "node_repl_images", images: [{ base64: "AAAA", mimeType: "image/png" }] };
      const p = resultOfRow(toolCall(2, "t1", "success", { toolName: "NodeRepl", output: { text: "[image]" }, display: images }));
      expect(p.result).toEqual({ success: true, content: "[image]", display: images });
    });
  });

  test("a snapshot at subscribe emits only the running turn, never the history", () => {
    const t = setup();
    t.snap(
      [
        header(1, "old", "completedSuccess"),
        userInput(2, "old", "before"),
        assistantText(3, "old", "old answer", "complete"),
        header(4, "live", "running", { sourceCommandId: "cmd-9" }),
        userInput(5, "live", "now"),
        assistantText(6, "live", "so far"),
      ],
      { control: control("running") },
    );
    // The old turn's row re-sent later (actions moved) adds nothing.
    t.deltas({ op: "row.upserted", row: assistantText(3, "old", "old answer", "complete", { actions: { canRetry: true } }) });
    t.deltas({ op: "row.delta", rowId: 6, path: "text", append: "!" });
    const es = t.checked();
    expect(types(es)).toEqual(["turn.started", "model.streaming", "model.streaming"]);
    expect(text(es)).toBe("so far!");
  });

  test("interactions pending at subscribe are asked once, across resyncs, and withdrawn when gone", () => {
    const t = setup();
    const ask = {
      interactionId: "ask-1",
      kind: "userInput",
      anchorRowId: 2,
      createdAt: 1,
      payload: { kind: "userInput", prompt: "Which?", freeText: true, questions: [] },
    };
    const rows = [header(1, "t1", "running"), toolCall(2, "t1", "pendingApproval", { toolName: "AskUserQuestion" })];
    t.snap(rows, { control: control("running"), pendingInteractions: [ask] });
    t.snap(rows, { control: control("running"), pendingInteractions: [ask] });
    expect(t.asked.map((i) => i.interactionId)).toEqual(["ask-1"]);
    t.snap(rows, { control: control("running"), pendingInteractions: [] });
    expect(t.gone).toEqual(["ask-1"]);
  });

  test("a resync snapshot continues where the stream stopped, and ends the turn it missed ending", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") }, { op: "row.appended", row: assistantText(2, "t1", "abc") });
    t.snap([header(1, "t1", "completedSuccess"), assistantText(2, "t1", "abcdef", "complete")], {
      meta: { title: "Named", titleSource: "generated" },
    });
    const es = t.checked();
    expect(text(es)).toBe("abcdef");
    expect(types(es)).toEqual(["turn.started", "model.streaming", "model.streaming", "turn.completed", "session.titleUpdated"]);
  });

  test("a snapshot of a new log epoch (a restarted CLI renumbers rows) starts the row memory afresh", () => {
    const t = setup();
    t.snap([header(1, "t1", "completedSuccess"), assistantText(2, "t1", "old", "complete"), assistantText(3, "t1", "older", "complete")]);
    // Same rowIds, new epoch: the live turn's rows are new, whatever their numbers.
    t.snap([header(1, "t9", "running"), assistantText(2, "t9", "fresh")], { logEpoch: "epoch-2", control: control("running") });
    t.deltas({ op: "row.appended", row: assistantText(3, "t9", "more", "complete") });
    expect(text(t.checked())).toBe("freshmore");
  });

  test("title, mode and context usage patches become the legacy payloads", () => {
    const t = setup();
    t.snap([]);
    t.deltas(state({ meta: { title: "Fix the bug", titleSource: "generated" } }));
    t.deltas(state({ config: { provider: "p", model: "m", thought: "max", thoughtLevels: [], followupMode: "queue", mode: "plan" } }));
    t.deltas(
      state({ usage: { contextWindow: { usedTokens: 5000, maxTokens: 200000, autoCompactThresholdTokens: null }, cumulative: {} } }),
    );
    const es = t.checked();
    expect(es.map((e) => [e.type, e.payload])).toEqual([
      ["session.titleUpdated", { title: "Fix the bug" }],
      ["session.updated", { mode: "plan", previousMode: "yolo" }],
      ["session.updated", { usage: { inputTokens: 5000, outputTokens: 0 }, contextWindow: 200000 }],
    ]);
  });

  test("a guide queued then drained is the legacy steer pair; a compaction and a subagent as legacy reported them", () => {
    const t = setup();
    t.snap([]);
    const sub = { rowId: 4, turnId: "t1", createdAt: 1, createdAtSeq: 4, kind: "subagent", subagentType: "explore", summaryText: "" };
    // input-intent.ts: the guide is admitted into the queue first, then drained into the turn as a guided row.
    const guide = {
      sourceCommandId: "cmd-steer",
      queueItemId: "q-1",
      clientId: "c",
      kind: "sendText",
      text: "also check tests",
      attachments: [],
      delivery: { requested: "guide", admitted: "guide" },
      order: { admissionSeq: 1 },
      steer: { state: "steering" },
      dispatch: { state: "queued" },
      admittedAt: 1,
    };
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") }, state({ queue: { items: [guide], autoDrain: true } }));
    t.deltas(
      state({ queue: { items: [], autoDrain: true } }),
      { op: "row.appended", row: userInput(2, "t1", "also check tests", { guided: true, sourceCommandId: "cmd-steer" }) },
      {
        op: "row.appended",
        row: {
          rowId: 3,
          turnId: "t1",
          createdAt: 1,
          createdAtSeq: 3,
          kind: "timelineMarker",
          marker: { type: "compact", origin: "auto", status: "running", tokensBefore: 9000 },
        },
      },
      { op: "row.appended", row: { ...sub, status: "running", childSessionId: "child-1", parentToolCallId: "call-9" } },
    );
    t.deltas(
      {
        op: "row.upserted",
        row: {
          rowId: 3,
          turnId: "t1",
          createdAt: 1,
          createdAtSeq: 3,
          kind: "timelineMarker",
          marker: { type: "compact", origin: "auto", status: "success", tokensBefore: 9000, tokensAfter: 1200 },
        },
      },
      {
        op: "row.upserted",
        row: { ...sub, status: "success", childSessionId: "child-1", parentToolCallId: "call-9", summaryText: "found it" },
      },
    );
    const es = t.checked().slice(1);
    expect(es.map((e) => [e.type, e.payload])).toEqual([
      ["turn.steerQueued", { pendingInputId: "q-1", input: "also check tests", delivery: "guide" }],
      ["turn.steerDrained", { drainedInputs: [{ pendingInputId: "q-1", text: "also check tests" }] }],
      ["session.updated", { trigger: "auto", preCompactTokenCount: 9000 }],
      [
        "session.updated",
        { agentId: "child-1", childSessionId: "child-1", status: "running", agentType: "explore", parentToolCallId: "call-9" },
      ],
      ["session.updated", { trigger: "auto", preCompactTokenCount: 9000, postCompactTokenCount: 1200 }],
      // Words that extend what the row said are a SubagentMessage's (a row.delta an upsert swallowed, coalesce.ts):
      // the editor is shown them as it is shown a stop's summary.
      ["session.updated", { agentId: "child-1", childSessionId: "child-1", summaryText: "found it" }],
      [
        "session.updated",
        { agentId: "child-1", childSessionId: "child-1", status: "completed", agentType: "explore", parentToolCallId: "call-9" },
      ],
    ]);
  });

  test("a thought completed after its reply began (coalesce.ts: the upsert moved past the reply's append) is told before the reply", () => {
    const t = setup();
    t.snap([]);
    t.deltas(
      { op: "row.appended", row: header(1, "t1", "running") },
      { op: "row.appended", row: reasoning(2, "t1", "The user said: hello th") },
    );
    // One flush window: the thought's row.delta swallowed by its upsert, which now comes after the reply's append.
    t.deltas(
      { op: "row.appended", row: assistantText(3, "t1", "Echo: ") },
      { op: "row.upserted", row: reasoning(2, "t1", "The user said: hello there.", "complete") },
    );
    t.deltas({ op: "row.delta", rowId: 3, path: "text", append: "hello there" });
    const parts = t
      .checked()
      .filter((e) => e.type === "model.streaming")
      .map((e) => [(e.payload as Obj).kind, (e.payload as Obj).delta]);
    expect(parts).toEqual([
      ["reasoning_delta", "The user said: hello th"],
      ["reasoning_delta", "ere."],
      ["text_delta", "Echo: "],
      ["text_delta", "hello there"],
    ]);
  });

  test("a subagent row is legacy's SubagentSpawned/Message/Stopped: ZCode's agentId, the Agent call's words, a failure's error", () => {
    const t = setup();
    t.snap([]);
    // product-projection.ts onSubagentSpawned: entityId = agentId, summaryText = the spawn's description.
    const sub = {
      rowId: 3,
      turnId: "t1",
      entityId: "agent_1",
      createdAt: 1,
      createdAtSeq: 3,
      kind: "subagent",
      subagentType: "explore",
      childSessionId: "sess_subagent_agent_1",
      parentToolCallId: "call-9",
    };
    const agentCall = toolCall(2, "t1", "running", {
      toolCallId: "call-9",
      toolName: "Agent",
      input: { description: "Find callers", prompt: "Search for greet()" },
    });
    t.deltas(
      { op: "row.appended", row: header(1, "t1", "running") },
      { op: "row.appended", row: agentCall },
      { op: "row.appended", row: { ...sub, status: "running", summaryText: "Find callers" } },
    );
    // onSubagentMessage appends to summaryText; onSubagentStopped with neither summaryText nor error keeps the row's own.
    t.deltas({ op: "row.delta", rowId: 3, path: "summaryText", append: "Scanned src/." });
    t.deltas({ op: "row.upserted", row: { ...sub, status: "success", summaryText: "Find callersScanned src/." } });
    t.deltas({
      op: "row.appended",
      row: {
        ...sub,
        rowId: 4,
        entityId: "agent_3",
        childSessionId: "c3",
        parentToolCallId: "call-x",
        status: "running",
        summaryText: "Third",
      },
    });
    t.deltas({
      op: "row.upserted",
      row: {
        ...sub,
        rowId: 4,
        entityId: "agent_3",
        childSessionId: "c3",
        parentToolCallId: "call-x",
        status: "failed",
        summaryText: "boom",
      },
    });
    const subs = t
      .checked()
      .filter((e) => e.type === "session.updated")
      .map((e) => e.payload);
    const base = { agentType: "explore", parentToolCallId: "call-9" };
    const child = "sess_subagent_agent_1";
    expect(subs).toEqual([
      { agentId: "agent_1", childSessionId: child, status: "running", ...base, description: "Find callers", prompt: "Search for greet()" },
      { agentId: "agent_1", childSessionId: child, summaryText: "Scanned src/." },
      { agentId: "agent_1", childSessionId: child, status: "completed", ...base },
      {
        agentId: "agent_3",
        childSessionId: "c3",
        status: "running",
        agentType: "explore",
        parentToolCallId: "call-x",
        description: "Third",
      },
      { agentId: "agent_3", childSessionId: "c3", status: "failed", agentType: "explore", parentToolCallId: "call-x", error: "boom" },
    ]);
  });

  test("a guide that fell back is the legacy delivery change, told once", () => {
    const t = setup();
    const item = (steer: Obj) => ({
      sourceCommandId: "cmd-2",
      queueItemId: "q-2",
      text: "wait",
      delivery: { requested: "guide", admitted: "guide" },
      steer,
      dispatch: { state: "queued" },
    });
    t.snap([header(1, "t1", "running")], { queue: { items: [item({ state: "steering" })], autoDrain: true } });
    t.deltas(state({ queue: { items: [item({ state: "fellBack", reasonCode: "guide.turnInterrupted" })], autoDrain: false } }));
    t.deltas(
      state({
        queue: { items: [item({ state: "fellBack", reasonCode: "guide.turnInterrupted" })], autoDrain: false, pauseReason: "stopped" },
      }),
    );
    expect(t.checked().map((e) => [e.type, e.payload])).toEqual([
      ["turn.started", {}],
      ["turn.steerQueued", { pendingInputId: "q-2", input: "wait", delivery: "guide" }],
      ["session.updated", { fallbackReasonCode: "guide.turnInterrupted", pendingInputId: "q-2" }],
    ]);
  });

  test("row.removed cuts the branch; a retried turn is a new turn", () => {
    const t = setup();
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") }, { op: "row.appended", row: assistantText(2, "t1", "first") });
    t.deltas({ op: "row.upserted", row: header(1, "t1", "completedSuccess") });
    t.deltas({ op: "row.removed", fromRowId: 1 });
    expect(t.p.state.rows).toEqual([]);
    expect(t.p.state.totalCount).toBe(0);
    t.deltas({ op: "row.appended", row: header(3, "t2", "running") }, { op: "row.appended", row: assistantText(4, "t2", "second") });
    expect(types(t.checked())).toEqual(["turn.started", "model.streaming", "turn.completed", "turn.started", "model.streaming"]);
  });

  test("memory stays bounded with 100,000 rows: only the newest are kept", () => {
    const t = setup({ maxRows: 500 });
    t.snap([]);
    t.deltas({ op: "row.appended", row: header(1, "t1", "running") });
    const batch: Obj[] = [];
    for (let i = 2; i <= 100_001; i++) {
      batch.push({ op: "row.appended", row: assistantText(i, "t1", "x", "complete") });
      if (batch.length === 1000) t.deltas(...batch.splice(0));
    }
    const s = t.p.state;
    expect(s.rows.length).toBe(500);
    expect(s.rows[0]?.rowId).toBe(100_001 - 499);
    expect(s.totalCount).toBe(100_001);
    expect(t.events.length).toBe(1 + 100_000);
  }, 20_000);
});
