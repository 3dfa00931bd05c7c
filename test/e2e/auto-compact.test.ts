// --auto-compact: a turn that leaves the context at or above the threshold is
// followed, after its answer, by a compaction in the background (the same
// request and tool call as /compact, behind a notice saying why); a prompt
// typed meanwhile waits for it. Off by default.
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Harness, withBridge } from "../support/acp-harness.ts";

function indexOfResponse(h: Harness, pred: (r: acp.PromptResponse) => boolean, nth = 0): number {
  let seen = 0;
  return h.received.messages.findIndex((m) => {
    const r = m.result as acp.PromptResponse | undefined;
    if (!r?.stopReason || !pred(r)) return false;
    return seen++ === nth;
  });
}

test("past the threshold: the prompt is answered, then the compaction runs with a notice; the next prompt waits for it", async () => {
  await withBridge({ record: true, args: ["--auto-compact", "80%"], env: { ZCODE_SIM_CONTEXT_FILL: "0.95" } }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "fill the context")).stopReason).toBe("end_turn");
    const answeredAt = indexOfResponse(h, (r) => r.stopReason === "end_turn");
    // Typed right away: it must not meet a busy ZCode, and it goes after the compaction.
    const next = await h.prompt(sessionId, "after the compaction");
    expect(next.stopReason).toBe("end_turn");
    const methods = h.simMethods();
    const compactAt = methods.indexOf("session/compact");
    expect(compactAt).toBeGreaterThan(methods.indexOf("session/send"));
    expect(methods.lastIndexOf("session/send")).toBeGreaterThan(compactAt);
    // One compaction between the two prompts. The second prompt also ends at
    // or above the threshold (the simulator reports 95% in use), so a second compaction legitimately
    // follows its answer: only those before the last send count.
    expect(methods.slice(0, methods.lastIndexOf("session/send")).filter((m) => m === "session/compact")).toHaveLength(1);
    // Nothing of the compaction before the first answer; then the notice and /compact's tool call, completed.
    const before = h.received.messages.slice(0, answeredAt).map((m) => JSON.stringify(m));
    expect(before.some((m) => m.includes("auto-compact") || m.includes("Compacting conversation"))).toBe(false);
    expect(h.text(sessionId)).toMatch(/at or above the auto-compact threshold of 80% of the context window: compacting the conversation/);
    const call = h.updatesOfKind(sessionId, "tool_call").find((u) => u.title === "Compacting conversation")!;
    const last = h
      .updatesOfKind(sessionId, "tool_call_update")
      .filter((u) => u.toolCallId === call.toolCallId)
      .at(-1);
    expect(last?.status).toBe("completed");
    expect(h.text(sessionId)).toContain("Conversation compacted.");
  });
});

test("below the threshold, or without --auto-compact: no compaction", async () => {
  for (const args of [["--auto-compact", "100%"], []]) {
    await withBridge({ record: true, args }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "a small turn");
      await h.prompt(sessionId, "another");
      // A compaction due after the first turn holds the queue and so reaches
      // ZCode before the second send; one due after the second would follow
      // its answer: a third prompt's answer is the definite later point.
      await h.prompt(sessionId, "and a third");
      expect(h.simMethods()).not.toContain("session/compact");
    });
  }
});

test("ZCODE_ACP_AUTO_COMPACT is the same setting", async () => {
  await withBridge({ record: true, env: { ZCODE_ACP_AUTO_COMPACT: "80%", ZCODE_SIM_CONTEXT_FILL: "0.95" } }, async (h) => {
    const { sessionId } = await h.newSession();
    await h.prompt(sessionId, "fill the context");
    await h.waitFor(() => h.simMethods().includes("session/compact"), "the compaction");
  });
});

test("stdin closed right after the answer: the compaction is decided after a quiet moment, so none is sent", async () => {
  for (let round = 0; round < 3; round++) {
    const dir = mkdtempSync(join(tmpdir(), "zcode-ac-eof-"));
    // The quiet moment lengthened so that a slow machine still closes within it.
    const h = await Harness.start({
      stateDir: dir,
      record: true,
      args: ["--auto-compact", "80%"],
      env: { ZCODE_SIM_CONTEXT_FILL: "0.95", ZCODE_ACP_AUTO_COMPACT_QUIET_MS: "2000" },
    });
    try {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "fill the context")).stopReason).toBe("end_turn");
      expect(await h.close()).toBe(0);
      expect(h.simMethods()).not.toContain("session/compact");
    } finally {
      await h.close({ expectExit: "any" }).catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    }
  }
}, 60_000);
