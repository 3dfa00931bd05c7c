import { describe, expect, test } from "bun:test";
import {
  decodeFrame,
  encodeError,
  encodeNotification,
  encodeRequest,
  encodeResult,
  excerpt,
  type FrameId,
} from "../../../src/zcode/frames.ts";
import { parseEvent } from "../../../src/zcode/schemas.ts";

const none = () => false;
const waitingOn =
  (...ids: FrameId[]) =>
  (id: FrameId) =>
    ids.includes(id);

describe("decodeFrame classifies", () => {
  test("id without method: a response", () => {
    expect(decodeFrame('{"id":1,"result":{"accepted":true}}', none)).toEqual({
      ok: true,
      frame: { kind: "response", id: 1, result: { accepted: true } },
    });
  });

  test("a null result is still a result", () => {
    expect(decodeFrame('{"id":"a","result":null}', none)).toEqual({
      ok: true,
      frame: { kind: "response", id: "a", result: null },
    });
  });

  test("id without method, with error: an error response keeping code, message, data", () => {
    expect(decodeFrame('{"id":4,"error":{"code":1308,"message":"prompt is running","data":{"x":1}}}', none)).toEqual({
      ok: true,
      frame: { kind: "error", id: 4, error: { code: 1308, message: "prompt is running", data: { x: 1 } } },
    });
  });

  test("id + method: a request from the CLI (string or number id)", () => {
    expect(decodeFrame('{"id":100,"method":"interaction/requestPermission","params":{"a":1}}', none)).toEqual({
      ok: true,
      frame: { kind: "request", id: 100, method: "interaction/requestPermission", params: { a: 1 } },
    });
    const r = decodeFrame('{"id":"x-1","method":"session/requestRuntimePreferences"}', none);
    expect(r).toEqual({ ok: true, frame: { kind: "request", id: "x-1", method: "session/requestRuntimePreferences", params: undefined } });
  });

  test("id + method + result on an id we wait on: a response", () => {
    const line = '{"id":7,"method":"session/subscribe","result":{"eventSeq":3}}';
    expect(decodeFrame(line, waitingOn(7))).toEqual({ ok: true, frame: { kind: "response", id: 7, result: { eventSeq: 3 } } });
    // ...but the same id we do NOT wait on is a request from the CLI
    expect(decodeFrame(line, none).ok && (decodeFrame(line, none) as { frame: { kind: string } }).frame.kind).toBe("request");
  });

  test("id + method without result/error on a pending id: still a request", () => {
    const r = decodeFrame('{"id":7,"method":"interaction/requestUserInput","params":{}}', waitingOn(7));
    expect(r.ok && r.frame.kind).toBe("request");
  });

  test("method without id: a notification (null id counts as no id)", () => {
    expect(decodeFrame('{"method":"session/event","params":{"sessionId":"s","seq":1,"type":"turn.started","payload":{}}}', none)).toEqual({
      ok: true,
      frame: { kind: "notification", method: "session/event", params: { sessionId: "s", seq: 1, type: "turn.started", payload: {} } },
    });
    const r = decodeFrame('{"id":null,"method":"x"}', none);
    expect(r.ok && r.frame.kind).toBe("notification");
  });
});

describe("decodeFrame rejects malformed input without throwing", () => {
  const cases: [string, string][] = [
    ["not json at all", "not JSON"],
    ["{\"id\":1,", "not JSON"],
    ["[1,2]", "not a JSON object"],
    ["42", "not a JSON object"],
    ["null", "not a JSON object"],
    ['{"foo":1}', "neither id nor method"],
    ['{"id":{"x":1},"result":1}', "id is neither a number nor a string"],
    ['{"method":7}', "method is not a string"],
    ['{"id":1}', "response without result or error"],
    ['{"id":1,"error":{"message":"no code"}}', "error without a numeric code"],
  ];
  for (const [line, reason] of cases) {
    test(`${line} → ${reason}`, () => {
      expect(decodeFrame(line, none)).toEqual({ ok: false, reason });
    });
  }
});

