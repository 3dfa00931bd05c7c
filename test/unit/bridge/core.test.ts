// BridgeCore against a scripted ZCode: every envelope takes its seq (types
// the bridge does not read included, so they never open a "gap"), holes are
// fetched with afterSeq, sessions are resumed in a new child with their MCP
// servers and model choice, and the small reads around turns.
import { describe, expect, test } from "bun:test";
import { Turn } from "../../../src/bridge/turn.ts";
import { CREATE_SETTINGS, GLM, settings } from "../support/bridge-fixtures.ts";
import { fakeCore, tick, zcodeError } from "../support/core-fakes.ts";

const delta = (text: string) => ({ kind: "text_delta", delta: text });

/** A registered, subscribed session (baseline seq 0). */
async function subscribed(opts: Parameters<typeof fakeCore>[0] = {}) {
  const f = fakeCore(opts);
  const s = f.core.register("s1", "/w", settings(CREATE_SETTINGS), 1, { title: "T" });
  await f.core.ensureSubscribed(s);
  return { ...f, s };
}

async function shown(f: Awaited<ReturnType<typeof subscribed>>): Promise<string> {
  await f.core.sink.flush("s1");
  return f.editor.text();
}

describe("event intake", () => {
  test("events are applied in seq order, once, whatever order they arrive in", async () => {
    const f = await subscribed();
    f.zcode.emit("model.streaming", delta("b"), { seq: 2 });
    f.zcode.emit("model.streaming", delta("c"), { seq: 3 });
    f.zcode.emit("model.streaming", delta("a"), { seq: 1 });
    f.zcode.emit("model.streaming", delta("b"), { seq: 2 });
    f.zcode.emit("model.streaming", delta("d"), { seq: 4 });
    expect(await shown(f)).toBe("abcd");
    expect(f.s.order.last).toBe(4);
  });

  test("types the bridge does not read, and payloads it cannot read, still take their seq: no gap, no resubscribe", async () => {
    const f = await subscribed();
    const subscribes = () => f.zcode.methods().filter((m) => m === "session/subscribe").length;
    const before = subscribes();
    f.zcode.emit("session.resumed", { messageCount: 15 });
    f.zcode.emit("session.updated", { hookEventName: "SessionStart" });
    f.zcode.emit("turn.steerQueued", { pendingInputId: "p1" });
    f.zcode.emit("checkpoint.created", { checkpointId: "cp_1" });
    f.zcode.emit("streamRecovery.updated", { anchorId: "a" });
    f.zcode.emit("model.streaming", { delta: "no kind" });
    f.zcode.emit("model.streaming", delta("shown"));
    await tick(5);
    expect(await shown(f)).toBe("shown");
    expect(f.s.order.last).toBe(7);
    expect(f.s.order.hasGap).toBe(false);
    expect(subscribes()).toBe(before);
  });

  test("a hole is fetched with afterSeq; the subscribe answer's raw envelopes fill it", async () => {
    const f = await subscribed();
    f.zcode.answers["session/subscribe"] = (p: { afterSeq?: number }) => ({
      eventSeq: 3,
      events: [
        { eventId: "e2", sessionId: "s1", seq: 2, timestamp: 1, type: "model.streaming", payload: delta("b") },
        { eventId: "x", sessionId: "other", seq: 9, timestamp: 1, type: "model.streaming", payload: delta("not ours") },
        "not an envelope",
        ...(p.afterSeq === 1 ? [] : [{ sessionId: "s1", seq: 1, type: "model.streaming", payload: delta("WRONG") }]),
      ],
    });
    f.zcode.emit("model.streaming", delta("a"), { seq: 1 });
    f.zcode.emit("model.streaming", delta("c"), { seq: 3 });
    await tick(5);
    expect(f.zcode.calls.at(-1)).toEqual({ method: "session/subscribe", params: { sessionId: "s1", afterSeq: 1 } });
    expect(await shown(f)).toBe("abc");
  });

  test("a hole resubscribing cannot fill is skipped rather than waited on", async () => {
    const f = await subscribed();
    f.zcode.emit("model.streaming", delta("a"), { seq: 1 });
    f.zcode.emit("model.streaming", delta("c"), { seq: 3 });
    await tick(5);
    expect(await shown(f)).toBe("ac");
    expect(f.s.order.hasGap).toBe(false);
  });

  test("a subscription without eventSeq: the first event seen is the baseline (old turns are not replayed)", async () => {
    const f = fakeCore();
    f.zcode.answers["session/subscribe"] = { events: [] };
    const s = f.core.register("s1", "/w", undefined, 1);
    await f.core.ensureSubscribed(s);
    f.zcode.emit("model.streaming", delta("x"), { seq: 41 });
    f.zcode.emit("model.streaming", delta("y"), { seq: 42 });
    await f.core.sink.flush("s1");
    expect(f.editor.text()).toBe("xy");
    expect(s.order.last).toBe(42);
  });

  test("the first subscription starts at ZCode's current seq; later ones ask for what followed", async () => {
    const f = fakeCore();
    f.zcode.answers["session/subscribe"] = { eventSeq: 8, events: [] };
    const s = f.core.register("s1", "/w", undefined, 1);
    await f.core.subscribe(s);
    await f.core.subscribe(s);
    expect(f.zcode.calls.map((c) => c.params)).toEqual([{ sessionId: "s1" }, { sessionId: "s1", afterSeq: 8 }]);
  });

  test("a forgotten session hears nothing more", async () => {
    const f = await subscribed();
    f.core.forget("s1");
    f.zcode.emit("model.streaming", delta("late"), { seq: 1 });
    expect(await shown(f)).toBe("");
    expect(f.core.registry.get("s1")).toBeUndefined();
  });
});

