// The tool call tracker on ZCode's real event sequence for one tool:
// model.streaming tool_input_start → tool_input_delta* → tool_input_end →
// tool_call → tool.updated scheduled (input usually omitted) → started →
// progress* → result | error → batch; a denied permission ends a tool with
// no result of its own.
import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { OUTPUT_GAP_MARKER } from "../../../../src/translate/tools/output-tail.ts";
import { ToolCallTracker } from "../../../../src/translate/tools/tracker.ts";
import { CWD, DENIED_BY_USER, EDITED_TS, TOOLS, expectValid, ms, tu } from "../../support/bridge-fixtures.ts";

type Any = Record<string, any>;
const U = (u: SessionUpdate) => u as unknown as Any;

function tracker(terminalOutput = false) {
  return new ToolCallTracker({ cwd: CWD, terminalOutput });
}

/** Runs a sequence of tracker calls and collects (and validates) every update. */
function run(steps: Array<() => SessionUpdate[]>): Any[] {
  const all: SessionUpdate[] = [];
  for (const s of steps) all.push(...s());
  expectValid(all);
  return all.map(U);
}

const BASH_RESULT = {
  ...TOOLS.bash.result,
  // ZCode's content joins stdout and stderr.
  content: "total 0\nfile.txt\nwarn",
};

/** One Bash call as a real CLI reports it (`warn` on stderr, or with `stderr:false` on stdout). */
function bashLifecycle(t: ToolCallTracker, id = "call_1", opts: { stderr?: boolean } = {}) {
  const warn =
    opts.stderr === false
      ? { stdoutTail: "total 0\nfile.txt\nwarn\n", stderrTail: "" }
      : { stdoutTail: "total 0\nfile.txt\n", stderrTail: "warn\n" };
  return run([
    () => t.onModelStreaming(ms({ kind: "tool_input_start", toolCallId: id, toolName: "Bash" })),
    () => t.onModelStreaming(ms({ kind: "tool_input_delta", toolCallId: id, delta: '{"command":"ls -la",' })),
    () => t.onModelStreaming(ms({ kind: "tool_input_end", toolCallId: id })),
    () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: id, input: TOOLS.bash.input })),
    () =>
      t.onToolUpdated(
        tu({ kind: "scheduled", toolCallId: id, toolName: "Bash", inputByteLength: 46, inputOmitted: true, inputRef: "model_stream" }),
      ),
    () => t.onToolUpdated(tu({ kind: "started", toolCallId: id, toolName: "Bash", startedAt: 1760000000080 })),
    () => t.onToolUpdated(tu({ kind: "progress", toolCallId: id, toolName: "Bash", stdoutTail: "total 0\n", stderrTail: "" })),
    () => t.onToolUpdated(tu({ kind: "progress", toolCallId: id, toolName: "Bash", stdoutTail: "total 0\nfile.txt\n", stderrTail: "" })),
    () => t.onToolUpdated(tu({ kind: "progress", toolCallId: id, toolName: "Bash", ...warn })),
    () => t.onToolUpdated(tu({ kind: "result", toolCallId: id, duration: 33, result: BASH_RESULT })),
    () => t.onToolUpdated(tu({ kind: "batch", toolCallIds: [id], successCount: 1, errorCount: 0 })),
  ]);
}

