// Session methods beyond the basics: models and settings, reads and
// subscriptions, fork, compact, goal — results, errors and state.updated.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
function sim(env: Record<string, string> = {}, dir = tempDir()): SimClient {
  const c = new SimClient(dir, { env });
  open.push(c);
  return c;
}
async function session(env: Record<string, string> = {}) {
  const c = sim(env);
  const id = await c.subscribed("/w/m");
  return { c, id };
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const ZAI = "builtin:zai-coding-plan";
const BIG = "account:bigmodel-individual-coding-plan";

describe("model catalogue and setModel", () => {
  test("the catalogue: two providers, a shared label, a model without levels, a disabled one, different windows", async () => {
    const { c } = await session();
    const created = await c.call("session/create", { workspace: { workspacePath: "/w/n", workspaceKey: "/w/n" } });
    const models = created.settings.model.available as any[];
    expect(new Set(models.map((m) => m.ref.providerId))).toEqual(new Set([ZAI, BIG]));
    expect(new Set(models.map((m) => m.providerLabel))).toEqual(new Set(["Z.ai Coding Plan", "BigModel Coding Plan"]));
    expect(
      models
        .filter((m) => m.label === "GLM-5.3")
        .map((m) => m.ref.providerId)
        .sort(),
    ).toEqual([BIG, ZAI].sort());
    expect(models.some((m) => m.reasoning === undefined)).toBe(true);
    expect(models.some((m) => typeof m.disabledReason === "string")).toBe(true);
    expect(new Set(models.map((m) => m.contextWindow)).size).toBeGreaterThan(1);
    expect(models.every((m) => typeof m.properties === "object")).toBe(true);
  });

  test("setModel errors: level required, unsupported level, unknown or disabled model (-32603)", async () => {
    const { c, id } = await session();
    const set = (model: unknown) => c.request("session/setModel", { sessionId: id, model });
    const e1 = (await set({ providerId: ZAI, modelId: "GLM-4.7" })).error;
    expect(e1).toMatchObject({
      code: -32603,
      message: `Reasoning level is required for ${ZAI}/GLM-4.7`,
      data: { name: "ModelProtocolError", code: "invalid_model_request" },
    });
    expect((await set({ providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "max" } })).error.message).toBe(
      `Reasoning effort "max" is not supported by ${ZAI}/GLM-4.7`,
    );
    expect((await set({ providerId: ZAI, modelId: "GLM-9" })).error).toMatchObject({
      code: -32603,
      message: `Provider Registry 中不存在 Model: ${ZAI}/GLM-9`,
      data: { code: "model_not_found" },
    });
    expect((await set({ providerId: BIG, modelId: "GLM-5.3-1M", options: { reasoningLevel: "high" } })).error.message).toBe(
      `Provider Registry 中不存在 Model: ${BIG}/GLM-5.3-1M`,
    );
    expect((await set({ providerId: ZAI, modelId: "GLM-4.5-Air", options: { reasoningLevel: "low" } })).error.message).toContain(
      "is not supported",
    );
  });

  test("setModel success: snapshot, state.updated model_changed, a session.updated event; the model sticks", async () => {
    const { c, id } = await session();
    const from = c.frames.length;
    const snap = await c.call("session/setModel", {
      sessionId: id,
      model: { providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "low" } },
      persistAsWorkspaceLastUsed: false,
    });
    expect(snap.settings.model.current).toEqual({ providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "low" } });
    expect(snap.settings.thoughtLevel).toMatchObject({ enabled: true, current: "low", defaultLevel: "high" });
    expect(snap.projection.contextWindow).toBe(128000);
    expect(snap.settings.model.lastUsed).toEqual({ providerId: ZAI, modelId: "GLM-5.3" });
    const su = c.frames.slice(from).find((f) => f.method === "state.updated")!;
    expect(su.params).toMatchObject({ reason: "model_changed", sessionId: id, patch: { model: { current: { modelId: "GLM-4.7" } } } });
    const ev = c.frames.slice(from).find((f) => f.method === "session/event")!;
    expect(ev.params).toMatchObject({
      type: "session.updated",
      payload: { model: { modelId: "GLM-4.7" }, previousModel: { modelId: "GLM-5.3" } },
    });
    const air = await c.call("session/setModel", { sessionId: id, model: { providerId: ZAI, modelId: "GLM-4.5-Air" } });
    expect(air.settings.thoughtLevel).toEqual({ enabled: false, available: [] });
    expect((await c.call("session/read", { sessionId: id })).session.model).toEqual({ providerId: ZAI, modelId: "GLM-4.5-Air" });
  });

  test("setThoughtLevel and setMode: snapshots with state.updated; a level the model lacks is refused", async () => {
    const { c, id } = await session();
    const t = await c.call("session/setThoughtLevel", { sessionId: id, thoughtLevel: "low" });
    expect(t.settings.thoughtLevel.current).toBe("low");
    expect(t.settings.model.current.options).toEqual({ reasoningLevel: "low" });
    expect((await c.request("session/setThoughtLevel", { sessionId: id, thoughtLevel: "medium" })).error).toMatchObject({
      code: -32603,
      message: `Reasoning effort "medium" is not supported by ${ZAI}/GLM-5.3`,
    });
    const from = c.frames.length;
    const m = await c.call("session/setMode", { sessionId: id, mode: "yolo" });
    expect(m.settings.mode.current).toBe("yolo");
    expect(m.settings.permission.mode).toBe("yolo");
    expect(m.session.mode).toBe("yolo");
    expect(c.frames.slice(from).find((f) => f.method === "session/event")!.params.payload).toEqual({
      mode: "yolo",
      previousMode: "build",
      source: "command",
    });
    expect(c.stateUpdates(id).map((s) => s.reason)).toEqual(["thought_level_changed", "mode_changed"]);
    expect((await c.request("session/setMode", { sessionId: id, mode: "warp" })).error.code).toBe(-32602);
  });

  test("expectedRevision mismatch → -32009 with both revisions", async () => {
    const { c, id } = await session();
    const rev = (await c.call("session/read", { sessionId: id })).runtime.stateRevision;
    const r = await c.request("session/setMode", { sessionId: id, mode: "edit", expectedRevision: rev + 5 });
    expect(r.error).toEqual({
      code: -32009,
      message: "Session state revision mismatch",
      data: { actualRevision: rev, expectedRevision: rev + 5 },
    });
    const ok = await c.call("session/setMode", { sessionId: id, mode: "edit", expectedRevision: rev });
    expect(ok.runtime.stateRevision).toBe(rev + 1);
  });

  test("model fallback on resume: ZCODE_SIM_RESUME_RESETS_MODEL, or per session with forget-model", async () => {
    const dir = tempDir();
    const c1 = sim({}, dir);
    const a = await c1.subscribed("/w/f");
    await c1.call("session/setModel", { sessionId: a, model: { providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "low" } } });
    await c1.turn(a, "#scenario:forget-model hi");
    const b = await c1.subscribed("/w/f");
    await c1.call("session/setModel", { sessionId: b, model: { providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "low" } } });
    await c1.turn(b, "hi");
    await c1.close();
    const c2 = sim({}, dir);
    expect((await c2.call("session/resume", { sessionId: a })).settings.model.current).toEqual({
      providerId: ZAI,
      modelId: "GLM-5.3",
      options: { reasoningLevel: "max" },
    });
    expect((await c2.call("session/resume", { sessionId: b })).settings.model.current.modelId).toBe("GLM-4.7");
    await c2.close();
    const c3 = sim({ ZCODE_SIM_RESUME_RESETS_MODEL: "1" }, dir);
    expect((await c3.call("session/resume", { sessionId: b })).settings.model.current.modelId).toBe("GLM-5.3");
  });
});

