// Sessions against a scripted ZCode: every envelope takes its seq (types
// the bridge does not read included, so they never open a "gap"), holes are
// fetched with afterSeq, sessions are resumed in a new child with their MCP
// servers and model choice, and the small reads around turns.
import { describe, expect, jest, test } from "bun:test";
import { refreshAfterTurn, waitIdle } from "../../../src/session/reads.ts";
import { DEFAULT_TIMINGS } from "../../../src/session/timings.ts";
import { Turn } from "../../../src/session/turn.ts";
import { CREATE_SETTINGS, GLM, settings } from "../support/bridge-fixtures.ts";
import { advance, fakeSession, tick, zcodeError } from "../support/session-fakes.ts";

const delta = (text: string) => ({ kind: "text_delta", delta: text });

/** A registered, subscribed session (baseline seq 0). */
async function subscribed(opts: Parameters<typeof fakeSession>[0] = {}) {
  const f = await fakeSession({ settings: settings(CREATE_SETTINGS), title: "T", ...opts });
  await f.s.intake.ensureSubscribed();
  return f;
}

async function shown(f: Awaited<ReturnType<typeof subscribed>>): Promise<string> {
  await f.s.flush();
  return f.editor.text();
}

/** CREATE_SETTINGS with a second model (two levels) the user can switch to. */
const OPENROUTER = {
  ref: { providerId: "openrouter", modelId: "z-ai/glm-5.3" },
  label: "GLM-5.3 (OpenRouter)",
  contextWindow: 128000,
  reasoning: {
    levels: [
      { value: "low", label: "Low" },
      { value: "high", label: "High" },
    ],
    defaultLevel: "high",
  },
  properties: {},
};
const TWO_MODELS = { ...CREATE_SETTINGS, model: { ...CREATE_SETTINGS.model, available: [GLM, OPENROUTER] } };

describe("event intake", () => {
  test("events are applied in seq order, once, whatever order they arrive in", async () => {
    const f = await subscribed();
    f.zcode.emit("model.streaming", delta("b"), { seq: 2 });
    f.zcode.emit("model.streaming", delta("c"), { seq: 3 });
    f.zcode.emit("model.streaming", delta("a"), { seq: 1 });
    f.zcode.emit("model.streaming", delta("b"), { seq: 2 });
    f.zcode.emit("model.streaming", delta("d"), { seq: 4 });
    expect(await shown(f)).toBe("abcd");
    expect(f.s.intake.lastSeq).toBe(4);
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
    expect(f.s.intake.lastSeq).toBe(7);
    expect(f.s.intake.hasGap).toBe(false);
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
    expect(f.s.intake.hasGap).toBe(false);
  });

  test("a subscription without eventSeq: the first event seen is the baseline (old turns are not replayed)", async () => {
    const f = await fakeSession();
    f.zcode.answers["session/subscribe"] = { events: [] };
    const s = f.s;
    await s.intake.ensureSubscribed();
    f.zcode.emit("model.streaming", delta("x"), { seq: 41 });
    f.zcode.emit("model.streaming", delta("y"), { seq: 42 });
    await s.flush();
    expect(f.editor.text()).toBe("xy");
    expect(s.intake.lastSeq).toBe(42);
  });

  test("the first subscription starts at ZCode's current seq; it lasts the materialization; a recovery asks for what followed", async () => {
    const f = await fakeSession();
    f.zcode.answers["session/subscribe"] = { eventSeq: 8, events: [] };
    await f.s.intake.ensureSubscribed();
    await f.s.intake.ensureSubscribed();
    await f.s.intake.recover();
    expect(f.zcode.calls.map((c) => c.params)).toEqual([{ sessionId: "s1" }, { sessionId: "s1", afterSeq: 8 }]);
  });

  test("resuming a session ZCode still holds is the same materialization: no second subscription", async () => {
    const f = await fakeSession();
    await f.s.intake.ensureSubscribed();
    await f.bridge.resume("s1", "/w", undefined);
    await f.s.intake.ensureSubscribed();
    expect(f.zcode.methods()).toEqual(["session/subscribe", "session/resume"]);
  });

  test("a forgotten session hears nothing more", async () => {
    const f = await subscribed();
    await f.bridge.close("s1");
    f.zcode.emit("model.streaming", delta("late"), { seq: 1 });
    expect(await shown(f)).toBe("");
    expect(() => f.bridge.session("s1")).toThrow("Resource not found");
  });
});

