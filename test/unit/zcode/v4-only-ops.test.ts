// The v4 commands a v4-only child gets for each ZCodeApi session method:
// type, payload (only the keys command.ts names) and CAS fields.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ZCodeApi } from "../../../src/zcode/api.ts";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import type { ZCodeConnection } from "../../../src/zcode/connection.ts";
import { V4Channel } from "../../../src/zcode/v4/channel.ts";
import { V4OnlyCommands } from "../../../src/zcode/v4/only-commands.ts";
import { indexReader } from "../../../src/zcode/v4/only-list.ts";
import { crc32 } from "../../../src/zcode/v4/wire-frames.ts";
import { complete, snapshot, snapshotFrame } from "./v4/frames.ts";

/** A whole snapshot wire frame of `topic` (v4feed's test frames, moved to that topic). */
function snapshotWire(topic: string) {
  return { ...complete({ ...snapshotFrame(snapshot([])), topic, subscriptionId: "sub-1" }, 1, "initial"), topic, subscriptionId: "sub-1" };
}

type Sent = { method: string; params: any };

function v4child(opts: { rows?: unknown[]; ack?: (env: any) => Record<string, unknown> } = {}) {
  const sent: Sent[] = [];
  const conn = {
    capabilities: new CliCapabilities("0.16.9"),
    start: async () => ({}),
    async request(method: string, params: any, o: { schema?: v.GenericSchema } = {}) {
      sent.push({ method, params: JSON.parse(JSON.stringify(params ?? null)) });
      let answer: unknown = {};
      if (method === "v4/commands/query") answer = { results: [{ result: "unknown" }] };
      else if (method === "v4/command")
        answer = { commandId: params.commandId, status: "accepted", revisionAtDecision: 1, ...opts.ack?.(params) };
      else if (method === "v4/conversation/rowsRange")
        answer = { rows: opts.rows ?? [], atRevision: 7, atLogEpoch: "ep", hasMore: false, atSeq: 0 };
      else if (method === "v4/attachment/begin") answer = { uploadId: params.uploadId, state: "staging", nextChunkIndex: 0 };
      else if (method === "v4/attachment/commit") answer = { ref: "att-1" };
      return o.schema ? v.parse(o.schema, answer) : answer;
    },
  };
  return { conn: conn as unknown as ZCodeConnection, sent };
}

const commands = (sent: Sent[]) => sent.filter((s) => s.method === "v4/command").map((s) => s.params);

