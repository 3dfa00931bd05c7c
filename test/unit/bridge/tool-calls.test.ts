import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import {
  OUTPUT_GAP_MARKER,
  ToolCallTracker,
  finalDelta,
  suffixPrefixOverlap,
  tailDelta,
} from "../../../src/bridge/tool-calls.ts";
import { CWD, ORIGINAL_TS, EDITED_TS, RESULTS, expectValid, mtc, tu } from "../support/bridge-fixtures.ts";

type Any = Record<string, any>;
const U = (u: SessionUpdate) => u as unknown as Any;

function tracker(terminalOutput = false) {
  return new ToolCallTracker({ cwd: CWD, terminalOutput });
}

/** Runs a sequence of tracker calls and collects (and validates) every update. */
function run(t: ToolCallTracker, steps: Array<() => SessionUpdate[]>): Any[] {
  const all: SessionUpdate[] = [];
  for (const s of steps) all.push(...s());
  expectValid(all);
  return all.map(U);
}

function bashLifecycle(t: ToolCallTracker, id = "call_1") {
  return run(t, [
    () => t.onModelToolCall(mtc({ toolCallId: id, toolName: "Bash", input: RESULTS.bash.input })),
    () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: id, toolName: "Bash", inputOmitted: true })),
    () => t.onToolUpdated(tu({ kind: "started", toolCallId: id, toolName: "Bash" })),
    () => t.onToolUpdated(tu({ kind: "progress", toolCallId: id, toolName: "Bash", stdoutTail: "total 0\n", stderrTail: "" })),
    () => t.onToolUpdated(tu({ kind: "progress", toolCallId: id, toolName: "Bash", stdoutTail: "total 0\nfile.txt\n", stderrTail: "" })),
    () => t.onToolUpdated(tu({ kind: "progress", toolCallId: id, toolName: "Bash", stdoutTail: "total 0\nfile.txt\n", stderrTail: "warn\n" })),
    () =>
      t.onToolUpdated(
        tu({ kind: "result", toolCallId: id, toolName: "Bash", output: "total 0\nfile.txt\n", result: { stdout: "total 0\nfile.txt\n", stderr: "warn\n", exitCode: 0 } }),
      ),
  ]);
}

describe("tail deltas", () => {
  test("growing tail: only the new part", () => {
    expect(tailDelta("", "abc")).toEqual({ data: "abc", gap: false });
    expect(tailDelta("abc", "abcdef")).toEqual({ data: "def", gap: false });
    expect(tailDelta("abc", "abc")).toEqual({ data: "", gap: false });
  });

  test("a sliding (bounded) tail: the overlap is found and only what follows it is new", () => {
    const stream = Array.from({ length: 200 }, (_, i) => `line ${i}\n`).join("");
    const prev = stream.slice(100, 1100);
    const next = stream.slice(400, 1400);
    expect(tailDelta(prev, next)).toEqual({ data: stream.slice(1100, 1400), gap: false });
  });

  test("a tail that does not continue: the whole new tail, flagged as a gap", () => {
    expect(tailDelta("something else entirely", "fresh output")).toEqual({ data: "fresh output", gap: true });
    // Shrunk: e.g. the window reset.
    expect(tailDelta("abcdef", "xy")).toEqual({ data: "xy", gap: true });
    // A short accidental overlap is not trusted.
    expect(tailDelta("hello world\n", "\nnext")).toEqual({ data: "\nnext", gap: true });
  });

  test("final output vs last tail", () => {
    expect(finalDelta("", "all")).toEqual({ data: "all", gap: false });
    expect(finalDelta("tail end", "the whole output up to the tail end")).toEqual({ data: "", gap: false });
    expect(finalDelta("middle", "start middle end")).toEqual({ data: " end", gap: false });
    // Repetitive output: the last tail already ended the output.
    expect(finalDelta("y\ny\n", "y\n".repeat(1000))).toEqual({ data: "", gap: false });
  });

  test("suffixPrefixOverlap is the longest suffix-prefix match", () => {
    expect(suffixPrefixOverlap("abcabc", "abcabcx")).toBe(6);
    expect(suffixPrefixOverlap("xxabab", "ababyy")).toBe(4);
    expect(suffixPrefixOverlap("aaaa", "aab")).toBe(2);
    expect(suffixPrefixOverlap("abc", "")).toBe(0);
    expect(suffixPrefixOverlap("abc", "d")).toBe(0);
  });

  test("linear time on large tails", () => {
    const a = "ab".repeat(200_000);
    const t0 = performance.now();
    suffixPrefixOverlap(a + "c", "a".repeat(400_000));
    expect(performance.now() - t0).toBeLessThan(500);
  });
});

