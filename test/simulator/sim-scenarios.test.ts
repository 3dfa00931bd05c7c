// Every simulator scenario over real pipes, checked against what ZCode's
// source says the CLI sends (ZCODE-REAL-WIRE.md, zcode-tool-facts.md).
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
function sim(env: Record<string, string> = {}, dir = tempDir(), opts: ConstructorParameters<typeof SimClient>[1] = {}): SimClient {
  const c = new SimClient(dir, { env, ...opts });
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const DENIED =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";
const PLAN_Q = "Review this implementation plan.";

const tools = (ev: Frame[]) => ev.filter((e) => e.type === "tool.updated").map((e) => e.payload);
const streaming = (ev: Frame[], kind: string) =>
  ev.filter((e) => e.type === "model.streaming" && e.payload.kind === kind).map((e) => e.payload);
const texts = (ev: Frame[]) =>
  streaming(ev, "text_delta")
    .map((p) => p.delta)
    .join("");
const seqsContiguous = (ev: Frame[]) => ev.every((e, i) => i === 0 || e.seq === ev[i - 1]!.seq + 1);

async function run(content: string, env: Record<string, string> = {}, mode?: string) {
  const c = sim(env);
  const id = await c.create("/w/proj", mode ? { mode } : {});
  await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
  const ev = await c.turn(id, content);
  return { c, id, ev };
}

async function messages(c: SimClient, id: string): Promise<any[]> {
  return (await c.call("session/messages", { sessionId: id })).messages;
}

function toolParts(msgs: any[]): any[] {
  return msgs.flatMap((m) => m.parts).filter((p: any) => p.type === "tool");
}

/** Sends and answers interaction requests with `answer` until the turn ends. */
async function interact(c: SimClient, id: string, content: string, answer: (f: Frame) => unknown, method = "interaction/") {
  const from = c.frames.length;
  await c.call("session/send", { sessionId: id, content });
  const seen = new Set<unknown>();
  for (;;) {
    const f = await c.waitFor(
      (x) =>
        (x.method?.startsWith(method) && !seen.has(x.params.requestId)) ||
        (x.method === "session/event" &&
          x.params.sessionId === id &&
          (x.params.type === "turn.completed" || x.params.type === "turn.failed")),
      5000,
      from,
    );
    if (f.method === "session/event") break;
    seen.add(f.params.requestId);
    c.send({ id: f.id, result: answer(f) });
  }
  await c.waitIdle(id, 5000, from);
  const ev = c.frames
    .slice(from)
    .filter((f) => f.method === "session/event" && f.params.sessionId === id)
    .map((f) => f.params);
  return { ev, requests: c.frames.slice(from).filter((f) => f.method?.startsWith(method)) };
}

describe("a plain turn", () => {
  test("title, hook, turn.started, reasoning then Echo, usage, turn.completed; state.updated around it", async () => {
    const c = sim();
    const id = await c.subscribed();
    const sendAt = c.frames.length;
    const ev = await c.turn(id, "hi there");
    expect(seqsContiguous(c.events(id))).toBe(true);
    expect(ev[0]!.seq).toBe(1);
    expect(ev.map((e) => e.type).slice(0, 3)).toEqual(["session.titleUpdated", "session.updated", "turn.started"]);
    expect(ev[0]!.payload).toEqual({ previousTitle: "", source: "first_input", title: "hi there" });
    expect(ev[1]!.payload).toMatchObject({ hookEventName: "SessionStart", descriptor: { executionType: "command" } });
    const started = ev[2]!;
    expect(started.payload).toMatchObject({ turnNumber: 1, input: "hi there", messageId: expect.stringMatching(/^msg_/) });
    expect(Object.keys(started).sort()).toEqual([
      "deliveryKind",
      "eventId",
      "payload",
      "seq",
      "sessionId",
      "timestamp",
      "traceId",
      "turnId",
      "type",
    ]);
    expect(texts(ev)).toBe("Echo: hi there");
    const deltas = [...streaming(ev, "reasoning_delta"), ...streaming(ev, "text_delta")];
    expect(new Set(deltas.map((d) => d.assistantMessageId)).size).toBe(1);
    expect(deltas.every((d) => d.done === false)).toBe(true);
    const kinds = ev.filter((e) => e.type === "model.streaming").map((e) => e.payload.kind);
    expect(kinds.lastIndexOf("reasoning_delta")).toBeLessThan(kinds.indexOf("text_delta"));
    const usage = ev.filter((e) => e.type === "session.updated" && e.payload.usage);
    expect(usage).toHaveLength(1);
    expect(usage[0]!.payload).toMatchObject({
      stopReason: "stop",
      contextWindow: 200000,
      usage: { inputTokens: expect.any(Number), outputTokens: expect.any(Number) },
    });
    const done = ev.at(-1)!;
    expect(done.type).toBe("turn.completed");
    expect(done.payload).toMatchObject({ response: "Echo: hi there", toolCallCount: 0, historyRoundCount: 1, resultType: "success" });
    expect(done.payload.usage).toMatchObject({ source: "provider", modelRequestCount: 1, webSearchRequests: 0, webFetchRequests: 0 });
    expect(done.payload.tokenCount).toBe(done.payload.usage.totalTokens);
    expect(done.payload.cacheStats).toMatchObject({ totalMessages: expect.any(Number), lastCacheHit: true });
    const su = c.frames.slice(sendAt).filter((f) => f.method === "state.updated");
    expect(su.map((f) => f.params.reason)).toEqual(["prompt_started", "prompt_completed"]);
    const answerAt = c.frames.findIndex((f, i) => i >= sendAt && f.result?.accepted === true);
    expect(c.frames.indexOf(su[0]!)).toBeLessThan(answerAt);
    expect(su[0]!.params).toMatchObject({
      type: "state.updated",
      scope: "session",
      sessionId: id,
      patch: { status: "running" },
      workspace: { workspacePath: "/tmp/ws" },
    });
    expect(c.frames.findIndex((f) => f.params === done)).toBeLessThan(c.frames.indexOf(su[1]!));
    expect(su[1]!.params.patch.model.current.modelId).toBe("GLM-5.3");
    const read = await c.call("session/read", { sessionId: id });
    expect(read.session.title).toBe("hi there");
    expect(read.projection).toMatchObject({ turnCount: 1, status: "idle" });
    // The second turn has no title event and no hook.
    const ev2 = await c.turn(id, "again");
    expect(ev2[0]!.type).toBe("turn.started");
    expect(ev2[0]!.payload.turnNumber).toBe(2);
  });

  test("history: real message and part shapes, a hidden system reminder on the second turn", async () => {
    const c = sim();
    const id = await c.subscribed("/w/h");
    await c.turn(id, "one");
    await c.turn(id, "two");
    const m = await messages(c, id);
    expect(m.map((x) => x.info.role)).toEqual(["user", "assistant", "user", "user", "assistant"]);
    const [u, a] = m;
    expect(u.info).toMatchObject({ sessionId: id, role: "user", agent: "build", time: { created: expect.any(Number) } });
    expect(u.parts).toEqual([
      { partId: expect.stringMatching(/^prt_/), sessionId: id, messageId: u.info.messageId, type: "text", text: "one" },
    ]);
    expect(a.info).toMatchObject({
      role: "assistant",
      parentMessageId: u.info.messageId,
      path: { cwd: "/w/h", root: "/w/h" },
      cost: 0,
      finish: "stop",
    });
    expect(a.parts.map((p: any) => p.type)).toEqual(["step-start", "reasoning", "text", "step-finish"]);
    const reminder = m[2];
    expect(reminder.info).toMatchObject({
      synthetic: true,
      visibility: "model-only",
      semantics: { origin: "system", kind: "system_reminder", uiVisibility: "hidden" },
    });
    expect(reminder.parts[0].text).toStartWith("<system-reminder>");
  });

  test("text: multi-byte UTF-8; ZCODE_SIM_SCENARIO sets the default; the tag is stripped", async () => {
    const { ev } = await run("#scenario:text");
    expect(texts(ev)).toContain("héllo wörld ✓ 日本");
    const r = await run("look #scenario:default here", { ZCODE_SIM_SCENARIO: "text" });
    expect(texts(r.ev)).toBe("Echo: look here");
    expect(r.ev[0]!.payload.title).toBe("look here");
    const r2 = await run("untagged", { ZCODE_SIM_SCENARIO: "text" });
    expect(texts(r2.ev)).toContain("日本");
  });

  test("an unknown scenario fails the turn with a clear message", async () => {
    const { c, id, ev } = await run("#scenario:nope");
    expect(ev.at(-1)!.type).toBe("turn.failed");
    expect(ev.at(-1)!.payload.error.message).toContain('unknown simulator scenario "nope"');
    expect(c.stateUpdates(id).at(-1)!.reason).toBe("prompt_failed");
  });

  test("outcomes: turn.completed error_* result types; max-tokens and refusal succeed with that stopReason", async () => {
    const c = sim();
    const id = await c.subscribed();
    for (const [tag, rt] of [
      ["max-turns", "error_max_turns"],
      ["max-budget", "error_max_budget"],
      ["during-execution", "error_during_execution"],
      ["max-tool-calls", "error_max_tool_calls"],
    ]) {
      expect((await c.turn(id, `#scenario:${tag}`)).at(-1)!.payload.resultType).toBe(rt);
    }
    for (const reason of ["max-tokens", "refusal"]) {
      const ev = await c.turn(id, `#scenario:${reason}`);
      expect(ev.at(-1)!.payload.resultType).toBe("success");
      expect(ev.find((e) => e.type === "session.updated" && e.payload.usage)!.payload.stopReason).toBe(reason.replace("-", "_"));
    }
  });

  test("usage: the model request reports fixed usage, and turn.completed sums it", async () => {
    const { ev } = await run("#scenario:usage");
    const u = ev.find((e) => e.type === "session.updated" && e.payload.usage)!;
    expect(u.payload.usage).toMatchObject({ inputTokens: 12345, outputTokens: 678, totalTokens: 13023 });
    expect(ev.at(-1)!.payload.usage).toMatchObject({ inputTokens: 12345, outputTokens: 678, totalTokens: 13023, modelRequestCount: 1 });
    expect(ev.at(-1)!.payload.tokenCount).toBe(13023);
  });

  test("markers: every model.streaming kind of the enum", async () => {
    const { ev } = await run("#scenario:markers");
    const kinds = new Set(ev.filter((e) => e.type === "model.streaming").map((e) => e.payload.kind));
    for (const k of [
      "start",
      "finish",
      "error",
      "text_start",
      "text_delta",
      "text_end",
      "reasoning_start",
      "reasoning_delta",
      "reasoning_end",
      "tool_input_start",
      "tool_input_delta",
      "tool_input_end",
      "tool_call",
    ]) {
      expect(kinds.has(k)).toBe(true);
    }
    expect(ev.at(-1)!.payload.resultType).toBe("success");
  });
});

describe("tools", () => {
  test("bash: streamed input, scheduled without input, progress, result with content and exit code in perf, batch, anchor", async () => {
    const { c, id, ev } = await run("#scenario:bash");
    const start = streaming(ev, "tool_input_start")[0]!;
    const tcid: string = start.toolCallId;
    expect(tcid).toMatch(/^call_/);
    expect(start.toolName).toBe("Bash");
    const input = JSON.parse(
      streaming(ev, "tool_input_delta")
        .map((d) => d.delta)
        .join(""),
    );
    expect(input).toEqual({ command: "ls -la", description: "List files in the workspace" });
    expect(streaming(ev, "tool_call")[0]).toMatchObject({ toolCallId: tcid, toolName: "Bash", input });
    const order = ev.map((e) =>
      e.type === "tool.updated" ? `tool.${e.payload.kind}` : e.type === "model.streaming" ? e.payload.kind : e.type,
    );
    const i = (k: string) => order.indexOf(k);
    expect(i("tool_input_start")).toBeLessThan(i("tool_input_end"));
    expect(i("tool_call")).toBeLessThan(i("tool.scheduled"));
    expect(i("tool.scheduled")).toBeLessThan(i("tool.started"));
    expect(i("tool.started")).toBeLessThan(i("tool.progress"));
    expect(i("tool.result")).toBeLessThan(i("tool.batch"));
    expect(i("tool.batch")).toBeLessThan(i("streamRecovery.updated"));
    const t = tools(ev);
    expect(t.map((p) => p.kind)).toEqual(["scheduled", "started", "progress", "progress", "progress", "result", "batch"]);
    expect(t[0]).toMatchObject({
      toolCallId: tcid,
      toolName: "Bash",
      inputOmitted: true,
      inputRef: "model_stream",
      inputByteLength: JSON.stringify(input).length,
    });
    expect("input" in t[0]).toBe(false);
    expect(typeof t[1].startedAt).toBe("number");
    const prog = t.filter((p) => p.kind === "progress");
    for (let k = 1; k < prog.length; k++) expect(prog[k].stdoutTail.startsWith(prog[k - 1].stdoutTail)).toBe(true);
    expect(prog.at(-1)).toMatchObject({ toolName: "Bash", pid: expect.any(Number), outputPreview: { linesEstimated: false } });
    expect(prog.at(-1).stderrTail).toContain("cannot access");
    const res = t.find((p) => p.kind === "result");
    expect("toolName" in res).toBe(false);
    expect(res.result).toMatchObject({
      success: true,
      truncated: false,
      budgetStrategy: "artifact",
      perf: { permissionWaitMs: 0, detail: { kind: "command", command: { exitCode: 0, status: "completed" } } },
    });
    expect(res.result.content).toStartWith("total 24\n");
    expect(res.result.content).toContain("ls: cannot access 'build'");
    expect(res.result.content).not.toContain("Exit code");
    expect(res.duration).toBeNumber();
    expect(t.at(-1)).toEqual({ errorCount: 0, kind: "batch", successCount: 1, toolCallIds: [tcid] });
    expect(ev.find((e) => e.type === "streamRecovery.updated")!.payload).toMatchObject({
      kind: "tool_result",
      toolCallId: tcid,
      toolName: "Bash",
      anchorId: expect.stringContaining(`${tcid}:tool-result`),
    });
    expect(ev.filter((e) => e.type === "session.updated" && e.payload.usage).map((e) => e.payload.stopReason)).toEqual([
      "tool-calls",
      "stop",
    ]);
    expect(ev.at(-1)!.payload).toMatchObject({
      toolCallCount: 1,
      historyRoundCount: 2,
      response: "The workspace has a package.json and a src directory.",
    });
    const part = toolParts(await messages(c, id))[0];
    expect(part).toMatchObject({
      type: "tool",
      callId: tcid,
      tool: "Bash",
      state: {
        status: "completed",
        input,
        output: res.result.content,
        title: "Bash",
        metadata: { schemaVersion: 1, serialization: { truncated: false, budgetStrategy: "artifact" } },
      },
    });
    expect(part.state.completedAt).toBeGreaterThanOrEqual(part.state.startedAt);
  });

  test("bash-fail: 'Exit code 1' first in content, success stays true, the exit code only in perf.detail", async () => {
    const { ev } = await run("#scenario:bash-fail");
    const res = tools(ev).find((p) => p.kind === "result")!;
    expect(res.result.success).toBe(true);
    expect(res.result.content).toStartWith("Exit code 1\n");
    expect(res.result.perf.detail.command).toMatchObject({ exitCode: 1, status: "failed" });
  });

  test("each tool's content as its ZCode handler formats it", async () => {
    const c = sim();
    const id = await c.subscribed("/w/proj");
    const result = async (tag: string) => tools(await c.turn(id, `#scenario:${tag}`)).find((p) => p.kind === "result")!.result;
    expect((await result("read")).content).toBe('1\texport function greet(name: string): string {\n2\t  return "Hello, " + name;\n3\t}');
    expect((await result("write")).content).toBe(
      "File created successfully at: /w/proj/src/farewell.ts (file state is current in your context — no need to Read it back)",
    );
    const edit = await result("edit");
    expect(edit.content).toBe(
      "The file /w/proj/src/greet.ts has been updated successfully. (file state is current in your context — no need to Read it back)",
    );
    expect(edit.display).toMatchObject({
      kind: "file_diff",
      filePath: "/w/proj/src/greet.ts",
      additions: 1,
      deletions: 1,
      truncated: false,
    });
    expect(edit.display.structuredPatch[0].lines).toContain('-  return "Hello, " + name;');
    expect(edit.perf.detail.kind).toBe("patch");
    expect((await result("grep")).content).toBe("Found 2 files\nsrc/greet.ts\nsrc/index.ts");
    expect((await result("glob")).content.split("\n")).toHaveLength(3);
    expect((await result("webfetch")).content).toContain("greeting API");
    expect((await result("websearch")).content).toStartWith('Web search results for query: "greeting api best practices"');
    expect((await result("task")).content).toContain(
      "agentId: agent_7f3a9c (use SendMessage with to: 'agent_7f3a9c' to continue this agent)",
    );
    const todo = JSON.parse((await result("todo")).content);
    expect(todo.oldTodos).toEqual([]);
    expect(todo.todos[0]).toEqual({ content: "Read the greeting module", status: "completed", priority: "high" });
    expect(todo.summary).toEqual({ total: 3, pending: 1, inProgress: 1, completed: 1 });
  });

  test("v4 toolCall rows: output is buildToolOutput of the legacy result (content and display), as ZCode projects it", async () => {
    const c = sim();
    const id = await c.subscribed("/w/proj");
    const results = new Map<string, { content: string; display?: unknown }>();
    for (const tag of ["edit", "bash", "write", "read"]) {
      for (const p of tools(await c.turn(id, `#scenario:${tag}`))) if (p.kind === "result") results.set(p.toolCallId, p.result);
    }
    const rows = (await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 200 })).rows as Record<string, any>[];
    const done = rows.filter((r) => r.kind === "toolCall" && r.status === "success");
    expect(done.map((r) => r.toolCallId).sort()).toEqual([...results.keys()].sort());
    // product-projection.ts onToolCallResult: output = buildToolOutput(result) = {text: content, display}; no row display
    // for these kinds (toProtocolToolCallDisplay).
    for (const r of done) {
      const legacy = results.get(r.toolCallId)!;
      expect(r.output).toEqual({ text: legacy.content, ...(legacy.display ? { display: legacy.display } : {}) });
      expect(r.display).toBeUndefined();
    }
    expect(done.find((r) => r.toolName === "Edit")?.output.display).toMatchObject({ kind: "file_diff", filePath: "/w/proj/src/greet.ts" });
  });

  test("edit and write are followed by checkpoint.created; tool-error is a kind:error tool", async () => {
    const { ev } = await run("#scenario:edit");
    const cp = ev.find((e) => e.type === "checkpoint.created")!;
    expect(cp.payload).toMatchObject({ checkpointId: expect.stringMatching(/^checkpoint_/), scope: "workspace", fileCount: 1 });
    const r = await run("#scenario:tool-error");
    const err = tools(r.ev).find((p) => p.kind === "error")!;
    expect(err.error).toMatchObject({ type: "tool_execution_failed", code: "8" });
    expect(err.error.message).toStartWith("String to replace not found in file.\nString: ");
    expect(tools(r.ev).find((p) => p.kind === "batch")).toMatchObject({ successCount: 0, errorCount: 1 });
    expect(r.ev.some((e) => e.type === "checkpoint.created")).toBe(false);
    const st = toolParts(await messages(r.c, r.id))[0].state;
    expect(st.status).toBe("error");
    expect(st.error).toBe(err.error.message);
  });

  test("tools: every tool in one turn, a failing Edit and a failing Bash; some tool_calls without toolName", async () => {
    const { c, id, ev } = await run("#scenario:tools");
    const names = streaming(ev, "tool_input_start").map((p) => p.toolName);
    expect([...new Set(names)].sort()).toEqual([
      "Agent",
      "Bash",
      "Edit",
      "Glob",
      "Grep",
      "Read",
      "TodoWrite",
      "WebFetch",
      "WebSearch",
      "Write",
    ]);
    const calls = streaming(ev, "tool_call");
    expect(calls.filter((p) => p.toolName === undefined)).toHaveLength(2);
    expect(tools(ev).filter((p) => p.kind === "error")).toHaveLength(1);
    expect(tools(ev).filter((p) => p.kind === "result" && p.result.perf.detail?.command?.exitCode === 1)).toHaveLength(1);
    expect(ev.at(-1)!.payload).toMatchObject({ resultType: "success", toolCallCount: 12 });
    expect(ev.at(-1)!.payload.usage.webSearchRequests).toBe(1);
    expect(
      toolParts(await messages(c, id))
        .map((p) => p.state.status)
        .filter((s) => s === "error"),
    ).toHaveLength(1);
  });

  test("batch: two tools of one parallel group start, finish, and close with one batch", async () => {
    const { ev } = await run("#scenario:batch");
    const t = tools(ev);
    expect(t.map((p) => p.kind)).toEqual(["scheduled", "scheduled", "started", "started", "result", "result", "batch"]);
    expect(t[0].schedule.parallelGroups).toEqual([[t[0].toolCallId, t[1].toolCallId]]);
    expect(t.at(-1)).toEqual({ errorCount: 0, kind: "batch", successCount: 2, toolCallIds: [t[0].toolCallId, t[1].toolCallId] });
  });

  // The todos of a TodoWrite reach session/read a moment after its result (ZCODE_SIM_TODOS_LAG_MS, 50 ms by
  // default): a lag of a minute makes "not yet" certain however slow the machine, the default one "soon".
  test("todo: right after the result, session/read has no todos yet", async () => {
    const c = sim({ ZCODE_SIM_TODOS_LAG_MS: "60000" });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:todo" });
    await c.waitFor((f) => f.params?.payload?.kind === "result");
    expect((await c.call("session/read", { sessionId: id })).todos).toEqual([]);
  });

  test("todo: session/read shows the todos shortly after the result", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:todo" });
    await c.waitIdle(id);
    let todos: any[] = [];
    for (const end = Date.now() + 5_000; todos.length === 0 && Date.now() < end; await Bun.sleep(10))
      todos = (await c.call("session/read", { sessionId: id })).todos;
    expect(todos.map((t: any) => t.status)).toEqual(["completed", "in_progress", "pending"]);
  });
});