describe("session methods on a v4-only child", () => {
  test("send: sendText {text}; a held queue is kept (heldQueueDisposition keepQueueAndSend)", async () => {
    let first = true;
    const { conn, sent } = v4child({
      ack: (env) =>
        env.type === "sendText" && first ? ((first = false), { status: "failed", reasonCode: "heldQueueDispositionRequired" }) : {},
    });
    await expect(new ZCodeApi(conn, { protocol: "v4" }).send({ sessionId: "s1", content: "hi" })).resolves.toEqual({ accepted: true });
    expect(commands(sent).map((c) => [c.type, c.sessionId, c.payload])).toEqual([
      ["sendText", "s1", { text: "hi" }],
      ["sendText", "s1", { text: "hi", heldQueueDisposition: "keepQueueAndSend" }],
    ]);
  });

  test("attachments: begin, chunks of at most 512 KiB, commit, then refs in sendText", async () => {
    const { conn, sent } = v4child();
    const data = Buffer.alloc(600 * 1024, 7).toString("base64");
    await new ZCodeApi(conn, { protocol: "v4" }).send({
      sessionId: "s1",
      content: "see",
      attachments: [{ kind: "image", filename: "a.png", mimeType: "image/png", sizeBytes: 600 * 1024, dataBase64: data }],
    });
    const m = sent.map((s) => s.method).filter((x) => x.startsWith("v4/attachment"));
    expect(m).toEqual(["v4/attachment/begin", "v4/attachment/chunk", "v4/attachment/chunk", "v4/attachment/commit"]);
    const begin = sent.find((s) => s.method === "v4/attachment/begin")!.params;
    expect(Object.keys(begin).sort()).toEqual([
      "checksum",
      "connectionId",
      "fileName",
      "mime",
      "sessionId",
      "totalBytes",
      "totalChunks",
      "uploadId",
    ]);
    expect(begin).toMatchObject({ totalBytes: 600 * 1024, totalChunks: 2, mime: "image/png", fileName: "a.png" });
    expect(begin.checksum).toMatch(/^sha256:[0-9a-f]{64}$/);
    expect(commands(sent)[0].payload).toEqual({
      text: "see",
      attachments: [{ ref: "att-1", fileName: "a.png", mime: "image/png", bytes: 600 * 1024 }],
    });
  });

  test("stop, compact and goal: plain commands; pause/resume CAS; clear cannot", async () => {
    const { conn, sent } = v4child();
    const api = new ZCodeApi(conn, { protocol: "v4" });
    await api.stop("s1");
    await api.compact({ sessionId: "s1" });
    await api.goal({ sessionId: "s1", action: "set", objective: "ship it" });
    await api.goal({ sessionId: "s1", action: "pause" });
    await api.goal({ sessionId: "s1", action: "resume" });
    expect(commands(sent).map((c) => [c.type, c.payload, c.baseRevision, c.baseLogEpoch])).toEqual([
      ["stop", {}, undefined, undefined],
      ["compact", {}, undefined, undefined],
      ["sendGoalCommand", { text: "ship it", displayText: "/goal ship it" }, undefined, undefined],
      ["pauseGoal", {}, 7, "ep"],
      ["resumeGoal", {}, 7, "ep"],
    ]);
    await expect(api.goal({ sessionId: "s1", action: "clear" })).rejects.toThrow("no command to clear a goal");
    await expect(api.compact({ sessionId: "s1", instructions: "keep tests" })).rejects.toThrow("takes no instructions");
  });

  test("settings: switchModelConfig / switchCollaborationMode with CAS", async () => {
    const { conn, sent } = v4child();
    const api = new ZCodeApi(conn, { protocol: "v4" });
    await api.setModel({ sessionId: "s1", model: { providerId: "zai", modelId: "glm-5", options: { reasoningLevel: "high" } } });
    await api.setMode({ sessionId: "s1", mode: "plan" });
    expect(commands(sent).map((c) => [c.type, c.payload, c.baseRevision])).toEqual([
      ["switchModelConfig", { provider: "zai", model: "glm-5", thought: "high" }, 7],
      ["switchCollaborationMode", { mode: "plan" }, 7],
    ]);
    // The level alone needs the session's model, known from its feed.
    await expect(api.setThoughtLevel({ sessionId: "s1", thoughtLevel: "low" })).rejects.toThrow("current model is not known");
  });

  test("fork: forkAssistant at the newest answer ZCode offers to fork at", async () => {
    const rows = [
      { rowId: 1, kind: "assistantText", entityId: "m1:0", actions: { canFork: true } },
      { rowId: 2, kind: "assistantText", entityId: "m2:0", actions: { canFork: true } },
      { rowId: 3, kind: "toolCall", entityId: "c1" },
    ];
    const { conn, sent } = v4child({
      rows,
      ack: (env) => (env.type === "forkAssistant" ? { result: { type: "forkAssistant", sessionId: "s2" } } : {}),
    });
    const r = await new ZCodeApi(conn, { protocol: "v4" }).fork({ sessionId: "s1", target: { kind: "latestCheckpoint" } });
    expect(r).toEqual({ forkedSessionId: "s2" });
    expect(commands(sent)[0]).toMatchObject({
      type: "forkAssistant",
      payload: { target: { rowId: 2, entityId: "m2:0" } },
      baseRevision: 7,
      baseLogEpoch: "ep",
    });
  });

  test("create: createSession with sessionId null, workspaceId = the path, mode as config, MCP servers into the record", async () => {
    const { conn, sent } = v4child({ ack: () => ({ result: { type: "createSession", sessionId: "new-1" } }) });
    const mcp = [{ name: "fs", command: "mcp-fs", args: [], env: [] }];
    const id = await new V4OnlyCommands(conn, new V4Channel(conn), () => undefined).create({
      workspace: "/w/p",
      mode: "plan",
      mcpServers: mcp,
    });
    expect(id).toBe("new-1");
    expect(commands(sent)[0]).toMatchObject({
      type: "createSession",
      sessionId: null,
      payload: { workspaceId: "/w/p", config: { mode: "plan" }, mcpServers: mcp },
    });
  });

  test("list without a workspace cannot; with one, the sessions-index snapshot read from its frames", async () => {
    const { conn } = v4child();
    await expect(new ZCodeApi(conn, { protocol: "v4" }).list()).rejects.toThrow("one workspace at a time");
    const frame = {
      topic: "sessions-index//w",
      subscriptionId: "sub1",
      fromSeq: 0,
      toSeq: 1,
      sentAt: 1,
      payload: {
        kind: "snapshot",
        snapshot: {
          protocolVersion: 1,
          workspaceId: "/w",
          logEpoch: "e",
          sessions: [
            { sessionId: "a", workspaceId: "/w", title: "old", phase: "idle", lastActivityAt: 1, createdAt: 1 },
            { sessionId: "b", workspaceId: "/w", title: "new", phase: "idle", lastActivityAt: 5, createdAt: 2 },
            { sessionId: "c", workspaceId: "/w", parentSessionId: "b", title: "child", phase: "idle", lastActivityAt: 9, createdAt: 3 },
          ],
        },
      },
    };
    // wire.ts fragments of the logical frame's UTF-8 JSON (wire-codec.ts encodeTopicWireFrames).
    const bytes = Buffer.from(JSON.stringify(frame));
    const half = Math.floor(bytes.length / 2);
    const frag = (i: number, b: Buffer, topic = "sessions-index//w") => ({
      wireVersion: 3,
      kind: "fragment",
      deliveryKind: "initial",
      logicalFrameId: "lf-1",
      logicalFrameOrdinal: 1,
      topic,
      subscriptionId: "sub1",
      fragmentIndex: i,
      fragmentCount: 2,
      logicalBytes: bytes.length,
      checksum: { algorithm: "crc32", value: crc32(bytes) },
      dataBase64: b.toString("base64"),
    });
    const read = indexReader("sessions-index//w");
    expect(read(frag(0, bytes.subarray(0, half), "conversation/other"))).toBeUndefined();
    expect(read(frag(0, bytes.subarray(0, half)))).toBeUndefined();
    const r = read(frag(1, bytes.subarray(half)));
    expect(r?.sessions.map((s) => [s.sessionId, s.title])).toEqual([
      ["b", "new"],
      ["a", "old"],
    ]);
  });
});