describe("ToolCallTracker: lifecycle without the terminal extension", () => {
  test("Bash: announce once, in_progress, output appended as a console block, completed with content and rawOutput", () => {
    const u = bashLifecycle(tracker());
    expect(u[0]).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "ls -la",
      kind: "execute",
      status: "pending",
      rawInput: RESULTS.bash.input,
    });
    // scheduled with inputOmitted adds nothing: no update for it.
    expect(u[1]).toEqual({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "in_progress" });
    expect(u[2]!.content[0].content.text).toBe("```console\ntotal 0\n```");
    expect(u[3]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\n```");
    expect(u[4]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\nwarn\n```");
    expect(u[5]).toMatchObject({ status: "completed", rawOutput: { stdout: "total 0\nfile.txt\n", stderr: "warn\n", exitCode: 0 } });
    expect(u[5]!.content[0].content.text).toBe("```console\ntotal 0\nfile.txt\nwarn\n```\nexit code 0");
    expect(u).toHaveLength(6);
    expect(u.filter((x) => x._meta)).toHaveLength(0);
  });

  test("scheduled first with input, then model tool_call with the same input: one announcement", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "c", toolName: "Read", input: { file_path: "src/x.ts" } })),
      () => t.onModelToolCall(mtc({ toolCallId: "c", toolName: "Read", input: { file_path: "src/x.ts" } })),
    ]);
    expect(u).toHaveLength(1);
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", title: "Read src/x.ts", kind: "read", locations: [{ path: `${CWD}/src/x.ts` }] });
  });

  test("scheduled without input then the input arrives: tool_call_update with the better title", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "c", toolName: "Bash", inputOmitted: true })),
      () => t.onModelToolCall(mtc({ toolCallId: "c", toolName: "Bash", input: { command: "make" } })),
    ]);
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", title: "Run command", rawInput: {} });
    expect(u[1]).toMatchObject({ sessionUpdate: "tool_call_update", title: "make", kind: "execute", rawInput: { command: "make" } });
  });

  test("Edit result: full-file diff and the location of the change", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onModelToolCall(mtc({ toolCallId: "e", toolName: "Edit", input: RESULTS.edit.input })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "e", toolName: "Edit" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "e", toolName: "Edit", output: RESULTS.edit.output, result: RESULTS.edit.result })),
    ]);
    expect(u[0]!.content).toEqual([{ type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" }]);
    expect(u[2]).toMatchObject({
      status: "completed",
      content: [{ type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS }],
      locations: [{ path: `${CWD}/src/x.ts`, line: 1 }],
      rawOutput: RESULTS.edit.result,
    });
  });

  test("error: failed with the message; later events for it are ignored", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onModelToolCall(mtc({ toolCallId: "x", toolName: "Bash", input: { command: "rm -rf build" } })),
      () => t.onToolUpdated(tu({ kind: "error", toolCallId: "x", toolName: "Bash", error: { message: "Permission denied: no" } })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "x", toolName: "Bash" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "x", toolName: "Bash", output: "late" })),
    ]);
    expect(u).toHaveLength(2);
    expect(u[1]).toMatchObject({ status: "failed", content: [{ type: "content", content: { type: "text", text: "Permission denied: no" } }] });
  });

  test("events for a tool never announced announce it first", () => {
    const t = tracker();
    const u = run(t, [() => t.onToolUpdated(tu({ kind: "result", toolCallId: "z", toolName: "Glob", output: "a.ts", result: RESULTS.glob.result }))]);
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "z", kind: "search", status: "pending" });
    expect(u[1]).toMatchObject({ sessionUpdate: "tool_call_update", status: "completed" });
  });

  test("batch finishes only unfinished tools and never wipes an earlier result", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "a", toolName: "Read", input: RESULTS.read.input })),
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "b", toolName: "Grep", input: RESULTS.grep.input })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "a", toolName: "Read" })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "b", toolName: "Grep" })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "a", toolName: "Read", output: RESULTS.read.output, result: RESULTS.read.result })),
      () =>
        t.onToolUpdated(
          tu({
            kind: "batch",
            items: [
              { toolCallId: "a", toolName: "Read", kind: "result" },
              { toolCallId: "b", toolName: "Grep", kind: "result", output: RESULTS.grep.output, result: RESULTS.grep.result },
            ],
          }),
        ),
    ]);
    const finals = u.filter((x) => x.status === "completed");
    expect(finals.map((x) => x.toolCallId)).toEqual(["a", "b"]);
    expect(finals[0]!.content[0].content.text).toContain("const x = 1;");
    expect(finals[1]!.content[0].content.text).toBe("Found 2 files\n- src/a.ts\n- src/b.ts");
  });

  test("batch error items fail their tool", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "a", toolName: "Bash", input: { command: "x" } })),
      () => t.onToolUpdated(tu({ kind: "batch", items: [{ toolCallId: "a", toolName: "Bash", kind: "error", error: { message: "nope" } }] })),
    ]);
    expect(u[1]).toMatchObject({ status: "failed", content: [{ content: { text: "nope" } }] });
  });

  test("failOpen fails every unfinished tool once; clear forgets finished ones", () => {
    const t = tracker();
    run(t, [
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "a", toolName: "Bash", input: { command: "sleep 9" } })),
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "b", toolName: "Read", input: { file_path: "x" } })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "b", toolName: "Read", output: "x" })),
    ]);
    const f = run(t, [() => t.failOpen("Turn cancelled")]);
    expect(f).toHaveLength(1);
    expect(f[0]).toMatchObject({ toolCallId: "a", status: "failed", content: [{ content: { text: "Turn cancelled" } }] });
    expect(t.failOpen("again")).toEqual([]);
    t.clear();
    expect(t.get("a")).toBeUndefined();
  });

  test("input first seen on started improves the announcement", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "s", toolName: "Bash", inputOmitted: true })),
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "s", toolName: "Bash", input: { command: "make" } })),
    ]);
    expect(u.map((x) => [x.sessionUpdate, x.title ?? x.status])).toEqual([
      ["tool_call", "Run command"],
      ["tool_call_update", "make"],
      ["tool_call_update", "in_progress"],
    ]);
  });

  test("a long session stays bounded: old finished tools are forgotten, recent ones still ignore repeats", () => {
    const t = tracker();
    for (let i = 0; i < 600; i++) {
      t.onToolUpdated(tu({ kind: "scheduled", toolCallId: `t${i}`, toolName: "Bash", input: { command: "x".repeat(1000) } }));
      t.onToolUpdated(tu({ kind: "result", toolCallId: `t${i}`, toolName: "Bash", output: "o", result: { stdout: "o", stderr: "", exitCode: 0 } }));
    }
    expect(t.get("t0")).toBeUndefined();
    expect(t.get("t599")).toMatchObject({ status: "completed", rawInput: {} });
    expect(t.onToolUpdated(tu({ kind: "batch", items: [{ toolCallId: "t599", toolName: "Bash", kind: "result" }] }))).toEqual([]);
  });

  test("ensureAnnounced and get for a permission request", () => {
    const t = tracker();
    const first = run(t, [() => t.ensureAnnounced("p", { toolName: "Bash", input: { command: "rm -rf build" } })]);
    expect(first).toHaveLength(1);
    expect(first[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "p", title: "rm -rf build" });
    expect(t.ensureAnnounced("p", { toolName: "Bash", input: { command: "rm -rf build" } })).toEqual([]);
    expect(t.get("p")).toMatchObject({ toolCallId: "p", title: "rm -rf build", kind: "execute", rawInput: { command: "rm -rf build" } });
    // Announced without input (scheduled inputOmitted, no model call): the request's input fills it in.
    run(t, [() => t.onToolUpdated(tu({ kind: "scheduled", toolCallId: "q", toolName: "Bash", inputOmitted: true }))]);
    const upd = run(t, [() => t.ensureAnnounced("q", { toolName: "Bash", input: { command: "make install" } })]);
    expect(upd).toEqual([expect.objectContaining({ sessionUpdate: "tool_call_update", title: "make install" })]);
    expect(t.get("nope")).toBeUndefined();
  });

  test("a sliding tail is shown with a gap marker when it does not continue", () => {
    const t = tracker();
    const u = run(t, [
      () => t.onToolUpdated(tu({ kind: "started", toolCallId: "s", toolName: "Bash" })),
      () => t.onToolUpdated(tu({ kind: "progress", toolCallId: "s", toolName: "Bash", stdoutTail: "first part\n" })),
      () => t.onToolUpdated(tu({ kind: "progress", toolCallId: "s", toolName: "Bash", stdoutTail: "unrelated later\n" })),
    ]);
    const last = u[u.length - 1]!.content[0].content.text as string;
    expect(last).toBe("```console\nfirst part\n" + OUTPUT_GAP_MARKER + "unrelated later\n```");
  });
});