describe("subagent", () => {
  test("the Agent tool spawns a child session: Spawned/Message/Stopped on the parent, mirrored tools, the child's own events", async () => {
    const { c, id, ev } = await run("#scenario:subagent");
    const updated = ev.filter((e) => e.type === "session.updated").map((e) => e.payload);
    const spawned = updated.find((p) => p.status === "running")!;
    const agentCall = tools(ev).find((p) => p.kind === "scheduled" && p.toolName === "Agent")!;
    expect(spawned).toMatchObject({
      agentType: "general-purpose",
      description: "Find callers of greet",
      parentToolCallId: agentCall.toolCallId,
      status: "running",
    });
    expect(spawned.agentId).toMatch(/^agent_/);
    expect(spawned.childSessionId).toBe(`sess_subagent_${spawned.agentId}`);
    expect(updated.find((p) => p.summaryText)).toEqual({
      agentId: spawned.agentId,
      childSessionId: spawned.childSessionId,
      summaryText: expect.any(String),
    });
    expect(updated.find((p) => p.status === "completed")).toMatchObject({
      agentId: spawned.agentId,
      childSessionId: spawned.childSessionId,
      parentToolCallId: agentCall.toolCallId,
      totalToolUseCount: 1,
    });
    const mirrored = tools(ev).filter((p) => p.source === "subagent");
    expect(mirrored.map((p) => p.kind)).toEqual(["scheduled", "started", "result"]);
    expect(mirrored[0]).toMatchObject({ childSessionId: spawned.childSessionId, parentToolCallId: agentCall.toolCallId, toolName: "Grep" });
    expect(mirrored[0].toolCallId).toBe(`tool_subagent_${spawned.agentId}_${mirrored[0].childToolCallId}`);
    expect(seqsContiguous(ev)).toBe(true);
    // The child: a session of its own, read-only, not listed. It has no bootstrap record (v4-bridge.ts
    // resolveConversationBackingRecord): legacy reads fail -32004, its events never came on any legacy stream.
    const child = spawned.childSessionId;
    expect(c.frames.some((f) => f.method === "session/event" && f.params.sessionId === child)).toBe(false);
    const sub = await c.request("session/subscribe", { sessionId: child, deliveryKind: "desktop-continuous", afterSeq: 0 });
    expect(sub.error).toMatchObject({ code: -32004, message: `Session is not active: ${child}` });
    expect((await c.request("session/messages", { sessionId: child })).error).toMatchObject({ code: -32004 });
    // v4 reads it: the thought, the text, the Grep with its output, the answer.
    const rows = (await c.call("v4/conversation/rowsRange", { sessionId: child, limit: 200 })).rows;
    expect(rows.map((r: { kind: string }) => r.kind)).toEqual([
      "turnHeader",
      "userInput",
      "reasoning",
      "assistantText",
      "toolCall",
      "assistantText",
    ]);
    expect(rows[4]).toMatchObject({ toolName: "Grep", status: "success", output: { text: expect.stringContaining("src/index.ts:3") } });
    expect(rows.at(-1)).toMatchObject({ text: expect.stringContaining("Found 2 callers"), state: "complete" });
    // Once resumed (it has ended), its transcript reads like any session's.
    await c.call("session/resume", { sessionId: child, workspace: { workspacePath: "/w/proj", workspaceKey: "/w/proj" } });
    const messages = (await c.call("session/messages", { sessionId: child })).messages;
    expect(JSON.stringify(messages)).toContain("Found 2 callers");
    const read = await c.call("session/read", { sessionId: child });
    expect(read.session).toMatchObject({ sessionKind: "subagent_child", parentSessionId: id });
    const send = await c.request("session/send", { sessionId: child, content: "hi" });
    expect(send.error).toMatchObject({ code: -32010, message: "Subagent sessions are read-only" });
    const cold = await c.call("v4/command", {
      commandId: "child-cold",
      clientId: "t",
      sessionId: child,
      type: "sendText",
      payload: { text: "continue" },
      issuedAt: Date.now(),
    });
    expect(cold).toMatchObject({ status: "failed", reasonCode: "guard.subagentReadOnly" });
    const list = await c.call("session/list", { workspace: { workspacePath: "/w/proj", workspaceKey: "/w/proj" } });
    expect(list.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([id]);
  });

  test("session/subagents: running while the child works, then ended (cancelled, success), newest first, paged by cursor", async () => {
    const c = sim();
    const id = await c.create("/w/proj");
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:subagent hold=60000" });
    await c.waitFor(
      (f) => f.method === "session/event" && f.params.payload.source === "subagent" && f.params.payload.kind === "started",
      5000,
      from,
    );
    const during = await c.call("session/subagents", { sessionId: id });
    expect(during.running).toHaveLength(1);
    expect(during.running[0]).toMatchObject({ status: "running", subagentType: "general-purpose", title: "Find callers of greet" });
    expect(during.ended).toEqual({ total: 0, items: [] });
    // While it runs: no legacy record (server-types.ts requireSession), and resume would not attach it; v4 rows read it live.
    const child = during.running[0].childSessionId;
    const sub = await c.request("session/subscribe", { sessionId: child, deliveryKind: "desktop-continuous", afterSeq: 0 });
    expect(sub.error).toMatchObject({ code: -32004, message: `Session is not active: ${child}` });
    const live = (await c.call("v4/conversation/rowsRange", { sessionId: child, limit: 200, clientMode: "desktop-continuous" })).rows;
    expect(live[0]).toMatchObject({ kind: "turnHeader", state: "running" });
    expect(live.find((r: { kind: string }) => r.kind === "toolCall")).toMatchObject({ toolName: "Grep", status: "running" });
    const warm = await c.call("v4/command", {
      commandId: "child-warm",
      clientId: "t",
      sessionId: child,
      type: "sendText",
      payload: { text: "continue" },
      issuedAt: Date.now(),
    });
    expect(warm).toMatchObject({ status: "rejected", reasonCode: "proto.sessionNotFound" });
    await c.call("session/stop", { sessionId: id });
    await c.waitTurnEnd(id, 5000, from);
    await c.turn(id, "#scenario:subagent");
    const first = await c.call("session/subagents", { sessionId: id, endedLimit: 1 });
    expect(first.running).toEqual([]);
    expect(first.childSessionIds).toHaveLength(2);
    expect(first.ended.total).toBe(2);
    expect(first.ended.items[0]).toMatchObject({ status: "success", summary: expect.stringContaining("Found 2 callers") });
    const second = await c.call("session/subagents", { sessionId: id, endedLimit: 1, endedCursor: first.ended.nextCursor });
    expect(second.ended.items).toHaveLength(1);
    expect(second.ended.items[0].status).toBe("cancelled");
    expect(second.ended.nextCursor).toBeUndefined();
    expect(second.ended.items[0].endedAt).toBeLessThanOrEqual(first.ended.items[0].endedAt);
    expect(new Set([first.ended.items[0].childSessionId, second.ended.items[0].childSessionId]).size).toBe(2);
  });

  test("a stop under a running subagent: the child's tool and turn cancelled, SubagentStopped failed with the abort", async () => {
    const c = sim();
    const id = await c.create("/w/proj");
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:subagent hold=60000" });
    await c.waitFor(
      (f) => f.method === "session/event" && f.params.payload.source === "subagent" && f.params.payload.kind === "started",
      5000,
      from,
    );
    await c.call("session/stop", { sessionId: id });
    await c.waitTurnEnd(id, 5000, from);
    const ev = c.events(id);
    const stopped = ev.filter((e) => e.type === "session.updated" && e.payload.status === "failed").map((e) => e.payload);
    expect(stopped).toHaveLength(1);
    expect(stopped[0].error).toContain("Agent was cancelled");
    const mirroredEnd = tools(ev)
      .filter((p) => p.source === "subagent")
      .at(-1);
    expect(mirroredEnd).toMatchObject({ kind: "error", error: { type: "tool_cancelled" } });
    expect(ev.at(-1)!.payload.resultType).toBe("cancelled");
    const rows = (await c.call("v4/conversation/rowsRange", { sessionId: stopped[0].childSessionId, limit: 200 })).rows;
    expect(rows[0]).toMatchObject({ kind: "turnHeader", state: "completedInterrupted" });
    expect(rows.find((r: { kind: string }) => r.kind === "toolCall")).toMatchObject({
      status: "error",
      error: { message: expect.any(String) },
    });
  });
});

describe("permission", () => {
  test("interaction/requestPermission: ZCode's params and options, re-announced with new server-N ids on the CLI's schedule", async () => {
    const c = sim({ ZCODE_SIM_RESEND_MS: "40" });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:permission" });
    const stamps: number[] = [];
    while (stamps.length < 4) {
      const n = c.frames.filter((f) => f.method === "interaction/requestPermission").length;
      while (stamps.length < n) stamps.push(Date.now());
      await Bun.sleep(2);
    }
    const copies = c.frames.filter((f) => f.method === "interaction/requestPermission");
    const first = copies[0]!;
    expect(copies.every((f) => typeof f.id === "string" && /^server-\d+$/.test(f.id))).toBe(true);
    expect(new Set(copies.map((f) => f.id)).size).toBe(copies.length);
    expect(new Set(copies.map((f) => f.params.requestId)).size).toBe(1);
    // 1, 2, 4 × the base: the gaps double.
    expect(stamps[2]! - stamps[1]!).toBeGreaterThan((stamps[1]! - stamps[0]!) * 1.4);
    expect(stamps[3]! - stamps[2]!).toBeGreaterThan((stamps[2]! - stamps[1]!) * 1.4);
    const call = streaming(c.events(id), "tool_call")[0]!;
    expect(first.params).toEqual({
      input: { command: "rm -rf build", description: "Remove the build directory" },
      reason: expect.any(String),
      requestId: expect.stringMatching(/^perm_/),
      riskLevel: "high",
      sessionId: id,
      options: [
        { kind: "allow_once", name: "Allow once", optionId: "allow_once", response: { decision: "allow", reason: "Approved once" } },
        {
          description: "Do not ask again for matching requests in this project",
          kind: "allow_always",
          name: "Always allow in this project",
          optionId: "allow_project",
          response: {
            decision: "allow",
            permissionUpdates: [{ behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "rm -rf build" }], type: "addRules" }],
            reason: "Approved for this project",
          },
        },
        { kind: "deny", name: "Deny", optionId: "deny", response: { decision: "deny", reason: DENIED } },
      ],
      toolCallId: call.toolCallId,
      toolName: "Bash",
      turnId: c.events(id).find((e) => e.type === "turn.started")!.turnId,
    });
    const pending = await c.call("session/read", { sessionId: id, messageLimit: 1 });
    expect(pending.projection.pendingPermissions[0]).toMatchObject({ requestId: first.params.requestId, toolName: "Bash" });
    c.send({ id: copies[1]!.id, result: first.params.options[0].response });
    await c.waitTurnEnd(id);
    const ev = c.events(id);
    const types = ev.map((e) => (e.type === "tool.updated" ? `tool.${e.payload.kind}` : e.type));
    expect(types.indexOf("tool.scheduled")).toBeLessThan(types.indexOf("permission.requested"));
    expect(types.indexOf("permission.resolved")).toBeLessThan(types.indexOf("tool.started"));
    expect(ev.find((e) => e.type === "permission.requested")!.payload).toMatchObject({
      requestId: first.params.requestId,
      toolName: "Bash",
      riskLevel: "high",
      options: first.params.options,
    });
    expect(ev.find((e) => e.type === "permission.resolved")!.payload).toMatchObject({
      requestId: first.params.requestId,
      decision: "allow",
    });
    const res = tools(ev).find((p) => p.kind === "result")!;
    expect(res.result.content).toBe("(Bash completed with no output)");
    expect(res.result.perf.permissionWaitMs).toBeGreaterThan(0);
    const n = c.frames.filter((f) => f.method === "interaction/requestPermission").length;
    await Bun.sleep(150);
    expect(c.frames.filter((f) => f.method === "interaction/requestPermission").length).toBe(n);
  });

  test("deny: permission.resolved deny, no started/result, batch errorCount 1, an error part; empty reason → ZCode's text", async () => {
    const c = sim();
    const id = await c.subscribed();
    const { ev } = await interact(c, id, "#scenario:permission", () => ({ decision: "deny" }));
    expect(ev.find((e) => e.type === "permission.resolved")!.payload).toMatchObject({ decision: "deny", reason: DENIED });
    const t = tools(ev);
    expect(t.map((p) => p.kind)).toEqual(["scheduled", "batch"]);
    expect(t[1]).toMatchObject({ successCount: 0, errorCount: 1 });
    expect(texts(ev)).toContain("Okay, I won't remove the build directory.");
    expect(toolParts(await messages(c, id))[0].state).toMatchObject({ status: "error", error: DENIED });
    const again = await interact(c, id, "#scenario:permission", () => ({ decision: "deny", reason: "not now" }));
    expect(again.ev.find((e) => e.type === "permission.resolved")!.payload.reason).toBe("not now");
  });

  test("an answer that is not a strict permission response fails the tool", async () => {
    const c = sim();
    const id = await c.subscribed();
    for (const bad of [{ decision: "yes" }, { optionId: "allow_once" }, { decision: "allow", remember: true }]) {
      const { ev } = await interact(c, id, "#scenario:permission", () => bad);
      const err = tools(ev).find((p) => p.kind === "error");
      expect(err.error).toMatchObject({
        type: "tool_execution_failed",
        message: expect.stringContaining("Invalid interaction/requestPermission result"),
      });
      expect(tools(ev).some((p) => p.kind === "result")).toBe(false);
      expect(ev.at(-1)!.type).toBe("turn.completed");
    }
  });

  test("'Always allow' sticks: the next matching request is allowed without asking; 'Allow once' does not", async () => {
    const c = sim();
    const id = await c.subscribed();
    const once = await interact(c, id, "#scenario:permission", (f) => (f.params as any).options[0].response);
    expect(once.requests).toHaveLength(1);
    const always = await interact(c, id, "#scenario:permission", (f) => (f.params as any).options[1].response);
    expect(always.requests).toHaveLength(1);
    const third = await interact(c, id, "#scenario:permission", () => ({ decision: "deny" }));
    expect(third.requests).toHaveLength(0);
    expect(third.ev.some((e) => e.type === "permission.requested")).toBe(false);
    expect(tools(third.ev).find((p) => p.kind === "result")).toBeDefined();
    // The rule survives a restart of the CLI (it is stored with the conversation).
    const c2 = sim({}, c.stateDir);
    await c.close();
    await c2.call("session/resume", { sessionId: id });
    await c2.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const fourth = await interact(c2, id, "#scenario:permission", () => ({ decision: "deny" }));
    expect(fourth.requests).toHaveLength(0);
  });

  test("a stop while asking ends the turn cancelled; a late answer is ignored; yolo never asks", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:permission" });
    const req = await c.waitFor((f) => f.method === "interaction/requestPermission");
    await c.call("session/stop", { sessionId: id });
    expect((await c.waitTurnEnd(id)).payload.resultType).toBe("cancelled");
    c.send({ id: req.id, result: { decision: "allow" } });
    await c.waitIdle(id);
    expect((await c.call("session/read", { sessionId: id })).projection).toMatchObject({ status: "idle", pendingPermissions: [] });
    expect(tools(c.events(id)).some((p) => p.kind === "result")).toBe(false);
    const y = await run("#scenario:permission", {}, "yolo");
    expect(y.c.frames.some((f) => f.method === "interaction/requestPermission")).toBe(false);
    expect(tools(y.ev).find((p) => p.kind === "result")).toBeDefined();
  });
});