describe("ToolCallTracker: lifecycle without the terminal extension", () => {
  test("Bash: announced at tool_input_start, input added, in_progress, output appended as a console block, completed", () => {
    const u = bashLifecycle(tracker());
    expect(u[0]).toEqual({
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "Run command",
      kind: "execute",
      status: "pending",
      name: "Bash",
      locations: [],
      content: [],
    });
    // Announced on its name alone: no rawInput until ZCode gives the input.
    expect("rawInput" in u[0]!).toBe(false);
    expect(u[1]).toMatchObject({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      title: "ls -la",
      kind: "execute",
      rawInput: TOOLS.bash.input,
    });
    expect(u[1]!.content[0].content.text).toBe("List files");
    // scheduled with inputOmitted adds nothing: no update for it.
    expect(u[2]).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" });
    expect(u[3]!.content[0].content.text).toBe("```console\ntotal 0\n```");
    expect(u[4]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\n```");
    expect(u[5]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\nwarn\n```");
    // rawOutput is the command's output, not ZCode's result object (perf, budgets).
    expect(u[6]).toMatchObject({ status: "completed", rawOutput: BASH_RESULT.content });
    expect(u[6]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\nwarn\n```\nexit code 0");
    // The batch closes nothing more: the tool had finished.
    expect(u).toHaveLength(7);
    expect(u.filter((x) => x._meta)).toHaveLength(0);
  });

  test("tool_call without a toolName keeps the name tool_input_start gave", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_input_start", toolCallId: "r", toolName: "Read" })),
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "r", input: { file_path: "src/x.ts" } })),
    ]);
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", title: "Read file", kind: "read" });
    expect(u[1]).toMatchObject({
      sessionUpdate: "tool_call_update",
      title: "Read src/x.ts",
      kind: "read",
      locations: [{ path: `${CWD}/src/x.ts` }],
    });
  });

  test("markers and deltas without a tool id, or of other kinds, say nothing", () => {
    const t = tracker();
    expect(t.onModelStreaming(ms({ kind: "tool_input_delta", toolCallId: "x", delta: "{" }))).toEqual([]);
    expect(t.onModelStreaming(ms({ kind: "tool_input_start", toolName: "Bash" }))).toEqual([]);
    expect(t.onModelStreaming(ms({ kind: "text_delta", delta: "hi" }))).toEqual([]);
    expect(t.onToolUpdated(tu({ kind: "started", toolName: "Bash" }))).toEqual([]);
    expect(t.onToolUpdated(tu({ kind: "someday", toolCallId: "x" }))).toEqual([]);
  });

  test("tool_call with input, then scheduled repeating it: one announcement", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Read", input: { file_path: "src/x.ts" } })),
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "c", toolName: "Read", input: { file_path: "src/x.ts" } })),
    ]);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({
      sessionUpdate: "tool_call",
      title: "Read src/x.ts",
      kind: "read",
      locations: [{ path: `${CWD}/src/x.ts` }],
    });
  });

  test("scheduled with inputOmitted keeps the input model.streaming gave", () => {
    const t = tracker();
    run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Bash", input: { command: "make" } })),
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "c", toolName: "Bash", inputOmitted: true })),
    ]);
    expect(t.get("c")).toMatchObject({ title: "make", rawInput: { command: "make" } });
    expect(t.pending("c")).toEqual({ name: "Bash", input: { command: "make" } });
  });

  test("scheduled first without input, then the input arrives: tool_call_update with the better title", () => {
    const t = tracker();
    const u = run([
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "c", toolName: "Bash", inputOmitted: true })),
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", input: { command: "make" } })),
    ]);
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", title: "Run command" });
    expect("rawInput" in u[0]!).toBe(false);
    expect(u[1]).toMatchObject({ sessionUpdate: "tool_call_update", title: "make", kind: "execute", rawInput: { command: "make" } });
  });

  test("Edit: the diff previewed from the input, then the result with the location of the hunk", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "e", toolName: "Edit", input: TOOLS.edit.input })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "e", toolName: "Edit" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "e", result: TOOLS.edit.result })),
    ]);
    const diff = [{ type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" }];
    expect(u[0]!.content).toEqual(diff);
    expect(u[2]).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "e",
      status: "completed",
      content: diff,
      // The changed line, past the hunk's leading context.
      locations: [{ path: `${CWD}/src/x.ts`, line: 2 }],
    });
  });

  test("Write overwrite: the full diff rebuilt once the result is in", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "w", toolName: "Write", input: TOOLS.writeUpdate.input })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "w", result: TOOLS.writeUpdate.result })),
    ]);
    expect(u[0]!.content[0].content.text).toBe(`\`\`\`typescript\n${EDITED_TS}\`\`\``);
    expect(u[1]!.content).toEqual([
      {
        type: "diff",
        path: `${CWD}/src/x.ts`,
        oldText: "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n",
        newText: EDITED_TS,
      },
    ]);
  });

  test("a command that exited non-zero: failed, with its output and exit code", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "m", toolName: "Bash", input: TOOLS.bashFailed.input })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "m", result: TOOLS.bashFailed.result })),
    ]);
    expect(u[1]).toMatchObject({ status: "failed" });
    expect(u[1]!.content[0].content.text).toBe("```console\nmake: *** [test] Error 2\n```\nexit code 2");
  });

  test("a result with success:false fails the tool, showing the error", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "r", toolName: "Read", input: { file_path: "nope.ts" } })),
      () =>
        t.onToolUpdated(
          tu({
            kind: "result",
            toolCallId: "r",
            result: { success: false, content: "", error: { type: "tool_execution_failed", message: "File does not exist." } },
          }),
        ),
    ]);
    expect(u[1]).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "File does not exist." } }],
    });
  });

  test("error: failed with the message; later events for it are ignored", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "x", toolName: "Edit", input: TOOLS.edit.input })),
      () =>
        t.onToolUpdated(
          tu({
            kind: "error",
            toolCallId: "x",
            error: { type: "tool_execution_failed", message: "String to replace not found in file.\nString: foo", code: "8" },
          }),
        ),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "x", toolName: "Edit" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "x", result: TOOLS.edit.result })),
      () => t.onToolUpdated(tu({ kind: "batch", toolCallIds: ["x"], successCount: 0, errorCount: 1 })),
    ]);
    expect(u).toHaveLength(2);
    expect(u[1]).toMatchObject({
      status: "failed",
      content: [{ type: "content", content: { type: "text", text: "String to replace not found in file.\nString: foo" } }],
      rawOutput: "String to replace not found in file.\nString: foo",
    });
    expect(t.pending("x")).toBeUndefined();
  });

  test("events for a tool never announced announce it first", () => {
    const t = tracker();
    const u = run([() => t.onToolUpdated(tu({ kind: "result", toolCallId: "z", result: TOOLS.glob.result }))]);
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "z", kind: "other", status: "pending" });
    expect(u[1]).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
    const v = run([() => t.onToolUpdated(tu({ kind: "started", toolCallId: "y", toolName: "Glob" }))]);
    expect(v.map((x) => [x.sessionUpdate, x.kind ?? x.status])).toEqual([
      ["tool_call", "search"],
      ["tool_call_update", "in_progress"],
    ]);
  });

  test("batch {toolCallIds, successCount, errorCount}: finished tools untouched, unseen ones closed", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "a", toolName: "Read", input: TOOLS.read.input })),
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "b", toolName: "Grep", input: TOOLS.grep.input })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "a", toolName: "Read" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "a", result: TOOLS.read.result })),
      () => t.onToolUpdated(tu({ kind: "batch", toolCallIds: ["a", "b", "never-announced"], successCount: 2, errorCount: 0 })),
    ]);
    const finals = u.filter((x) => x.status === "completed");
    expect(finals.map((x) => x.toolCallId)).toEqual(["a", "b"]);
    expect(finals[0]!.content[0].content.text).toContain("const x = 1;");
    expect(finals[1]).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "b", status: "completed" });
    expect(u.some((x) => x.toolCallId === "never-announced")).toBe(false);
  });

  test("a batch with errors fails the tools it closes (a denial ZCode did not report)", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "a", toolName: "Bash", input: { command: "x" } })),
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "b", toolName: "Bash", input: { command: "y" } })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "a", result: TOOLS.bash.result })),
      () => t.onToolUpdated(tu({ kind: "batch", toolCallIds: ["a", "b"], successCount: 1, errorCount: 1 })),
    ]);
    expect(u.at(-1)).toMatchObject({
      toolCallId: "b",
      status: "failed",
      content: [{ content: { text: "The tool did not run" } }],
      rawOutput: "The tool did not run",
    });
    expect(u.filter((x) => x.toolCallId === "a" && x.sessionUpdate === "tool_call_update")).toHaveLength(1);
  });

  test("permission.resolved deny: the tool fails; the user's own rejection reads plainly", () => {
    const t = tracker();
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "d", toolName: "Bash", input: { command: "rm -rf /" } })),
      () => t.onPermissionResolved("d", "deny", DENIED_BY_USER),
      () => t.onToolUpdated(tu({ kind: "batch", toolCallIds: ["d"], successCount: 0, errorCount: 1 })),
    ]);
    expect(u).toHaveLength(2);
    expect(u[1]).toMatchObject({ status: "failed", content: [{ content: { text: "Denied" } }], rawOutput: "Denied" });
    const p = tracker();
    const v = run([
      () => p.onModelStreaming(ms({ kind: "tool_call", toolCallId: "d", toolName: "Bash", input: { command: "curl x" } })),
      () => p.onPermissionResolved("d", "deny", "Network access is blocked by policy"),
    ]);
    expect(v[1]!.content[0].content.text).toBe("Denied: Network access is blocked by policy");
  });

  test("permission.resolved allow, or for an unknown tool: nothing", () => {
    const t = tracker();
    run([() => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "a", toolName: "Bash", input: { command: "ls" } }))]);
    expect(t.onPermissionResolved("a", "allow", "Approved once")).toEqual([]);
    expect(t.onPermissionResolved("nobody", "deny", "x")).toEqual([]);
    expect(t.onPermissionResolved(undefined, "deny", "x")).toEqual([]);
  });

  test("failOpen fails every unfinished announced tool once", () => {
    const t = tracker();
    run([
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "a", toolName: "Bash", input: { command: "sleep 9" } })),
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "b", toolName: "Read", input: { file_path: "x" } })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "b", result: { success: true, content: "1\tx" } })),
    ]);
    const f = run([() => t.failOpen("Cancelled")]);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({
      toolCallId: "a",
      status: "failed",
      content: [{ content: { text: "Cancelled" } }],
      rawOutput: "Cancelled",
    });
    expect(t.failOpen("again")).toEqual([]);
  });

  test("pending(): name and input until the tool finishes", () => {
    const t = tracker();
    t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "td", toolName: "TodoWrite", input: TOOLS.todo.input }));
    expect(t.pending("td")).toEqual({ name: "TodoWrite", input: TOOLS.todo.input });
    t.onToolUpdated(tu({ kind: "result", toolCallId: "td", result: TOOLS.todo.result }));
    expect(t.pending("td")).toBeUndefined();
    expect(t.pending("nobody")).toBeUndefined();
  });

  test("a long session stays bounded: old finished tools are forgotten, recent ones still ignore repeats", () => {
    const t = tracker();
    for (let i = 0; i < 600; i++) {
      t.onToolUpdated(tu({ kind: "scheduled", toolCallId: `t${i}`, toolName: "Bash", input: { command: "x".repeat(1000) } }));
      t.onToolUpdated(tu({ kind: "result", toolCallId: `t${i}`, result: TOOLS.bash.result }));
    }
    expect(t.get("t0")).toBeUndefined();
    expect(t.get("t599")).toMatchObject({ status: "completed" });
    expect(t.onToolUpdated(tu({ kind: "batch", toolCallIds: ["t599"], successCount: 1, errorCount: 0 }))).toEqual([]);
  });

  test("ensureAnnounced and get for a permission request", () => {
    const t = tracker();
    const first = run([() => t.ensureAnnounced("p", { toolName: "Bash", input: { command: "rm -rf build" } })]);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "p", title: "rm -rf build" });
    expect(t.ensureAnnounced("p", { toolName: "Bash", input: { command: "rm -rf build" } })).toEqual([]);
    expect(t.get("p")).toMatchObject({
      toolCallId: "p",
      title: "rm -rf build",
      kind: "execute",
      status: "pending",
      rawInput: { command: "rm -rf build" },
    });
    // Announced without input (tool_input_start, scheduled inputOmitted): the request's input fills it in.
    run([() => t.onModelStreaming(ms({ kind: "tool_input_start", toolCallId: "q", toolName: "Bash" }))]);
    const upd = run([() => t.ensureAnnounced("q", { toolName: "Bash", input: { command: "make install" } })]);
    expect(upd).toEqual([expect.objectContaining({ sessionUpdate: "tool_call_update", title: "make install" })]);
    expect(t.get("nope")).toBeUndefined();
  });

  test("a sliding tail is shown with a gap marker when it does not continue", () => {
    const t = tracker();
    const u = run([
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "s", toolName: "Bash" })),
      () => t.onToolUpdated(tu({ kind: "progress", toolCallId: "s", toolName: "Bash", stdoutTail: "first part\n" })),
      () => t.onToolUpdated(tu({ kind: "progress", toolCallId: "s", toolName: "Bash", stdoutTail: "unrelated later\n" })),
    ]);
    const last = u[u.length - 1]!.content[0].content.text as string;
    expect(last).toBe("```console\nfirst part\n" + OUTPUT_GAP_MARKER + "unrelated later\n```");
  });

  test("a progress event with nothing new says nothing", () => {
    const t = tracker();
    run([
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "s", toolName: "Bash" })),
      () => t.onToolUpdated(tu({ kind: "progress", toolCallId: "s", toolName: "Bash", stdoutTail: "a\n", stderrTail: null })),
    ]);
    expect(t.onToolUpdated(tu({ kind: "progress", toolCallId: "s", toolName: "Bash", stdoutTail: "a\n", stderrTail: "" }))).toEqual([]);
  });
});

