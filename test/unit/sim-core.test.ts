// The simulator over real pipes: core methods, turns, personalities, framing.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { ensureSimBuilt, type Frame, SIM_BIN, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
function sim(opts: ConstructorParameters<typeof SimClient>[1] = {}, dir = tempDir()): SimClient {
  const c = new SimClient(dir, opts);
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function seqsContiguous(events: Frame[]): boolean {
  return events.every((e, i) => i === 0 || e.seq === events[i - 1]!.seq + 1);
}

describe("invocation", () => {
  test("--version prints the personality's bare version", () => {
    expect(Bun.spawnSync([SIM_BIN, "--version"]).stdout.toString()).toBe("0.15.3\n");
    const p = Bun.spawnSync([SIM_BIN, "--version"], { env: { ...process.env, ZCODE_SIM_VERSION: "0.16.2" } });
    expect(p.stdout.toString()).toBe("0.16.2\n");
    expect(Bun.spawnSync([SIM_BIN, "--sim-version", "0.14.8", "--version"]).stdout.toString()).toBe("0.14.8\n");
  });

  test("anything but app-server --stdio prints usage and exits 2", () => {
    const p = Bun.spawnSync([SIM_BIN, "serve"]);
    expect(p.exitCode).toBe(2);
    expect(p.stderr.toString()).toContain("usage: zcode-sim app-server --stdio");
    expect(p.stdout.toString()).toBe("");
  });

  test("exits 0 when stdin closes", async () => {
    const c = sim();
    await c.create();
    c.closeStdin();
    expect(await c.exited()).toBe(0);
  });

  test("exits when stdin closes even mid-turn", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=1000" });
    await c.waitEvent(id, "model.streaming");
    c.closeStdin();
    expect(await c.exited()).toBe(0);
  });
});

test("exits within a few seconds of stdin EOF even when nobody reads its stdout", async () => {
  const p = Bun.spawn([SIM_BIN, "app-server", "--stdio"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
    env: { ...process.env, ZCODE_SIM_STATE_DIR: tempDir() },
  });
  const w = (o: unknown) => {
    p.stdin.write(`${JSON.stringify(o)}\n`);
    p.stdin.flush();
  };
  // Read only until the session exists, then stop reading while a flood fills the pipe.
  w({ id: 1, method: "session/create", params: { workspace: { workspacePath: "/w", workspaceKey: "/w" } } });
  const reader = p.stdout.getReader();
  let text = "";
  let sid = "";
  while (!sid) {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
    for (const line of text.split("\n").slice(0, -1)) {
      const f = JSON.parse(line);
      if (f.method === "session/requestRuntimePreferences") w({ id: f.id, result: {} });
      if (f.id === 1) sid = f.result.session.sessionId;
    }
  }
  w({ id: 2, method: "session/subscribe", params: { sessionId: sid } });
  w({ id: 3, method: "session/send", params: { sessionId: sid, content: "#scenario:flood n=1000000 size=200" } });
  await Bun.sleep(200);
  const t0 = Date.now();
  p.stdin.end();
  expect(await p.exited).toBe(0);
  expect(Date.now() - t0).toBeLessThan(4000);
});

describe("framing", () => {
  test("a request carrying jsonrpc is answered -32600; a notification is only logged", async () => {
    const c = sim();
    c.send({ jsonrpc: "2.0", id: 7, method: "session/list", params: {} });
    const r = await c.waitFor((f) => f.id === 7);
    expect(r.error).toEqual({ code: -32600, message: "jsonrpc field not allowed" });
    c.send({ jsonrpc: "2.0", method: "session/stop", params: { sessionId: "x" } });
    const ok = await c.request("session/list", {});
    expect(ok.result.sessions).toEqual([]);
    expect(c.stderr).toContain("jsonrpc");
  });

  test("nothing it writes carries a jsonrpc field; garbage input is skipped", async () => {
    const c = sim();
    c.sendRaw("this is not json");
    c.sendRaw("[1,2,3]");
    c.send({ id: 9003, method: "no/such/method", params: {} });
    expect((await c.waitFor((f) => f.id === 9003)).error.code).toBe(-32601);
    const id = await c.subscribed();
    await c.turn(id, "hello");
    for (const f of c.frames) expect("jsonrpc" in f).toBe(false);
  });

  test("session/create waits for the answer to session/requestRuntimePreferences", async () => {
    const c = sim({ autoPreferences: false });
    const pending = c.request("session/create", { workspace: { workspacePath: "/tmp/ws", workspaceKey: "/tmp/ws" } });
    const ask = await c.waitFor((f) => f.method === "session/requestRuntimePreferences");
    expect(ask.params.workspace.workspacePath).toBe("/tmp/ws");
    await Bun.sleep(50);
    expect(c.frames.some((f) => f.id === 1 && !f.method)).toBe(false);
    c.send({ id: ask.id, result: { memoryEnabled: false } });
    const r = await pending;
    expect(r.result.session.sessionId).toMatch(/^sess_/);
  });
});