describe("plan approval", () => {
  async function planTurn(answer: unknown) {
    const c = sim();
    const id = await c.create("/tmp/ws", { mode: "plan" });
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const { ev, requests } = await interact(c, id, "#scenario:plan", () => answer);
    return { c, id, ev, req: requests[0]! };
  }

  test("requestUserInput with the plan_approval schema; approve → build mode, session.updated and state.updated", async () => {
    const { c, id, ev, req } = await planTurn({ action: "accept", content: { answers: { [PLAN_Q]: "approve" }, answer_0: "approve" } });
    expect(req.params).toMatchObject({
      input: { plan: expect.stringContaining("1. Read src/greet.ts") },
      prompt: expect.any(String),
      questions: [
        {
          header: "Plan",
          options: [{ description: "Exit plan mode and start implementation.", label: "Approve", value: "approve" }],
          question: PLAN_Q,
        },
      ],
      requestId: expect.stringMatching(/^perm_/),
      schema: { interaction: "plan_approval", toolName: "ExitPlanMode" },
      sessionId: id,
      toolName: "ExitPlanMode",
    });
    const mode = ev.find((e) => e.type === "session.updated" && e.payload.mode)!;
    expect(mode.payload).toEqual({ mode: "build", previousMode: "plan", source: "tool", toolCallId: req.params.toolCallId });
    expect(c.stateUpdates(id).some((s) => s.reason === "mode_changed" && s.patch.mode.current === "build")).toBe(true);
    expect(tools(ev).find((p) => p.kind === "result")!.result.content).toStartWith(
      "User has approved your plan. You can now start coding.",
    );
    expect((await c.call("session/read", { sessionId: id })).settings.mode.current).toBe("build");
  });

  test("answer_0 or answer also approve (trimmed); accept WITHOUT an answer is a deny; feedback denies", async () => {
    for (const content of [{ answer_0: " approve " }, { answer: "approve" }]) {
      const { ev } = await planTurn({ action: "accept", content });
      expect(tools(ev).some((p) => p.kind === "result")).toBe(true);
    }
    for (const answer of [
      { action: "accept" },
      { action: "accept", content: {} },
      { action: "decline" },
      { action: "accept", content: { answers: { [PLAN_Q]: "Approve" } } },
    ]) {
      const { c, id, ev } = await planTurn(answer);
      expect(ev.find((e) => e.type === "permission.resolved")!.payload.decision).toBe("deny");
      expect(tools(ev).some((p) => p.kind === "result")).toBe(false);
      expect((await c.call("session/read", { sessionId: id })).settings.mode.current).toBe("plan");
    }
    const fb = await planTurn({ action: "accept", content: { answers: { [PLAN_Q]: "use tabs instead" } } });
    expect(toolParts(await messages(fb.c, fb.id))[0].state.error).toContain("the user said:\nuse tabs instead");
  });
});

