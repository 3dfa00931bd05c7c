// Our requests to the child, each settled once: by its answer, its error, its
// timeout or the exit of the child it went to, whichever comes first.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import { LOCAL_ERR, ZCodeError, ZCodeExitedError, ZCodeTimeoutError } from "../../../src/zcode/errors.ts";
import { PendingRequests } from "../../../src/zcode/pending-requests.ts";

const EXIT = { code: 3, signal: null, stderrTail: [] };

function setup() {
  const warned: string[] = [];
  return { pending: new PendingRequests((m) => warned.push(m)), warned, caps: new CliCapabilities("0.16.0") };
}

describe("PendingRequests", () => {
  test("ids are fresh; an answer settles its request once, and the id is no longer pending", async () => {
    const { pending, warned, caps } = setup();
    const a = pending.newId();
    const b = pending.newId();
    expect(b).toBe(a + 1);
    const p = pending.wait(a, "session/list", 1, 1000, undefined);
    expect(pending.isPending(a)).toBe(true);
    expect(pending.isPending(String(a))).toBe(false);
    pending.settle({ kind: "response", id: a, result: { ok: 1 } }, "{}", caps);
    expect(await p).toEqual({ ok: 1 });
    expect(pending.isPending(a)).toBe(false);
    // A second answer for it is a bad frame, logged through the budget given.
    pending.settle({ kind: "response", id: a, result: {} }, "{}", caps);
    expect(warned).toEqual([expect.stringContaining(`ZCode answered id ${a}, which nobody is waiting for`)]);
  });

  test("the timeout rejects, and a late answer finds nothing", async () => {
    const { pending, warned, caps } = setup();
    const id = pending.newId();
    const err = await pending.wait(id, "session/read", 1, 10, undefined).catch((e) => e);
    expect(err).toBeInstanceOf(ZCodeTimeoutError);
    pending.settle({ kind: "response", id, result: {} }, "{}", caps);
    expect(warned.length).toBe(1);
  });

  test("an error answer rejects with ZCode's code; -32601 marks the method unsupported for the child that answered", async () => {
    const { pending, caps } = setup();
    const id = pending.newId();
    const p = pending.wait(id, "session/fork", 1, 1000, undefined);
    pending.settle({ kind: "error", id, error: { code: -32601, message: "Method not found" } }, "{}", caps);
    const err = await p.catch((e) => e);
    expect(err).toBeInstanceOf(ZCodeError);
    expect(err).toMatchObject({ code: -32601, method: "session/fork" });
    expect(caps.supports("session/fork")).toBe(false);
  });

  test("a result that does not fit the schema is an error naming the method", async () => {
    const { pending, caps } = setup();
    const id = pending.newId();
    const p = pending.wait(id, "session/create", 1, 1000, v.object({ sessionId: v.string() }));
    pending.settle({ kind: "response", id, result: { sessionId: 7 } }, "{}", caps);
    const err = await p.catch((e: unknown) => e);
    expect(err).toMatchObject({ code: LOCAL_ERR.internal, method: "session/create" });
    expect((err as Error).message).toContain("unexpected shape");
  });

  test("a child's exit fails only what was sent to that child", async () => {
    const { pending, caps } = setup();
    const old = pending.newId();
    const fresh = pending.newId();
    const oldP = pending.wait(old, "session/send", 1, 1000, undefined);
    const freshP = pending.wait(fresh, "session/list", 2, 1000, undefined);
    pending.failGeneration(1, EXIT);
    const err = await oldP.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ZCodeExitedError);
    expect((err as ZCodeExitedError).method).toBe("session/send");
    expect(pending.isPending(fresh)).toBe(true);
    pending.settle({ kind: "response", id: fresh, result: 1 }, "{}", caps);
    expect(await freshP).toBe(1);
  });
});
