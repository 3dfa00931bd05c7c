// Requests from the child, each answered exactly once.
import { describe, expect, test } from "bun:test";
import { ChildRequests } from "../../../src/zcode/child-requests.ts";
import { LOCAL_ERR } from "../../../src/zcode/errors.ts";
import { RUNTIME_PREFERENCES } from "../../../src/zcode/request-schemas.ts";

function answers(r: ChildRequests, id: number, method: string, params: unknown = {}): Promise<unknown[]> {
  const sent: unknown[] = [];
  r.answer(id, method, params, (line) => sent.push(JSON.parse(line)));
  return Bun.sleep(5).then(() => sent);
}

describe("ChildRequests", () => {
  test("the handler's result answers; nothing becomes {}", async () => {
    const r = new ChildRequests();
    r.set("session/requestPermission", async (p) => ({ echoed: p }));
    r.set("session/nothing", async () => undefined);
    expect(await answers(r, 1, "session/requestPermission", { x: 1 })).toEqual([{ id: 1, result: { echoed: { x: 1 } } }]);
    expect(await answers(r, 2, "session/nothing")).toEqual([{ id: 2, result: {} }]);
  });

  test("no handler: -32601; runtime preferences get our strict defaults unless a handler is set", async () => {
    const r = new ChildRequests();
    expect(await answers(r, 1, "session/unknown")).toEqual([
      { id: 1, error: { code: -32601, message: "Method not found: session/unknown" } },
    ]);
    expect(await answers(r, 2, "session/requestRuntimePreferences")).toEqual([{ id: 2, result: RUNTIME_PREFERENCES }]);
    r.set("session/requestRuntimePreferences", async () => ({ mine: true }));
    expect(await answers(r, 3, "session/requestRuntimePreferences")).toEqual([{ id: 3, result: { mine: true } }]);
  });

  test("a failing handler answers with its code, or internal error; a throw before its promise too", async () => {
    const r = new ChildRequests();
    r.set("a", async () => {
      throw Object.assign(new Error("cancelled by the user"), { code: -32800 });
    });
    r.set("b", () => {
      throw new Error("sync bug");
    });
    expect(await answers(r, 1, "a")).toEqual([{ id: 1, error: { code: -32800, message: "cancelled by the user" } }]);
    expect(await answers(r, 2, "b")).toEqual([{ id: 2, error: { code: LOCAL_ERR.internal, message: "sync bug" } }]);
  });
});