describe("questions", () => {
  test("AskUserQuestion: requestUserInput with questions (value = label); answers by question text reach the tool", async () => {
    const c = sim();
    const id = await c.subscribed();
    const { ev, requests } = await interact(c, id, "#scenario:question", (f) => ({
      action: "accept",
      content: { answers: { [(f.params as any).questions[0].question]: "Bun" } },
    }));
    const req = requests[0]!;
    expect(req.params).toMatchObject({
      input: { questions: [{ question: "Which package manager should I use?" }] },
      questions: [
        {
          question: "Which package manager should I use?",
          header: "Package",
          multiSelect: false,
          options: [
            { label: "Bun", value: "Bun", description: "Fast, all-in-one" },
            { label: "npm", value: "npm" },
          ],
        },
      ],
      schema: { toolName: "AskUserQuestion" },
      toolName: "AskUserQuestion",
    });
    expect(ev.find((e) => e.type === "permission.resolved")!.payload).toMatchObject({
      decision: "modify",
      modifiedInput: { answers: { "Which package manager should I use?": "Bun" } },
    });
    expect(tools(ev).find((p) => p.kind === "result")!.result.content).toBe(
      'User has answered your questions: "Which package manager should I use?"="Bun". You can now continue with the user\'s answers in mind.',
    );
  });

  test("question-multi: arrays are joined, answer_<i> works, partial and empty answers, decline", async () => {
    const c = sim();
    const id = await c.subscribed();
    const content = (ev: Frame[]) => tools(ev).find((p) => p.kind === "result")?.result.content as string | undefined;
    const all = await interact(c, id, "#scenario:question-multi", () => ({
      action: "accept",
      content: { answers: { "Select the files to test": ["auth.test.ts", "api.test.ts"] }, answer_1: "npm" },
    }));
    expect(content(all.ev)).toBe(
      'User has answered your questions: "Select the files to test"="auth.test.ts, api.test.ts", "Which package manager should I use?"="npm". You can now continue with the user\'s answers in mind.',
    );
    const partial = await interact(c, id, "#scenario:question-multi", () => ({ action: "accept", content: { answer_0: "user.test.ts" } }));
    expect(content(partial.ev)).toStartWith(
      'The user answered some questions and skipped 1. Provided answers: "Select the files to test"="user.test.ts".',
    );
    const none = await interact(c, id, "#scenario:question-multi", () => ({ action: "accept", content: { answers: {} } }));
    expect(content(none.ev)).toStartWith("The user did not provide answers to these questions.");
    const decline = await interact(c, id, "#scenario:question-multi", () => ({ action: "decline" }));
    expect(content(decline.ev)).toBeUndefined();
    expect(decline.ev.find((e) => e.type === "permission.resolved")!.payload).toMatchObject({
      decision: "deny",
      reason: "AskUserQuestion was declined",
    });
    expect(texts(decline.ev)).toContain("sensible defaults");
    const bad = await interact(c, id, "#scenario:question", () => ({ action: "accept", answers: {} }));
    expect(tools(bad.ev).find((p) => p.kind === "error")!.error.message).toContain("Invalid interaction/requestUserInput result");
  });
});

