// The editor (or the user) stops the bridge with a signal: every request it
// read is answered, as on stdin's EOF, and the bridge is gone within 2 s even
// while stdin floods it with one endless line.
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { Harness } from "../support/acp-harness.ts";
import { zcodeChild } from "./process-support.ts";

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`${signal} with 27 requests pending: each is answered before the bridge exits`, async () => {
    const h = await Harness.start({});
    let child: number | undefined;
    try {
      const sessions = [await h.newSession(), await h.newSession(), await h.newSession()].map((s) => s.sessionId);
      child = await zcodeChild(h.proc.pid);
      // A frozen ZCode: every request below waits for it.
      process.kill(child, "SIGSTOP");
      const m = acp.methods.agent.session;
      const pending: Array<Promise<unknown>> = [];
      for (let i = 0; i < 9; i++) {
        const sessionId = sessions[i % 3]!;
        pending.push(h.prompt(sessionId, `prompt ${i}`).then((r) => expect(r.stopReason).toBe("cancelled")));
        pending.push(h.agent.request(m.list, {}));
        pending.push(h.agent.request(m.setMode, { sessionId, modeId: i % 2 ? "plan" : "build" }));
      }
      const answers = pending.map((p) =>
        p.then(
          () => "result",
          (e: acp.RequestError) => `error ${e.code}`,
        ),
      );
      // Answered by the bridge alone, after it has read (and dispatched) all of the above.
      await h.agent.request(acp.methods.agent.authenticate, { methodId: "zcode" }).catch(() => undefined);
      h.kill(signal);
      const got = await Promise.all(answers);
      expect(got).toHaveLength(27);
      for (const a of got) expect(["result", "error -32800"]).toContain(a);
      expect(await h.proc.exited).toBe(0);
    } finally {
      if (child) {
        try {
          process.kill(child, "SIGCONT");
        } catch {
          // gone with the bridge
        }
      }
      await h.close({ expectExit: "any" }).catch(() => {});
    }
  }, 30_000);
}

test("SIGTERM ends the bridge within 2 s while stdin floods it with an endless line (a turn running)", async () => {
  const h = await Harness.start({});
  let flooding = true;
  try {
    const { sessionId } = await h.newSession();
    const turn = h.prompt(sessionId, "#scenario:slow n=100000").then(
      (r) => r.stopReason,
      (e: unknown) => `failed: ${String(e)}`,
    );
    await h.waitFor(() => h.text(sessionId).includes("chunk 2 "), "streaming");
    // From now on the bridge reads one line that never ends.
    const chunk = new Uint8Array(1 << 20).fill(0x61);
    let written = 0;
    let reached!: () => void;
    const enough = new Promise<void>((r) => (reached = r));
    void (async () => {
      while (flooding) {
        try {
          h.proc.stdin.write(chunk);
          await h.proc.stdin.flush();
        } catch {
          break;
        }
        written += chunk.length;
        if (written >= 96 << 20) reached();
      }
    })();
    await enough;
    const exited = h.proc.exited.then(() => true);
    h.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const inTime = await Promise.race([exited, new Promise<boolean>((r) => (timer = setTimeout(() => r(false), 2000)))]);
    clearTimeout(timer);
    expect(inTime).toBe(true);
    expect(await turn).toBe("cancelled");
  } finally {
    flooding = false;
    await h.close({ expectExit: "any", allowProblems: true }).catch(() => {});
  }
}, 30_000);
