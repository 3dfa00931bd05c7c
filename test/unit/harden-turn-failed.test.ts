// A failed turn's error comes from ZCode, often a provider's error that quotes
// the request: it reaches the editor as the prompt's JSON-RPC error (and as a
// notice when retried), so it is redacted like every error built from child
// output. Driven through the Turn with a fake ZCode api, as agent-turn does.
import { expect, test } from "bun:test";
import { UpdateSink } from "../../src/acp/update-sink.ts";
import { BridgeCore, DEFAULT_TIMINGS } from "../../src/bridge/core.ts";
import { Turn } from "../../src/bridge/turn.ts";
import type { ZCodeApi } from "../../src/zcode/api.ts";

test("turn.failed: message and data are redacted in the error the editor gets", async () => {
  let deliver!: (e: unknown) => void;
  const api = {
    conn: {
      onExit: () => () => {},
      onEvent: (_id: string, cb: (e: unknown) => void) => {
        deliver = cb;
        return () => {};
      },
      start: async () => ({ generation: 1 }),
    },
    subscribe: async () => ({ eventSeq: 0, events: [] }),
    send: async () => ({}),
    stop: async () => {},
    read: async () => ({ projection: { status: "idle" } }),
  } as unknown as ZCodeApi;
  const core = new BridgeCore(api, new UpdateSink(async () => {}), { timings: DEFAULT_TIMINGS, terminalOutput: () => false });
  const s = core.register("sess_1", "/tmp", undefined, 1);
  const answer = new Turn(core, s, { text: "hi", attachments: [] }).run().catch((e: unknown) => e);
  await Bun.sleep(0);
  deliver({ sessionId: s.id, seq: 1, type: "turn.started", payload: {} });
  deliver({
    sessionId: s.id,
    seq: 2,
    type: "turn.failed",
    payload: {
      error: {
        code: 1500,
        message: "401 from provider: Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX (header x-api-key=abc123secret)",
        data: { request: { headers: { authorization: "Bearer abcdefghijklmnop" } } },
      },
    },
  });
  const err = (await answer) as { message: string; data?: unknown };
  expect(err.message).toContain("401 from provider");
  const all = JSON.stringify({ message: err.message, data: err.data });
  for (const secret of ["sk-proj-ABCDEFGH", "abc123secret", "abcdefghijklmnop"]) expect(all).not.toContain(secret);
});