describe("reads and subscriptions", () => {
  test("session/read honours messageLimit (last N); without it returns the whole transcript", async () => {
    const { c, id } = await session();
    await c.turn(id, "#scenario:history n=30");
    await c.turn(id, "after");
    const all = await c.call("session/read", { sessionId: id });
    expect(all.messages.length).toBeGreaterThan(60);
    const last = await c.call("session/read", { sessionId: id, messageLimit: 1 });
    expect(last.messages).toHaveLength(1);
    expect(last.messages[0]).toEqual(all.messages.at(-1));
    const three = await c.call("session/read", { sessionId: id, messageLimit: 3 });
    expect(three.messages).toEqual(all.messages.slice(-3));
    const msgs = (await c.call("session/messages", { sessionId: id })).messages;
    expect(msgs).toHaveLength(all.messages.length);
    const after = await c.call("session/messages", { sessionId: id, afterMessageId: msgs.at(-3).info.messageId });
    expect(after.messages).toEqual(msgs.slice(-2));
    expect((await c.call("session/messages", { sessionId: id, afterMessageId: "msg_unknown" })).messages).toHaveLength(msgs.length);
    expect((await c.call("session/messages", { sessionId: id, limit: 2 })).messages).toEqual(msgs.slice(-2));
  });

  test("seq is contiguous over every event, including types a bridge may not use", async () => {
    const c = sim();
    const id = await c.create("/w/s", { mode: "plan" });
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "web-remote-replayable" });
    await c.turn(id, "#scenario:edit");
    await c.call("session/setMode", { sessionId: id, mode: "build" });
    const all = c.events(id);
    expect(all.map((e) => e.seq)).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    const types = new Set(all.map((e) => e.type));
    for (const t of [
      "session.titleUpdated",
      "session.updated",
      "checkpoint.created",
      "streamRecovery.updated",
      "model.streaming",
      "tool.updated",
      "turn.started",
      "turn.completed",
    ])
      expect(types.has(t)).toBe(true);
    expect(all.every((e) => e.deliveryKind === "web-remote-replayable")).toBe(true);
    const sub = await c.call("session/subscribe", { sessionId: id, deliveryKind: "web-remote-replayable", afterSeq: 0 });
    expect(sub.events.map((e: Frame) => e.seq)).toEqual(all.map((e) => e.seq));
    expect(sub.eventSeq).toBe(all.length);
    const tail = await c.call("session/events", { sessionId: id, afterSeq: 3, limit: 2 });
    expect(tail.events.map((e: Frame) => e.seq)).toEqual([all.length - 1, all.length]);
  });

  test("events are stored before any subscription but pushed only after subscribe (or read with deliveryKind)", async () => {
    const c = sim();
    const id = await c.create();
    await c.call("session/send", { sessionId: id, content: "quiet" });
    await c.waitIdle(id);
    expect(c.events(id)).toHaveLength(0);
    const sub = await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", includeSnapshot: true });
    expect(sub.events).toEqual([]);
    expect(sub.eventSeq).toBeGreaterThan(5);
    expect(sub.snapshot.messages).toHaveLength(2);
    expect(sub.snapshot.settings.model.available).toHaveLength(1);
    const back = await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", afterSeq: 0 });
    expect(back.events[0].type).toBe("session.titleUpdated");
    expect(back.events.at(-1).type).toBe("turn.completed");
    const id2 = await c.create();
    await c.call("session/read", { sessionId: id2, deliveryKind: "desktop-continuous", messageLimit: 1 });
    const ev = await c.turn(id2, "via read");
    expect(ev.at(-1)!.type).toBe("turn.completed");
  });

  test("subscribing again replaces the stream: no event is pushed twice", async () => {
    const { c, id } = await session();
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous" });
    await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", includeSnapshot: false });
    await c.turn(id, "once");
    const seqs = c.events(id).map((e) => e.seq);
    expect(new Set(seqs).size).toBe(seqs.length);
  });
});