describe("ToolCallTracker: Zed terminal extension", () => {
  test("terminal content + terminal_info, new data only, exit in its own update, then completed", () => {
    const u = bashLifecycle(tracker(true));
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
    expect(done).toMatchObject({ status: "completed", rawOutput: { exitCode: 0 } });
    // The terminal stays the content: no replacement on completion.
    expect(done.content).toBeUndefined();
    // No fenced output anywhere.
    expect(JSON.stringify(u)).not.toContain("```");
  });

  test("output only in the result (no progress) is sent before the exit", () => {
    const t = tracker(true);
    const u = run(t, [
      () => t.onModelToolCall(mtc({ toolCallId: "c", toolName: "Bash", input: { command: "echo hi" } })),
      () => t.onToolUpdated(tu({ kind: "result", toolCallId: "c", toolName: "Bash", output: "hi\n", result: { stdout: "hi\n", stderr: "", exitCode: 3 } })),
    ]);
    expect(u.map((x) => Object.keys(x._meta ?? {})[0] ?? x.status)).toEqual(["terminal_info", "terminal_output", "terminal_exit", "completed"]);
    expect(u[1]!._meta.terminal_output.data).toBe("hi\n");
    expect(u[2]!._meta.terminal_exit.exit_code).toBe(3);
  });

  test("a failed command: exit, then failed with the terminal kept and the message added", () => {
    const t = tracker(true);
    const u = run(t, [
      () => t.onModelToolCall(mtc({ toolCallId: "c", toolName: "Bash", input: { command: "rm -rf /" } })),
      () => t.onToolUpdated(tu({ kind: "error", toolCallId: "c", toolName: "Bash", error: "Permission denied" })),
    ]);
    expect(u[1]!._meta.terminal_exit).toEqual({ terminal_id: "c", exit_code: null, signal: null });
    expect(u[2]).toMatchObject({ status: "failed", content: [{ type: "terminal", terminalId: "c" }, { content: { text: "Permission denied" } }] });
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
    all.push(...t.onToolUpdated(tu({ kind: "result", toolCallId: "f", toolName: "Bash", output: "", result: { stdout: stream.slice(-512), stderr: "", exitCode: 0 } })));
    const data = all.map((u) => (U(u)._meta?.terminal_output?.data as string | undefined) ?? "").join("");
    expect(data).toBe(stream);
    expectValid(all.slice(0, 5));
  });

  test("only command tools use the terminal", () => {
    const t = tracker(true);
    const u = run(t, [() => t.onModelToolCall(mtc({ toolCallId: "r", toolName: "Read", input: { file_path: "a" } }))]);
    expect(u[0]!._meta).toBeUndefined();
    expect(u[0]!.content).toEqual([]);
  });
});
