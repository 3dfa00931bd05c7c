// The typed ZCode API against a fake connection: the exact params each method
// puts on the wire (as JSON would carry them), the schema it reads the answer
// with, and its timeout.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { DEFAULT_TIMEOUTS, workspaceOf, ZCodeApi, type ZCodeAttachment } from "../../../src/zcode/api.ts";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import { ZCodeError } from "../../../src/zcode/errors.ts";
import type { ZCodeConnection } from "../../../src/zcode/connection.ts";

interface Sent {
  method: string;
  /** What JSON puts on the wire (undefined fields gone). */
  params: unknown;
  timeoutMs: number | undefined;
}

/** A connection that records each request and answers through the method's own schema, like the real one. */
function fakeConn(answers: Record<string, unknown> = {}) {
  const sent: Sent[] = [];
  const conn = {
    capabilities: { version: "0.16.9" },
    async request(method: string, params: unknown, opts: { timeoutMs?: number; schema?: v.GenericSchema } = {}) {
      sent.push({ method, params: JSON.parse(JSON.stringify(params ?? null)), timeoutMs: opts.timeoutMs });
      const answer = answers[method] ?? {};
      return opts.schema ? v.parse(opts.schema, answer) : answer;
    },
  };
  return { conn: conn as unknown as ZCodeConnection, sent };
}

const SNAPSHOT = { session: { sessionId: "s1", title: "T" }, settings: { mode: { current: "build" } }, runtime: { eventSeq: 4 } };

