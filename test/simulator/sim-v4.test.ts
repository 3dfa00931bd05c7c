// The simulator's v4 command channel (ZCODE-V4.md): probe, rows with
// revision and logEpoch, the strict envelope (a bad command is a rejected
// ACK), CAS, duplicates, guides at tool boundaries, file rewinds, retries,
// stop and deleteSession, and the legacy events these produce.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, type Frame, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
function sim(version?: string): SimClient {
  const c = new SimClient(tempDir(), { env: version ? { ZCODE_SIM_VERSION: version } : {} });
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

let n = 0;
const cid = () => `0196a3e2-7c1d-7000-8000-${String(++n).padStart(12, "0")}`;

async function rows(c: SimClient, sessionId: string) {
  return c.call("v4/conversation/rowsRange", { sessionId, limit: 200 });
}
function command(
  c: SimClient,
  sessionId: string | null,
  type: string,
  payload: unknown,
  extra: Record<string, unknown> = {},
  commandId = cid(),
): Promise<any> {
  return c.call("v4/command", { commandId, clientId: "test", sessionId, type, payload, issuedAt: Date.now(), ...extra });
}
async function cas(
  c: SimClient,
  sessionId: string,
  type: string,
  pick: (rows: any[]) => any,
  payload: Record<string, unknown> = {},
  commandId = cid(),
) {
  const r = await rows(c, sessionId);
  const row = pick(r.rows);
  return command(
    c,
    sessionId,
    type,
    { target: { rowId: row.rowId, entityId: row.entityId }, ...payload },
    { baseRevision: r.atRevision, baseLogEpoch: r.atLogEpoch },
    commandId,
  );
}
const last = (rows: any[], kind: string) => rows.filter((r) => r.kind === kind).at(-1);
const userTexts = (c: SimClient, id: string) =>
  c
    .call("session/messages", { sessionId: id })
    .then((m: any) => m.messages.filter((x: Frame) => x.info.role === "user" && !x.info.synthetic).map((x: Frame) => x.parts[0].text));

describe("detection", () => {
  test("0.16.9 answers the probe; 0.15.3 and 0.16.2 answer -32601", async () => {
    const probe = { commands: [{ sessionId: null, commandId: "probe" }] };
    expect(await sim().call("v4/commands/query", probe)).toEqual({
      results: [{ key: { sessionId: null, commandId: "probe" }, result: "unknown" }],
    });
    for (const v of ["0.15.3", "0.16.2"]) {
      const e = (await sim(v).request("v4/command", {})).error;
      expect(e).toEqual({ code: -32601, message: "Method not found: v4/command" });
    }
  });

  test("bad query params are -32603 ZodError", async () => {
    const e = (await sim().request("v4/conversation/rowsRange", { sessionId: "x", limit: 500 })).error;
    expect(e.code).toBe(-32603);
    expect(e.data.name).toBe("ZodError");
  });
});

describe("envelope and inbox", () => {
  test("bad envelopes and payloads are rejected ACKs, never JSON-RPC errors; CAS needs its fields", async () => {
    const c = sim();
    const id = await c.subscribed("/w/a");
    expect(await c.call("v4/command", { commandId: 7 })).toMatchObject({
      commandId: "",
      status: "rejected",
      reasonCode: "proto.invalidPayload",
      revisionAtDecision: 0,
    });
    expect(await command(c, id, "sendText", { text: "x", extra: 1 })).toMatchObject({
      status: "rejected",
      reasonCode: "proto.invalidPayload",
    });
    const noCas = await command(c, id, "editUserQuery", { target: { rowId: 1, entityId: "x" }, newText: "y" });
    expect(noCas).toMatchObject({ status: "rejected", reasonCode: "proto.invalidPayload" });
    expect(noCas.message).toContain("CAS commands require baseRevision and baseLogEpoch");
    expect(await command(c, "sess_nope", "stop", {})).toMatchObject({ status: "rejected", reasonCode: "proto.sessionNotFound" });
    expect(await command(c, id, "pinSession", {})).toMatchObject({ status: "failed", reasonCode: "fault.command.notImplemented" });
  });

  test("rows carry revision and logEpoch; a stale revision or epoch is `stale`, then accepted with the same commandId", async () => {
    const c = sim();
    const id = await c.subscribed("/w/b");
    await c.turn(id, "#scenario:edit");
    const r = await rows(c, id);
    expect(r.atLogEpoch).toMatch(/^[0-9a-z]+-[0-9a-z]{8}$/);
    expect(r.rows.map((x: any) => x.kind)).toEqual(["turnHeader", "userInput", "assistantText", "toolCall", "assistantText"]);
    const header = r.rows[0];
    expect(header).toMatchObject({ state: "completedSuccess", fileChanges: { state: "active" }, actions: { canRewindFiles: true } });
    const target = { rowId: header.rowId, entityId: header.entityId };
    const commandId = cid();
    const stale = await command(
      c,
      id,
      "applyFileRewind",
      { target },
      { baseRevision: r.atRevision - 1, baseLogEpoch: r.atLogEpoch },
      commandId,
    );
    expect(stale).toMatchObject({ status: "stale", reasonCode: "proto.staleRevision" });
    const epoch = await command(c, id, "applyFileRewind", { target }, { baseRevision: r.atRevision, baseLogEpoch: "old-epoch" }, commandId);
    expect(epoch).toMatchObject({ status: "stale", reasonCode: "proto.staleLogEpoch" });
    const ok = await command(c, id, "applyFileRewind", { target }, { baseRevision: r.atRevision, baseLogEpoch: r.atLogEpoch }, commandId);
    expect(ok).toMatchObject({ status: "accepted", result: { type: "applyFileRewind", applied: true } });
    const again = await command(c, id, "applyFileRewind", { target }, { baseRevision: 0, baseLogEpoch: "x" }, commandId);
    expect(again.status).toBe("duplicate");
    expect((await rows(c, id)).rows[0]).toMatchObject({ fileChanges: { state: "reverted" } });
    expect((await rows(c, id)).rows[0].actions).toBeUndefined();
    expect(c.events(id).some((e) => e.type === "rewind.triggered" && e.payload.scope === "workspace")).toBe(true);
  });
});

describe("commands", () => {
  test("a guide reaches the running turn at its tool boundary: steerQueued, steerDrained, one turn", async () => {
    const c = sim();
    const id = await c.subscribed("/w/c");
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:guided" });
    await c.waitFor((f) => f.params?.payload?.kind === "tool_call", 5000, from);
    const commandId = cid();
    const ack = await command(c, id, "sendText", { text: "use TypeScript", requestedDelivery: "guide" }, {}, commandId);
    expect(ack).toMatchObject({ status: "accepted", result: { type: "inputAccepted", delivery: "queue", inputId: commandId } });
    const end = await c.waitTurnEnd(id, 5000, from);
    expect(end.type).toBe("turn.completed");
    expect(end.payload.response).toContain("[guide received: use TypeScript]");
    const types = c.events(id).map((e) => e.type);
    expect(types.indexOf("turn.steerQueued")).toBeLessThan(types.indexOf("turn.steerDrained"));
    expect(types.filter((t) => t === "turn.started")).toHaveLength(1);
    const r = await rows(c, id);
    expect(r.rows.filter((x: any) => x.kind === "userInput").map((x: any) => [x.text, x.guided ?? false])).toEqual([
      ["#scenario:guided", false],
      ["use TypeScript", true],
    ]);
  });

  test("a stopped turn's guide falls back: session.updated guide.turnInterrupted, held (no new turn)", async () => {
    const c = sim();
    const id = await c.subscribed("/w/d");
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:guided hold=1" });
    const started = await c.waitEvent(id, "turn.started", 5000, from);
    await c.waitFor((f) => f.params?.payload?.kind === "tool_call", 5000, from);
    await command(c, id, "sendText", { text: "also lint", requestedDelivery: "guide" });
    // This turn was started by session/send, but a v4 stop with its execution id stops it too.
    expect(await command(c, id, "stop", { expectedForegroundExecutionId: started.payload.foregroundExecutionId })).toMatchObject({
      status: "accepted",
    });
    const fell = c.events(id).find((e) => e.type === "session.updated" && e.payload.fallbackReasonCode);
    expect(fell?.payload).toMatchObject({
      fallbackReasonCode: "guide.turnInterrupted",
      requestedDelivery: "guide",
      admittedDelivery: "queue",
    });
    expect((await c.waitTurnEnd(id, 5000, from)).payload.resultType).toBe("cancelled");
    expect(c.events(id).filter((e) => e.type === "turn.started")).toHaveLength(1);
    // A late stop names the old execution: noop, nothing else happens.
    expect(await command(c, id, "stop", { expectedForegroundExecutionId: started.payload.foregroundExecutionId })).toMatchObject({
      status: "noop",
      reasonCode: "guard.stopTargetChanged",
    });
  });

  test("noboundary=1: the guide falls back (guide.noToolBoundary) and runs as a turn of its own", async () => {
    const c = sim();
    const id = await c.subscribed("/w/e");
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:guided noboundary=1" });
    await c.waitFor((f) => f.params?.payload?.kind === "tool_call", 5000, from);
    const commandId = cid();
    await command(c, id, "sendText", { text: "then this", requestedDelivery: "guide" }, {}, commandId);
    const second = await c.waitFor((f) => f.params?.type === "turn.started" && f.params.payload.queryId === commandId, 5000, from);
    expect(second.params.payload.input).toBe("then this");
    expect(c.events(id).some((e) => e.payload.fallbackReasonCode === "guide.noToolBoundary")).toBe(true);
  });

  test("an unsafe file rewind changes nothing and says which files", async () => {
    const c = sim();
    const id = await c.subscribed("/w/f");
    await c.turn(id, "#scenario:edit unsafe=1");
    const ack = await cas(c, id, "applyFileRewind", (r) => last(r, "turnHeader"));
    expect(ack).toMatchObject({
      status: "accepted",
      result: { applied: false, preview: { canApply: false, unsafeFiles: [{ reason: "external_modified" }] } },
    });
    expect(ack.result.preview.unsafeFiles[0].path).toContain("greet.ts");
    expect((await rows(c, id)).rows[0].fileChanges.state).toBe("active");
    const edit = await cas(c, id, "editUserQuery", (r) => last(r, "userInput"), { newText: "again", workspaceMode: "rewind" });
    expect(edit).toMatchObject({ status: "accepted", result: { disposition: "blocked", reasonCode: "guard.workspaceRewindUnsafeFiles" } });
    expect(await userTexts(c, id)).toEqual(["#scenario:edit unsafe=1"]);
  });

  test("editUserQuery rewind: files restored, prompt replaced, the new text runs (queryId = commandId)", async () => {
    const c = sim();
    const id = await c.subscribed("/w/g");
    await c.turn(id, "#scenario:edit");
    const from = c.frames.length;
    const commandId = cid();
    const ack = await cas(
      c,
      id,
      "editUserQuery",
      (r) => last(r, "userInput"),
      { newText: "hello instead", workspaceMode: "rewind" },
      commandId,
    );
    expect(ack).toMatchObject({ status: "accepted", result: { type: "editUserQuery", disposition: "rewind" } });
    const started = await c.waitEvent(id, "turn.started", 5000, from);
    expect(started.payload).toMatchObject({ queryId: commandId, inputId: commandId, input: "hello instead" });
    await c.waitIdle(id, 5000, from);
    expect(await userTexts(c, id)).toEqual(["hello instead"]);
    const scopes = c
      .events(id)
      .filter((e) => e.type === "rewind.triggered")
      .map((e) => e.payload.scope);
    expect(scopes).toEqual(["workspace", "conversation"]);
  });

  test("editUserQuery of a turn that changed no file: rewind is blocked (guard.workspaceRewindUnavailable), preserve runs", async () => {
    // fork-edit-retry.ts editUserQuery: "rewind" fails closed when the preview has no safe file; the default is "preserve".
    const c = sim();
    const id = await c.subscribed("/w/g2");
    await c.turn(id, "hello");
    const blocked = await cas(c, id, "editUserQuery", (r) => last(r, "userInput"), { newText: "x", workspaceMode: "rewind" });
    expect(blocked).toMatchObject({
      status: "accepted",
      result: { disposition: "blocked", reasonCode: "guard.workspaceRewindUnavailable", preview: { canApply: false, safeFiles: [] } },
    });
    expect(await userTexts(c, id)).toEqual(["hello"]);
    const from = c.frames.length;
    const ran = await cas(c, id, "editUserQuery", (r) => last(r, "userInput"), { newText: "hi instead" });
    expect(ran).toMatchObject({ status: "accepted", result: { disposition: "rewind" } });
    await c.waitTurnEnd(id, 5000, from);
    expect(await userTexts(c, id)).toEqual(["hi instead"]);
  });

  test("rowsRange pages back: newest `limit` rows, then beforeRowId while hasMore (transport.ts)", async () => {
    const c = sim();
    const id = await c.subscribed("/w/p");
    await c.turn(id, "#scenario:default rows=5");
    const newest = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 3 });
    expect(newest.hasMore).toBe(true);
    const ids = newest.rows.map((r: any) => r.rowId);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    const older = await c.call("v4/conversation/rowsRange", { sessionId: id, beforeRowId: ids[0], limit: 200 });
    expect(older.hasMore).toBe(false);
    expect(older.rows.every((r: any) => r.rowId < ids[0])).toBe(true);
    expect(older.rows[0].kind).toBe("turnHeader");
  });

  test("retry: retryTurn on the failed turn's reply, editUserQuery when it has none; one copy of the prompt", async () => {
    const c = sim();
    const id = await c.subscribed("/w/h");
    const p1 = "#scenario:fail-transient fails=1 after=1";
    expect((await c.turn(id, p1)).at(-1)!.type).toBe("turn.failed");
    const r1 = await rows(c, id);
    const reply = r1.rows.find((x: any) => x.actions?.canRetry);
    expect(reply.turnId).toBe(last(r1.rows, "turnHeader").turnId);
    let from = c.frames.length;
    expect(await cas(c, id, "retryTurn", () => reply)).toMatchObject({ status: "accepted" });
    expect((await c.waitTurnEnd(id, 5000, from)).type).toBe("turn.completed");
    await c.waitIdle(id, 5000, from);
    const p2 = "#scenario:fail-transient fails=2";
    expect((await c.turn(id, p2)).at(-1)!.type).toBe("turn.failed");
    for (let i = 0; i < 2; i++) {
      const r = await rows(c, id);
      const failed = last(r.rows, "turnHeader");
      expect(r.rows.some((x: any) => x.actions?.canRetry && x.turnId === failed.turnId)).toBe(false);
      from = c.frames.length;
      expect(await cas(c, id, "editUserQuery", (rs) => last(rs, "userInput"), { newText: p2 })).toMatchObject({ status: "accepted" });
      await c.waitTurnEnd(id, 5000, from);
      await c.waitIdle(id, 5000, from);
    }
    expect(c.events(id).at(-1)?.type).toBe("turn.completed");
    expect(await userTexts(c, id)).toEqual([p1, p2]);
  });

  test("deleteSession is a close (session-mgmt.ts:164-181): no longer live, still in session/list and resumable; the same commandId is a duplicate", async () => {
    const c = sim();
    const id = await c.subscribed("/w/i");
    await c.turn(id, "hi");
    const commandId = cid();
    expect(await command(c, id, "deleteSession", {}, {}, commandId)).toMatchObject({ status: "accepted" });
    expect(await command(c, id, "deleteSession", {}, {}, commandId)).toMatchObject({ status: "duplicate" });
    expect((await c.call("session/list", {})).sessions.map((s: any) => s.sessionId)).toContain(id);
    expect(await command(c, id, "stop", {})).toMatchObject({ status: "rejected", reasonCode: "proto.sessionNotFound" });
    const resumed = await c.call("session/resume", { sessionId: id, workspace: { workspacePath: "/w/i", workspaceKey: "/w/i" } });
    expect(resumed.messages.length).toBeGreaterThanOrEqual(2);
  });
});

