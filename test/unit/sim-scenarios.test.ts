// Every simulator scenario over real pipes, checked against ZCODE-SHAPES.md.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
function sim(env: Record<string, string> = {}, dir = tempDir()): SimClient {
  const c = new SimClient(dir, { env });
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const tools = (ev: Frame[]) => ev.filter((e) => e.type === "tool.updated").map((e) => e.payload);
const texts = (ev: Frame[]) => ev.filter((e) => e.payload.kind === "text_delta").map((e) => e.payload.delta).join("");

async function run(content: string, env: Record<string, string> = {}) {
  const c = sim(env);
  const id = await c.subscribed("/w/proj");
  const ev = await c.turn(id, content);
  return { c, id, ev };
}

async function messages(c: SimClient, id: string): Promise<any[]> {
  return (await c.call("session/messages", { sessionId: id })).messages;
}

describe("text", () => {
  test("text: reasoning then text with multi-byte UTF-8", async () => {
    const { ev } = await run("#scenario:text");
    const kinds = ev.filter((e) => e.type === "model.streaming").map((e) => e.payload.kind);
    expect(kinds.lastIndexOf("reasoning_delta")).toBeLessThan(kinds.indexOf("text_delta"));
    expect(kinds.filter((k) => k === "reasoning_delta").length).toBeGreaterThan(1);
    expect(texts(ev)).toContain("héllo wörld ✓ 日本");
  });

  test("ZCODE_SIM_SCENARIO sets the default scenario; the tag is stripped from the echo", async () => {
    const { ev } = await run("look #scenario:default here", { ZCODE_SIM_SCENARIO: "text" });
    expect(texts(ev)).toBe("Echo: look here");
    const r2 = await run("untagged", { ZCODE_SIM_SCENARIO: "text" });
    expect(texts(r2.ev)).toContain("日本");
  });

  test("an unknown scenario fails the turn with a clear message", async () => {
    const { ev } = await run("#scenario:nope");
    expect(ev.at(-1)!.type).toBe("turn.failed");
    expect(ev.at(-1)!.payload.error.message).toContain('unknown simulator scenario "nope"');
  });

  test("max-tokens / refusal / max-turns end with that resultType", async () => {
    for (const [tag, rt] of [["max-tokens", "max_tokens"], ["refusal", "refusal"], ["max-turns", "max_turn_requests"]]) {
      const { ev } = await run(`#scenario:${tag}`);
      expect(ev.at(-1)!.payload.resultType).toBe(rt);
    }
  });

  test("usage: session.updated with the usage during the turn", async () => {
    const { ev } = await run("#scenario:usage");
    const u = ev.find((e) => e.type === "session.updated")!;
    expect(u.payload).toEqual({ usage: { inputTokens: 12345, outputTokens: 678 }, contextWindow: 200000 });
    expect(ev.at(-1)!.payload.usage).toEqual({ inputTokens: 12345, outputTokens: 678, totalTokens: 13023 });
  });
});

describe("tools", () => {
  test("bash: tool_call with input, scheduled without input, cumulative tails, structured result", async () => {
    const { c, id, ev } = await run("#scenario:bash");
    const call = ev.find((e) => e.payload.kind === "tool_call")!.payload;
    expect(call).toMatchObject({ toolName: "Bash", input: { command: "ls -la" } });
    const t = tools(ev);
    expect(t.map((p) => p.kind)).toEqual(["scheduled", "started", "progress", "progress", "progress", "result"]);
    expect(t[0]).toMatchObject({ toolCallId: call.toolCallId, toolName: "Bash", inputOmitted: true });
    expect("input" in t[0]).toBe(false);
    const prog = t.filter((p) => p.kind === "progress");
    for (let i = 1; i < prog.length; i++) {
      expect(prog[i].stdoutTail.startsWith(prog[i - 1].stdoutTail)).toBe(true);
      expect(prog[i].stdoutTail.length).toBeGreaterThan(prog[i - 1].stdoutTail.length);
    }
    expect(prog.at(-1).stderrTail).toContain("warning");
    expect(t.at(-1).result).toMatchObject({ exitCode: 0, stdout: prog.at(-1).stdoutTail });
    expect(t.at(-1).output).toBeString();
    const m = await messages(c, id);
    const part = m[1].parts.find((p: any) => p.type === "tool");
    expect(part).toMatchObject({ toolName: "Bash", input: { command: "ls -la" }, state: { status: "completed" } });
    expect(part.state.result.exitCode).toBe(0);
  });

  test("read, edit, write, grep, glob, webfetch, task: structured results", async () => {
    const expected: Record<string, (r: any) => void> = {
      read: (r) => expect(r).toMatchObject({ type: "text", file: { filePath: "/w/proj/src/greet.ts", startLine: 1, numLines: 3 } }),
      edit: (r) => {
        expect(r.structuredPatch[0].lines.some((l: string) => l.startsWith("-"))).toBe(true);
        expect(r.originalFile).toContain('"Hello, "');
      },
      write: (r) => expect(r).toMatchObject({ type: "create", filePath: "/w/proj/src/farewell.ts" }),
      grep: (r) => expect(r).toMatchObject({ mode: "files_with_matches", numFiles: 2 }),
      glob: (r) => expect(r).toMatchObject({ numFiles: 3, truncated: false }),
      webfetch: (r) => expect(r).toMatchObject({ code: 200, url: "https://example.com/docs/greeting" }),
      task: (r) => expect(r.status).toBe("completed"),
    };
    const names: Record<string, string> = { read: "Read", edit: "Edit", write: "Write", grep: "Grep", glob: "Glob", webfetch: "WebFetch", task: "Task" };
    for (const [tag, check] of Object.entries(expected)) {
      const { ev } = await run(`#scenario:${tag}`);
      const res = tools(ev).find((p) => p.kind === "result")!;
      expect(res.toolName).toBe(names[tag]!);
      check(res.result);
    }
    const { ev } = await run("#scenario:task");
    expect(ev.find((e) => e.payload.kind === "tool_call")!.payload.input).toMatchObject({ subagent_type: "general-purpose", description: expect.any(String), prompt: expect.any(String) });
  });

  test("todo: session/read shows the todos only shortly after the result", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:todo" });
    const res = await c.waitFor((f) => f.params?.payload?.kind === "result");
    const now = await c.call("session/read", { sessionId: id });
    expect(now.todos).toEqual([]);
    expect(res.params.payload.result.newTodos).toHaveLength(3);
    await c.waitTurnEnd(id);
    await Bun.sleep(80);
    const later = await c.call("session/read", { sessionId: id });
    expect(later.todos.map((t: any) => t.status)).toEqual(["completed", "in_progress", "pending"]);
  });

  test("tools: every kind in one turn", async () => {
    const { ev } = await run("#scenario:tools");
    const names = new Set(ev.filter((e) => e.payload.kind === "tool_call").map((e) => e.payload.toolName));
    expect([...names].sort()).toEqual(["Bash", "Edit", "Glob", "Grep", "Read", "Task", "TodoWrite", "WebFetch", "Write"]);
    expect(ev.at(-1)!.payload.resultType).toBe("success");
  });

  test("batch: the item for the finished tool carries no output", async () => {
    const { ev } = await run("#scenario:batch");
    const t = tools(ev);
    const first = t.find((p) => p.kind === "result")!;
    const batch = t.find((p) => p.kind === "batch")!;
    expect(batch.items).toHaveLength(2);
    const again = batch.items.find((i: any) => i.toolCallId === first.toolCallId);
    expect(again.output).toBeUndefined();
    expect(batch.items.find((i: any) => i.toolCallId !== first.toolCallId).output).toBeString();
  });
});

