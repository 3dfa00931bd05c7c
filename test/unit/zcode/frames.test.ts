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
    ['{"id":1,', "not JSON"],
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