describe("encoders", () => {
  test("never write a jsonrpc field; leave out undefined params", () => {
    const lines = [
      encodeRequest(1, "session/send", { sessionId: "s", content: "hi" }),
      encodeRequest(2, "session/list"),
      encodeNotification("session/stop", { sessionId: "s" }),
      encodeNotification("ping"),
      encodeResult("r1", { decision: "allow" }),
      encodeResult(3, undefined),
      encodeError(100, -32601, "Method not found: x"),
      encodeError(101, 1, "m", { d: 1 }),
    ];
    for (const l of lines) {
      expect(l).not.toContain("jsonrpc");
      expect(l).not.toContain("\n");
      JSON.parse(l);
    }
    expect(JSON.parse(lines[0]!)).toEqual({ id: 1, method: "session/send", params: { sessionId: "s", content: "hi" } });
    expect(JSON.parse(lines[1]!)).toEqual({ id: 2, method: "session/list" });
    expect(JSON.parse(lines[2]!)).toEqual({ method: "session/stop", params: { sessionId: "s" } });
    expect(JSON.parse(lines[4]!)).toEqual({ id: "r1", result: { decision: "allow" } });
    expect(JSON.parse(lines[5]!)).toEqual({ id: 3, result: null });
    expect(JSON.parse(lines[6]!)).toEqual({ id: 100, error: { code: -32601, message: "Method not found: x" } });
    expect(JSON.parse(lines[7]!)).toEqual({ id: 101, error: { code: 1, message: "m", data: { d: 1 } } });
  });

  test("round trip through the decoder", () => {
    const r = decodeFrame(encodeRequest(9, "session/read", { sessionId: "s" }), none);
    expect(r).toEqual({ ok: true, frame: { kind: "request", id: 9, method: "session/read", params: { sessionId: "s" } } });
  });

  test("excerpt redacts before it cuts (cut JSON would escape the log's redaction)", () => {
    const line = JSON.stringify({
      method: "session/event",
      params: { env: [{ name: "GITHUB_TOKEN", value: "ghp_leakleak123" }], apiKey: "sk-1234567", pad: "x".repeat(300) },
    });
    const e = excerpt(line);
    expect(e).not.toContain("ghp_leakleak123");
    expect(e).not.toContain("sk-1234567");
    expect(e).toContain("[REDACTED]");
    expect(e).toContain(`(${line.length} chars)`);
  });

  test("excerpt truncates long lines for logs", () => {
    expect(excerpt("abc")).toBe("abc");
    const e = excerpt("x".repeat(1000));
    expect(e.length).toBeLessThan(230);
    expect(e).toContain("1000 chars");
  });
});

describe("events", () => {
  const ev = (type: string, payload: unknown, extra: object = {}) => ({ sessionId: "s", seq: 5, type, payload, ...extra });

  test("every known event type validates, with typed payloads", () => {
    const good = [
      ev("turn.started", { turnId: "t1", inputSource: "user" }),
      ev("turn.started", undefined),
      ev("model.streaming", { kind: "text_delta", delta: "hé" }),
      ev("model.streaming", { kind: "reasoning_delta", delta: "hm" }),
      ev("model.streaming", { kind: "tool_call", toolCallId: "c", toolName: "Bash", input: { command: "ls" } }),
      ev("tool.updated", { kind: "scheduled", toolCallId: "c", toolName: "Bash", inputOmitted: true }),
      ev("tool.updated", { kind: "started", toolCallId: "c", toolName: "Bash" }),
      ev("tool.updated", { kind: "progress", toolCallId: "c", toolName: "Bash", stdoutTail: "a", stderrTail: "" }),
      ev("tool.updated", { kind: "result", toolCallId: "c", toolName: "Bash", output: "x", result: { exitCode: 0 } }),
      ev("tool.updated", { kind: "error", toolCallId: "c", toolName: "Bash", error: { message: "no" } }),
      ev("tool.updated", { kind: "batch", items: [{ toolCallId: "c", toolName: "Bash", kind: "result" }] }),
      ev("turn.completed", { turnId: "t1", resultType: "success", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } }),
      ev("turn.failed", { turnId: "t1", error: { code: 1302, message: "rate limited", cause: { code: "rate_limit" } } }),
      ev("session.updated", { usage: { inputTokens: 1 }, contextWindow: 200000 }),
      ev("turn.steerQueued", { content: "use TS" }, { turnId: "t1", extraField: true }),
    ];
    for (const g of good) {
      const r = parseEvent(g);
      if (!r.ok) throw new Error(`${JSON.stringify(g)}: ${JSON.stringify(r)}`);
      expect(r.event.type).toBe(g.type as never);
    }
    const r = parseEvent(good[2]);
    if (r.ok && r.event.type === "model.streaming" && r.event.payload.kind === "text_delta") expect(r.event.payload.delta).toBe("hé");
    else throw new Error("text_delta did not narrow");
  });

  test("unknown event types are told apart from broken ones", () => {
    expect(parseEvent(ev("turn.someday", {}))).toEqual({ ok: false, unknownType: true, type: "turn.someday", sessionId: "s" });
    const bad = [
      ev("model.streaming", { kind: "text_delta" }),
      ev("model.streaming", { kind: "mystery" }),
      ev("tool.updated", { kind: "result" }),
      { sessionId: "s", type: "turn.started", payload: {} },
      { seq: 1, type: "turn.started" },
      "string",
    ];
    for (const b of bad) {
      const r = parseEvent(b);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.unknownType).toBe(false);
    }
  });
});