describe("fork", () => {
  test("no checkpoint yet → -32603; then forks up to the latest checkpoint; the fork is active at once", async () => {
    const { c, id } = await session();
    const none = await c.request("session/fork", { sessionId: id });
    expect(none.error.code).toBe(-32603);
    expect(none.error.message).toContain("checkpoint");
    await c.turn(id, "first");
    await c.turn(id, "second");
    const f = await c.call("session/fork", { sessionId: id, target: { kind: "latestCheckpoint" } });
    // (bun's toMatchObject writes asymmetric matchers into the received object: check fields one by one.)
    expect(f.forkedSessionId).toMatch(/^sess_/);
    expect(f.targetCheckpointId).toMatch(/^checkpoint_/);
    expect(f.parentSessionId).toBe(id);
    expect(typeof f.response).toBe("string");
    expect(f.forkedSessionId).not.toBe(id);
    expect(f.snapshot.session).toMatchObject({ sessionId: f.forkedSessionId, parentSessionId: id, title: "first" });
    expect(f.snapshot.settings.model.available.length).toBeGreaterThan(1);
    const parentMsgs = (await c.call("session/messages", { sessionId: id })).messages;
    const forkMsgs = (await c.call("session/messages", { sessionId: f.forkedSessionId })).messages;
    expect(forkMsgs).toHaveLength(parentMsgs.length);
    expect(forkMsgs.every((m: any) => m.info.sessionId === f.forkedSessionId)).toBe(true);
    await c.call("session/subscribe", { sessionId: f.forkedSessionId, deliveryKind: "desktop-continuous" });
    const ev = await c.turn(f.forkedSessionId, "third");
    expect(ev[0]!.seq).toBe(1);
    expect((await c.call("session/messages", { sessionId: id })).messages).toHaveLength(parentMsgs.length);
    const byTurn = await c.call("session/fork", { sessionId: id, target: { kind: "turn", turnIndex: 0 } });
    expect((await c.call("session/messages", { sessionId: byTurn.forkedSessionId })).messages.map((m: any) => m.info.role)).toEqual([
      "user",
      "assistant",
    ]);
    expect((await c.request("session/fork", { sessionId: id, target: { kind: "turn", turnIndex: 9 } })).error).toEqual({
      code: -32004,
      message: "Cannot resolve assistant message for turnIndex=9",
    });
  });

  test("busy: fork, compact and goal while a prompt runs → -32010; pausing a goal is allowed", async () => {
    const { c, id } = await session();
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=500" });
    expect((await c.request("session/fork", { sessionId: id })).error).toEqual({
      code: -32010,
      message: "Cannot fork while a prompt is running",
    });
    expect((await c.request("session/compact", { sessionId: id })).error).toEqual({
      code: -32010,
      message: "Cannot compact while a prompt is running",
    });
    expect((await c.request("session/goal", { sessionId: id, action: "set", objective: "x" })).error).toEqual({
      code: -32010,
      message: "Cannot manage goals while a prompt is running",
    });
    expect((await c.call("session/goal", { sessionId: id, action: "pause" })).response).toBe("No goal to pause.");
    await c.call("session/stop", { sessionId: id });
    await c.waitIdle(id);
  });
});

