// A ZCode request that never gets an answer: the prompt fails with a clear
// timeout error (short timeout through the hidden ZCODE_ACP_REQUEST_TIMEOUT_MS)
// instead of hanging, and the session is usable afterwards. (Cancelling such
// a prompt is covered in agent-cancel; 1308, ignored stops, eviction and
// re-sent interactions in agent-turn, agent-cancel and interaction-permission.)
import { expect, test } from "bun:test";
import { withBridge } from "../support/acp-harness.ts";

test("session/send never answered: a timeout error naming the request, then the session works", async () => {
  await withBridge({ env: { ZCODE_ACP_REQUEST_TIMEOUT_MS: "800" } }, async (h) => {
    const { sessionId } = await h.newSession();
    const t0 = Date.now();
    const err = await h.prompt(sessionId, "#scenario:hang-request").then(
      () => undefined,
      (e: Error) => e,
    );
    const took = Date.now() - t0;
    expect(err).toBeInstanceOf(Error);
    expect(err!.message).toMatch(/did not answer|timed? ?out/i);
    expect(err!.message).toContain("0.8 s");
    expect(err!.message).toContain("session/send");
    expect(took).toBeGreaterThanOrEqual(700);
    expect(took).toBeLessThan(5000);
    // The hung send was never processed; the next prompt goes through.
    const r = await h.prompt(sessionId, "after the hang");
    expect(r.stopReason).toBe("end_turn");
    expect(h.text(sessionId)).toContain("Echo: after the hang");
  });
});