describe("provider runtime headers", () => {
  const ACCOUNT = { providerId: "account:bigmodel-individual-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "high" } };

  async function accountSession(answer: unknown, env: Record<string, string> = {}) {
    const c = sim(env, tempDir(), answer === undefined ? {} : { autoHeaders: answer });
    const id = await c.subscribed();
    await c.call("session/setModel", { sessionId: id, model: ACCOUNT });
    return { c, id };
  }

  test("asked before the model request of an account provider; an apiKey lets the turn run (auth: apiKey, never the key)", async () => {
    const { c, id } = await accountSession({ headersApplied: true, requestAuth: { apiKey: "sk-very-secret" } });
    const ev = await c.turn(id, "hello");
    const req = c.frames.find((f) => f.method === "interaction/requestProviderRuntimeHeaders")!;
    expect(req.id).toMatch(/^server-\d+$/);
    expect(req.params).toEqual({
      requestId: expect.any(String),
      sessionId: id,
      turnId: ev.find((e) => e.type === "turn.started")!.turnId,
      workspace: { workspacePath: "/tmp/ws", workspaceKey: "/tmp/ws" },
      modelSelection: ACCOUNT,
      providerId: ACCOUNT.providerId,
      reason: "model-request",
    });
    expect(texts(ev)).toBe("Echo: hello\nauth: apiKey");
    expect(JSON.stringify(c.frames)).not.toContain('sk-very-secret"}}}');
    expect(texts(ev)).not.toContain("sk-very-secret");
  });

  test("headersApplied:false, -32601 or an invalid answer fail the turn with the reason", async () => {
    const no = await accountSession({ headersApplied: false, errorMessage: "Not signed in to BigModel" });
    const ev = await no.c.turn(no.id, "hello");
    expect(ev.at(-1)!.type).toBe("turn.failed");
    expect(ev.at(-1)!.payload.error).toMatchObject({
      type: "model_error",
      code: "runtime_authentication_required",
      message: expect.stringContaining("Not signed in to BigModel"),
    });
    expect(ev.at(-1)!.payload.error.attribution.retryable).toBe(false);
    const bad = await accountSession({ headersApplied: true });
    expect((await bad.c.turn(bad.id, "x")).at(-1)!.payload.error.message).toContain("requestAuth: Required");
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/setModel", { sessionId: id, model: ACCOUNT });
    await c.call("session/send", { sessionId: id, content: "x" });
    const req = await c.waitFor((f) => f.method === "interaction/requestProviderRuntimeHeaders");
    c.send({ id: req.id, error: { code: -32601, message: "Method not found" } });
    expect((await c.waitTurnEnd(id)).payload.error.message).toContain("Method not found");
    // A built-in provider is never asked.
    const b = await run("hello");
    expect(b.c.frames.some((f) => f.method === "interaction/requestProviderRuntimeHeaders")).toBe(false);
  });
});

describe("launch environment", () => {
  test("ZCODE_BASE_URL in the CLI's environment makes model requests fail", async () => {
    const { ev } = await run("hello", { ZCODE_BASE_URL: "https://example.invalid" });
    expect(ev.at(-1)!.type).toBe("turn.failed");
    expect(ev.at(-1)!.payload.error).toMatchObject({ type: "configuration_error", message: expect.stringContaining("ZCODE_BASE_URL") });
  });

  test("env: reports the provider config files, mcpServers and the model that reached the CLI", async () => {
    const c = sim({ ZCODE_PERSONAL_PROVIDER_CONFIG_FILE: "/home/dev/.zcode/v2/provider_config.json" });
    const id = await c.create("/w/e", { mcpServers: [{ name: "fs", command: "mcp-fs", args: [], env: [] }] });
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const out = texts(await c.turn(id, "#scenario:env"));
    expect(out).toContain("ZCODE_PERSONAL_PROVIDER_CONFIG_FILE=/home/dev/.zcode/v2/provider_config.json");
    expect(out).toContain("ZCODE_BUILTIN_PROVIDER_CONFIG_FILE=unset");
    expect(out).toContain("mcpServers=fs");
    expect(out).toContain("model=builtin:zai-coding-plan/GLM-5.3@max");
  });
});

describe("attachments", () => {
  test("read as mapProtocolPromptAttachment: each kind reported in the echo and carried by turn.started; junk dropped", async () => {
    const dir = tempDir();
    const notes = join(dir, "notes.bin");
    writeFileSync(notes, "0123456789ab");
    const b64 = (s: string | number[]) => Buffer.from(s as string).toString("base64");
    const c = sim();
    const id = await c.subscribed();
    const ev = await c.turn(id, "look at these", 5000, {
      attachments: [
        { kind: "image", filename: "shot.png", mimeType: "image/png", sizeBytes: 4, dataBase64: b64([0x89, 0x50, 0x4e, 0x47]) },
        { kind: "file", filename: "spec.pdf", mimeType: "application/pdf; charset=binary", dataBase64: b64("%PDF-1.7") },
        { kind: "file", filename: "notes.bin", localPath: notes },
        { kind: "file", filename: "todo.txt", textContent: "buy milk" },
        { kind: "audio", filename: "memo.txt", mimeType: "text/plain", dataBase64: b64("hello") },
        { kind: "video", filename: "clip.mp4", localPath: join(dir, "missing.mp4") },
        { kind: "zip", filename: "a.zip", dataBase64: b64("PK") },
        { kind: "image", filename: "empty.png" },
        { kind: "file", filename: "big.txt", sizeBytes: 70000, dataBase64: b64("x") },
      ],
    });
    const out = texts(ev);
    expect(out).toStartWith("Echo: look at these\nAttachments: ");
    expect(out).toContain("image shot.png image/png 4 bytes");
    expect(out).toContain("pdf spec.pdf application/pdf 8 bytes");
    expect(out).toContain(`file notes.bin 12 bytes (localPath ${notes})`);
    expect(out).toContain("file todo.txt 8 bytes (text)");
    expect(out).toContain("file memo.txt text/plain 5 bytes (base64 text)");
    expect(out).toContain(`video clip.mp4 (localPath ${join(dir, "missing.mp4")}: not found)`);
    expect(out).not.toContain("a.zip");
    expect(out).not.toContain("empty.png");
    expect(out).not.toContain("big.txt");
    const started = ev.find((e) => e.type === "turn.started")!.payload;
    expect(started.attachments.map((a: any) => `${a.type}:${a.filename}`)).toEqual([
      "image:shot.png",
      "pdf:spec.pdf",
      "file:notes.bin",
      "file:todo.txt",
      "file:memo.txt",
      "video:clip.mp4",
    ]);
  });
});

describe("failures and stops", () => {
  test("fail-transient fails=2: retryable provider failures (attribution), then success; top=1 puts retryable on top", async () => {
    const c = sim();
    const id = await c.subscribed();
    const prompt = "#scenario:fail-transient fails=2";
    for (let i = 0; i < 2; i++) {
      const end = (await c.turn(id, prompt)).at(-1)!;
      expect(end.type).toBe("turn.failed");
      expect(end.payload).toMatchObject({
        turnPhase: expect.any(String),
        error: { type: "model_error", code: "model_rate_limited", attribution: { retryable: true, statusCode: 429 } },
      });
    }
    expect((await c.turn(id, prompt)).at(-1)!.payload.resultType).toBe("success");
    const top = (await c.turn(id, "#scenario:fail-transient top=1")).at(-1)!.payload.error;
    expect(top.retryable).toBe(true);
    expect(top.attribution).toBeUndefined();
    const fatal = (await c.turn(id, "#scenario:fail-fatal")).at(-1)!.payload.error;
    expect(fatal).toMatchObject({ code: "1113", attribution: { retryable: false } });
    expect(typeof fatal.code).toBe("string");
    const spent = (await c.turn(id, "#scenario:fail-quota")).at(-1)!.payload.error;
    expect(spent).toMatchObject({ code: "model_rate_limited", attribution: { providerErrorCode: "1308", retryable: false } });
  });

  test("stop mid-tool: the running tool errors tool_cancelled, no further tools, turn.completed cancelled", async () => {
    const c = sim({ ZCODE_SIM_DELAY_MS: "20" });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:tools" });
    await c.waitFor((f) => f.params?.payload?.kind === "progress");
    await c.call("session/stop", { sessionId: id });
    const end = await c.waitTurnEnd(id);
    expect(end.payload).toMatchObject({ resultType: "cancelled", response: "", tokenCount: 0, toolCallCount: 0 });
    const t = tools(c.events(id));
    expect(t.find((p) => p.kind === "error")!.error).toMatchObject({ type: "tool_cancelled" });
    expect(t.some((p) => p.kind === "result")).toBe(false);
    expect(streaming(c.events(id), "tool_input_start")).toHaveLength(1);
    await c.waitIdle(id);
  });

  test("busy: a send while a prompt runs → -32010", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=500" });
    const busy = await c.request("session/send", { sessionId: id, content: "again" });
    expect(busy.error).toEqual({ code: -32010, message: "A prompt is already running for this session" });
    await c.call("session/stop", { sessionId: id });
    await c.waitIdle(id);
  });

  test("ZCODE_SIM_BUSY_TAIL_MS: a send right after turn.completed gets -32010 until state.updated reports the end", async () => {
    const c = sim({ ZCODE_SIM_BUSY_TAIL_MS: "200" });
    const id = await c.subscribed();
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "first" });
    await c.waitTurnEnd(id, 5000, from);
    expect((await c.request("session/send", { sessionId: id, content: "too early" })).error.code).toBe(-32010);
    await c.waitIdle(id, 5000, from);
    const from2 = c.frames.length;
    expect((await c.request("session/send", { sessionId: id, content: "now" })).result.accepted).toBe(true);
    await c.waitIdle(id, 5000, from2);
  });

  test("ignore-stop keeps streaming for ZCODE_SIM_STOP_IGNORE_MS, then ends cancelled", async () => {
    const c = sim({ ZCODE_SIM_STOP_IGNORE_MS: "300" });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:ignore-stop n=3" });
    await c.waitEvent(id, "model.streaming");
    const t0 = Date.now();
    const from = c.frames.length;
    await c.call("session/stop", { sessionId: id });
    const end = await c.waitTurnEnd(id, 5000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(end.payload.resultType).toBe("cancelled");
    expect(c.frames.slice(from).filter((f) => f.params?.payload?.kind === "text_delta").length).toBeGreaterThan(1);
  });

  test("crash: stderr message and exit code 3 mid-turn; the next process resumes the conversation", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:crash" });
    expect(await c.exited()).toBe(3);
    await Bun.sleep(20);
    expect(c.stderr).toContain("panic: simulated crash");
    const c2 = sim({}, c.stateDir);
    expect((await c2.call("session/list", {})).sessions[0]).toMatchObject({ sessionId: id, status: "idle" });
    await c2.call("session/resume", { sessionId: id });
    await c2.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    expect((await c2.turn(id, "again")).at(-1)!.type).toBe("turn.completed");
  });

  test("evict: -32004 Session is not active until resume, which starts a new seq space; then the prompt runs", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.turn(id, "first");
    const p = { sessionId: id, content: "#scenario:evict hello" };
    expect((await c.request("session/send", p)).error).toEqual({ code: -32004, message: `Session is not active: ${id}` });
    expect((await c.request("session/read", { sessionId: id })).error.code).toBe(-32004);
    const r = await c.call("session/resume", { sessionId: id });
    expect(r.runtime.eventSeq).toBe(1);
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const ev = await c.turn(id, p.content);
    expect(texts(ev)).toBe("Echo: hello");
    expect(ev[0]!.seq).toBe(2);
  });

  test("hang-request: that send is never answered; next=1 hangs the following one", async () => {
    const c = sim();
    const id = await c.subscribed();
    await expect(c.request("session/send", { sessionId: id, content: "#scenario:hang-request" }, 300)).rejects.toThrow("timeout");
    // The queue is not blocked.
    expect((await c.call("session/list", {})).sessions).toHaveLength(1);
    const id2 = await c.subscribed();
    await c.turn(id2, "#scenario:hang-request next=1");
    await expect(c.request("session/send", { sessionId: id2, content: "x" }, 300)).rejects.toThrow("timeout");
  });
});