describe("streaming deltas batched as the CLI does", () => {
  test("the first delta at once, the rest merged into one event; a re-read flushes the held tail under a new seq", async () => {
    const c = sim();
    const id = await c.subscribed("/w/z");
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:pause ms=3000" });
    const first = await c.waitFor((f) => f.params?.payload?.kind === "text_delta", 5000, from);
    expect(first.params.payload.delta).toBe("The answer ");
    // The other two deltas are held; a re-read lets them out as one event with the next seq.
    const sub = await c.call("session/subscribe", { sessionId: id, deliveryKind: "desktop-continuous", afterSeq: first.params.seq });
    const replayed = sub.events.filter((e: Frame) => e.payload.kind === "text_delta");
    expect(replayed.map((e: Frame) => e.payload.delta)).toEqual(["to the question is forty"]);
    expect(replayed[0].seq).toBe(sub.eventSeq);
    // Pushed live under that same seq, once: the batch is empty now.
    await c.call("session/stop", { sessionId: id });
    await c.waitTurnEnd(id, 5000, from);
    const live = c.events(id).filter((e) => e.payload.kind === "text_delta");
    expect(live.filter((e) => e.payload.delta.includes("question")).map((e) => e.seq)).toEqual([replayed[0].seq]);
  });

  test("merged deltas flush at the next other event, or when a delta comes 250 ms (event time) after the last flush", async () => {
    const c = sim();
    const id = await c.subscribed("/w/y");
    const ev = await c.turn(id, "#scenario:pause ms=400");
    const deltas = ev.filter((e) => e.payload.kind === "text_delta").map((e) => e.payload.delta);
    // No timer (server-operations.ts :444-459): the first delta after the pause lets the held batch out with it;
    // the stream's end (the next other event) the last one.
    expect(deltas).toEqual(["The answer ", "to the question is forty-two", ", and that is all."]);
  });
});