describe("activation", () => {
  test("after the child died, the next use resumes the session with its workspace and MCP servers", async () => {
    const mcp = [{ name: "fs", command: "mcp-fs", args: [], env: [] }];
    const f = await fakeSession({ settings: settings(CREATE_SETTINGS), mcpServers: mcp });
    const s = f.s;
    await s.activationState.ensure();
    expect(f.zcode.methods()).toEqual([]);
    f.zcode.exit();
    expect(s.activationState.generation).toBe(0);
    f.zcode.answers["session/resume"] = { session: { sessionId: "s1" }, settings: CREATE_SETTINGS };
    await Promise.all([s.activationState.ensure(), s.activationState.ensure()]);
    expect(f.zcode.calls).toEqual([{ method: "session/resume", params: { sessionId: "s1", workspace: "/w", mcpServers: mcp } }]);
    expect(s.activationState.generation).toBe(2);
  });

  test("a resumed session that came back with another model gets the user's choice again", async () => {
    const f = await fakeSession({ settings: settings(TWO_MODELS) });
    const s = f.s;
    await s.setModel("openrouter/z-ai/glm-5.3");
    expect(s.modelChoice).toEqual({ providerId: "openrouter", modelId: "z-ai/glm-5.3", options: { reasoningLevel: "high" } });
    f.zcode.exit();
    f.zcode.answers["session/resume"] = { session: { sessionId: "s1" }, settings: TWO_MODELS };
    await s.activationState.ensure();
    expect(f.zcode.calls.at(-1)).toEqual({ method: "session/setModel", params: { sessionId: "s1", model: s.modelChoice } });
  });

  test("no second setModel when the resumed model is the chosen one", async () => {
    const f = await fakeSession({ settings: settings(TWO_MODELS) });
    const s = f.s;
    await s.setModel("openrouter/z-ai/glm-5.3");
    f.zcode.exit();
    f.zcode.calls.length = 0;
    const current = { providerId: "openrouter", modelId: "z-ai/glm-5.3", options: { reasoningLevel: "high" } };
    f.zcode.answers["session/resume"] = {
      session: { sessionId: "s1" },
      settings: { ...TWO_MODELS, model: { ...TWO_MODELS.model, current } },
    };
    await s.activationState.ensure();
    expect(f.zcode.methods()).toEqual(["session/resume"]);
  });

  test("evicted by ZCode (-32004): resumed and the call retried once", async () => {
    const f = await fakeSession();
    const s = f.s;
    let reads = 0;
    f.zcode.answers["session/read"] = () =>
      ++reads === 1 ? zcodeError(-32004, "Session is not active: s1", "session/read") : { session: { sessionId: "s1" } };
    const r = await s.withActive(() => f.zcode.api.read("s1"));
    expect(r.session.sessionId).toBe("s1");
    expect(f.zcode.methods()).toEqual(["session/read", "session/resume", "session/read"]);
  });

  test("-32004 'Session not found' is not an eviction: no resume, the error goes on", async () => {
    const f = await fakeSession();
    const s = f.s;
    f.zcode.answers["session/read"] = zcodeError(-32004, "Session not found: s1", "session/read");
    await expect(s.withActive(() => f.zcode.api.read("s1"))).rejects.toThrow("Session not found");
    expect(f.zcode.methods()).toEqual(["session/read"]);
  });

  test("a new child numbers the session's events afresh: the next subscription starts at ZCode's eventSeq as is", async () => {
    const f = await subscribed();
    f.zcode.emit("model.streaming", delta("old "), { seq: 1 });
    f.zcode.emit("model.streaming", delta("child "), { seq: 2 });
    f.zcode.exit();
    f.zcode.answers["session/subscribe"] = { eventSeq: 0, events: [] };
    await f.s.intake.ensureSubscribed();
    expect(f.zcode.calls.at(-1)).toEqual({ method: "session/subscribe", params: { sessionId: "s1" } });
    f.zcode.emit("model.streaming", delta("new"), { seq: 1 });
    expect(await shown(f)).toBe("old child new");
    expect(f.s.intake.lastSeq).toBe(1);
  });

  test("other errors are not retried", async () => {
    const f = await fakeSession();
    const s = f.s;
    f.zcode.answers["session/read"] = zcodeError(-32010, "A prompt is already running for this session");
    await expect(s.withActive(() => f.zcode.api.read("s1"))).rejects.toThrow("already running");
    expect(f.zcode.methods()).toEqual(["session/read"]);
  });

  test("opening an open session again keeps the one session, its model catalogue and its subscription", async () => {
    const many = {
      ...CREATE_SETTINGS,
      model: { ...CREATE_SETTINGS.model, available: [GLM, { ref: { providerId: "p", modelId: "m" }, label: "M" }] },
    };
    const f = await fakeSession({ settings: settings(many) });
    f.zcode.answers["session/resume"] = { session: { sessionId: "s1" }, settings: settings(CREATE_SETTINGS) };
    const { session: again } = await f.bridge.resume("s1", "/w", undefined);
    expect(again).toBe(f.s);
    expect(f.s.options.model?.choices.map((c) => c.value)).toEqual(["builtin:zai-coding-plan/GLM-5.3", "p/m"]);
    // Opened from another directory: the same session, its paths shown from there.
    const { session: moved } = await f.bridge.resume("s1", "/elsewhere", undefined);
    expect(moved).toBe(f.s);
    expect(f.s.cwd).toBe("/elsewhere");
    expect(f.s.isClosed).toBe(false);
  });

  test("the late exit of a replaced child leaves a turn running in the new one alone", async () => {
    const f = await subscribed();
    f.zcode.generation = 2; // child 1 was replaced; its exit is not handled yet
    const answer = f.s.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
    for (let i = 0; i < 100 && !f.zcode.methods().includes("session/send"); i++) await tick(1);
    f.zcode.emit("turn.started");
    f.zcode.reportExit(1);
    expect(f.s.turnRunning()).toBe(true);
    f.zcode.emit("turn.completed", { resultType: "success" });
    expect((await answer).stopReason).toBe("end_turn");
  });

  test("opened from another directory while a turn runs: the turn goes on, untouched (only the client's cancel or close ends it)", async () => {
    const f = await subscribed();
    const answer = f.s.prompt([{ type: "text", text: "hi" }], new AbortController().signal);
    for (let i = 0; i < 100 && !f.zcode.methods().includes("session/send"); i++) await tick(1);
    f.zcode.emit("turn.started");
    await f.bridge.load("s1", "/elsewhere", undefined);
    expect(f.s.turnRunning()).toBe(true);
    expect(f.zcode.methods()).not.toContain("session/stop");
    f.zcode.emit("model.streaming", delta("still here"));
    f.zcode.emit("turn.completed", { resultType: "success" });
    expect((await answer).stopReason).toBe("end_turn");
    expect(f.editor.text()).toContain("still here");
    expect(f.s.cwd).toBe("/w");
  });
});