describe("compact", () => {
  test("accepted, runs as a turn with a compact_summary message; context drops; already_running while it runs", async () => {
    // Paced so that the compaction (a few paced steps) outlasts two round trips on a busy machine.
    const { c, id } = await session({ ZCODE_SIM_DELAY_MS: "250" });
    await c.turn(id, "#scenario:history n=10");
    const before = (await c.call("session/read", { sessionId: id })).projection.contextUsed;
    const from = c.frames.length;
    const r = await c.call("session/compact", { sessionId: id, instructions: "keep the API decisions" });
    expect(r.response).toBe("");
    expect(r.compact).toEqual({ state: "accepted" });
    expect(r.snapshot.projection.status).toBe("running");
    const again = await c.call("session/compact", { sessionId: id });
    expect(again.compact).toEqual({ state: "already_running" });
    expect((await c.request("session/send", { sessionId: id, content: "x" })).error.code).toBe(-32010);
    const end = await c.waitTurnEnd(id, 5000, from);
    expect(end.type).toBe("turn.completed");
    await c.waitIdle(id, 5000, from);
    expect(
      c
        .stateUpdates(id)
        .filter((s) => ["compact_started", "session_compacted"].includes(s.reason))
        .map((s) => s.reason),
    ).toEqual(["compact_started", "session_compacted"]);
    const started = c.frames.slice(from).find((f) => f.params?.type === "turn.started")!.params;
    expect(started.payload.input).toBe("/compact keep the API decisions");
    const msgs = (await c.call("session/messages", { sessionId: id })).messages;
    const summary = msgs.find((m: any) => m.info.semantics?.kind === "compact_summary");
    expect(summary.parts.some((p: any) => p.type === "compaction")).toBe(true);
    expect(summary.parts.find((p: any) => p.type === "text").text).toContain("keep the API decisions");
    expect((await c.call("session/read", { sessionId: id })).projection.contextUsed).toBeLessThan(before);
  });
});

