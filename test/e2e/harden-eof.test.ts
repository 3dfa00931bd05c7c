// The editor closes our stdin with work still queued or pending. Nothing
// new may reach ZCode after that (a queued /rewind or /goal clear would
// change the user's session for an editor that has gone), and every request
// read before the EOF gets an answer while stdout still takes it.
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Harness } from "../support/acp-harness.ts";
import { zcodeChild } from "./process-support.ts";

/** A bridge whose state dir outlives it, so the simulator's record can be read after the exit. */
async function start(): Promise<{ h: Harness; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "zcode-eof-"));
  return { h: await Harness.start({ stateDir: dir, record: true }), dir };
}

test("after stdin EOF, prompts and slash commands queued behind the running turn never reach ZCode; each is answered cancelled", async () => {
  const { h, dir } = await start();
  try {
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "a first turn to rewind");
    const running = h.prompt(sessionId, "#scenario:slow n=400");
    await h.waitFor(() => h.text(sessionId).includes("chunk 2 "), "streaming");
    const queued = ["/rewind", "/goal clear", "/compact", "queued text"].map((t) => h.prompt(sessionId, t));
    // The bridge reads stdin in order: once this is answered, the queued prompts are in.
    await h.agent.request(acp.methods.agent.authenticate, { methodId: "zcode-app" });
    const closing = h.close();
    const answers = await Promise.all([running, ...queued]);
    expect(await closing).toBe(0);
    expect(answers.map((a) => a.stopReason)).toEqual(["cancelled", "cancelled", "cancelled", "cancelled", "cancelled"]);
    const methods = h.simMethods();
    for (const m of ["session/rewind", "session/goal", "session/compact"]) expect(methods).not.toContain(m);
    const sent = h
      .simFrames()
      .filter((f) => f.method === "session/send")
      .map((f) => f.params.content);
    expect(sent).toEqual(["a first turn to rewind", "#scenario:slow n=400"]);
  } finally {
    await h.close({ expectExit: "any" }).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  }
});

test("a request still pending 1.5 s after stdin EOF is answered -32800 cancelled before the bridge exits", async () => {
  const { h, dir } = await start();
  let child: number | undefined;
  try {
    const { sessionId } = await h.newSession();
    child = await zcodeChild(h.proc.pid);
    // A frozen ZCode: the load waits on an answer that does not come.
    process.kill(child, "SIGSTOP");
    const load = h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: h.stateDir, mcpServers: [] }).then(
      () => undefined,
      (e: unknown) => e as acp.RequestError,
    );
    // The bridge reads stdin in order: once this is answered, the load is in.
    await h.agent.request(acp.methods.agent.authenticate, { methodId: "zcode-app" });
    // Exit 0, not the harness's SIGKILL after 10 s: the frozen child did not hold the exit.
    expect(await h.close()).toBe(0);
    const err = await load;
    expect(err?.code).toBe(-32800);
  } finally {
    if (child) {
      try {
        process.kill(child, "SIGCONT");
      } catch {
        // gone with the bridge
      }
    }
    rmSync(dir, { recursive: true, force: true });
  }
});

test("stdin EOF right after a turn's answer with --auto-compact due: no session/compact, or one told to stop", async () => {
  // The compaction is queued as the answer goes out; the EOF follows at once,
  // while ZCode (slow to answer each request) has the compaction in hand.
  for (let round = 0; round < 3; round++) {
    const dir = mkdtempSync(join(tmpdir(), "zcode-eof-"));
    const h = await Harness.start({
      stateDir: dir,
      record: true,
      args: ["--auto-compact", "80%"],
      env: { ZCODE_SIM_HANDLER_DELAY_MS: "300", ZCODE_SIM_CONTEXT_FILL: "0.95" },
    });
    try {
      const { sessionId } = await h.newSession();
      const answer = h.prompt(sessionId, "fill the context");
      await h.waitFor(
        () => h.received.messages.some((m) => (m.result as { stopReason?: string } | undefined)?.stopReason),
        "the answer",
        10_000,
      );
      expect(await h.close()).toBe(0);
      expect((await answer).stopReason).toBe("end_turn");
      const methods = h.simMethods();
      const compactAt = methods.indexOf("session/compact");
      if (compactAt !== -1) expect(methods.indexOf("session/stop", compactAt)).toBeGreaterThan(compactAt);
    } finally {
      await h.close({ expectExit: "any" }).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  }
}, 60_000);
