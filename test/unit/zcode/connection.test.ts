// The connection to a ZCode child, against a tiny fake CLI
// (support/fake-zcode-child.ts): correlation, schemas, error codes, timeouts,
// event routing of every envelope, the CLI's own requests, and its death.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import path from "node:path";
import { defaultConfig } from "../../../src/config.ts";
import { ZCodeConnection } from "../../../src/zcode/connection.ts";
import { LOCAL_ERR, ZCodeError, ZCodeExitedError, ZCodeTimeoutError } from "../../../src/zcode/errors.ts";
import type { RawEvent } from "../../../src/zcode/event-schemas.ts";
import { RUNTIME_PREFERENCES } from "../../../src/zcode/request-schemas.ts";
import type { ZCodeLaunch } from "../../../src/zcode/resolve.ts";
import { SnapshotSchema } from "../../../src/zcode/result-schemas.ts";

const SCRIPT = path.join(import.meta.dir, "../support/fake-zcode-child.ts");
const LAUNCH: ZCodeLaunch = { command: [process.execPath, SCRIPT], entry: SCRIPT, source: "env" };

function connect(env: Record<string, string | undefined> = {}): ZCodeConnection {
  const config = defaultConfig({ env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env } });
  return new ZCodeConnection(config, { launch: LAUNCH, killGraceMs: 500, defaultTimeoutMs: 5000 });
}

async function code(p: Promise<unknown>): Promise<ZCodeError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  if (!(e instanceof ZCodeError)) throw new Error(`expected a ZCodeError, got ${String(e)}`);
  return e;
}

describe("a running child", () => {
  let conn: ZCodeConnection;
  beforeAll(async () => {
    conn = connect({ ZCODE_BASE_URL: "https://meant-for-something-else.example", FAKE_MARKER: "kept" });
    await conn.start();
  });
  afterAll(() => conn.close());

  test("start: generation 1, the detected version, its capabilities", async () => {
    const info = await conn.start();
    expect(info.generation).toBe(1);
    expect(info.version).toBe("0.16.9");
    expect(conn.capabilities?.version).toBe("0.16.9");
    expect(conn.pid).toBe(info.pid);
  });

  test("concurrent requests each get their own answer, read through the schema", async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `s${i}`);
    const answers = await Promise.all(
      ids.map((id) => conn.request("session/read", { sessionId: id, messageLimit: 1 }, { schema: SnapshotSchema })),
    );
    expect(answers.map((a) => a.session.sessionId)).toEqual(ids);
    expect(answers[0]!.runtime?.eventSeq).toBe(1);
  });

  test("an answer the schema refuses is an error saying so", async () => {
    const e = await code(conn.request("session/badshape", {}, { schema: SnapshotSchema }));
    expect(e.code).toBe(LOCAL_ERR.internal);
    expect(e.message).toContain("unexpected shape");
    expect(e.method).toBe("session/badshape");
  });

  test("ZCode's errors keep their code: busy -32010", async () => {
    const e = await code(conn.request("session/busy", {}));
    expect(e.code).toBe(-32010);
    expect(e.message).toBe("A prompt is already running for this session");
  });

  test("-32601 marks the method unsupported for this child", async () => {
    expect(conn.capabilities?.supports("session/cancelBackgroundTask")).toBe(true);
    const e = await code(conn.request("session/cancelBackgroundTask", { sessionId: "s", taskId: "t" }));
    expect(e.code).toBe(-32601);
    expect(conn.capabilities?.supports("session/cancelBackgroundTask")).toBe(false);
  });

  test("a request nobody answers times out with its method named", async () => {
    const e = await code(conn.request("session/slow", {}, { timeoutMs: 50 }));
    expect(e).toBeInstanceOf(ZCodeTimeoutError);
    expect(e.message).toContain("session/slow");
  });

  test("a line that is not JSON, or an answer for nobody, is skipped; the connection goes on", async () => {
    expect(await conn.request("test/garbage", {})).toEqual({ ok: true });
  });

  test("ZCODE_BASE_URL is not passed to the child; the rest of the environment is", async () => {
    expect(await conn.request("test/env", {})).toEqual({ baseUrl: null, marker: "kept" });
  });

  test("every envelope of a session reaches its listeners, types the bridge does not read included", async () => {
    const got: RawEvent[] = [];
    const other: RawEvent[] = [];
    const off = conn.onEvent("sA", (e) => got.push(e));
    conn.onEvent("sB", (e) => other.push(e));
    const events = [
      { eventId: "1", sessionId: "sA", seq: 1, timestamp: 1, type: "session.titleUpdated", payload: { title: "T" } },
      { eventId: "2", sessionId: "sA", seq: 2, timestamp: 2, type: "session.resumed", payload: { messageCount: 3 } },
      { eventId: "3", sessionId: "sB", seq: 1, timestamp: 3, type: "turn.started", payload: {} },
      {
        eventId: "4",
        sessionId: "sA",
        seq: 3,
        timestamp: 4,
        turnId: "t1",
        type: "model.streaming",
        payload: { kind: "text_delta", delta: "hi" },
      },
      { eventId: "5", sessionId: "sC", seq: 1, timestamp: 5, type: "turn.started", payload: {} },
    ];
    await conn.request("test/events", { events });
    expect(got.map((e) => [e.seq, e.type])).toEqual([
      [1, "session.titleUpdated"],
      [2, "session.resumed"],
      [3, "model.streaming"],
    ]);
    expect(got[2]!.payload).toEqual({ kind: "text_delta", delta: "hi" });
    expect(other.map((e) => e.type)).toEqual(["turn.started"]);
    off();
    await conn.request("test/events", { events: events.slice(0, 1) });
    expect(got).toHaveLength(3);
  });

  test("session/requestRuntimePreferences is answered with ZCode's strict preferences", async () => {
    const r = (await conn.request("test/ask", {
      method: "session/requestRuntimePreferences",
      params: { sessionId: "s", scope: "runtime-materialization" },
    })) as {
      answer: { id: string; result: unknown };
      askedAs: string;
    };
    expect(r.askedAs).toMatch(/^server-\d+$/);
    expect(r.answer).toEqual({ id: r.askedAs, result: RUNTIME_PREFERENCES });
  });

  test("the CLI's requests go to the registered handler; its answer or error goes back under the CLI's id", async () => {
    conn.onRequest("interaction/requestPermission", async (p) => ({ decision: "allow", echo: p }));
    const ok = (await conn.request("test/ask", { method: "interaction/requestPermission", params: { requestId: "perm_1" } })) as {
      answer: unknown;
      askedAs: string;
    };
    expect(ok.askedAs).toMatch(/^server-\d+$/);
    expect(ok.answer).toEqual({ id: ok.askedAs, result: { decision: "allow", echo: { requestId: "perm_1" } } });
    conn.onRequest("interaction/requestUserInput", () => {
      throw Object.assign(new Error("bad params"), { code: -32602 });
    });
    const bad = (await conn.request("test/ask", { method: "interaction/requestUserInput", params: {} })) as {
      answer: unknown;
      askedAs: string;
    };
    expect(bad.askedAs).not.toBe(ok.askedAs);
    expect(bad.answer).toEqual({ id: bad.askedAs, error: { code: -32602, message: "bad params" } });
  });

  test("a request nobody handles is answered -32601", async () => {
    const r = (await conn.request("test/ask", { method: "interaction/somethingNew", params: {} })) as {
      answer: { error: { code: number } };
    };
    expect(r.answer.error.code).toBe(-32601);
  });

  test("session/stop is a request and gets its answer", async () => {
    expect(await conn.request("session/stop", { sessionId: "s" })).toEqual({});
  });
});

