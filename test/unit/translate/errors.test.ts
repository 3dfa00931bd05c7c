// ZCode errors → the ACP errors an editor shows, by class and code.
import { describe, expect, test } from "bun:test";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { isBusy, isNotActive, toRequestError, zcodeCode } from "../../../src/translate/errors.ts";
import {
  NodeMissingError,
  ZCodeError,
  ZCodeExitedError,
  ZCodeNotFoundError,
  ZCodeTimeoutError,
  ZCodeUnsupportedError,
} from "../../../src/zcode/errors.ts";

const z = (code: number, message = "m", method = "session/send") => new ZCodeError(message, { code, method });

describe("toRequestError", () => {
  test("ZCode's busy (-32010, and the seed document's 1308): still busy, try again", () => {
    for (const code of [-32010, 1308]) {
      const e = toRequestError(z(code, "A prompt is already running for this session"));
      expect(e.code).toBe(-32603);
      expect(e.message).toContain("still busy");
    }
    expect(isBusy(z(-32010))).toBe(true);
    expect(isBusy(z(1308))).toBe(true);
    expect(isBusy(z(-32004))).toBe(false);
    expect(isBusy(new Error("x"))).toBe(false);
  });

  test("not found, not active, invalid params, method not found", () => {
    expect(toRequestError(z(-32002), { sessionId: "s1" }).code).toBe(RequestError.sessionNotFound("s1").code);
    expect(toRequestError(z(-32004, "Session is not active: s1")).message).toContain("not active");
    const inv = toRequestError(z(-32602, "Invalid params — model: Required"));
    expect(inv.code).toBe(-32602);
    expect(inv.message).toContain("ZCode rejected the request: Invalid params — model: Required");
    expect(toRequestError(z(-32601, "Method not found: session/steer", "session/steer")).message).toContain(
      "session/steer is not supported",
    );
    expect(isNotActive(z(-32004, "Session is not active: s1"))).toBe(true);
  });

  test("-32004 'Session not found' is a session ZCode does not have at all: ACP's not found, never an eviction to resume", () => {
    const missing = z(-32004, "Session not found: s1", "session/resume");
    expect(toRequestError(missing, { sessionId: "s1" }).code).toBe(RequestError.sessionNotFound("s1").code);
    expect(isNotActive(missing)).toBe(false);
    expect(isNotActive({ code: -32004, message: "Session is not active: s1" })).toBe(false);
  });

  test("other ZCode codes keep ZCode's message and code", () => {
    const e = toRequestError(z(-32031, "Restore warning"));
    expect(e.code).toBe(-32603);
    expect(e.message).toBe("ZCode: Restore warning");
    expect(e.data).toEqual({ zcodeCode: -32031 });
    expect(zcodeCode(z(-32031))).toBe(-32031);
    expect(zcodeCode("x")).toBeUndefined();
  });

  test("a CLI found without a Node to run it: the message as it is, like a CLI not found", () => {
    const cli = { entry: "/opt/zcode/zcode.cjs", source: "path" as const };
    for (const err of [
      new NodeMissingError(cli, "not-found", "needs Node.js >= 22, but no Node.js was found.", ["node on PATH"]),
      new NodeMissingError(cli, "too-old", "needs Node.js >= 22, but only found: /usr/bin/node (v20.1.0).", ["/usr/bin/node (v20.1.0)"]),
    ]) {
      const e = toRequestError(err);
      expect(e.code).toBe(-32603);
      expect(e.message).toBe(err.message);
      expect(e.message).toContain("needs Node.js >= 22");
    }
  });

  test("local failures: not found, unsupported, died, timed out; never -32000", () => {
    const died = new ZCodeExitedError({ code: 3, signal: null, stderrTail: ["fatal"] }, "session/send");
    for (const [err, text] of [
      [new ZCodeNotFoundError("The ZCode CLI was not found."), "not found"],
      [new ZCodeUnsupportedError("0.14.0"), "too old"],
      [died, "The ZCode CLI died"],
      [new ZCodeTimeoutError("session/read", 30000), "did not answer session/read"],
    ] as const) {
      const e = toRequestError(err);
      expect(e.code).toBe(-32603);
      expect(e.message).toContain(text);
    }
  });

  test("a RequestError passes through; anything else keeps its message", () => {
    const r = RequestError.invalidParams(undefined, "bad");
    expect(toRequestError(r)).toBe(r);
    expect(toRequestError(new Error("boom")).message).toBe("boom");
    expect(toRequestError("plain").message).toBe("plain");
    expect(toRequestError(new Error("")).message).toBe("unexpected error in zcode-acp-server");
  });
});
