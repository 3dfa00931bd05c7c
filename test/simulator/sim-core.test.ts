// The simulator over real pipes: invocation and launch checks, framing, the
// serial request queue, strict params, sessions, runtime preferences,
// persistence and seq spaces, personalities.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
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

const WS = (p: string) => ({ workspacePath: p, workspaceKey: p });

describe("invocation", () => {
  test("--version prints the personality's bare version (0.16.9 by default)", () => {
    expect(Bun.spawnSync([SIM_BIN, "--version"]).stdout.toString()).toBe("0.16.9\n");
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

  test("exits 0 when stdin closes, even mid-turn", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=1000" });
    await c.waitEvent(id, "model.streaming");
    c.closeStdin();
    expect(await c.exited()).toBe(0);
  });

  test("ZCODE_SIM_BOOT_MS delays --version and the first answer", async () => {
    const t0 = Date.now();
    const v = Bun.spawnSync([SIM_BIN, "--version"], { env: { ...process.env, ZCODE_SIM_BOOT_MS: "300" } });
    expect(v.stdout.toString()).toBe("0.16.9\n");
    expect(Date.now() - t0).toBeGreaterThanOrEqual(280);
    const c = sim({ env: { ZCODE_SIM_BOOT_MS: "300" } });
    const t1 = Date.now();
    await c.call("session/list", {});
    expect(Date.now() - t1).toBeGreaterThanOrEqual(250);
  });

  test("ZCODE_SIM_REQUIRE_PROVIDER_CONFIG: app-server dies at boot without the built-in provider config", async () => {
    const env = { ...process.env, ZCODE_SIM_STATE_DIR: tempDir(), ZCODE_SIM_REQUIRE_PROVIDER_CONFIG: "1" };
    const bad = Bun.spawnSync([SIM_BIN, "app-server", "--stdio"], { env, stdin: "ignore" });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr.toString()).toContain("无法定位 CLI ZCode Built-in Provider Config");
    const missing = Bun.spawnSync([SIM_BIN, "app-server", "--stdio"], {
      env: { ...env, ZCODE_BUILTIN_PROVIDER_CONFIG_FILE: "/nonexistent/zcode-builtin.json" },
      stdin: "ignore",
    });
    expect(missing.exitCode).toBe(1);
    // --version still works, as the real one.
    expect(Bun.spawnSync([SIM_BIN, "--version"], { env }).stdout.toString()).toBe("0.16.9\n");
    const file = join(tempDir(), "zcode-builtin.json");
    writeFileSync(file, "{}");
    const c = sim({ env: { ZCODE_SIM_REQUIRE_PROVIDER_CONFIG: "1", ZCODE_BUILTIN_PROVIDER_CONFIG_FILE: file } });
    expect((await c.call("session/list", {})).sessions).toEqual([]);
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
  w({ id: 1, method: "session/create", params: { workspace: WS("/w") } });
  const reader = p.stdout.getReader();
  let text = "";
  let sid = "";
  while (!sid) {
    const { value } = await reader.read();
    text += new TextDecoder().decode(value);
    for (const line of text.split("\n").slice(0, -1)) {
      const f = JSON.parse(line);
      if (f.id === 1) sid = f.result.session.sessionId;
    }
  }
  w({ id: 2, method: "session/subscribe", params: { sessionId: sid, deliveryKind: "desktop-continuous" } });
  w({ id: 3, method: "session/send", params: { sessionId: sid, content: "#scenario:flood n=1000000 size=200" } });
  await Bun.sleep(200);
  const t0 = Date.now();
  p.stdin.end();
  expect(await p.exited).toBe(0);
  expect(Date.now() - t0).toBeLessThan(4000);
});

describe("framing", () => {
  test("a frame carrying jsonrpc is an invalid message: -32600 with id invalid-message, dropped", async () => {
    const c = sim();
    c.send({ jsonrpc: "2.0", id: 7, method: "session/list", params: {} });
    const r = await c.waitFor((f) => f.id === "invalid-message");
    expect(r.error).toMatchObject({ code: -32600, message: "Invalid ZCode Protocol message" });
    expect(JSON.stringify(r.error.data.issues)).toContain("jsonrpc");
    c.send({ jsonrpc: "2.0", method: "session/stop", params: { sessionId: "x" } });
    await c.waitFor((f) => f.id === "invalid-message", 2000, c.frames.indexOf(r) + 1);
    const ok = await c.request("session/list", {});
    expect(ok.result.sessions).toEqual([]);
    expect(c.frames.some((f) => f.id === 7)).toBe(false);
  });

  test("bad JSON → parse-error; nothing it writes carries jsonrpc", async () => {
    const c = sim();
    c.sendRaw("this is not json");
    expect((await c.waitFor((f) => f.id === "parse-error")).error).toEqual({ code: -32700, message: "Parse error" });
    c.sendRaw("[1,2,3]");
    await c.waitFor((f) => f.id === "invalid-message");
    c.send({ id: 9003, method: "no/such/method", params: {} });
    expect((await c.waitFor((f) => f.id === 9003)).error).toEqual({ code: -32601, message: "Method not found: no/such/method" });
    const id = await c.subscribed();
    await c.turn(id, "hello");
    for (const f of c.frames) expect("jsonrpc" in f).toBe(false);
  });

  test("notifications are ignored: session/stop without an id does not stop the turn", async () => {
    const c = sim();
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=60" });
    await c.waitEvent(id, "model.streaming");
    c.notify("session/stop", { sessionId: id });
    await Bun.sleep(150);
    expect(c.events(id).some((e) => e.type === "turn.completed")).toBe(false);
    expect(c.stderr).toContain("notification session/stop ignored");
    expect(await c.call("session/stop", { sessionId: id })).toEqual({});
    expect((await c.waitTurnEnd(id)).payload).toMatchObject({ resultType: "cancelled", response: "", tokenCount: 0, toolCallCount: 0 });
  });

  test("requests run strictly serially; session/stop bypasses the queue", async () => {
    const c = sim({ env: { ZCODE_SIM_HANDLER_DELAY_MS: "150" } });
    const id = await c.subscribed();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=400" });
    const t0 = Date.now();
    c.send({ id: "a", method: "session/read", params: { sessionId: id, messageLimit: 1 } });
    c.send({ id: "b", method: "session/list", params: {} });
    c.send({ id: "c", method: "session/read", params: { sessionId: id, messageLimit: 1 } });
    c.send({ id: "stop", method: "session/stop", params: { sessionId: id } });
    const stop = await c.waitFor((f) => f.id === "stop", 3000);
    const tStop = Date.now() - t0;
    await c.waitFor((f) => f.id === "c", 3000);
    const order = c.frames.filter((f) => ["a", "b", "c", "stop"].includes(f.id) && !f.method).map((f) => f.id);
    expect(order.indexOf("a")).toBeLessThan(order.indexOf("b"));
    expect(order.indexOf("b")).toBeLessThan(order.indexOf("c"));
    // stop waited only until "c" had started, not for it (or the others) to finish.
    expect(order.indexOf("stop")).toBeLessThan(order.indexOf("c"));
    expect(stop.result).toEqual({});
    expect(tStop).toBeGreaterThanOrEqual(250);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(420);
  });
});

describe("strict params", () => {
  const msg = async (c: SimClient, method: string, params: unknown) => {
    const r = await c.request(method, params);
    expect(r.error?.code).toBe(-32602);
    return r.error.message as string;
  };

  test("session/create: workspace path and key required, unknown keys and wrong types rejected", async () => {
    const c = sim();
    expect(await msg(c, "session/create", {})).toBe("Invalid params — workspace: Required");
    expect(await msg(c, "session/create", { workspace: { workspacePath: "/x" } })).toBe(
      "Invalid params — workspace.workspaceKey: Required",
    );
    expect(await msg(c, "session/create", { workspace: WS("/x"), title: "t" })).toBe(
      "Invalid params — (root): Unrecognized key(s) in object: 'title'",
    );
    expect(await msg(c, "session/create", { workspace: { ...WS("/x"), extra: 1 } })).toContain(
      "workspace: Unrecognized key(s) in object: 'extra'",
    );
    expect(await msg(c, "session/create", { workspace: WS("/x"), mode: "warp" })).toContain("mode: Invalid enum value");
    expect(await msg(c, "session/create", { workspace: WS("/x"), mcpServers: [{ name: "fs", command: "x", args: [] }] })).toContain(
      "mcpServers.0: Invalid input",
    );
    expect(await msg(c, "session/create", { workspace: WS("/x"), sessionId: "sess_mine" })).toBe(
      "sessionId is only supported for imported history creates",
    );
    const ok = await c.request("session/create", {
      workspace: WS("/x"),
      mode: "plan",
      mcpServers: [
        { name: "fs", command: "mcp-fs", args: ["--root", "/x"], env: [{ name: "A", value: "1" }] },
        { name: "web", type: "http", url: "https://mcp.example.com", headers: [] },
      ],
      titleGenerationEnabled: false,
      persistence: "immediate",
    });
    expect(ok.result.session.mode).toBe("plan");
  });

  test("send, read, subscribe, setModel, stop: their schemas, strictly", async () => {
    const c = sim();
    const id = await c.create();
    expect(await msg(c, "session/send", { sessionId: id })).toBe("Invalid params — content: Required");
    expect(await msg(c, "session/send", { sessionId: id, content: "x", attachments: [1] })).toBe(
      "Invalid params — attachments.0: Expected object, received number",
    );
    expect(await msg(c, "session/send", { sessionId: id, content: ["x"] })).toBe(
      "Invalid params — content: Expected string, received array",
    );
    expect(await msg(c, "session/send", { sessionId: id, content: "x", priority: 1 })).toContain(
      "Unrecognized key(s) in object: 'priority'",
    );
    expect(await msg(c, "session/read", { sessionId: id, messageLimit: 0 })).toBe(
      "Invalid params — messageLimit: Number must be greater than 0",
    );
    expect(await msg(c, "session/subscribe", { sessionId: id })).toBe("Invalid params — deliveryKind: Required");
    expect(await msg(c, "session/subscribe", { sessionId: id, deliveryKind: "stream" })).toContain("deliveryKind: Invalid enum value");
    expect(
      await msg(c, "session/setModel", {
        sessionId: id,
        model: { providerId: "p", modelId: "m", options: { reasoningLevel: "max", effort: 1 } },
      }),
    ).toContain("model.options: Unrecognized key(s) in object: 'effort'");
    expect(await msg(c, "session/stop", { sessionId: id, force: true })).toContain("'force'");
    expect(await msg(c, "session/goal", { sessionId: id })).toBe("Invalid params — action: Required");
    expect(await msg(c, "session/setThoughtLevel", { sessionId: id })).toBe("thoughtLevel is required");
    // content may be empty.
    expect((await c.request("session/send", { sessionId: id, content: "" })).result.accepted).toBe(true);
  });

  test("methods need the session active here: -32004 Session is not active: <id>", async () => {
    const c = sim();
    for (const m of ["session/read", "session/messages", "session/send", "session/stop", "session/close", "session/setMode"]) {
      const r = await c.request(m, {
        sessionId: "sess_nope",
        ...(m === "session/send" ? { content: "x" } : m === "session/setMode" ? { mode: "plan" } : {}),
      });
      expect(r.error).toMatchObject({ code: -32004, message: "Session is not active: sess_nope" });
    }
    expect((await c.request("session/resume", { sessionId: "sess_nope" })).error).toMatchObject({
      code: -32004,
      message: "Session not found: sess_nope",
    });
  });
});

describe("sessions", () => {
  test("create → full snapshot; read → current model only; list filtered, newest first; messages", async () => {
    const c = sim();
    const created = await c.call("session/create", { workspace: WS("/w/a"), mode: "plan" });
    expect(created.protocol).toEqual({ name: "ZCode Protocol", version: 1 });
    expect(created.session).toMatchObject({ workspace: WS("/w/a"), sessionKind: "interactive", title: "", mode: "plan", status: "idle" });
    expect(created.settings.model.current).toEqual({
      providerId: "builtin:zai-coding-plan",
      modelId: "GLM-5.3",
      options: { reasoningLevel: "max" },
    });
    expect(created.settings.model.available.length).toBeGreaterThanOrEqual(5);
    expect(created.settings.model.available.every((m: any) => m.ref && !("modelId" in m))).toBe(true);
    expect(created.settings.thoughtLevel).toEqual({
      enabled: true,
      current: "max",
      defaultLevel: "max",
      available: [
        { value: "low", label: "Low" },
        { value: "high", label: "High" },
        { value: "max", label: "Max" },
      ],
    });
    expect(created.projection).toMatchObject({
      status: "idle",
      mode: "plan",
      turnCount: 0,
      contextWindow: 200000,
      pendingPermissions: [],
      activeToolCalls: [],
      backgroundJobs: [],
    });
    expect(created.runtime).toMatchObject({ eventSeq: 0, pendingRequestIds: [] });
    expect(created.messages).toEqual([]);
    const a = created.session.sessionId;
    const b = await c.create("/w/b");
    const a2 = await c.create("/w/a");
    const read = await c.call("session/read", { sessionId: a });
    expect(read.settings.model.available).toHaveLength(1);
    expect(read.settings.model.available[0].ref).toEqual({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" });
    const list = await c.call("session/list", { workspace: WS("/w/a") });
    expect(list.sessions.map((s: any) => s.sessionId)).toEqual([a2, a]);
    expect(list.sessions[0]).toMatchObject({ status: "idle", sessionKind: "interactive", workspace: WS("/w/a") });
    const all = await c.call("session/list", {});
    expect(all.sessions.map((s: any) => s.sessionId).sort()).toEqual([a, a2, b].sort());
    expect(await c.call("session/messages", { sessionId: a })).toEqual({ messages: [] });
  });

  test("a deferred session is listed only after its first prompt", async () => {
    const c = sim();
    const id = await c.create("/w/d", { persistence: "deferred" });
    expect((await c.call("session/list", {})).sessions).toEqual([]);
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    await c.turn(id, "first words");
    expect((await c.call("session/list", {})).sessions.map((s: any) => s.sessionId)).toEqual([id]);
  });

  test("session/close ends the live session only (server-operations.ts closeSession): still listed and resumable, here and after a restart", async () => {
    const dir = tempDir();
    const c = sim({}, dir);
    const id = await c.subscribed("/w/c");
    await c.turn(id, "keep this?");
    expect(await c.call("session/close", { sessionId: id })).toEqual({ closed: true });
    expect((await c.call("session/list", {})).sessions.map((s: any) => s.sessionId)).toEqual([id]);
    expect((await c.request("session/read", { sessionId: id })).error.message).toBe(`Session is not active: ${id}`);
    expect((await c.call("session/resume", { sessionId: id, workspace: WS("/w/c") })).session.sessionId).toBe(id);
    const c2 = sim({}, dir);
    expect((await c2.call("session/list", {})).sessions.map((s: any) => s.sessionId)).toEqual([id]);
    expect((await c2.call("session/resume", { sessionId: id, workspace: WS("/w/c") })).session.sessionId).toBe(id);
  });

  test("closing a draft leaves nothing: it never reached the store", async () => {
    const c = sim();
    const id = await c.create("/w/dc", { persistence: "deferred" });
    expect(await c.call("session/close", { sessionId: id })).toEqual({ closed: true });
    expect((await c.request("session/resume", { sessionId: id, workspace: WS("/w/dc") })).error.code).toBe(-32004);
  });

  test("resume of an active session returns its snapshot and ignores the rest", async () => {
    const c = sim();
    const id = await c.subscribed("/w/r");
    await c.turn(id, "hello");
    const n = c.frames.filter((f) => f.method === "session/requestRuntimePreferences").length;
    const r = await c.call("session/resume", { sessionId: id, workspace: WS("/elsewhere") });
    expect(r.session).toMatchObject({ sessionId: id, workspace: WS("/w/r"), title: "hello" });
    expect(r.settings.model.available.length).toBeGreaterThan(1);
    expect(r.messages.length).toBeGreaterThanOrEqual(2);
    await Bun.sleep(50);
    expect(c.frames.filter((f) => f.method === "session/requestRuntimePreferences").length).toBe(n);
  });

  test("a restarted CLI lists the conversation; resume starts a new seq space at 1", async () => {
    const dir = tempDir();
    const c1 = sim({}, dir);
    const id = await c1.subscribed("/w/p");
    await c1.turn(id, "remember me please");
    const seen = Math.max(...c1.events(id).map((e) => e.seq));
    expect(seen).toBeGreaterThan(5);
    await c1.close();
    const c2 = sim({}, dir);
    const list = await c2.call("session/list", { workspace: WS("/w/p") });
    expect(list.sessions).toHaveLength(1);
    expect(list.sessions[0]).toMatchObject({ sessionId: id, title: "remember me please", status: "idle" });
    expect((await c2.request("session/read", { sessionId: id })).error).toMatchObject({
      code: -32004,
      message: `Session is not active: ${id}`,
    });
    const resumed = await c2.call("session/resume", { sessionId: id });
    const prefs = await c2.waitFor((f) => f.method === "session/requestRuntimePreferences");
    expect(prefs.params).toEqual({ sessionId: id, scope: "runtime-materialization" });
    expect(resumed.session).toMatchObject({ sessionId: id, title: "remember me please" });
    expect(resumed.projection.turnCount).toBe(1);
    expect(resumed.runtime.eventSeq).toBe(1);
    const sub = await c2.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", afterSeq: 0 });
    expect(sub.events.map((e: Frame) => [e.seq, e.type])).toEqual([[1, "session.resumed"]]);
    expect(sub.events[0].payload).toMatchObject({ directory: "/w/p", messageCount: resumed.messages.length });
    const ev = await c2.turn(id, "after the restart");
    expect(ev[0]!.seq).toBe(2);
  });
});

describe("runtime preferences", () => {
  test("requested after the session/create answer, and on resume; the strict answer is accepted", async () => {
    const c = sim();
    const id = await c.create("/w/rp");
    const answerAt = c.frames.findIndex((f) => f.id === 1 && !f.method);
    const req = await c.waitFor((f) => f.method === "session/requestRuntimePreferences");
    expect(c.frames.indexOf(req)).toBeGreaterThan(answerAt);
    expect(req.id).toBe("server-1");
    expect(req.params).toEqual({ sessionId: id, scope: "runtime-materialization" });
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    const ev = await c.turn(id, "#scenario:env");
    expect(
      ev
        .filter((e) => e.payload.kind === "text_delta")
        .map((e) => e.payload.delta)
        .join(""),
    ).toContain('runtimePreferences={"nativeSearchEnhancementsEnabled":false');
  });

  test("-32601 means defaults; an invalid answer fails the next session/send with -32603", async () => {
    const c = sim({ autoPreferences: false });
    const a = (await c.call("session/create", { workspace: WS("/w/x") })).session.sessionId;
    const q1 = await c.waitFor((f) => f.method === "session/requestRuntimePreferences");
    c.send({ id: q1.id, error: { code: -32601, message: "Method not found" } });
    await Bun.sleep(30);
    expect((await c.request("session/send", { sessionId: a, content: "fine" })).result.accepted).toBe(true);

    const b = (await c.call("session/create", { workspace: WS("/w/y") })).session.sessionId;
    const q2 = await c.waitFor((f) => f.method === "session/requestRuntimePreferences" && f.params.sessionId === b);
    c.send({ id: q2.id, result: { memoryEnabled: false, theme: "dark" } });
    await Bun.sleep(30);
    const bad = await c.request("session/send", { sessionId: b, content: "x" });
    expect(bad.error.code).toBe(-32603);
    expect(bad.error.message).toContain("nativeSearchEnhancementsEnabled: Required");
    expect(bad.error.message).toContain("'theme'");
    expect(c.stderr).toContain("Invalid session/requestRuntimePreferences result");
    // Only the next send.
    expect((await c.request("session/send", { sessionId: b, content: "x" })).result.accepted).toBe(true);
  });

  test("a turn waits for the runtime preferences; fork inherits them without asking", async () => {
    const c = sim({ autoPreferences: false });
    const id = (await c.call("session/create", { workspace: WS("/w/z") })).session.sessionId;
    const q = await c.waitFor((f) => f.method === "session/requestRuntimePreferences");
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    await c.call("session/send", { sessionId: id, content: "waiting" });
    await Bun.sleep(100);
    expect(c.events(id).some((e) => e.type === "turn.started")).toBe(false);
    c.send({ id: q.id, result: { nativeSearchEnhancementsEnabled: true } });
    await c.waitTurnEnd(id);
    await c.waitIdle(id);
    const n = c.frames.filter((f) => f.method === "session/requestRuntimePreferences").length;
    await c.call("session/fork", { sessionId: id });
    await Bun.sleep(50);
    expect(c.frames.filter((f) => f.method === "session/requestRuntimePreferences").length).toBe(n);
  });
});

describe("personalities", () => {
  const ids = async (c: SimClient) => ({ sessionId: await c.create() });

  test("0.14.7: session/subscribe and extensions → -32601", async () => {
    const c = sim({ env: { ZCODE_SIM_VERSION: "0.14.7" } });
    const p = await ids(c);
    expect((await c.request("session/subscribe", { ...p, deliveryKind: "desktop-continuous" })).error.code).toBe(-32601);
    expect((await c.request("session/fork", p)).error).toEqual({ code: -32601, message: "Method not found: session/fork" });
    expect((await c.request("session/read", p)).result).toBeDefined();
  });

  test("0.14.8: no workspace/*, steer or rewind; goal and setMode work", async () => {
    const c = sim({ env: { ZCODE_SIM_VERSION: "0.14.8" } });
    const p = await ids(c);
    expect((await c.request("workspace/readPresentation", { workspace: WS("/tmp/ws") })).error.code).toBe(-32601);
    expect((await c.request("session/steer", { ...p, content: "x" })).error.code).toBe(-32601);
    expect((await c.request("session/goal", { ...p, action: "show" })).result.response).toBe(
      "No goal is set. Use /goal <objective> to set one.",
    );
    expect((await c.request("session/setMode", { ...p, mode: "yolo" })).result.settings.mode.current).toBe("yolo");
  });

  test("0.15.3: session/steer and session/rewind exist (0.15 behaviour)", async () => {
    const c = sim({ env: { ZCODE_SIM_VERSION: "0.15.3" } });
    const p = await ids(c);
    expect((await c.request("session/steer", { ...p, content: "x" })).error.code).toBe(1309);
    expect((await c.request("session/rewind", p)).error.code).toBe(1410);
    expect((await c.request("workspace/readPresentation", { workspace: WS("/tmp/ws") })).result.mode).toBe("build");
  });

  test("0.16.x: steer and rewind → -32601 Method not found; turnId on the envelope", async () => {
    const c = sim();
    const id = await c.subscribed();
    expect((await c.request("session/steer", { sessionId: id, content: "x" })).error).toEqual({
      code: -32601,
      message: "Method not found: session/steer",
    });
    expect((await c.request("session/rewind", { sessionId: id })).error).toEqual({
      code: -32601,
      message: "Method not found: session/rewind",
    });
    const ev = await c.turn(id, "hello");
    const started = ev.find((e) => e.type === "turn.started")!;
    expect(started.turnId).toMatch(/^turn_/);
    expect(
      ev.filter((e) => e.type !== "session.titleUpdated" && e.type !== "session.updated").every((e) => e.turnId === started.turnId),
    ).toBe(true);
  });
});

test("ZCODE_SIM_RECORD gets every received line as {t, line}", async () => {
  const file = join(tempDir(), "rec.jsonl");
  const c = sim({ env: { ZCODE_SIM_RECORD: file } });
  await c.create();
  c.sendRaw("not json at all");
  await c.request("session/list", {});
  expect(existsSync(file)).toBe(true);
  const rec = readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(rec.every((r) => typeof r.t === "number" && typeof r.line === "string")).toBe(true);
  const lines = rec.map((r) => r.line);
  expect(JSON.parse(lines[0]).method).toBe("session/create");
  expect(lines).toContain("not json at all");
  expect(lines.some((l) => l.includes('"server-1"') && l.includes('"result"'))).toBe(true);
  expect(JSON.parse(lines.at(-1)).method).toBe("session/list");
});