describe("the child's death", () => {
  test("fails what is pending at once, tells exit listeners, and the next request starts generation 2", async () => {
    const conn = connect();
    try {
      const exits: Array<{ generation: number; code: number | null; stderrTail: string[] }> = [];
      conn.onExit((x) => exits.push(x));
      await conn.start();
      const pending = code(conn.request("session/slow", {}, { timeoutMs: 10_000 }));
      const exited = await code(conn.request("test/exit", {}));
      expect(exited).toBeInstanceOf(ZCodeExitedError);
      expect(exited.message).toContain("exited with code 3");
      expect(exited.message).toContain("fatal: the test asked me to exit");
      expect(await pending).toBeInstanceOf(ZCodeExitedError);
      expect(exits).toEqual([{ generation: 1, code: 3, signal: null, stderrTail: ["fatal: the test asked me to exit"] } as never]);
      expect(conn.capabilities).toBeUndefined();
      const again = await conn.request("session/read", { sessionId: "s" }, { schema: SnapshotSchema });
      expect(again.session.sessionId).toBe("s");
      expect(conn.generation).toBe(2);
    } finally {
      await conn.close();
    }
  });

  test("after close, requests are refused and no child is started", async () => {
    const conn = connect();
    await conn.start();
    await conn.close();
    const e = await code(conn.request("session/read", { sessionId: "s" }));
    expect(e.code).toBe(LOCAL_ERR.exited);
    expect(conn.generation).toBe(1);
  });

  test("a notification with no child is dropped quietly", () => {
    const conn = connect();
    expect(() => conn.notify("session/whatever", {})).not.toThrow();
    expect(conn.generation).toBe(0);
  });
});