describe("sessions", () => {
  test("create, read, list (filtered, newest first), messages", async () => {
    const c = sim();
    const created = await c.call("session/create", { workspace: { workspacePath: "/w/a", workspaceKey: "/w/a" }, mode: "plan" });
    expect(created.session).toMatchObject({ title: "" });
    expect(created.session.traceId).toBeString();
    expect(created.settings.mode.current).toBe("plan");
    expect(created.settings.thoughtLevel.available.map((l: any) => l.value)).toEqual(["low", "medium", "high", "max"]);
    const a = created.session.sessionId;
    const b = await c.create("/w/b");
    const a2 = await c.create("/w/a");
    const read = await c.call("session/read", { sessionId: a });
    expect(read.projection).toMatchObject({ status: "idle", mode: "plan", turnCount: 0, contextWindow: 200000 });
    expect(read.projection.revision).toBeNumber();
    expect(read.todos).toEqual([]);
    expect(read.goal).toBeNull();
    expect(read.session.workspace).toEqual({ workspacePath: "/w/a", workspaceKey: "/w/a" });
    const list = await c.call("session/list", { workspace: { workspacePath: "/w/a", workspaceKey: "/w/a" } });
    expect(list.sessions.map((s: any) => s.sessionId)).toEqual([a2, a]);
    expect(list.sessions[0]).toMatchObject({ status: "idle", turnCount: 0 });
    expect(typeof list.sessions[0].createdAt).toBe("number");
    const all = await c.call("session/list", {});
    expect(all.sessions.map((s: any) => s.sessionId).sort()).toEqual([a, a2, b].sort());
    expect(await c.call("session/messages", { sessionId: a })).toEqual({ messages: [], hasMore: false });
  });

  test("unknown session -32002 with data.sessionId; bad params -32602", async () => {
    const c = sim();
    const r = await c.request("session/read", { sessionId: "sess_nope" });
    expect(r.error.code).toBe(-32002);
    expect(r.error.data).toEqual({ sessionId: "sess_nope" });
    expect((await c.request("session/create", {})).error.code).toBe(-32602);
    expect((await c.request("session/create", { workspace: { workspacePath: "/x" }, mode: "warp" })).error.code).toBe(-32602);
    expect((await c.request("session/read", {})).error.code).toBe(-32602);
  });

  test("sessions persist across processes; resume is needed before use (-32004)", async () => {
    const dir = tempDir();
    const c1 = sim({}, dir);
    const id = await c1.subscribed("/w/p");
    await c1.turn(id, "remember me please");
    await c1.close();
    const c2 = sim({}, dir);
    const list = await c2.call("session/list", { workspace: { workspacePath: "/w/p", workspaceKey: "/w/p" } });
    expect(list.sessions).toHaveLength(1);
    expect(list.sessions[0]).toMatchObject({ sessionId: id, title: "remember me please", turnCount: 1, status: "idle" });
    const before = await c2.request("session/read", { sessionId: id });
    expect(before.error).toMatchObject({ code: -32004, message: "Session is not active" });
    const resumed = await c2.call("session/resume", { sessionId: id, workspace: { workspacePath: "/w/p", workspaceKey: "/w/p" } });
    expect(resumed.session).toMatchObject({ sessionId: id, title: "remember me please" });
    expect(resumed.settings.mode.current).toBe("build");
    const msgs = await c2.call("session/messages", { sessionId: id });
    expect(msgs.messages.map((m: any) => m.info.role)).toEqual(["user", "assistant"]);
    const sub = await c2.call("session/subscribe", { sessionId: id, afterSeq: 0 });
    expect(sub.events.length).toBeGreaterThan(3);
    expect(sub.eventSeq).toBe(sub.events.at(-1).seq);
  });
});