describe("interactions", () => {
  test("permission: re-sent with new ids and the same requestId; allow runs the tool", async () => {
    const c = sim({ ZCODE_SIM_RESEND_MS: "40" });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:permission" });
    const first = await c.waitFor((f) => f.method === "interaction/requestPermission");
    const t0 = Date.now();
    for (let n = 0; n < 3; ) {
      n = c.frames.filter((f) => f.method === "interaction/requestPermission").length;
      if (n < 3) await Bun.sleep(10);
    }
    expect(Date.now() - t0).toBeGreaterThanOrEqual(60); // paced by ZCODE_SIM_RESEND_MS, not a burst
    const copies = c.frames.filter((f) => f.method === "interaction/requestPermission");
    expect(copies.length).toBeGreaterThanOrEqual(3);
    expect(new Set(copies.map((f) => f.id)).size).toBe(copies.length);
    expect(new Set(copies.map((f) => f.params.requestId)).size).toBe(1);
    expect(first.params).toMatchObject({ sessionId: id, toolName: "Bash", input: { command: "rm -rf build" } });
    expect(first.params.options.map((o: any) => o.kind)).toEqual(["allow_once", "allow_always", "deny_once", "deny_always"]);
    c.send({ id: copies[1]!.id, result: { decision: "allow" } });
    const end = await c.waitTurnEnd(id);
    expect(end.payload.resultType).toBe("success");
    const n = c.frames.filter((f) => f.method === "interaction/requestPermission").length;
    await Bun.sleep(100);
    expect(c.frames.filter((f) => f.method === "interaction/requestPermission").length).toBe(n);
    expect(tools(c.events(id)).at(-1).kind).toBe("result");
  });

  test("permission: deny → tool error with the reason, then text; completes", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:permission" });
    const req = await c.waitFor((f) => f.method === "interaction/requestPermission");
    c.send({ id: req.id, result: { decision: "deny", reason: "not now" } });
    const end = await c.waitTurnEnd(id);
    expect(end.payload.resultType).toBe("success");
    const err = tools(c.events(id)).find((p) => p.kind === "error");
    expect(err.error.message).toBe("Permission denied: not now");
  });

  test("permission: a stop while asking ends cancelled; a late answer is ignored", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:permission" });
    const req = await c.waitFor((f) => f.method === "interaction/requestPermission");
    c.notify("session/stop", { sessionId: id });
    expect((await c.waitTurnEnd(id)).payload.resultType).toBe("cancelled");
    c.send({ id: req.id, result: { decision: "allow" } });
    const r = await c.call("session/read", { sessionId: id });
    expect(r.projection.status).toBe("idle");
    expect(tools(c.events(id)).some((p) => p.kind === "result")).toBe(false);
  });

  test("yolo mode runs the tool without asking", async () => {
    const c = sim();
    const id = await c.create("/tmp/ws", { mode: "yolo" });
    await c.call("session/subscribe", { sessionId: id });
    const ev = await c.turn(id, "#scenario:permission");
    expect(c.frames.some((f) => f.method === "interaction/requestPermission")).toBe(false);
    expect(tools(ev).at(-1).kind).toBe("result");
  });

  test("plan: accept switches the mode to build; projection.mode stays stale until the next turn", async () => {
    const c = sim();
    const id = await c.create("/tmp/ws", { mode: "plan" });
    await c.call("session/subscribe", { sessionId: id });
    await c.call("session/send", { sessionId: id, content: "#scenario:plan" });
    const req = await c.waitFor((f) => f.method === "interaction/requestUserInput");
    expect(req.params.schema).toEqual({ interaction: "plan_approval" });
    expect(req.params.input.plan).toContain("1.");
    c.send({ id: req.id, result: { action: "accept" } });
    await c.waitTurnEnd(id);
    expect(tools(c.events(id)).find((p) => p.kind === "result").result).toEqual({ approved: true });
    const r = await c.call("session/read", { sessionId: id });
    expect(r.settings.mode.current).toBe("build");
    expect(r.projection.mode).toBe("plan");
  });

  test("plan: decline keeps the mode", async () => {
    const c = sim();
    const id = await c.create("/tmp/ws", { mode: "plan" });
    await c.call("session/subscribe", { sessionId: id });
    await c.call("session/send", { sessionId: id, content: "#scenario:plan" });
    const req = await c.waitFor((f) => f.method === "interaction/requestUserInput");
    c.send({ id: req.id, result: { action: "decline" } });
    await c.waitTurnEnd(id);
    expect(tools(c.events(id)).find((p) => p.kind === "result").result).toEqual({ approved: false });
    expect((await c.call("session/read", { sessionId: id })).settings.mode.current).toBe("plan");
  });

  test("question: top-level questions, single select; the answer lands in the result", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:question" });
    const req = await c.waitFor((f) => f.method === "interaction/requestUserInput");
    expect(req.params.questions).toHaveLength(1);
    expect(req.params.questions[0].multiSelect).toBe(false);
    expect(req.params.questions[0].options).toHaveLength(2);
    const q = req.params.questions[0].question;
    c.send({ id: req.id, result: { action: "accept", content: { [q]: "bun" } } });
    await c.waitTurnEnd(id);
    expect(tools(c.events(id)).find((p) => p.kind === "result").result.answers).toEqual({ [q]: "bun" });
  });

  test("question-multi: questions in input.questions, one multiSelect", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:question-multi" });
    const req = await c.waitFor((f) => f.method === "interaction/requestUserInput");
    expect(req.params.questions).toBeUndefined();
    expect(req.params.input.questions.map((q: any) => q.multiSelect)).toEqual([true, false]);
    c.send({ id: req.id, result: { action: "decline" } });
    await c.waitTurnEnd(id);
    expect(tools(c.events(id)).find((p) => p.kind === "error").error.message).toContain("declined");
  });
});

