// ZCODE_SIM_REPLAY: a trace's ZCode side replayed with ids rewritten,
// including the captured real 0.16.9 turn.
import { afterEach, beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

const line = (dir: string, msg: unknown) => JSON.stringify({ t: Date.now(), dir, msg });

test("replays the zcode->bridge frames of a trace, waiting for requests and rewriting ids", async () => {
  const dir = tempDir();
  const trace = join(dir, "trace.jsonl");
  const ws = { workspacePath: "/w/r", workspaceKey: "/w/r" };
  const sid = "sess_traced";
  const ev = (seq: number, type: string, payload: Frame) => ({ method: "session/event", params: { sessionId: sid, seq, type, payload } });
  writeFileSync(
    trace,
    [
      line("editor->bridge", { jsonrpc: "2.0", id: 0, method: "initialize", params: {} }),
      line("bridge->zcode", { id: 1, method: "session/create", params: { workspace: ws } }),
      line("zcode->bridge", {
        id: "server-1",
        method: "session/requestRuntimePreferences",
        params: { sessionId: sid, scope: "runtime-materialization" },
      }),
      line("bridge->zcode", { id: "server-1", result: {} }),
      line("zcode->bridge", { id: 1, result: { session: { sessionId: sid, title: "", traceId: "t" } } }),
      line("bridge->zcode", { id: 2, method: "session/subscribe", params: { sessionId: sid } }),
      line("zcode->bridge", { id: 2, result: { eventSeq: 0 } }),
      line("bridge->zcode", { id: 3, method: "session/send", params: { sessionId: sid, content: "hi" } }),
      line("zcode->bridge", { id: 3, result: { accepted: true } }),
      line("zcode->bridge", ev(1, "turn.started", { turnId: "turn_1" })),
      JSON.stringify({ t: 0, dir: "zcode->bridge", raw: "warning: not json" }),
      line("zcode->bridge", ev(2, "model.streaming", { kind: "text_delta", delta: "Hello" })),
      line("zcode->bridge", ev(3, "turn.completed", { turnId: "turn_1", resultType: "success" })),
    ].join("\n"),
  );
  const c = new SimClient(dir, { env: { ZCODE_SIM_REPLAY: trace, ZCODE_SIM_REPLAY_WAIT_MS: "2000" }, autoPreferences: false });
  open.push(c);
  await Bun.sleep(100);
  expect(c.frames).toHaveLength(0); // nothing before the bridge's first request
  c.send({ id: 101, method: "session/create", params: { workspace: ws } });
  const prefs = await c.waitFor((f) => f.method === "session/requestRuntimePreferences");
  expect(prefs.id).toBe("server-1");
  await Bun.sleep(50);
  expect(c.frames.some((f) => f.id === 101)).toBe(false); // this trace answered create after the preferences
  c.send({ id: "server-1", result: {} });
  const created = await c.waitFor((f) => f.id === 101);
  expect(created.result.session.sessionId).toBe(sid);
  // A request absent from the trace gets an error, not silence.
  c.send({ id: 150, method: "session/read", params: { sessionId: sid } });
  expect((await c.waitFor((f) => f.id === 150)).error.message).toContain("no further session/read");
  c.send({ id: 102, method: "session/subscribe", params: { sessionId: sid } });
  expect((await c.waitFor((f) => f.id === 102)).result).toEqual({ eventSeq: 0 });
  c.send({ id: 103, method: "session/send", params: { sessionId: sid, content: "hi" } });
  await c.waitFor((f) => f.params?.type === "turn.completed");
  expect(c.frames.find((f) => f.id === 103)!.result).toEqual({ accepted: true });
  expect(c.events(sid).map((e) => e.seq)).toEqual([1, 2, 3]);
  expect(c.rawLines).toContain("warning: not json");
  expect(c.frames.some((f) => f.id === 1 || f.id === 2 || f.id === 3)).toBe(false);
});

test("a live session recorded as a trace replays to the same ZCode frames", async () => {
  const dir = tempDir();
  const live = new SimClient(dir);
  open.push(live);
  const id = await live.subscribed("/w/rr");
  await live.turn(id, "#scenario:bash");
  // Build the trace from what was sent and received (the bridge's view).
  const rec: string[] = [];
  const sent: Frame[] = [
    { id: 1, method: "session/create", params: { workspace: { workspacePath: "/w/rr", workspaceKey: "/w/rr" } } },
    { id: 2, method: "session/subscribe", params: { sessionId: id, deliveryKind: "desktop-continuous", includeSnapshot: false } },
    { id: 3, method: "session/send", params: { sessionId: id, content: "#scenario:bash" } },
  ];
  let k = 0;
  for (const f of live.frames) {
    // Requests by the client precede the frames that answer them.
    if (f.method === "session/requestRuntimePreferences") {
      rec.push(line("zcode->bridge", f), line("bridge->zcode", { id: f.id, result: { nativeSearchEnhancementsEnabled: false } }));
      continue;
    }
    if (f.id !== undefined && !f.method && sent[k] && sent[k]!.id === f.id) rec.push(line("bridge->zcode", sent[k++]));
    rec.push(line("zcode->bridge", f));
  }
  const trace = join(dir, "live.jsonl");
  writeFileSync(trace, rec.join("\n"));
  const r = new SimClient(tempDir(), { env: { ZCODE_SIM_REPLAY: trace } });
  open.push(r);
  r.send({ id: "a", method: "session/create", params: sent[0]!.params });
  await r.waitFor((f) => f.id === "a");
  r.send({ id: "b", method: "session/subscribe", params: sent[1]!.params });
  r.send({ id: "c", method: "session/send", params: sent[2]!.params });
  await r.waitTurnEnd(id);
  const strip = (fs: Frame[]) => fs.filter((f) => f.method === "session/event").map((f) => f.params);
  expect(strip(r.frames)).toEqual(strip(live.frames).slice(0, strip(r.frames).length));
  expect(strip(r.frames).length).toBeGreaterThanOrEqual(live.events(id).length - 1);
});

const FIXTURE = "/work/shared/spec/fixtures/real-0.16.9-text-turn.jsonl";

test.skipIf(!existsSync(FIXTURE))(
  "the captured real 0.16.9 turn replays into a temp workspace, promptly, with a bridge that skips its first read",
  async () => {
    const dir = tempDir();
    const c = new SimClient(dir, {
      env: { ZCODE_SIM_REPLAY: FIXTURE, ZCODE_SIM_REPLAY_WORKSPACE: dir, ZCODE_SIM_REPLAY_WAIT_MS: "10000" },
      autoPreferences: false,
    });
    open.push(c);
    const ws = { workspacePath: dir, workspaceKey: dir };
    c.send({ id: 10, method: "session/create", params: { workspace: ws, mode: "yolo" } });
    const created = await c.waitFor((f) => f.id === 10);
    expect(created.result.session.workspace).toEqual(ws);
    const sid = created.result.session.sessionId;
    const prefs = await c.waitFor((f) => f.method === "session/requestRuntimePreferences");
    expect(prefs).toMatchObject({ id: "server-1", params: { sessionId: sid, scope: "runtime-materialization" } });
    c.send({ id: prefs.id, result: { nativeSearchEnhancementsEnabled: false } });
    // This bridge does not read before subscribing: the traced read is skipped at once, not after 10 s.
    const t0 = Date.now();
    c.send({ id: 11, method: "session/subscribe", params: { sessionId: sid, deliveryKind: "desktop-continuous" } });
    expect((await c.waitFor((f) => f.id === 11, 3000)).result).toMatchObject({ sessionId: sid, eventSeq: 0, events: [] });
    expect(Date.now() - t0).toBeLessThan(2000);
    c.send({ id: 12, method: "session/send", params: { sessionId: sid, content: "Reply with exactly the token: PROBE_OK" } });
    expect((await c.waitFor((f) => f.id === 12)).result).toEqual({ sessionId: sid, accepted: true, stateRevision: 2 });
    const end = await c.waitEvent(sid, "turn.completed", 3000);
    expect(end.payload.response).toBe("PROBE_OK");
    expect(c.events(sid).map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    c.send({ id: 13, method: "session/read", params: { sessionId: sid, messageLimit: 1 } });
    const read = await c.waitFor((f) => f.id === 13);
    expect(read.result.session.workspace).toEqual(ws);
    expect(read.result.runtime.eventSeq).toBe(8);
    expect(c.rawLines.some((l) => l.includes("/workspace/probe"))).toBe(false);
  },
);