test("after a SIGKILL mid-turn, the next process never reuses a seq the client saw", async () => {
  const dir = tempDir();
  const c1 = sim({}, dir);
  const id = await c1.subscribed("/w/k");
  await c1.call("session/send", { sessionId: id, content: "#scenario:slow n=1000" });
  await c1.waitFor(() => c1.events(id).length >= 8);
  c1.proc.kill("SIGKILL");
  await c1.exited();
  const seen = Math.max(...c1.events(id).map((e) => e.seq));
  const c2 = sim({}, dir);
  await c2.call("session/resume", { sessionId: id, workspace: { workspacePath: "/w/k", workspaceKey: "/w/k" } });
  const sub = await c2.call("session/subscribe", { sessionId: id, afterSeq: 0 });
  expect(sub.eventSeq).toBeGreaterThanOrEqual(seen);
  expect(sub.events.map((e: Frame) => e.seq)).toEqual(Array.from({ length: sub.eventSeq }, (_, i) => i + 1));
  const ev = await c2.turn(id, "after the kill");
  expect(ev[0]!.seq).toBe(sub.eventSeq + 1);
});

describe("turns", () => {
  test("default: started first, reasoning then Echo text, completed, then session.updated; seq increasing", async () => {
    const c = sim();
    const id = await c.subscribed();
    const ev = await c.turn(id, "hi there");
    await c.waitEvent(id, "session.updated");
    const all = c.events(id);
    expect(all[0]!.type).toBe("turn.started");
    expect(all[0]!.payload).toMatchObject({ inputSource: "user" });
    expect(seqsContiguous(all)).toBe(true);
    const text = ev.filter((e) => e.payload.kind === "text_delta").map((e) => e.payload.delta).join("");
    expect(text).toBe("Echo: hi there");
    expect(ev.some((e) => e.payload.kind === "reasoning_delta")).toBe(true);
    const done = ev.at(-1)!;
    expect(done.type).toBe("turn.completed");
    expect(done.payload.resultType).toBe("success");
    expect(done.payload.usage.totalTokens).toBe(done.payload.usage.inputTokens + done.payload.usage.outputTokens);
    expect(all.at(-1)!.type).toBe("session.updated");
    expect(all.at(-1)!.payload.contextWindow).toBe(200000);
    expect("turnId" in all[0]!).toBe(false);
    const read = await c.call("session/read", { sessionId: id });
    expect(read.session.title).toBe("hi there");
    expect(read.projection.turnCount).toBe(1);
  });

  test("a send without subscribe runs the turn but pushes nothing; afterSeq returns it", async () => {
    const c = sim();
    const id = await c.create();
    await c.call("session/send", { sessionId: id, content: "quiet" });
    for (let i = 0; i < 100; i++) {
      const r = await c.call("session/read", { sessionId: id });
      if (r.projection.status === "idle" && r.projection.turnCount === 1) break;
      await Bun.sleep(10);
    }
    expect(c.events(id)).toHaveLength(0);
    const sub = await c.call("session/subscribe", { sessionId: id, afterSeq: 0, includeSnapshot: true });
    expect(sub.events[0].type).toBe("turn.started");
    expect(sub.events.some((e: any) => e.type === "turn.completed")).toBe(true);
    expect(sub.snapshot.messages).toHaveLength(2);
    expect(sub.snapshot.projection.status).toBe("idle");
  });

  test("busy: send while running → 1308; stop (notification) ends it cancelled", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=500" });
    const busy = await c.request("session/send", { sessionId: id, content: "again" });
    expect(busy.error).toMatchObject({ code: 1308, message: "prompt is running" });
    await c.waitEvent(id, "model.streaming");
    c.notify("session/stop", { sessionId: id });
    const end = await c.waitTurnEnd(id);
    expect(end.payload.resultType).toBe("cancelled");
    const read = await c.call("session/read", { sessionId: id });
    expect(read.projection.status).toBe("idle");
  });

  test("stop as a request answers {}", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow" });
    expect(await c.call("session/stop", { sessionId: id })).toEqual({});
    expect((await c.waitTurnEnd(id)).payload.resultType).toBe("cancelled");
  });

  test("ignore-stop keeps streaming for ZCODE_SIM_STOP_IGNORE_MS, then ends cancelled", async () => {
    const c = sim({ env: { ZCODE_SIM_STOP_IGNORE_MS: "300" } });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:ignore-stop n=3" });
    await c.waitEvent(id, "model.streaming");
    const t0 = Date.now();
    c.notify("session/stop", { sessionId: id });
    const from = c.frames.length;
    const end = await c.waitTurnEnd(id, 5000);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(end.payload.resultType).toBe("cancelled");
    expect(c.frames.slice(from).filter((f) => f.params?.payload?.kind === "text_delta").length).toBeGreaterThan(1);
  });
});