describe("activation", () => {
  test("after the child died, the next use resumes the session with its workspace and MCP servers", async () => {
    const mcp = [{ name: "fs", command: "mcp-fs", args: [], env: [] }];
    const f = fakeCore();
    const s = f.core.register("s1", "/w", settings(CREATE_SETTINGS), 1, { mcpServers: mcp });
    await f.core.ensureActive(s);
    expect(f.zcode.methods()).toEqual([]);
    f.zcode.exit();
    expect(s.generation).toBe(0);
    f.zcode.answers["session/resume"] = { session: { sessionId: "s1" }, settings: CREATE_SETTINGS };
    await Promise.all([f.core.ensureActive(s), f.core.ensureActive(s)]);
    expect(f.zcode.calls).toEqual([{ method: "session/resume", params: { sessionId: "s1", workspace: "/w", mcpServers: mcp } }]);
    expect(s.generation).toBe(2);
  });

  test("a resumed session that came back with another model gets the user's choice again", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", settings(CREATE_SETTINGS), 1);
    s.modelChoice = { providerId: "openrouter", modelId: "z-ai/glm-5.3", options: { reasoningLevel: "high" } };
    f.zcode.exit();
    f.zcode.answers["session/resume"] = { session: { sessionId: "s1" }, settings: CREATE_SETTINGS };
    await f.core.ensureActive(s);
    expect(f.zcode.calls.at(-1)).toEqual({ method: "session/setModel", params: { sessionId: "s1", model: s.modelChoice } });
  });

  test("no second setModel when the resumed model is the chosen one", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", settings(CREATE_SETTINGS), 1);
    s.modelChoice = { providerId: GLM.ref.providerId, modelId: GLM.ref.modelId, options: { reasoningLevel: "max" } };
    f.zcode.exit();
    f.zcode.answers["session/resume"] = { session: { sessionId: "s1" }, settings: CREATE_SETTINGS };
    await f.core.ensureActive(s);
    expect(f.zcode.methods()).toEqual(["session/resume"]);
  });

  test("evicted by ZCode (-32004): resumed and the call retried once", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", undefined, 1);
    let reads = 0;
    f.zcode.answers["session/read"] = () => (++reads === 1 ? zcodeError(-32004, "Session is not active: s1", "session/read") : { session: { sessionId: "s1" } });
    const r = await f.core.withActive(s, () => f.zcode.api.read("s1"));
    expect(r.session.sessionId).toBe("s1");
    expect(f.zcode.methods()).toEqual(["session/read", "session/resume", "session/read"]);
  });

  test("-32004 'Session not found' is not an eviction: no resume, the error goes on", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", undefined, 1);
    f.zcode.answers["session/read"] = zcodeError(-32004, "Session not found: s1", "session/read");
    await expect(f.core.withActive(s, () => f.zcode.api.read("s1"))).rejects.toThrow("Session not found");
    expect(f.zcode.methods()).toEqual(["session/read"]);
  });

  test("a new child numbers the session's events afresh: the next subscription starts at ZCode's eventSeq as is", async () => {
    const f = await subscribed();
    f.zcode.emit("model.streaming", delta("old "), { seq: 1 });
    f.zcode.emit("model.streaming", delta("child "), { seq: 2 });
    f.zcode.exit();
    f.zcode.answers["session/subscribe"] = { eventSeq: 0, events: [] };
    await f.core.ensureSubscribed(f.s);
    expect(f.zcode.calls.at(-1)).toEqual({ method: "session/subscribe", params: { sessionId: "s1" } });
    f.zcode.emit("model.streaming", delta("new"), { seq: 1 });
    expect(await shown(f)).toBe("old child new");
    expect(f.s.order.last).toBe(1);
  });

  test("other errors are not retried", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", undefined, 1);
    f.zcode.answers["session/read"] = zcodeError(-32010, "A prompt is already running for this session");
    await expect(f.core.withActive(s, () => f.zcode.api.read("s1"))).rejects.toThrow("already running");
    expect(f.zcode.methods()).toEqual(["session/read"]);
  });

  test("registering an open session again keeps it, its model catalogue and its subscription state", () => {
    const f = fakeCore();
    const many = { ...CREATE_SETTINGS, model: { ...CREATE_SETTINGS.model, available: [GLM, { ref: { providerId: "p", modelId: "m" }, label: "M" }] } };
    const s = f.core.register("s1", "/w", settings(many), 1);
    const again = f.core.register("s1", "/w", settings(CREATE_SETTINGS), 2);
    expect(again).toBe(s);
    expect(s.generation).toBe(2);
    expect(s.options.model?.choices.map((c) => c.value)).toEqual(["builtin:zai-coding-plan/GLM-5.3", "p/m"]);
    // Another cwd is another session state.
    const moved = f.core.register("s1", "/elsewhere", undefined, 2);
    expect(moved).not.toBe(s);
    expect(s.closed).toBe(true);
  });
});