describe("failures", () => {
  test("fail-transient fails=2: two rate-limit failures, then success", async () => {
    const c = sim();
    const id = await c.subscribed();
    const prompt = "#scenario:fail-transient fails=2";
    for (let i = 0; i < 2; i++) {
      const ev = await c.turn(id, prompt);
      expect(ev.at(-1)!.payload.error).toEqual({ code: 1302, message: "rate limited", cause: { code: "rate_limit" } });
    }
    expect((await c.turn(id, prompt)).at(-1)!.payload.resultType).toBe("success");
  });

  test("fail-fatal", async () => {
    const { ev } = await run("#scenario:fail-fatal");
    expect(ev.at(-1)!).toMatchObject({ type: "turn.failed", payload: { error: { code: 1500, message: "model exploded" } } });
  });

  test("crash: stderr message and exit code 3 mid-turn", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:crash" });
    expect(await c.exited()).toBe(3);
    await Bun.sleep(20);
    expect(c.stderr).toContain("panic: simulated crash");
    expect(c.events(id).some((e) => e.type === "turn.completed")).toBe(false);
    // The next CLI process lists the crashed session as idle and can resume and use it.
    const c2 = new SimClient(c.stateDir);
    open.push(c2);
    const list = await c2.call("session/list", {});
    expect(list.sessions[0]).toMatchObject({ sessionId: id, status: "idle" });
    await c2.call("session/resume", { sessionId: id, workspace: { workspacePath: "/tmp/ws", workspaceKey: "/tmp/ws" } });
    await c2.call("session/subscribe", { sessionId: id });
    expect((await c2.turn(id, "again")).at(-1)!.type).toBe("turn.completed");
  });

  test("evict: -32004 until resume, then the prompt runs as default", async () => {
    const c = sim();
    const id = await c.subscribed();
    const p = { sessionId: id, content: "#scenario:evict hello" };
    const r = await c.request("session/send", p);
    expect(r.error).toMatchObject({ code: -32004, message: "Session is not active" });
    expect((await c.request("session/read", { sessionId: id })).error.code).toBe(-32004);
    await c.call("session/resume", { sessionId: id, workspace: { workspacePath: "/tmp/ws", workspaceKey: "/tmp/ws" } });
    await c.call("session/subscribe", { sessionId: id });
    const ev = await c.turn(id, p.content);
    expect(texts(ev)).toBe("Echo: hello");
  });

  test("hang-request: that send is never answered; next=1 hangs the following one", async () => {
    const c = sim();
    const id = await c.subscribed();
    const r = c.request("session/send", { sessionId: id, content: "#scenario:hang-request" }, 300);
    await expect(r).rejects.toThrow("timeout");
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
    expect(missing.length).toBeGreaterThan(0);
    const sub = await c.call("session/subscribe", { sessionId: id, afterSeq: seqs[0] });
    const got = sub.events.map((e: any) => e.seq);
    for (const m of missing) expect(got).toContain(m);
    const all = [ev[0]!, ...sub.events].filter((e) => e.type === "model.streaming");
    expect(all.map((e) => e.payload.delta).join("")).toBe("one two three four five six seven eight");
  });

  test("stall: half the turn live, the rest only via afterSeq", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:stall" });
    await c.waitEvent(id, "model.streaming");
    await Bun.sleep(150);
    const live = c.events(id);
    expect(live.some((e) => e.type === "turn.completed")).toBe(false);
    const last = live.at(-1)!.seq;
    const sub = await c.call("session/subscribe", { sessionId: id, afterSeq: last });
    expect(sub.events[0].seq).toBe(last + 1);
    expect(sub.events.some((e: any) => e.type === "turn.completed")).toBe(true);
    // Live pushes resume after the resubscription.
    const ev = await c.turn(id, "after");
    expect(ev.at(-1)!.type).toBe("turn.completed");
  });

  test("garbage: non-JSON, schema-failing frame, stray response, unknown event; then a normal reply", async () => {
    const { c, ev } = await run("#scenario:garbage");
    expect(c.rawLines).toContain("Warning: this is not JSON {{{");
    expect(c.frames.some((f) => f.id === "zc-nobody-asked-999")).toBe(true);
    expect(c.frames.some((f) => f.params?.seq === "not-a-number")).toBe(true);
    expect(ev.some((e) => e.type === "mystery.event")).toBe(true);
    expect(texts(ev)).toContain("Echo:");
    expect(ev.at(-1)!.payload.resultType).toBe("success");
  });

  test("unknown-request: a request the bridge must answer -32601, then a reply", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:unknown-request" });
    const req = await c.waitFor((f) => f.method === "zcode/unannouncedThing");
    c.send({ id: req.id, error: { code: -32601, message: "Method not found" } });
    await c.waitTurnEnd(id);
    expect(texts(c.events(id))).toContain("answered with error -32601");
  });

  test("huge-line: one line of bytes= before a normal reply", async () => {
    const { c, ev } = await run("#scenario:huge-line bytes=3000000");
    expect(c.rawLines.some((l) => l.startsWith('{"method":"log/noise"'))).toBe(true);
    expect(texts(ev)).toContain("Echo:");
  });

  test("flood: n deltas of size bytes", async () => {
    const { ev } = await run("#scenario:flood n=2000 size=64");
    const d = ev.filter((e) => e.payload.kind === "text_delta");
    expect(d).toHaveLength(2000);
    expect(d.every((e) => new TextEncoder().encode(e.payload.delta).length >= 64)).toBe(true);
  });

  test("flood ts=1 rate=: tagged with index@µs and paced", async () => {
    const t0 = Date.now();
    const { ev } = await run("#scenario:flood n=50 size=64 ts=1 rate=500");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(80);
    const d = ev.filter((e) => e.payload.kind === "text_delta").map((e) => e.payload.delta as string);
    expect(d).toHaveLength(50);
    d.forEach((x, i) => {
      const m = /^(\d+)@(\d+):/.exec(x)!;
      expect(Number(m[1])).toBe(i);
      expect(Math.abs(Number(m[2]) / 1000 - Date.now())).toBeLessThan(10_000);
    });
  });

  test("flood-tools: n progress events with growing cumulative tails", async () => {
    const { ev } = await run("#scenario:flood-tools n=300");
    const p = tools(ev).filter((x) => x.kind === "progress");
    expect(p).toHaveLength(300);
    expect(p[1].stdoutTail.startsWith(p[0].stdoutTail)).toBe(true);
  });
});
