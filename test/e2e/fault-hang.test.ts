// A ZCode request that never gets an answer: the prompt fails with a clear
// timeout error (short timeout through the hidden ZCODE_ACP_REQUEST_TIMEOUT_MS)
// instead of hanging, and the session is usable afterwards. A child that
// stops answering altogether is replaced. (Cancelling such
// a prompt is covered in agent-cancel; 1308, ignored stops, eviction and
// re-sent interactions in agent-turn, agent-cancel and interaction-permission.)
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { isAlive, withBridge } from "../support/acp-harness.ts";
import { zcodeChild } from "./process-support.ts";

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

test("a frozen ZCode (stopped, not dead) is replaced after three silent timeouts; the session goes on in the new child", async () => {
  await withBridge({ env: { ZCODE_ACP_REQUEST_TIMEOUT_MS: "400", ZCODE_ACP_LOG_LEVEL: "warn" } }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "before")).stopReason).toBe("end_turn");
    const frozen = await zcodeChild(h.proc.pid);
    process.kill(frozen, "SIGSTOP");
    try {
      for (let i = 0; i < 3; i++) {
        const e = await h.agent
          .request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "plan" })
          .then(() => undefined, (x: Error) => x);
        expect(e?.message).toMatch(/did not answer|timed? ?out/i);
      }
      await h.waitFor(() => !isAlive(frozen), "the frozen child to be killed");
      expect(h.stderr).toContain("stopped answering: 3 requests in a row timed out");
      // The next request starts a fresh child and resumes the session there.
      expect((await h.prompt(sessionId, "after the freeze")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after the freeze");
      expect(await zcodeChild(h.proc.pid)).not.toBe(frozen);
    } finally {
      try {
        process.kill(frozen, "SIGCONT");
      } catch {
        // killed, as it should be
      }
    }
  });
});

test("a child that is only slow is not replaced: timeouts with output in between do not add up", async () => {
  await withBridge({ env: { ZCODE_ACP_REQUEST_TIMEOUT_MS: "400" }, record: true }, async (h) => {
    const { sessionId } = await h.newSession();
    const first = await zcodeChild(h.proc.pid);
    for (let i = 0; i < 4; i++) {
      // The hung send times out; the answered prompt after it is output from the child.
      await h.prompt(sessionId, "#scenario:hang-request").catch(() => undefined);
      await h.prompt(sessionId, `answered ${i}`);
    }
    expect(h.stderr).not.toContain("stopped answering");
    expect(await zcodeChild(h.proc.pid)).toBe(first);
  });
});
