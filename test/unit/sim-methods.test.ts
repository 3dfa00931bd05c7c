// Extension methods of the simulator: fork, rewind, goal, compact, steer,
// setMode, setThoughtLevel, close — results and errors per ZCODE-SHAPES.md.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
async function session(env: Record<string, string> = {}) {
  const c = new SimClient(tempDir(), { env });
  open.push(c);
  const id = await c.subscribed("/w/m");
  return { c, id };
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("fork and rewind", () => {
  test("fork copies the conversation up to the latest checkpoint; the fork is usable", async () => {
    const { c, id } = await session();
    expect((await c.request("session/fork", { sessionId: id, target: { kind: "latestCheckpoint" } })).error.code).toBe(1410);
    await c.turn(id, "first");
    await c.turn(id, "second");
    const f = await c.call("session/fork", { sessionId: id, target: { kind: "latestCheckpoint" } });
    expect(f.forkedSessionId).toMatch(/^sess_/);
    expect(f.forkedSessionId).not.toBe(id);
    expect(f.session).toMatchObject({ sessionId: f.forkedSessionId, workspace: { workspacePath: "/w/m" } });
    await c.call("session/resume", { sessionId: f.forkedSessionId, workspace: { workspacePath: "/w/m", workspaceKey: "/w/m" } });
    const msgs = await c.call("session/messages", { sessionId: f.forkedSessionId });
    expect(msgs.messages).toHaveLength(4);
    await c.call("session/subscribe", { sessionId: f.forkedSessionId });
    const ev = await c.turn(f.forkedSessionId, "third");
    expect(ev[0]!.seq).toBe(1);
    expect((await c.call("session/messages", { sessionId: id })).messages).toHaveLength(4);
  });

  test("rewind undoes the latest turn; 1409 on a stale revision, 1410 without checkpoint, 1308 while running", async () => {
    const { c, id } = await session();
    expect((await c.request("session/rewind", { sessionId: id, target: { kind: "latestCheckpoint" } })).error.code).toBe(1410);
    await c.turn(id, "one");
    await c.turn(id, "#scenario:todo two");
    await Bun.sleep(80);
    const read = await c.call("session/read", { sessionId: id });
    expect(read.todos).toHaveLength(3);
    const stale = await c.request("session/rewind", { sessionId: id, target: { kind: "latestCheckpoint" }, expectedRevision: read.projection.revision - 1 });
    expect(stale.error.code).toBe(1409);
    const r = await c.call("session/rewind", { sessionId: id, target: { kind: "latestCheckpoint" }, expectedRevision: read.projection.revision });
    expect(r).toMatchObject({ removedMessages: 2, checkpointId: expect.stringMatching(/^ckpt_/) });
    expect(r.revision).toBeGreaterThan(read.projection.revision);
    const after = await c.call("session/read", { sessionId: id });
    expect(after.projection.revision).toBe(r.revision);
    expect(after.todos).toEqual([]);
    expect(after.projection.turnCount).toBe(1);
    expect((await c.call("session/messages", { sessionId: id })).messages).toHaveLength(2);
    await c.call("session/send", { sessionId: id, content: "#scenario:slow" });
    expect((await c.request("session/rewind", { sessionId: id })).error.code).toBe(1308);
    expect((await c.request("session/compact", { sessionId: id })).error.code).toBe(1308);
    c.notify("session/stop", { sessionId: id });
    await c.waitTurnEnd(id);
  });

  test("revision increments on every change", async () => {
    const { c, id } = await session();
    const rev = async () => (await c.call("session/read", { sessionId: id })).projection.revision;
    const r0 = await rev();
    await c.call("session/setMode", { sessionId: id, mode: "edit" });
    const r1 = await rev();
    expect(r1).toBeGreaterThan(r0);
    await c.call("session/goal", { sessionId: id, action: "set", objective: "x" });
    expect(await rev()).toBeGreaterThan(r1);
  });
});

describe("goal", () => {
  test("show / set / pause / resume / replace / clear", async () => {
    const { c, id } = await session();
    const g = (action: string, objective?: string) => c.call("session/goal", { sessionId: id, action, ...(objective ? { objective } : {}) });
    expect(await g("show")).toEqual({ goal: null });
    const set = await g("set", "Refactor auth");
    expect(set.goal).toMatchObject({ objective: "Refactor auth", status: "active" });
    expect(set.goal.setAt).toBeNumber();
    expect((await g("pause")).goal.status).toBe("paused");
    expect((await g("resume")).goal.status).toBe("active");
    expect((await g("replace", "Refactor billing")).goal.objective).toBe("Refactor billing");
    expect((await c.call("session/read", { sessionId: id })).goal.objective).toBe("Refactor billing");
    expect(await g("clear")).toEqual({ goal: null });
    expect((await c.request("session/goal", { sessionId: id, action: "pause" })).error.code).toBe(-32602);
    expect((await c.request("session/goal", { sessionId: id, action: "set" })).error.code).toBe(-32602);
    expect((await c.request("session/goal", { sessionId: id, action: "explode" })).error.code).toBe(-32602);
  });
});

describe("compact and steer", () => {
  test("compact: result shape, a compact_summary message, session.updated with lower usage", async () => {
    const { c, id } = await session();
    await c.turn(id, "some history");
    const before = (await c.call("session/read", { sessionId: id })).projection.contextUsed;
    const from = c.frames.length;
    const r = await c.call("session/compact", { sessionId: id, instructions: "keep the API decisions" });
    expect(r).toMatchObject({ compacted: true, messagesBefore: 2 });
    expect(r.summary).toContain("keep the API decisions");
    const up = await c.waitEvent(id, "session.updated", 2000, from);
    expect(up.payload.usage.inputTokens).toBeLessThan(before);
    const msgs = (await c.call("session/messages", { sessionId: id })).messages;
    expect(msgs.at(-1).semantics).toEqual({ kind: "compact_summary" });
  });

  test("steer: 1309 when idle; accepted with turn.steerQueued while running", async () => {
    const { c, id } = await session();
    expect((await c.request("session/steer", { sessionId: id, content: "use TS" })).error).toMatchObject({ code: 1309 });
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=50" });
    await c.waitEvent(id, "model.streaming");
    expect(await c.call("session/steer", { sessionId: id, content: "use TS" })).toEqual({ accepted: true });
    expect((await c.waitEvent(id, "turn.steerQueued")).payload).toEqual({ content: "use TS" });
    c.notify("session/stop", { sessionId: id });
    await c.waitTurnEnd(id);
  });
});

describe("settings", () => {
  test("setMode and setThoughtLevel validate against the available values", async () => {
    const { c, id } = await session();
    expect(await c.call("session/setMode", { sessionId: id, mode: "yolo" })).toEqual({ mode: { current: "yolo" } });
    expect(await c.call("session/setThoughtLevel", { sessionId: id, thoughtLevel: "max" })).toEqual({ thoughtLevel: { current: "max" } });
    const bad = await c.request("session/setMode", { sessionId: id, mode: "warp" });
    expect(bad.error.code).toBe(-32602);
    expect(bad.error.message).toContain("available");
    expect((await c.request("session/setThoughtLevel", { sessionId: id, thoughtLevel: "extreme" })).error.code).toBe(-32602);
    const r = await c.call("session/read", { sessionId: id });
    expect(r.settings.mode.current).toBe("yolo");
    expect(r.settings.thoughtLevel.current).toBe("max");
  });

  test("close answers {} and the session needs a resume afterwards", async () => {
    const { c, id } = await session();
    expect(await c.call("session/close", { sessionId: id })).toEqual({});
    expect((await c.request("session/read", { sessionId: id })).error.code).toBe(-32004);
    await c.call("session/resume", { sessionId: id, workspace: { workspacePath: "/w/m", workspaceKey: "/w/m" } });
    expect((await c.call("session/read", { sessionId: id })).session.sessionId).toBe(id);
  });
});