describe("personalities", () => {
  const ids = async (c: SimClient) => ({ sessionId: await c.create() });

  test("0.14.7: session/subscribe and extensions → -32601", async () => {
    const c = sim({ env: { ZCODE_SIM_VERSION: "0.14.7" } });
    const p = await ids(c);
    expect((await c.request("session/subscribe", p)).error.code).toBe(-32601);
    expect((await c.request("session/fork", p)).error.code).toBe(-32601);
    expect((await c.request("session/read", p)).result).toBeDefined();
  });

  test("0.14.8: no workspace/*, steer or rewind; fork, goal, setMode work", async () => {
    const c = sim({ env: { ZCODE_SIM_VERSION: "0.14.8" } });
    const p = await ids(c);
    expect((await c.request("workspace/list", {})).error.code).toBe(-32601);
    expect((await c.request("session/steer", { ...p, content: "x" })).error.code).toBe(-32601);
    expect((await c.request("session/rewind", p)).error.code).toBe(-32601);
    expect((await c.request("session/goal", { ...p, action: "show" })).result).toEqual({ goal: null });
    expect((await c.request("session/setMode", { ...p, mode: "yolo" })).result).toEqual({ mode: { current: "yolo" } });
    expect((await c.request("session/subscribe", p)).result.eventSeq).toBe(0);
  });

  test("0.15.3: everything, workspace/list included", async () => {
    const c = sim();
    const p = await ids(c);
    expect((await c.request("session/steer", { ...p, content: "x" })).error.code).toBe(1309);
    expect((await c.request("session/rewind", p)).error.code).toBe(1410);
    expect((await c.request("workspace/list", {})).result.workspaces[0]).toMatchObject({ workspacePath: "/tmp/ws", sessionCount: 1 });
  });

  test("0.16.2: steer and rewind → -32601; turnId on the envelope", async () => {
    const c = sim({ args: ["app-server", "--stdio", "--sim-version", "0.16.2"] });
    const id = await c.subscribed();
    expect((await c.request("session/steer", { sessionId: id, content: "x" })).error.code).toBe(-32601);
    expect((await c.request("session/rewind", { sessionId: id })).error.code).toBe(-32601);
    const ev = await c.turn(id, "hello");
    expect(ev[0]!.turnId).toBe(ev[0]!.payload.turnId);
    expect(ev.every((e) => e.turnId === ev[0]!.turnId)).toBe(true);
  });
});

describe("record", () => {
  test("ZCODE_SIM_RECORD gets every received line as {t, line}", async () => {
    const file = join(tempDir(), "rec.jsonl");
    const c = sim({ env: { ZCODE_SIM_RECORD: file } });
    await c.create();
    c.sendRaw("not json at all");
    await c.request("session/list", {});
    expect(existsSync(file)).toBe(true);
    const rec = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
    expect(rec.every((r) => typeof r.t === "number" && typeof r.line === "string")).toBe(true);
    const lines = rec.map((r) => r.line);
    expect(JSON.parse(lines[0]).method).toBe("session/create");
    expect(lines).toContain("not json at all");
    expect(lines.some((l) => l.includes("session/requestRuntimePreferences") === false && l.includes('"result"'))).toBe(true);
    expect(JSON.parse(lines.at(-1)).method).toBe("session/list");
  });
});