describe("wire faults", () => {
  test("seq-gap: some seqs not pushed; afterSeq returns them", async () => {
    const { c, id, ev } = await run("#scenario:seq-gap");
    const seqs = ev.map((e) => e.seq);
    const missing: number[] = [];
    for (let s = seqs[0]!; s <= seqs.at(-1)!; s++) if (!seqs.includes(s)) missing.push(s);
    expect(missing.length).toBe(3);
    const sub = await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", afterSeq: 0 });
    expect(sub.events.map((e: Frame) => e.seq)).toEqual(Array.from({ length: sub.eventSeq }, (_, i) => i + 1));
    expect(
      streaming(sub.events, "text_delta")
        .map((p) => p.delta)
        .join(""),
    ).toBe("one two three four five six seven eight");
  });

  test("stall: half the turn live, the rest only via afterSeq; live pushes resume after resubscribing", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:stall" });
    await c.waitEvent(id, "model.streaming");
    await Bun.sleep(150);
    const live = c.events(id);
    expect(live.some((e) => e.type === "turn.completed")).toBe(false);
    const last = live.at(-1)!.seq;
    const sub = await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", afterSeq: last });
    expect(sub.events[0].seq).toBe(last + 1);
    expect(sub.events.some((e: any) => e.type === "turn.completed")).toBe(true);
    expect((await c.turn(id, "after")).at(-1)!.type).toBe("turn.completed");
  });

  test("garbage: non-JSON, schema-failing frame, stray response, an unknown event type with a seq; then a normal reply", async () => {
    const { c, ev } = await run("#scenario:garbage");
    expect(c.rawLines).toContain("Warning: this is not JSON {{{");
    expect(c.frames.some((f) => f.id === "server-nobody-asked-999")).toBe(true);
    expect(c.frames.some((f) => f.params?.seq === "not-a-number")).toBe(true);
    expect(ev.find((e) => e.type === "mystery.event")!.seq).toBeNumber();
    expect(seqsContiguous(ev.filter((e) => typeof e.seq === "number" && e.eventId))).toBe(true);
    expect(texts(ev)).toContain("Echo:");
  });

  test("unknown-request: a request the bridge must answer -32601, then a reply", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:unknown-request" });
    const req = await c.waitFor((f) => f.method === "zcode/unannouncedThing");
    expect(req.id).toMatch(/^server-\d+$/);
    c.send({ id: req.id, error: { code: -32601, message: "Method not found" } });
    await c.waitTurnEnd(id);
    expect(texts(c.events(id))).toContain("answered with error -32601");
  });

  test("huge-line, flood, flood ts=1 rate=, flood-tools", async () => {
    const h = await run("#scenario:huge-line bytes=3000000");
    expect(h.c.rawLines.some((l) => l.startsWith('{"method":"log/noise"'))).toBe(true);
    expect(texts(h.ev)).toContain("Echo:");
    const f = await run("#scenario:flood n=2000 size=64");
    const d = streaming(f.ev, "text_delta");
    expect(d).toHaveLength(2000);
    expect(d.every((x) => new TextEncoder().encode(x.delta).length >= 64)).toBe(true);
    const t0 = Date.now();
    const p = await run("#scenario:flood n=50 size=64 ts=1 rate=500");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(80);
    streaming(p.ev, "text_delta").forEach((x, i) => {
      const m = /^(\d+)@(\d+):/.exec(x.delta)!;
      expect(Number(m[1])).toBe(i);
      expect(Math.abs(Number(m[2]) / 1000 - Date.now())).toBeLessThan(10_000);
    });
    const ft = await run("#scenario:flood-tools n=300");
    const prog = tools(ft.ev).filter((x) => x.kind === "progress");
    expect(prog).toHaveLength(300);
    expect(prog[1].stdoutTail.startsWith(prog[0].stdoutTail)).toBe(true);
  });
});
