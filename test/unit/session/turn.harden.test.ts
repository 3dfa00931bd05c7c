// A failed turn's error comes from ZCode, often a provider's error that quotes
// the request: it reaches the editor as the prompt's JSON-RPC error (and as a
// notice when retried), so it is redacted like every error built from child
// output. Driven through the Turn with a fake ZCode api, as agent-turn does.
import { expect, test } from "bun:test";
import { Turn } from "../../../src/session/turn.ts";
import { fakeSession } from "../support/session-fakes.ts";

test("turn.failed: message and data are redacted in the error the editor gets", async () => {
  const f = await fakeSession();
  const answer = new Turn(f.s, { text: "hi", attachments: [] }).run().catch((e: unknown) => e);
  for (let i = 0; i < 200 && !f.zcode.methods().includes("session/send"); i++) await Bun.sleep(1);
  f.zcode.emit("turn.started");
  f.zcode.emit("turn.failed", {
    error: {
      code: 1500,
      message: "401 from provider: Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX (header x-api-key=abc123secret)",
      data: { request: { headers: { authorization: "Bearer abcdefghijklmnop" } } },
    },
  });
  const err = (await answer) as { message: string; data?: unknown };
  expect(err.message).toContain("401 from provider");
  const all = JSON.stringify({ message: err.message, data: err.data });
  for (const secret of ["sk-proj-ABCDEFGH", "abc123secret", "abcdefghijklmnop"]) expect(all).not.toContain(secret);
});