describe("reads around turns", () => {
  test("refreshAfterTurn: a mode changed behind our back, the title, the context in use (window from the model when null)", async () => {
    const f = await fakeSession({ settings: settings(CREATE_SETTINGS), title: "Old" });
    const s = f.s;
    f.zcode.answers["session/read"] = {
      session: { sessionId: "s1", title: "New title" },
      settings: { ...CREATE_SETTINGS, mode: { current: "plan" } },
      projection: { status: "idle", contextUsed: 5000, contextWindow: null },
    };
    await refreshAfterTurn(s);
    await s.flush();
    expect(f.editor.kinds()).toEqual(["config_option_update", "current_mode_update", "session_info_update", "usage_update"]);
    expect(f.editor.updates().slice(1)).toEqual([
      { sessionUpdate: "current_mode_update", currentModeId: "plan" },
      { sessionUpdate: "session_info_update", title: "New title" },
      { sessionUpdate: "usage_update", used: 5000, size: 200000 },
    ]);
    // Nothing changed since: nothing sent.
    await refreshAfterTurn(s);
    await s.flush();
    expect(f.editor.updates()).toHaveLength(4);
  });

  test("refreshAfterTurn waits endReadMs for a read that hangs, not longer", async () => {
    jest.useFakeTimers();
    try {
      const f = await fakeSession({ timings: { endReadMs: DEFAULT_TIMINGS.endReadMs } });
      f.zcode.answers["session/read"] = () => new Promise(() => {});
      let done = false;
      void refreshAfterTurn(f.s).then(() => (done = true));
      await advance(DEFAULT_TIMINGS.endReadMs - 1);
      expect(done).toBe(false);
      await advance(1);
      expect(done).toBe(true);
    } finally {
      jest.useRealTimers();
    }
  });

  test("waitIdle polls session/read until ZCode says idle", async () => {
    const f = await fakeSession();
    const s = f.s;
    let reads = 0;
    f.zcode.answers["session/read"] = () => ({ session: { sessionId: "s1" }, projection: { status: ++reads < 3 ? "running" : "idle" } });
    expect(await waitIdle(s, 1000)).toBe(true);
    expect(reads).toBe(3);
  });

  test("waitIdle gives up when the budget is spent or the waiter is gone", async () => {
    const f = await fakeSession();
    const s = f.s;
    f.zcode.answers["session/read"] = { session: { sessionId: "s1" }, projection: { status: "running" } };
    expect(await waitIdle(s, 30)).toBe(false);
    const reads = f.zcode.methods().length;
    expect(await waitIdle(s, 10_000, () => true)).toBe(false);
    expect(f.zcode.methods().length).toBe(reads);
  });

  test("events of a running turn go to the turn, others are applied idle", async () => {
    const f = await subscribed();
    f.zcode.emit("session.titleUpdated", { title: "Idle title" });
    const turn = new Turn(f.s, { text: "hi", attachments: [] });
    const answer = turn.run();
    for (let i = 0; i < 100 && !f.zcode.methods().includes("session/send"); i++) await tick(1);
    f.zcode.emit("turn.started");
    f.zcode.emit("turn.completed", { resultType: "success" });
    expect((await answer).stopReason).toBe("end_turn");
    expect(f.editor.updates()[0]).toEqual({ sessionUpdate: "session_info_update", title: "Idle title" });
  });
});