describe("ToolCallTracker: Zed terminal extension", () => {
  test("terminal content + terminal_info, new data only, exit in its own update, then completed", () => {
    const u = bashLifecycle(tracker(true), "call_1", { stderr: false });
    expect(u[0]).toMatchObject({
      sessionUpdate: "tool_call",
      content: [{ type: "terminal", terminalId: "call_1" }],
      _meta: { terminal_info: { terminal_id: "call_1", cwd: CWD } },
    });
    const outputs = u.filter((x) => x._meta?.terminal_output).map((x) => x._meta.terminal_output);
    expect(outputs).toEqual([
      { terminal_id: "call_1", data: "total 0\n" },
      { terminal_id: "call_1", data: "file.txt\n" },
      { terminal_id: "call_1", data: "warn\n" },
    ]);
    const exitIdx = u.findIndex((x) => x._meta?.terminal_exit);
    expect(u[exitIdx]).toEqual({
      sessionUpdate: "tool_call_update",
      toolCallId: "call_1",
      _meta: { terminal_exit: { terminal_id: "call_1", exit_code: 0, signal: null } },
    });
    expect(exitIdx).toBe(u.length - 2);
    const done = u[u.length - 1]!;
    expect(done).toMatchObject({ status: "completed", rawOutput: BASH_RESULT.content });
    // The terminal stays the content: no replacement on completion.
    expect(done.content).toBeUndefined();
    // No fenced output anywhere, and no preview text in the terminal's place.
    expect(JSON.stringify(u)).not.toContain("```");
    expect(u.some((x) => x.content && x.content.some((c: Any) => c.type === "content"))).toBe(false);
  });

  test("ZCode trims each stream before joining them: a tail's trailing newline does not bring the output back", () => {
    const t = tracker(true);
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "z", toolName: "Bash", input: { command: "ls" } })),
      () =>
        t.onToolUpdated(
          tu({ kind: "progress", toolCallId: "z", toolName: "Bash", stdoutTail: "total 0\nfile.txt\n", stderrTail: "warn\n" }),
        ),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "z", result: BASH_RESULT })),
    ]);
    const data = u.filter((x) => x._meta?.terminal_output).map((x) => x._meta.terminal_output.data);
    expect(data).toEqual(["total 0\nfile.txt\nwarn\n"]);
  });

  test("the final output is not repeated when the live tails already showed it", () => {
    const t = tracker(true);
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Bash", input: { command: "build" } })),
      () => t.onToolUpdated(tu({ kind: "progress", toolCallId: "c", toolName: "Bash", stdoutTail: "compiling\n", stderrTail: "" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "c", result: { ...TOOLS.bash.result, content: "compiling\ndone" } })),
    ]);
    const data = u.filter((x) => x._meta?.terminal_output).map((x) => x._meta.terminal_output.data);
    expect(data).toEqual(["compiling\n", "done"]);
  });

  test("output only in the result (no progress) is sent before the exit", () => {
    const t = tracker(true);
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Bash", input: { command: "echo hi" } })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "c", result: { ...TOOLS.bash.result, content: "hi" } })),
    ]);
    expect(u.map((x) => Object.keys(x._meta ?? {})[0] ?? x.status)).toEqual([
      "terminal_info",
      "terminal_output",
      "terminal_exit",
      "completed",
    ]);
    expect(u[1]!._meta.terminal_output.data).toBe("hi");
    expect(u[2]!._meta.terminal_exit.exit_code).toBe(0);
  });

  test("a command that exited non-zero: its exit code, the output without ZCode's `Exit code` line, failed", () => {
    const t = tracker(true);
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Bash", input: TOOLS.bashFailed.input })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "c", result: TOOLS.bashFailed.result })),
    ]);
    expect(u[1]!._meta.terminal_output.data).toBe("make: *** [test] Error 2");
    expect(u[2]!._meta.terminal_exit).toEqual({ terminal_id: "c", exit_code: 2, signal: null });
    expect(u[3]).toMatchObject({ status: "failed" });
    expect(u[3]!.content).toBeUndefined();
  });

  test("a tool error (not the command's): exit without a code, failed with the terminal kept and the message added", () => {
    const t = tracker(true);
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Bash", input: { command: "rm -rf /" } })),
      () => t.onToolUpdated(tu({ kind: "error", toolCallId: "c", error: { type: "tool_execution_failed", message: "Permission denied" } })),
    ]);
    expect(u[1]!._meta.terminal_exit).toEqual({ terminal_id: "c", exit_code: null, signal: null });
    expect(u[2]).toMatchObject({
      status: "failed",
      content: [{ type: "terminal", terminalId: "c" }, { content: { text: "Permission denied" } }],
    });
  });

  test("success:false without an exit code: the reason is added beside the terminal", () => {
    const t = tracker(true);
    const u = run([
      () => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "c", toolName: "Bash", input: { command: "x" } })),
      () =>
        t.onToolUpdated(
          tu({ kind: "result", toolCallId: "c", result: { success: false, content: "", error: { message: "Sandbox refused" } } }),
        ),
    ]);
    expect(u.at(-1)).toMatchObject({
      status: "failed",
      content: [{ type: "terminal", terminalId: "c" }, { content: { text: "Sandbox refused" } }],
    });
  });

  test("a bounded tail that slides on every event still yields the exact stream, once", () => {
    const t = tracker(true);
    const all: SessionUpdate[] = [];
    let stream = "";
    for (let i = 0; i < 2000; i++) {
      stream += `line ${i} of build output\n`;
      const tail = stream.slice(-512);
      all.push(...t.onToolUpdated(tu({ kind: "progress", toolCallId: "f", toolName: "Bash", stdoutTail: tail })));
    }
    all.push(...t.onToolUpdated(tu({ kind: "result", toolCallId: "f", result: { ...TOOLS.bash.result, content: stream.trimEnd() } })));
    const data = all.map((u) => (U(u)._meta?.terminal_output?.data as string | undefined) ?? "").join("");
    expect(data).toBe(stream);
    expectValid(all.slice(0, 5));
  });

  test("only command tools use the terminal", () => {
    const t = tracker(true);
    const u = run([() => t.onModelStreaming(ms({ kind: "tool_call", toolCallId: "r", toolName: "Read", input: { file_path: "a" } }))]);
    expect(u[0]!._meta).toBeUndefined();
    expect(u[0]!.content).toEqual([]);
  });
});