describe("delete on a v4-only child", () => {
  test("a session ZCode does not hold is subscribed to (cold resume), deleted, unsubscribed", async () => {
    const { conn, sent } = v4child({
      ack: (env) =>
        env.type === "deleteSession" && commands(sent).filter((c) => c.type === "deleteSession").length === 1
          ? { status: "rejected", reasonCode: "proto.sessionNotFound" }
          : {},
    });
    const listeners: ((p: unknown) => void)[] = [];
    const c = conn as unknown as Record<string, unknown>;
    c.onNotification = (_m: string, cb: (p: unknown) => void) => (listeners.push(cb), () => {});
    c.onExit = () => () => {};
    c.onUnwatched = () => () => {};
    const request = (c.request as (m: string, p: unknown, o?: unknown) => Promise<unknown>).bind(c);
    c.request = async (m: string, p: any, o?: unknown) => {
      if (m === "v4/conversation/subscribe") {
        sent.push({ method: m, params: p });
        // The snapshot follows the ACK (transport.ts: a post-response notification).
        setTimeout(() => {
          for (const l of listeners) l(snapshotWire(p.topic));
        }, 0);
        return { ack: { subscriptionId: "sub-1", mode: "snapshot", logEpoch: "e1" } };
      }
      return request(m, p, o);
    };
    expect(await new ZCodeApi(conn, { protocol: "v4" }).deleteSession("s9")).toBe(true);
    expect(
      sent.map((s) => (s.method === "v4/command" ? `${s.method} ${s.params.type}` : s.method)).filter((x) => x !== "v4/commands/query"),
    ).toEqual(["v4/command deleteSession", "v4/conversation/subscribe", "v4/command deleteSession", "v4/conversation/unsubscribe"]);
    expect(sent.find((s) => s.method === "v4/conversation/subscribe")!.params).toMatchObject({
      topic: "conversation/s9",
      clientMode: "desktop-continuous",
    });
    expect(sent.find((s) => s.method === "v4/conversation/unsubscribe")!.params).toMatchObject({
      topic: "conversation/s9",
      subscriptionId: "sub-1",
    });
  });
});

describe("a plan's credentials on a v4-only child", () => {
  const plan = { provider: "account:zai-coding-plan", model: "GLM-5", thought: "high" };
  test("an account provider: the legacy handler's key rides sendText.modelExecution beside the modelSelection", async () => {
    const { conn, sent } = v4child();
    const asked: any[] = [];
    (conn as unknown as Record<string, unknown>).ask = async (method: string, params: any) => {
      asked.push({ method, params });
      return { headersApplied: true, requestAuth: { apiKey: "k-1", accountScope: "a".repeat(64) } };
    };
    await new V4OnlyCommands(conn, new V4Channel(conn), () => plan).send({ sessionId: "s1", content: "go" });
    expect(asked.map((a) => [a.method, a.params.providerId, a.params.sessionId, a.params.reason])).toEqual([
      ["interaction/requestProviderRuntimeHeaders", "account:zai-coding-plan", "s1", "model-request"],
    ]);
    expect(commands(sent)[0].payload).toEqual({
      text: "go",
      modelSelection: { providerId: "account:zai-coding-plan", modelId: "GLM-5", options: { reasoningLevel: "high" } },
      modelExecution: { selectionScope: "execution", requestAuth: { apiKey: "k-1", accountScope: "a".repeat(64) } },
    });
  });

  test("no key: the prompt fails with the handler's words, nothing sent; another provider is never asked", async () => {
    const { conn, sent } = v4child();
    let asks = 0;
    (conn as unknown as Record<string, unknown>).ask = async () => (asks++, { headersApplied: false, errorMessage: "Sign in first" });
    await expect(new V4OnlyCommands(conn, new V4Channel(conn), () => plan).send({ sessionId: "s1", content: "go" })).rejects.toThrow(
      "Sign in first",
    );
    expect(commands(sent)).toEqual([]);
    await new V4OnlyCommands(conn, new V4Channel(conn), () => ({ provider: "builtin:openai", model: "gpt" })).send({
      sessionId: "s1",
      content: "go",
    });
    expect(asks).toBe(1);
    expect(commands(sent)[0].payload).toEqual({ text: "go" });
  });
});