describe("params on the wire", () => {
  test("create: the cwd as both workspace keys, mode and MCP servers", async () => {
    const { conn, sent } = fakeConn({ "session/create": SNAPSHOT });
    const api = new ZCodeApi(conn);
    const mcp = [{ name: "fs", command: "mcp-fs", args: ["--root", "/w"], env: [{ name: "A", value: "1" }] }];
    const r = await api.create({ workspace: "/work/project", mode: "plan", mcpServers: mcp });
    expect(r.session.sessionId).toBe("s1");
    expect(sent).toEqual([
      {
        method: "session/create",
        params: { workspace: { workspacePath: "/work/project", workspaceKey: "/work/project" }, mode: "plan", mcpServers: mcp },
        timeoutMs: 30_000,
      },
    ]);
    await api.create({ workspace: "/w" });
    expect(sent[1]!.params).toEqual({ workspace: { workspacePath: "/w", workspaceKey: "/w" } });
  });

  test("resume: MCP servers again (ZCode wants them on every load)", async () => {
    const { conn, sent } = fakeConn({ "session/resume": SNAPSHOT });
    const mcp = [{ name: "web", type: "http" as const, url: "https://mcp.example", headers: [] }];
    await new ZCodeApi(conn).resume({ sessionId: "s1", workspace: { workspacePath: "/w", workspaceKey: "key-1" }, mcpServers: mcp });
    expect(sent[0]).toMatchObject({
      method: "session/resume",
      params: { sessionId: "s1", workspace: { workspacePath: "/w", workspaceKey: "key-1" }, mcpServers: mcp },
    });
  });

  test("list: 1000 sessions unless told (ZCode answers 50 otherwise), with or without a workspace", async () => {
    const { conn, sent } = fakeConn({ "session/list": { sessions: [{ sessionId: "a" }] } });
    const api = new ZCodeApi(conn);
    expect((await api.list()).sessions.map((s) => s.sessionId)).toEqual(["a"]);
    await api.list({ workspace: "/w" });
    await api.list({ limit: 20 });
    expect(sent.map((s) => s.params)).toEqual([
      { limit: 1000 },
      { workspace: { workspacePath: "/w", workspaceKey: "/w" }, limit: 1000 },
      { limit: 20 },
    ]);
  });

  test("read asks for one message only (else ZCode sends the whole transcript)", async () => {
    const { conn, sent } = fakeConn({ "session/read": SNAPSHOT });
    expect((await new ZCodeApi(conn).read("s1")).runtime?.eventSeq).toBe(4);
    expect(sent[0]).toEqual({ method: "session/read", params: { sessionId: "s1", messageLimit: 1 }, timeoutMs: 30_000 });
  });

  test("messages", async () => {
    const { conn, sent } = fakeConn({ "session/messages": { messages: [] } });
    await new ZCodeApi(conn).messages("s1");
    expect(sent[0]).toEqual({ method: "session/messages", params: { sessionId: "s1" }, timeoutMs: 60_000 });
  });

  test("subscribe: desktop-continuous, no snapshot, afterSeq only when given", async () => {
    const { conn, sent } = fakeConn({ "session/subscribe": { eventSeq: 3, events: [] } });
    const api = new ZCodeApi(conn);
    await api.subscribe({ sessionId: "s1" });
    await api.subscribe({ sessionId: "s1", afterSeq: 0 });
    expect(sent.map((s) => s.params)).toEqual([
      { sessionId: "s1", deliveryKind: "desktop-continuous", includeSnapshot: false },
      { sessionId: "s1", deliveryKind: "desktop-continuous", includeSnapshot: false, afterSeq: 0 },
    ]);
  });

  test("send: attachments only when there are some", async () => {
    const { conn, sent } = fakeConn({ "session/send": { sessionId: "s1", accepted: true, stateRevision: 2 } });
    const api = new ZCodeApi(conn);
    const png: ZCodeAttachment = { kind: "image", filename: "a.png", mimeType: "image/png", sizeBytes: 3, dataBase64: "AAAA" };
    expect((await api.send({ sessionId: "s1", content: "hi" })).accepted).toBe(true);
    await api.send({ sessionId: "s1", content: "hi", attachments: [] });
    await api.send({ sessionId: "s1", content: "look", attachments: [png] });
    expect(sent.map((s) => s.params)).toEqual([
      { sessionId: "s1", content: "hi" },
      { sessionId: "s1", content: "hi" },
      { sessionId: "s1", content: "look", attachments: [png] },
    ]);
  });

  test("stop is a request with a short timeout (the CLI ignores notifications)", async () => {
    const { conn, sent } = fakeConn();
    await expect(new ZCodeApi(conn).stop("s1")).resolves.toBeUndefined();
    expect(sent).toEqual([{ method: "session/stop", params: { sessionId: "s1" }, timeoutMs: 10_000 }]);
  });

  test("there is no close(): ZCode's session/close ends its live session, so it is deleteSession() and nothing else", async () => {
    const api = new ZCodeApi(fakeConn().conn) as unknown as Record<string, unknown>;
    expect(api.close).toBeUndefined();
    // A CLI without v4 (its probe is answered -32601): the legacy close.
    const legacy = (answers: Record<string, unknown>) => {
      const f = fakeConn(answers);
      const c = f.conn as unknown as {
        capabilities: unknown;
        start: () => Promise<unknown>;
        request: (m: string, p: unknown, o?: unknown) => Promise<unknown>;
      };
      const request = c.request.bind(c);
      c.capabilities = new CliCapabilities("0.15.3");
      c.start = async () => ({});
      c.request = async (m, p, o) => {
        if (m === "v4/commands/query") throw new ZCodeError(`Method not found: ${m}`, { code: -32601, method: m });
        return request(m, p, o);
      };
      return f;
    };
    const { conn, sent } = legacy({ "session/close": { closed: true } });
    await expect(new ZCodeApi(conn).deleteSession("s1")).resolves.toBe(true);
    expect(sent.map((f) => [f.method, f.params])).toEqual([["session/close", { sessionId: "s1" }]]);
    // closed:false (a persistence mismatch) is not a deletion.
    const refused = legacy({ "session/close": { closed: false } });
    await expect(new ZCodeApi(refused.conn).deleteSession("s1")).resolves.toBe(false);
  });

  test("v4 deleteSession: accepted and duplicate did it; a noop ACK did nothing (false)", async () => {
    for (const [status, done] of [
      ["accepted", true],
      ["duplicate", true],
      ["noop", false],
    ] as const) {
      const { conn, sent } = fakeConn({ "v4/commands/query": { results: [] }, "v4/command": { commandId: "c", status } });
      (conn as unknown as { start: () => Promise<unknown>; capabilities: unknown }).start = async () => ({});
      (conn as unknown as { capabilities: unknown }).capabilities = new CliCapabilities("0.16.9");
      await expect(new ZCodeApi(conn).deleteSession("s1")).resolves.toBe(done);
      expect(sent.find((f) => f.method === "v4/command")?.params).toMatchObject({ sessionId: "s1", type: "deleteSession", payload: {} });
    }
  });

  test("fork, rewind, goal, compact, steer", async () => {
    const { conn, sent } = fakeConn({
      "session/fork": { forkedSessionId: "s2", snapshot: { session: { sessionId: "s2", title: "Fork" } } },
      "session/rewind": { revision: 8 },
      "session/goal": { response: "Goal active", startedTurn: true },
      "session/compact": { response: "", compact: { state: "accepted" } },
      "session/steer": { accepted: true },
    });
    const api = new ZCodeApi(conn);
    expect((await api.fork({ sessionId: "s1", target: { kind: "latestCheckpoint" } })).forkedSessionId).toBe("s2");
    await api.rewind({ sessionId: "s1", target: { kind: "checkpoint", checkpointId: "cp_1" }, expectedRevision: 7 });
    await api.rewind({ sessionId: "s1", target: { kind: "latestCheckpoint" } });
    expect((await api.goal({ sessionId: "s1", action: "set", objective: "Ship" })).startedTurn).toBe(true);
    await api.goal({ sessionId: "s1", action: "show" });
    expect((await api.compact({ sessionId: "s1" })).compact?.state).toBe("accepted");
    await api.compact({ sessionId: "s1", instructions: "keep the API notes" });
    await api.steer({ sessionId: "s1", content: "use TS" });
    expect(sent.map((s) => [s.method, s.params])).toEqual([
      ["session/fork", { sessionId: "s1", target: { kind: "latestCheckpoint" } }],
      ["session/rewind", { sessionId: "s1", target: { kind: "checkpoint", checkpointId: "cp_1" }, expectedRevision: 7 }],
      ["session/rewind", { sessionId: "s1", target: { kind: "latestCheckpoint" } }],
      ["session/goal", { sessionId: "s1", action: "set", objective: "Ship" }],
      ["session/goal", { sessionId: "s1", action: "show" }],
      ["session/compact", { sessionId: "s1" }],
      ["session/compact", { sessionId: "s1", instructions: "keep the API notes" }],
      ["session/steer", { sessionId: "s1", content: "use TS" }],
    ]);
    expect(sent.find((s) => s.method === "session/compact")?.timeoutMs).toBe(120_000);
  });

  test("setMode, setThoughtLevel, and setModel for this session only", async () => {
    const { conn, sent } = fakeConn();
    const api = new ZCodeApi(conn);
    await api.setMode({ sessionId: "s1", mode: "plan" });
    await api.setThoughtLevel({ sessionId: "s1", thoughtLevel: "high" });
    await api.setModel({
      sessionId: "s1",
      model: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } },
    });
    await api.setModel({ sessionId: "s1", model: { providerId: "openrouter", modelId: "x/y" } });
    expect(sent.map((s) => [s.method, s.params])).toEqual([
      ["session/setMode", { sessionId: "s1", mode: "plan" }],
      ["session/setThoughtLevel", { sessionId: "s1", thoughtLevel: "high" }],
      [
        "session/setModel",
        {
          sessionId: "s1",
          model: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } },
          persistAsWorkspaceLastUsed: false,
        },
      ],
      ["session/setModel", { sessionId: "s1", model: { providerId: "openrouter", modelId: "x/y" }, persistAsWorkspaceLastUsed: false }],
    ]);
  });
});

