// The simulator's queue of inputs waiting for a turn (v4-queue.ts), as
// jimpablo/ZCode@aac4755 has it: a failed turn keeps its guides without a
// word (core runtime/methods/turn.ts, executeTurn catch), a held queue
// refuses an idle v4 sendText without heldQueueDisposition
// (input-admission.ts applyHeldQueueDisposition), deleteQueueItem removes
// an item (handlers/queue.ts), and legacy session/send during a v4-started
// turn is queued behind it (server-operations.ts sendPrompt checks only the
// legacy controller).
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, SimClient, tempDir } from "./sim-client.ts";

beforeAll(ensureSimBuilt, 60_000);

const open: SimClient[] = [];
function sim(env: Record<string, string> = {}): SimClient {
  const c = new SimClient(tempDir(), { env });
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

let n = 0;
const cid = () => `0196a3e2-7c1d-7000-9000-${String(++n).padStart(12, "0")}`;

function command(c: SimClient, sessionId: string, type: string, payload: unknown, extra: Record<string, unknown> = {}, commandId = cid()) {
  return c.call("v4/command", { commandId, clientId: "test", sessionId, type, payload, issuedAt: Date.now(), ...extra });
}
async function deleteItem(c: SimClient, sessionId: string, queueItemId: string) {
  const r = await c.call("v4/conversation/rowsRange", { sessionId, limit: 1 });
  return command(c, sessionId, "deleteQueueItem", { queueItemId }, { baseRevision: r.atRevision, baseLogEpoch: r.atLogEpoch });
}

/** A turn steered once, then stopped (v4 stop) or failed (fail=1): its guide is held. */
async function heldGuide(c: SimClient, how: "stop" | "fail"): Promise<{ id: string; guideId: string; from: number }> {
  const id = await c.subscribed(`/w/${how}`);
  const from = c.frames.length;
  await c.call("session/send", { sessionId: id, content: `#scenario:guided ${how === "stop" ? "hold=1" : "fail=1"}` });
  await c.waitFor((f) => f.params?.payload?.kind === "tool_call", 5000, from);
  const guideId = cid();
  expect(await command(c, id, "sendText", { text: "also lint", requestedDelivery: "guide" }, {}, guideId)).toMatchObject({
    status: "accepted",
  });
  if (how === "stop") await command(c, id, "stop", {});
  await c.waitTurnEnd(id, 5000, from);
  return { id, guideId, from };
}

describe("held guides", () => {
  test("a failed turn keeps its guide without a word; the held queue refuses an idle sendText until it is deleted", async () => {
    const c = sim();
    const { id, guideId } = await heldGuide(c, "fail");
    const events = c.events(id);
    expect(events.some((e) => e.type === "turn.failed")).toBe(true);
    // core turn.ts: a plain TurnError emits no TurnSteerDeliveryChanged.
    expect(events.some((e) => e.type === "session.updated" && e.payload.fallbackReasonCode)).toBe(false);
    const refused = await command(c, id, "sendText", { text: "next" });
    expect(refused).toMatchObject({ status: "failed", reasonCode: "heldQueueDispositionRequired" });
    expect(await deleteItem(c, id, `queue_${guideId}`)).toMatchObject({ status: "accepted" });
    expect(await deleteItem(c, id, `queue_${guideId}`)).toMatchObject({ status: "noop", reasonCode: "queue.itemMissing" });
    expect(await command(c, id, "sendText", { text: "next" })).toMatchObject({ status: "accepted", result: { delivery: "startNow" } });
  });

  test("a stopped turn's guide is held too; keepQueueAndSend sends anyway, clearQueueAndSend empties the queue", async () => {
    const c = sim();
    const { id } = await heldGuide(c, "stop");
    expect(await command(c, id, "sendText", { text: "x" })).toMatchObject({ reasonCode: "heldQueueDispositionRequired" });
    const from = c.frames.length;
    expect(await command(c, id, "sendText", { text: "kept", heldQueueDisposition: "keepQueueAndSend" })).toMatchObject({
      status: "accepted",
    });
    await c.waitTurnEnd(id, 5000, from);
    // Still held after that turn (keep leaves the queue paused).
    expect(await command(c, id, "sendText", { text: "x" })).toMatchObject({ reasonCode: "heldQueueDispositionRequired" });
    const from2 = c.frames.length;
    expect(await command(c, id, "sendText", { text: "cleared", heldQueueDisposition: "clearQueueAndSend" })).toMatchObject({
      status: "accepted",
    });
    await c.waitTurnEnd(id, 5000, from2);
    expect(await command(c, id, "sendText", { text: "free" })).toMatchObject({ status: "accepted" });
  });

  test("deleteQueueItem is CAS: without baseRevision it is rejected", async () => {
    const c = sim();
    const { id, guideId } = await heldGuide(c, "stop");
    expect(await command(c, id, "deleteQueueItem", { queueItemId: `queue_${guideId}` })).toMatchObject({
      status: "rejected",
      reasonCode: "proto.invalidPayload",
    });
  });
});

describe("legacy session/send during a v4-started turn", () => {
  test("is admitted and queued behind that turn (not -32010), then runs as a turn of its own", async () => {
    const c = sim();
    const id = await c.subscribed("/w/legacy");
    const from = c.frames.length;
    expect(await command(c, id, "sendText", { text: "#scenario:slow n=30" })).toMatchObject({ status: "accepted" });
    await c.waitEvent(id, "turn.started", 5000, from);
    const sent = await c.call("session/send", { sessionId: id, content: "#scenario:slow n=2" });
    expect(sent).toMatchObject({ accepted: true });
    const queued = await c.waitEvent(id, "turn.steerQueued", 5000, from);
    expect(queued.payload).toMatchObject({ delivery: "queue", input: "#scenario:slow n=2" });
    const second = await c.waitFor(
      (f) => f.params?.type === "turn.started" && f.params.payload.input === "#scenario:slow n=2",
      10_000,
      from,
    );
    expect(second).toBeDefined();
  }, 20_000);

  test("a turn session/send started still refuses a second session/send (-32010)", async () => {
    const c = sim();
    const id = await c.subscribed("/w/legacy2");
    await c.call("session/send", { sessionId: id, content: "#scenario:slow n=30" });
    expect((await c.request("session/send", { sessionId: id, content: "again" })).error?.code).toBe(-32010);
  });
});

describe("ZCODE_SIM_STEER_ACK", () => {
  test("drop: the guide is admitted, its ACK never written; reject: refused, not admitted", async () => {
    const c = sim({ ZCODE_SIM_STEER_ACK: "drop" });
    const id = await c.subscribed("/w/drop");
    const from = c.frames.length;
    await c.call("session/send", { sessionId: id, content: "#scenario:guided" });
    await c.waitFor((f) => f.params?.payload?.kind === "tool_call", 5000, from);
    const answer = c.request("v4/command", {
      commandId: cid(),
      clientId: "test",
      sessionId: id,
      type: "sendText",
      payload: { text: "use tabs", requestedDelivery: "guide" },
      issuedAt: Date.now(),
    });
    let answered = false;
    // The client gives up on the answer after a while: that is expected here.
    answer.then(
      () => (answered = true),
      () => {},
    );
    const end = await c.waitTurnEnd(id, 5000, from);
    expect(end.payload.response).toContain("[guide received: use tabs]");
    expect(answered).toBe(false);

    const r = sim({ ZCODE_SIM_STEER_ACK: "reject" });
    const id2 = await r.subscribed("/w/reject");
    const from2 = r.frames.length;
    await r.call("session/send", { sessionId: id2, content: "#scenario:guided" });
    await r.waitFor((f) => f.params?.payload?.kind === "tool_call", 5000, from2);
    expect(await command(r, id2, "sendText", { text: "use tabs", requestedDelivery: "guide" })).toMatchObject({
      status: "failed",
      reasonCode: "fault.command.inputRejected",
    });
    expect(r.events(id2).some((e) => e.type === "turn.steerQueued")).toBe(false);
  }, 20_000);
});
