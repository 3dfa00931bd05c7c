// A current model ZCode no longer offers is found and said once in a turn;
// a switch ZCode refuses becomes an error naming both models.
import { describe, expect, test } from "bun:test";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { modelSwitchError, unavailableCurrent, unavailableNotice } from "../../../../src/translate/options/model-notice.ts";
import { optionsFromSettings } from "../../../../src/translate/options/options.ts";
import { ZCodeError, ZCodeExitedError, ZCodeTimeoutError } from "../../../../src/zcode/errors.ts";
import { CREATE_SETTINGS, GLM, settings } from "../../support/bridge-fixtures.ts";

const opts = (current: { providerId: string; modelId: string }, available: unknown[]) =>
  optionsFromSettings(settings({ ...CREATE_SETTINGS, model: { current, available } }));
const LOCKED = { ref: { providerId: "p", modelId: "locked" }, label: "Locked", properties: {}, disabledReason: "Sign in to the plan" };

describe("unavailableCurrent", () => {
  test("none while the current model is offered", () => {
    expect(unavailableCurrent(optionsFromSettings(settings(CREATE_SETTINGS)))).toBeUndefined();
    expect(unavailableCurrent({})).toBeUndefined();
  });

  test("a current model gone from the list, or disabled", () => {
    expect(unavailableCurrent(opts({ providerId: "gone", modelId: "old" }, [GLM]))?.value).toBe("gone/old");
    expect(unavailableCurrent(opts({ providerId: "p", modelId: "locked" }, [GLM, LOCKED]))?.disabledReason).toBe("Sign in to the plan");
  });

  test("the notice names the model, the reason ZCode gave, and the ways to switch", () => {
    const gone = unavailableCurrent(opts({ providerId: "gone", modelId: "old" }, [GLM]))!;
    expect(unavailableNotice(gone)).toBe(
      "The model old (gone/old) is no longer offered by ZCode; pick another with /model or the model menu.",
    );
    const locked = unavailableCurrent(opts({ providerId: "p", modelId: "locked" }, [GLM, LOCKED]))!;
    expect(unavailableNotice(locked)).toContain("no longer offered by ZCode (Sign in to the plan); pick another");
  });
});

describe("modelSwitchError", () => {
  const o = optionsFromSettings(settings(CREATE_SETTINGS));
  const wanted = { ...o.model!.models[0]!, value: "p/other", label: "Other" };

  test("ZCode's refusal: the model asked for, ZCode's words, the model kept", () => {
    const e = modelSwitchError(
      new ZCodeError("Provider p is unavailable: connection refused", { code: -32603, method: "session/setModel" }),
      wanted,
      o,
    );
    expect(e).toBeInstanceOf(RequestError);
    expect((e as RequestError).code).toBe(-32603);
    expect((e as RequestError).message).toBe(
      "ZCode did not switch to Other (p/other): Provider p is unavailable: connection refused. The session keeps GLM-5.3 (builtin:zai-coding-plan/GLM-5.3).",
    );
    const bad = modelSwitchError(new ZCodeError("Invalid params — model: bad", { code: -32602, method: "session/setModel" }), wanted, o);
    expect((bad as RequestError).code).toBe(-32602);
  });

  test("the child dying, a timeout, busy or a lost session pass unchanged", () => {
    const exited = new ZCodeExitedError({ code: 1, signal: null, stderrTail: [] });
    const timeout = new ZCodeTimeoutError("session/setModel", 1000);
    const busy = new ZCodeError("A prompt is already running", { code: -32010 });
    const gone = new ZCodeError("Session not found: s", { code: -32004 });
    const plain = new Error("boom");
    for (const e of [exited, timeout, busy, gone, plain]) expect(modelSwitchError(e, wanted, o)).toBe(e);
  });
});