describe("answers are read with the method's schema", () => {
  test("a fork answer without the new id is refused", async () => {
    const { conn } = fakeConn({ "session/fork": { snapshot: {} } });
    await expect(new ZCodeApi(conn).fork({ sessionId: "s1", target: { kind: "latestCheckpoint" } })).rejects.toThrow();
  });

  test("a snapshot without a session is refused", async () => {
    const { conn } = fakeConn({ "session/read": { settings: {} } });
    await expect(new ZCodeApi(conn).read("s1")).rejects.toThrow();
  });
});

describe("timeouts and workspaces", () => {
  test("per-method table, overrides, default", () => {
    const api = new ZCodeApi(fakeConn().conn, { timeouts: { "session/send": 5, default: 7 } });
    expect(api.timeoutFor("session/send")).toBe(5);
    expect(api.timeoutFor("session/compact")).toBe(DEFAULT_TIMEOUTS["session/compact"]!);
    expect(api.timeoutFor("session/whatever")).toBe(7);
    expect(new ZCodeApi(fakeConn().conn).timeoutFor("session/whatever")).toBe(30_000);
  });

  test("capabilities come from the connection", () => {
    expect(new ZCodeApi(fakeConn().conn).capabilities()).toEqual({ version: "0.16.9" } as never);
  });

  test("workspaceOf: exactly the two keys ZCode's strict schema takes", () => {
    expect(workspaceOf("/w")).toEqual({ workspacePath: "/w", workspaceKey: "/w" });
    expect(workspaceOf({ workspacePath: "/w" })).toEqual({ workspacePath: "/w", workspaceKey: "/w" });
    const extra = { workspacePath: "/w", workspaceKey: "k", displayName: "W", trusted: true } as never;
    expect(Object.keys(workspaceOf(extra)).sort()).toEqual(["workspaceKey", "workspacePath"]);
    expect(workspaceOf(extra)).toEqual({ workspacePath: "/w", workspaceKey: "k" });
  });
});
