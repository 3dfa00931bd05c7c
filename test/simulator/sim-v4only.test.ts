// ZCODE_SIM_PROTOCOL=v4-only: a CLI without its legacy protocol file
// (v4-only.ts), driven over raw stdio.
import { afterEach, beforeAll, describe, expect, test } from "bun:test";
import { ensureSimBuilt, type SimClient } from "./sim-client.ts";
import { bare, command, createSession, subscribe, type TopicReader, v4Sim } from "./sim-v4only-support.ts";

beforeAll(ensureSimBuilt, 120_000);

const open: SimClient[] = [];
function sim(env: Record<string, string> = {}): SimClient {
  const c = v4Sim(env);
  open.push(c);
  return c;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

describe("v4-only: the legacy surface is gone", () => {
  test("legacy methods answer -32601; the v4 probe still answers", async () => {
    const c = sim();
    for (const method of [
      "initialize",
      "session/create",
      "session/list",
      "session/subscribe",
      "usage/stats",
      "session/usage",
      "workspace/readPresentation",
    ]) {
      const r = await c.request(method, {});
      expect(r.error).toEqual({ code: -32601, message: `Method not found: ${method}` });
    }
    const probe = await c.call("v4/commands/query", { commands: [{ sessionId: null, commandId: "probe" }] });
    expect(probe).toEqual({ results: [{ key: { sessionId: null, commandId: "probe" }, result: "unknown" }] });
  });

  test("the default mode keeps legacy (session/create answers)", async () => {
    const c = sim({ ZCODE_SIM_PROTOCOL: "both" });
    expect(await c.create()).toBeString();
  });
});

describe("v4-only: createSession, subscribe, deltas", () => {
  test("a draft (no rows, phase draft) until the first sendText; the text turn arrives as row deltas, state.updated moves phase", async () => {
    const c = sim();
    const created = await createSession(c);
    const id = created.result.sessionId as string;
    expect(created.result.input).toBeUndefined();
    const { ack, reader } = await subscribe(c, `conversation/${id}`);
    expect(ack).toMatchObject({ mode: "snapshot", subscriptionId: expect.stringMatching(/^sub-/) });
    const snap = reader.logical[0]!;
    expect(snap.deliveryKind).toBe("initial");
    expect(snap.payload.snapshot).toMatchObject({
      protocolVersion: 1,
      sessionId: id,
      logEpoch: ack.logEpoch,
      control: { phase: "draft", activeWorks: [] },
      rows: { window: [], totalCount: 0, firstRowId: null },
      pendingInteractions: [],
    });
    const sent = await command(c, id, "sendText", { text: "#scenario:default hello there" });
    expect(sent).toMatchObject({ status: "accepted", result: { type: "inputAccepted", delivery: "startNow" } });
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    const ops = reader.deltas().map((d) => d.op);
    expect(ops).toContain("row.appended");
    expect(ops).toContain("state.updated");
    expect(reader.deltas().some((d) => d.op === "state.updated" && d.patch.control?.phase === "running")).toBe(true);
    // The model built from the frames equals what rowsRange reads.
    const range = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 200 });
    expect(bare(reader.sortedRows())).toEqual(bare(range.rows));
    expect(reader.sortedRows().map((r) => r.kind)).toEqual(expect.arrayContaining(["turnHeader", "userInput", "assistantText"]));
    // Frame ordinals count up from 1 for the subscription.
    expect(reader.logical.map((f) => f.ordinal)).toEqual(reader.logical.map((_, i) => i + 1));
  }, 30_000);

  test("a change with no event of its own (the runtime let go after the turn's end) moves the seq: the end is not dropped", async () => {
    // ZCODE_SIM_BUSY_TAIL_MS: the turn's runtime is let go 200 ms after its end event, past every flush window, so
    // the phase change is flushed alone. ZCode's clients drop a frame (N, N] as already applied (the reader does so
    // too and fails on deltas there): the session would stay `running` for them.
    const c = sim({ ZCODE_SIM_BUSY_TAIL_MS: "200" });
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`, { clientMode: "desktop-continuous" });
    await command(c, id, "sendText", { text: "#scenario:default hello there" });
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    const deltaFrames = reader.logical.filter((f) => f.payload.kind === "deltas" && f.payload.deltas.length > 0);
    expect(deltaFrames.every((f) => f.toSeq > f.fromSeq)).toBe(true);
    // What the frames built is what a fresh snapshot shows.
    const { reader: fresh } = await subscribe(c, `conversation/${id}`);
    expect({ phase: fresh.state.control?.phase, seq: fresh.seq }).toEqual({ phase: "completedSuccess", seq: reader.seq });
  }, 30_000);

  test("row.delta carries streamed text (continuous profile)", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`, { clientMode: "desktop-continuous" });
    await command(c, id, "sendText", { text: "#scenario:slow n=100000" });
    // Once the streaming row is on the client, later text can only come as row.delta (no upsert until the turn ends).
    await reader.until((r) => r.sortedRows().some((x) => x.kind === "assistantText" && x.state === "streaming"), 15_000);
    const seen = reader.logical.length;
    await reader.until(
      (r) => r.logical.slice(seen).some((f) => f.payload.deltas?.some((d: any) => d.op === "row.delta" && d.path === "text")),
      15_000,
    );
    const fx = reader.state.control.activeWorks[0].foregroundExecutionId;
    expect((await command(c, id, "stop", { expectedForegroundExecutionId: fx })).status).toBe("accepted");
    await reader.until((r) => r.state.control?.phase === "completedInterrupted", 15_000);
    const range = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 200 });
    expect(bare(reader.sortedRows())).toEqual(bare(range.rows));
  }, 30_000);

  test("createSession with firstInput starts the turn and answers its input", async () => {
    const c = sim();
    const a = await createSession(c, { firstInput: { text: "#scenario:default first" }, mcpServers: [] });
    expect(a.result.input).toMatchObject({ delivery: "startNow", inputId: expect.any(String) });
    const range = await c.call("v4/conversation/rowsRange", { sessionId: a.result.sessionId, limit: 10 });
    expect(range.rows.some((r: any) => r.kind === "userInput" && r.text.includes("first"))).toBe(true);
  });

  test("fragmented frames reassemble to the same JSON (ZCODE_SIM_V4_MAX_FRAME_BYTES)", async () => {
    const c = sim({ ZCODE_SIM_V4_MAX_FRAME_BYTES: "2048" });
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    await command(c, id, "sendText", { text: "#scenario:tools" });
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 20_000);
    const fragments = reader.wires.filter((w) => w.kind === "fragment");
    expect(fragments.length).toBeGreaterThan(1);
    for (const w of fragments) {
      expect(Object.keys(w).sort()).toEqual(
        [
          "checksum",
          "dataBase64",
          "deliveryKind",
          "fragmentCount",
          "fragmentIndex",
          "kind",
          "logicalBytes",
          "logicalFrameId",
          "logicalFrameOrdinal",
          "subscriptionId",
          "topic",
          "wireVersion",
        ].sort(),
      );
      expect(w.checksum.algorithm).toBe("crc32");
    }
    const range = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 200 });
    expect(bare(reader.sortedRows())).toEqual(bare(range.rows));
  }, 30_000);

  test("resync with the reader's base resumes; a bad base gets a snapshot; unsubscribe stops frames", async () => {
    const c = sim();
    const id = (await createSession(c, { firstInput: { text: "#scenario:default one" } })).result.sessionId as string;
    const { ack, reader } = await subscribe(c, `conversation/${id}`);
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    const again = await c.call("v4/conversation/resync", {
      subscriptionId: ack.subscriptionId,
      base: { logEpoch: ack.logEpoch, seq: reader.seq },
      topic: `conversation/${id}`,
      connectionId: "conn-1",
    });
    expect(again.ack.mode).toBe("resume");
    const snap = await c.call("v4/conversation/resync", {
      subscriptionId: ack.subscriptionId,
      base: null,
      topic: `conversation/${id}`,
      connectionId: "conn-1",
    });
    expect(snap.ack.mode).toBe("snapshot");
    await reader.until((r) => r.logical.some((f) => f.deliveryKind === "recovery" && f.payload.kind === "snapshot"));
    const strict = await c.request("v4/conversation/resync", {
      subscriptionId: ack.subscriptionId,
      base: null,
      topic: `conversation/${id}`,
      connectionId: "conn-1",
      extra: 1,
    });
    expect(strict.error?.code).toBe(-32603);
    const other = await subscribe(c, `conversation/${id}`, { connectionId: "conn-2" });
    await c.call("v4/conversation/unsubscribe", {
      topic: `conversation/${id}`,
      subscriptionId: ack.subscriptionId,
      connectionId: "conn-1",
    });
    reader.pump();
    const before = reader.wires.length;
    await command(c, id, "sendText", { text: "#scenario:default two" });
    // conn-2 getting the turn means conn-1 would have had it too.
    await other.reader.until(
      (r) => r.sortedRows().some((x) => x.kind === "userInput" && x.text.includes("two")) && r.state.control?.phase === "completedSuccess",
    );
    reader.pump();
    expect(reader.wires.length).toBe(before);
  }, 30_000);

  test("v4/connection/flow: saturated holds the connection's frames, drained sends them", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    const other = await subscribe(c, `conversation/${id}`, { connectionId: "conn-2" });
    expect(await c.call("v4/connection/flow", { connectionId: "conn-1", state: "saturated" })).toEqual({});
    const held = reader.wires.length;
    await command(c, id, "sendText", { text: "#scenario:default held" });
    // conn-1's flush timer was armed with conn-2's, and first: once conn-2 has the turn, conn-1's flush has run.
    await other.reader.until((r) => r.state.control?.phase === "completedSuccess");
    reader.pump();
    expect(reader.wires.length).toBe(held);
    await c.call("v4/connection/flow", { connectionId: "conn-1", state: "drained" });
    await reader.until((r) => r.sortedRows().some((x) => x.kind === "userInput" && x.text.includes("held")));
    const bad = await c.request("v4/connection/flow", { connectionId: "conn-1", state: "open" });
    expect(bad.error?.code).toBe(-32603);
  });

  test("rowsRange atSeq is the topic's seq; a base from before events nobody listened to resumes as a snapshot", async () => {
    const c = sim();
    const id = (await createSession(c, { firstInput: { text: "#scenario:default one" } })).result.sessionId as string;
    const first = await subscribe(c, `conversation/${id}`);
    await first.reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    expect((await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 1 })).atSeq).toBe(first.reader.seq);
    const same = await c.call("v4/conversation/subscribe", {
      topic: `conversation/${id}`,
      connectionId: "conn-1",
      clientMode: "web-remote-replayable",
      base: { logEpoch: first.ack.logEpoch, seq: first.reader.seq },
    });
    expect(same.ack.mode).toBe("resume");
    await c.call("v4/conversation/unsubscribe", {
      topic: `conversation/${id}`,
      subscriptionId: same.ack.subscriptionId,
      connectionId: "conn-1",
    });
    await command(c, id, "sendText", { text: "#scenario:default two" });
    const idx = await subscribe(c, "sessions-index//tmp/ws-v4only", { connectionId: "index" });
    await idx.reader.until(
      (r) =>
        r.state.sessions?.some((s: any) => s.sessionId === id && s.phase === "completedSuccess" && s.lastAssistantPreview?.includes("two")),
      15_000,
    );
    const later = await c.call("v4/conversation/subscribe", {
      topic: `conversation/${id}`,
      connectionId: "conn-1",
      clientMode: "web-remote-replayable",
      base: { logEpoch: first.ack.logEpoch, seq: first.reader.seq },
    });
    expect(later.ack.mode).toBe("snapshot");
  }, 30_000);

  test("strict subscribe params: an unknown key is refused", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const r = await c.request("v4/conversation/subscribe", {
      topic: `conversation/${id}`,
      connectionId: "x",
      clientMode: "web-remote-replayable",
      sessionId: id,
    });
    expect(r.error?.code).toBe(-32603);
    expect(r.error?.message).toContain("Unrecognized key");
  });
});

