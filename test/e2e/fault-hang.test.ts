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

test("a frozen ZCode (stopped, not dead) is replaced once it has owed answers in silence long enough; the session goes on in the new child", async () => {
  // The timeout also bounds the new child's boot and its session/resume at the
  // end: 400 ms was too short for that with both cores busy and the release
  // build running beside the e2e files (one load run in three).
  await withBridge({ env: { ZCODE_ACP_REQUEST_TIMEOUT_MS: "1000", ZCODE_ACP_LOG_LEVEL: "warn" } }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "before")).stopReason).toBe("end_turn");
    const frozen = await zcodeChild(h.proc.pid);
    process.kill(frozen, "SIGSTOP");
    try {
      // Requests that time out, one after another, until the bridge judges the
      // child frozen (three timeouts' worth of silence: the third, give or take
      // a timer firing early; a loaded machine only adds silence). The verdict
      // is waited for, not timed.
      let timeouts = 0;
      while (isAlive(frozen) && timeouts < 10) {
        const e = await h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "plan" }).then(
          () => undefined,
          (x: Error) => x,
        );
        // Answered: the frozen child is gone already and a new one took it.
        if (e === undefined) break;
        // A request that races the kill finds the child dying.
        expect(e.message).toMatch(/did not answer|timed? ?out|died/i);
        if (/did not answer|timed? ?out/i.test(e.message)) timeouts++;
      }
      expect(timeouts).toBeGreaterThanOrEqual(3);
      await h.waitFor(() => !isAlive(frozen), "the frozen child to be killed");
      // The log line is written before the kill, but read from the pipe after it may be.
      await h.waitFor(() => h.stderr.includes("stopped answering: it has owed answers and written nothing for"), "the log line");
      // Its end handled (the turn running then is failed with it; this prompt must come after).
      await h.waitFor(() => h.stderr.includes("exited with signal SIGKILL"), "the frozen child's exit to be handled");
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

test("requests queued behind a slow one that time out together do not make the child frozen", async () => {
  // Three sessions whose sends ZCode never answers, all at once: their three
  // timeouts come together, with no output in between, right after ZCode
  // answered everything else. Slow, not frozen.
  await withBridge({ env: { ZCODE_ACP_REQUEST_TIMEOUT_MS: "2000" } }, async (h) => {
    const sessions = [];
    for (let i = 0; i < 3; i++) sessions.push((await h.newSession()).sessionId);
    const first = await zcodeChild(h.proc.pid);
    const errors = await Promise.all(
      sessions.map((id) =>
        h.prompt(id, "#scenario:hang-request").then(
          () => undefined,
          (e: Error) => e,
        ),
      ),
    );
    for (const e of errors) expect(e?.message).toMatch(/did not answer|timed? ?out/i);
    // Each session goes on in the same child.
    for (const id of sessions) expect((await h.prompt(id, `after ${id}`)).stopReason).toBe("end_turn");
    expect(h.stderr).not.toContain("stopped answering");
    expect(await zcodeChild(h.proc.pid)).toBe(first);
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
