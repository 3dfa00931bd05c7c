// Errors from the ZCode side as typed values.
import { describe, expect, test } from "bun:test";
import {
  errorFromWire,
  isSessionMissing,
  LOCAL_ERR,
  ZCODE_ERR,
  ZCodeExitedError,
  ZCodeNotFoundError,
  ZCodeTimeoutError,
  ZCodeUnsupportedError,
} from "../../../src/zcode/errors.ts";
import { SECRET_LINES, expectNoSecret } from "../support/child-secrets.ts";

describe("ZCode errors", () => {
  test("the codes a real CLI answers", () => {
    expect(ZCODE_ERR.promptRunning).toBe(-32010);
    expect(ZCODE_ERR.notActive).toBe(-32004);
    expect(ZCODE_ERR.methodNotFound).toBe(-32601);
  });

  test("isSessionMissing: -32004 means two things, only the message tells them apart", () => {
    expect(isSessionMissing(-32004, "Session not found: sess_1")).toBe(true);
    expect(isSessionMissing(-32004, "Session is not active: sess_1")).toBe(false);
    expect(isSessionMissing(-32002, "anything")).toBe(true);
    expect(isSessionMissing(-32010, "Session not found")).toBe(false);
  });

  test("errorFromWire keeps code, message, method and data", () => {
    const e = errorFromWire("session/send", { code: -32010, message: "A prompt is already running for this session", data: { x: 1 } });
    expect(e).toMatchObject({
      code: -32010,
      message: "A prompt is already running for this session",
      method: "session/send",
      data: { x: 1 },
    });
    expect(errorFromWire("m", { code: 7, message: "" }).message).toBe("ZCode error 7");
  });

  test("local failures say what happened and what to do", () => {
    const died = new ZCodeExitedError({ code: null, signal: "SIGKILL", stderrTail: [] }, "session/send");
    expect(died.message).toBe("The ZCode CLI was killed by SIGKILL while session/send was pending (it wrote nothing to stderr)");
    expect(died.code).toBe(LOCAL_ERR.exited);
    expect(new ZCodeExitedError({ code: 3, signal: null, stderrTail: ["a", "b"] }).message).toBe(
      "The ZCode CLI exited with code 3; its last stderr lines:\n  a\n  b",
    );
    expect(new ZCodeTimeoutError("session/read", 1500).message).toBe("The ZCode CLI did not answer session/read within 1.5 s");
    const nf = new ZCodeNotFoundError("The ZCode CLI was not found.", ["zcode on PATH"]);
    expect(nf.message).toContain("Searched:\n  - zcode on PATH");
    expect(nf.message).toContain("ZCODE_BIN");
    expect(new ZCodeUnsupportedError("0.14.0").message).toContain("0.14.0 is too old");
  });
});

// Errors built from the child's output reach the editor and --trace files:
// redacted when built.
describe("redaction at the source", () => {
  test("ZCodeExitedError redacts a raw stderr tail in its message and its fields", () => {
    const err = new ZCodeExitedError({ code: 3, signal: null, stderrTail: SECRET_LINES }, "session/create");
    expectNoSecret(err.message);
    expectNoSecret(err.stderrTail.join("\n"));
    expect(err.message).toContain("exited with code 3 while session/create was pending");
  });

  test("an error message from ZCode that quotes a key is redacted", () => {
    const err = errorFromWire("session/prompt", {
      code: -32000,
      message: "provider said: Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX",
    });
    expectNoSecret(err.message);
    expect(err.message).toContain("provider said");
  });
});