describe("fault switches (v4-faults.ts)", () => {
  function faulty(env: Record<string, string>): SimClient {
    const c = new SimClient(tempDir(), { env });
    open.push(c);
    return c;
  }
  const probe = { commands: [{ sessionId: null, commandId: "probe" }] };

  test("ZCODE_SIM_V4_PROBE: error and garbage the first n times, then the real answer", async () => {
    const c = faulty({ ZCODE_SIM_V4_PROBE: "error*1" });
    expect((await c.request("v4/commands/query", probe)).error.code).toBe(-32603);
    expect((await c.call("v4/commands/query", probe)).results).toHaveLength(1);
    const g = faulty({ ZCODE_SIM_V4_PROBE: "garbage" });
    expect(await g.call("v4/commands/query", probe)).toEqual({ results: "unknown" });
  });

  test("ZCODE_SIM_V4_ACK: stale, refusals and activePrompt (the conversation cut first, as fork-edit-retry.ts retryTurn does)", async () => {
    const c = faulty({ ZCODE_SIM_V4_ACK: "sendText:stale*1,retryTurn:activePrompt*1" });
    const id = await c.subscribed("/w/f");
    expect(await command(c, id, "sendText", { text: "x", requestedDelivery: "guide" })).toMatchObject({
      status: "stale",
      reasonCode: "proto.staleRevision",
    });
    const p1 = "#scenario:fail-transient fails=1 after=1";
    await c.turn(id, p1);
    await c.waitIdle(id, 5000);
    const refused = await cas(c, id, "retryTurn", (r) => r.find((x: any) => x.actions?.canRetry));
    expect(refused).toMatchObject({ status: "failed", reasonCode: "activePrompt" });
    expect(await userTexts(c, id)).toEqual([]);
  });
});