describe("v4-only: pending interactions", () => {
  test("a permission is a pendingInteraction; resolveInteraction answers it; a late second answer is an idempotent accept", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    await command(c, id, "sendText", { text: "#scenario:permission" });
    await reader.until((r) => (r.state.pendingInteractions ?? []).length === 1, 15_000);
    const pi = reader.state.pendingInteractions[0];
    expect(pi).toMatchObject({ kind: "permission", payload: { kind: "permission", toolName: expect.any(String) } });
    expect(pi.payload.options.map((o: any) => o.kind)).toEqual(["allowOnce", "allowAlways", "deny"]);
    const tool = reader.sortedRows().find((r) => r.kind === "toolCall" && r.status === "pendingApproval");
    expect(tool).toMatchObject({ approvalInteractionId: pi.interactionId, rowId: pi.anchorRowId });
    expect(c.frames.some((f) => f.method === "interaction/requestPermission")).toBe(false);
    const during = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 200 });
    expect(during.rows.find((r: any) => r.rowId === tool!.rowId)).toMatchObject({
      status: "pendingApproval",
      approvalInteractionId: pi.interactionId,
    });
    const first = await command(c, id, "resolveInteraction", { interactionId: pi.interactionId, answer: { optionId: "allow_once" } });
    expect(first.status).toBe("accepted");
    const late = await command(c, id, "resolveInteraction", { interactionId: pi.interactionId, answer: { optionId: "deny" } });
    expect(late.status).toBe("accepted");
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    expect(reader.state.pendingInteractions).toEqual([]);
    const toolAfter = reader.sortedRows().find((r) => r.kind === "toolCall" && r.rowId === tool!.rowId);
    expect(toolAfter?.status).toBe("success");
  }, 30_000);

  test("an AskUserQuestion is a userInput interaction answered with action/content", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const { reader } = await subscribe(c, `conversation/${id}`);
    await command(c, id, "sendText", { text: "#scenario:question" });
    await reader.until((r) => (r.state.pendingInteractions ?? []).length === 1, 15_000);
    const pi = reader.state.pendingInteractions[0];
    expect(pi).toMatchObject({ kind: "userInput", payload: { kind: "userInput", toolName: "AskUserQuestion" } });
    const q = pi.payload.questions[0];
    const answer = { action: "accept", content: { answers: { [q.question]: q.options[0].value } } };
    expect((await command(c, id, "resolveInteraction", { interactionId: pi.interactionId, answer })).status).toBe("accepted");
    await reader.until((r) => r.state.control?.phase === "completedSuccess", 15_000);
    const text = reader
      .sortedRows()
      .filter((r) => r.kind === "assistantText")
      .map((r) => r.text)
      .join("");
    expect(text).toContain(q.options[0].value);
  }, 30_000);
});