describe("goal", () => {
  test("show / set (starts a turn) / pause / resume / replace / clear, with ZCode's texts", async () => {
    const { c, id } = await session();
    const g = (action: string, objective?: string) =>
      c.call("session/goal", { sessionId: id, action, ...(objective !== undefined ? { objective } : {}) });
    expect((await g("show")).response).toBe("No goal is set. Use /goal <objective> to set one.");
    expect((await g("clear")).response).toBe("No goal to clear.");
    expect((await g("resume")).response).toBe("No goal to resume.");
    expect((await g("set", "  ")).response).toBe("Usage: /goal <objective>");
    expect((await g("replace", "")).response).toBe("Usage: /goal replace <objective>");
    const from = c.frames.length;
    const set = await g("set", "Refactor auth");
    expect(set.response).toBe("Goal active\nObjective: Refactor auth");
    expect(set.startedTurn).toBe(true);
    expect(set.snapshot.projection.target).toMatchObject({ objective: "Refactor auth", status: "active", sessionId: id });
    const end = await c.waitTurnEnd(id, 5000, from);
    expect(end.type).toBe("turn.completed");
    await c.waitIdle(id, 5000, from);
    const started = c.frames.slice(from).find((f) => f.params?.type === "turn.started")!.params.payload;
    expect(started).toMatchObject({ input: "Refactor auth", inputSource: "goal-continuation" });
    expect(c.stateUpdates(id).map((s) => s.reason)).toContain("goal_set");
    expect(c.stateUpdates(id).map((s) => s.reason)).toContain("goal_continuation_completed");
    expect((await g("show")).response).toMatch(/^Goal active\nObjective: Refactor auth\nUsage: \d+ tokens \/ none\nTime: \d+ seconds$/);
    expect((await g("pause")).response).toBe("");
    expect((await g("show")).response).toStartWith("Goal paused");
    await c.call("session/setMode", { sessionId: id, mode: "plan" });
    const resumed = await g("resume");
    expect(resumed.response).toBe("Goal resumed\nObjective: Refactor auth\n\nPlan mode 下已记录 goal，但不会自动继续。");
    expect(resumed.startedTurn).toBe(false);
    const replaced = await g("replace", "Refactor billing");
    expect(replaced.response).toStartWith("Goal active\nObjective: Refactor billing");
    expect(c.stateUpdates(id).at(-1)!.reason).toBe("goal_replaced");
    expect((await g("clear")).response).toBe("Goal cleared.");
    expect((await g("show")).response).toBe("No goal is set. Use /goal <objective> to set one.");
  });
});

describe("0.15 personality: steer and rewind", () => {
  test("steer: 1309 when idle; turn.steerQueued while running; rewind undoes the latest turn", async () => {
    const { c, id } = await session({ ZCODE_SIM_VERSION: "0.15.3" });
    expect((await c.request("session/steer", { sessionId: id, content: "use TS" })).error.code).toBe(1309);
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=50" });
    await c.waitEvent(id, "model.streaming");
    expect(await c.call("session/steer", { sessionId: id, content: "use TS" })).toEqual({ accepted: true });
    expect((await c.waitEvent(id, "turn.steerQueued")).payload).toMatchObject({ input: "use TS", delivery: "guide" });
    await c.call("session/stop", { sessionId: id });
    await c.waitIdle(id);
    await c.turn(id, "one");
    const rev = (await c.call("session/read", { sessionId: id })).runtime.stateRevision;
    const r = await c.call("session/rewind", { sessionId: id, target: { kind: "latestCheckpoint" }, expectedRevision: rev });
    expect(r.checkpointId).toMatch(/^checkpoint_/);
    expect(r.removedMessages).toBeGreaterThanOrEqual(2);
  });
});
