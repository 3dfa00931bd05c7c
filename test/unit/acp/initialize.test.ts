// The fast path answers `initialize` before the SDK loads (src/cli/serve.ts).
// Its answer is only right if the SDK's agent would have accepted the very
// same request: so every request plainInitializeId takes must pass the SDK's
// own checks (its JSON-RPC envelope rules and its zod schema for
// InitializeRequest). Checked on hand-picked edge cases and on random ones.
import { expect, test } from "bun:test";
import { zInitializeRequest } from "../../../node_modules/@agentclientprotocol/sdk/dist/v1/unstable/schema/zod.gen.js";
import { fastAnswerableId, plainInitializeId } from "../../../src/acp/initialize.ts";

/** What the SDK agent accepts as an initialize it answers with a result. */
function sdkAccepts(msg: unknown): boolean {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return false;
  const m = msg as Record<string, unknown>;
  // core/jsonrpc.js isRequestMessage / isJsonRpcId
  const idOk = m.id === null || typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id));
  if (m.jsonrpc !== "2.0" || !("id" in m) || typeof m.method !== "string" || !idOk) return false;
  return m.method === "initialize" && zInitializeRequest.safeParse(m.params).success;
}

const EDGE_VERSIONS: unknown[] = [0, 1, 2, 65535, 65536, 70000, 1e20, -1, 1.5, "1", null, true, Number.MAX_SAFE_INTEGER + 2];
const EDGE_IDS: unknown[] = [1, 0, -1, 1.5, "x", "", Infinity, -Infinity, NaN, null, true, {}, []];

test("hand-picked edges: the fast path takes only what the SDK accepts", () => {
  const wrong: string[] = [];
  for (const protocolVersion of EDGE_VERSIONS) {
    for (const id of EDGE_IDS) {
      const msg = { jsonrpc: "2.0", id, method: "initialize", params: { protocolVersion } };
      if (plainInitializeId(msg) !== undefined && !sdkAccepts(msg))
        wrong.push(`id=${String(id)} protocolVersion=${String(protocolVersion)}`);
    }
  }
  expect(wrong).toEqual([]);
  // And it still takes the ordinary request.
  expect(plainInitializeId({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })).toBe(
    1,
  );
});

test("random requests (fixed seed): whatever the fast path takes, the SDK accepts", () => {
  let a = 20260101;
  const r = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const values: unknown[] = [...EDGE_VERSIONS, undefined, {}, [], "", { fs: 5 }, { terminal: "yes" }, { _meta: 3 }];
  let taken = 0;
  const wrong: unknown[] = [];
  for (let i = 0; i < 20_000; i++) {
    const params: Record<string, unknown> = {};
    for (const key of ["protocolVersion", "clientCapabilities", "clientInfo", "_meta", "extra"]) {
      if (r() < 0.7) params[key] = pick(values);
    }
    const msg: Record<string, unknown> = {
      jsonrpc: pick(["2.0", "2.0", "2.0", "1.0", undefined]),
      id: pick([...EDGE_IDS, 7, "abc"]),
      method: pick(["initialize", "initialize", "Initialize", 5]),
      params: r() < 0.9 ? params : pick(values),
    };
    if (r() < 0.05) delete msg.id;
    if (plainInitializeId(msg) !== undefined) {
      taken++;
      if (!sdkAccepts(msg)) wrong.push(msg);
    }
  }
  expect(wrong.slice(0, 5)).toEqual([]);
  expect(taken).toBeGreaterThan(100);
});

test("the CLI answers only v1 (or older) requests itself; v2 and newer go to the agent, which picks the version", () => {
  const init = (protocolVersion: number) => ({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion } });
  expect(fastAnswerableId(init(0))).toBe(1);
  expect(fastAnswerableId(init(1))).toBe(1);
  for (const v of [2, 3, 65535]) {
    expect(fastAnswerableId(init(v))).toBeUndefined();
    // Still a plain initialize: what follows it waits for the agent's answer.
    expect(plainInitializeId(init(v))).toBe(1);
  }
  expect(fastAnswerableId({ jsonrpc: "2.0", id: 1, method: "initialize" })).toBeUndefined();
});