describe("reads around turns", () => {
  test("refreshAfterTurn: a mode changed behind our back, the title, the context in use (window from the model when null)", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", settings(CREATE_SETTINGS), 1, { title: "Old" });
    f.zcode.answers["session/read"] = {
      session: { sessionId: "s1", title: "New title" },
      settings: { ...CREATE_SETTINGS, mode: { current: "plan" } },
      projection: { status: "idle", contextUsed: 5000, contextWindow: null },
    };
    await f.core.refreshAfterTurn(s);
    await f.core.sink.flush("s1");
    expect(f.editor.kinds()).toEqual(["config_option_update", "current_mode_update", "session_info_update", "usage_update"]);
    expect(f.editor.updates().slice(1)).toEqual([
      { sessionUpdate: "current_mode_update", currentModeId: "plan" },
      { sessionUpdate: "session_info_update", title: "New title" },
      { sessionUpdate: "usage_update", used: 5000, size: 200000 },
    ]);
    // Nothing changed since: nothing sent.
    await f.core.refreshAfterTurn(s);
    await f.core.sink.flush("s1");
    expect(f.editor.updates()).toHaveLength(4);
  });

  test("refreshAfterTurn does not wait long for a read that hangs", async () => {
    const f = fakeCore({ timings: { endReadMs: 20 } });
    const s = f.core.register("s1", "/w", undefined, 1);
    f.zcode.answers["session/read"] = () => new Promise(() => {});
    const t0 = Date.now();
    await f.core.refreshAfterTurn(s);
    expect(Date.now() - t0).toBeLessThan(1000);
  });

  test("waitIdle polls session/read until ZCode says idle", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", undefined, 1);
    let reads = 0;
    f.zcode.answers["session/read"] = () => ({ session: { sessionId: "s1" }, projection: { status: ++reads < 3 ? "running" : "idle" } });
    expect(await f.core.waitIdle(s, 1000)).toBe(true);
    expect(reads).toBe(3);
  });

  test("waitIdle gives up when the budget is spent or the waiter is gone", async () => {
    const f = fakeCore();
    const s = f.core.register("s1", "/w", undefined, 1);
    f.zcode.answers["session/read"] = { session: { sessionId: "s1" }, projection: { status: "running" } };
    expect(await f.core.waitIdle(s, 30)).toBe(false);
    const reads = f.zcode.methods().length;
    expect(await f.core.waitIdle(s, 10_000, () => true)).toBe(false);
    expect(f.zcode.methods().length).toBe(reads);
  });

  test("events of a running turn go to the turn, others are applied idle", async () => {
    const f = await subscribed();
    f.zcode.emit("session.titleUpdated", { title: "Idle title" });
    const turn = new Turn(f.core, f.s, { text: "hi", attachments: [] });
    const answer = turn.run();
    for (let i = 0; i < 100 && !f.zcode.methods().includes("session/send"); i++) await tick(1);
    f.zcode.emit("turn.started");
    f.zcode.emit("turn.completed", { resultType: "success" });
    expect((await answer).stopReason).toBe("end_turn");
    expect(f.editor.updates()[0]).toEqual({ sessionUpdate: "session_info_update", title: "Idle title" });
  });
});