describe("v4-only: list, history, attachments", () => {
  test("sessions-index lists the draft, then its title and phase as they change", async () => {
    const c = sim();
    const ws = "/tmp/ws-index";
    const id = (await createSession(c, { workspaceId: ws })).result.sessionId as string;
    const { reader } = await subscribe(c, `sessions-index/${ws}`);
    const snap = reader.logical[0]!.payload.snapshot;
    expect(snap).toMatchObject({ protocolVersion: 1, workspaceId: ws });
    expect(snap.sessions).toEqual([expect.objectContaining({ sessionId: id, workspaceId: ws, phase: "draft" })]);
    await command(c, id, "renameSession", { title: "Named" });
    await reader.until((r) => r.state.sessions?.some((s: any) => s.title === "Named" && s.titleSource === "custom"));
    await command(c, id, "sendText", { text: "#scenario:default hi" });
    await reader.until((r) => r.state.sessions?.some((s: any) => s.phase === "completedSuccess"), 15_000);
  }, 30_000);

  test("rowsRange pages a long conversation back with beforeRowId while hasMore; the snapshot holds the 60-row tail", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const live = await subscribe(c, `conversation/${id}`, { connectionId: "live" });
    const done = (r: TopicReader) => r.sortedRows().filter((x) => x.kind === "turnHeader" && x.state === "completedSuccess").length;
    for (let i = 0; i < 6; i++) {
      await command(c, id, "sendText", { text: "#scenario:tools" });
      await live.reader.until((r) => done(r) === i + 1 && r.state.control?.phase === "completedSuccess", 20_000);
    }
    const all: any[] = [];
    let page = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 25 });
    all.unshift(...page.rows);
    while (page.hasMore) {
      page = await c.call("v4/conversation/rowsRange", { sessionId: id, limit: 25, beforeRowId: page.rows[0].rowId });
      all.unshift(...page.rows);
    }
    expect(all.length).toBeGreaterThan(60);
    expect(all.map((r) => r.rowId)).toEqual([...all.map((r) => r.rowId)].sort((a, b) => a - b));
    const { reader } = await subscribe(c, `conversation/${id}`, { connectionId: "last" });
    const rows = reader.logical[0]!.payload.snapshot.rows;
    expect(rows.window.length).toBe(60);
    expect(rows.totalCount).toBe(all.length);
    expect(rows.firstRowId).toBe(all[0].rowId);
    expect(rows.window[0].rowId).not.toBe(rows.firstRowId);
  }, 120_000);

  test("attachments: begin/chunk/commit give a ref sendText accepts; a bad checksum or an unknown ref is refused", async () => {
    const c = sim();
    const id = (await createSession(c)).result.sessionId as string;
    const data = Buffer.from("hello attachment");
    const checksum = `sha256:${new Bun.CryptoHasher("sha256").update(data).digest("hex")}`;
    const base = { connectionId: "conn-1", uploadId: "up-1", sessionId: id };
    expect(
      await c.call("v4/attachment/begin", {
        ...base,
        fileName: "a.txt",
        mime: "text/plain",
        totalBytes: data.length,
        totalChunks: 1,
        checksum,
      }),
    ).toEqual({
      uploadId: "up-1",
      state: "staging",
      nextChunkIndex: 0,
    });
    expect(await c.call("v4/attachment/chunk", { ...base, chunkIndex: 0, dataBase64: data.toString("base64") })).toEqual({
      uploadId: "up-1",
      nextChunkIndex: 1,
    });
    const { ref } = await c.call("v4/attachment/commit", base);
    expect(ref).toBeString();
    const att = { ref, fileName: "a.txt", mime: "text/plain", bytes: data.length };
    const { reader } = await subscribe(c, `conversation/${id}`);
    expect((await command(c, id, "sendText", { text: "#scenario:default see file", attachments: [att] })).status).toBe("accepted");
    // The turn got the file (the simulator's reply names what it was given).
    await reader.until((r) => r.sortedRows().some((x) => x.kind === "assistantText" && x.text.includes("a.txt 16 bytes")), 15_000);
    const unknown = await command(c, id, "sendText", { text: "x", attachments: [{ ...att, ref: "zcode-artifact://nope" }] });
    expect(unknown).toMatchObject({ status: "failed", reasonCode: "fault.command.inputRejected" });
    const b2 = { connectionId: "conn-1", uploadId: "up-2", sessionId: id };
    await c.call("v4/attachment/begin", {
      ...b2,
      fileName: "b.txt",
      mime: "text/plain",
      totalBytes: data.length,
      totalChunks: 1,
      checksum: `sha256:${"0".repeat(64)}`,
    });
    await c.call("v4/attachment/chunk", { ...b2, chunkIndex: 0, dataBase64: data.toString("base64") });
    const bad = await c.request("v4/attachment/commit", b2);
    expect(bad.error?.message).toBe("fault.attachment.checksumMismatch");
    const badParams = await c.request("v4/attachment/begin", {
      ...b2,
      fileName: "c",
      mime: "bad",
      totalBytes: 0,
      totalChunks: 1,
      checksum,
    });
    expect(badParams.error?.code).toBe(-32603);
  }, 30_000);
});
