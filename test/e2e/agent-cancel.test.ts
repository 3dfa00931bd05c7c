// Cancellation: session/cancel, $/cancel_request on the prompt and
// session/close all end the turn `cancelled` without waiting for ZCode (or the
// editor) to finish, nothing of that turn reaches the editor after the
// answer, and the next prompt works. How soon (the cancel grace, to the
// millisecond) is turn.timing.test.ts's; these tests assert order, not time.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SIM_BIN, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";
import { zcodeChild } from "./process-support.ts";

/** Index in h.received.messages of the response to the prompt that just settled. */
function responseIndex(h: Harness, stopReason: string): number {
  return h.received.messages.findLastIndex((x) => (x.result as { stopReason?: string } | undefined)?.stopReason === stopReason);
}

function updatesAfter(h: Harness, index: number, sessionId: string) {
  return h.received.messages
    .slice(index + 1)
    .filter((x) => x.method === "session/update" && (x.params as acp.SessionNotification).sessionId === sessionId)
    .map((x) => (x.params as acp.SessionNotification).update);
}

/** SIGCONT for a child the test stopped (it may be gone already, killed by the bridge's shutdown). */
function resume(pid: number): void {
  try {
    process.kill(pid, "SIGCONT");
  } catch {
    // Already gone.
  }
}

describe("cancel", () => {
  // For the tests without settings of their own that leave the CLI alone: each starts its own session.
  const bridge = sharedBridge({});
  const recording = sharedBridge({ record: true });

  test("during streaming: cancelled before the turn's end, nothing after the response, next prompt works", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const p = h.prompt(sessionId, "#scenario:slow n=400");
      await h.waitFor(() => h.text(sessionId).includes("chunk 3 "), "streaming");
      await h.cancel(sessionId);
      expect((await p).stopReason).toBe("cancelled");
      expect(h.text(sessionId)).not.toContain("chunk 399 ");
      const idx = responseIndex(h, "cancelled");
      const next = await h.prompt(sessionId, "after cancel");
      expect(next.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after cancel");
      // Up to the next answer (updates are ordered), nothing more of the cancelled turn.
      expect(updatesAfter(h, idx, sessionId).filter((u) => JSON.stringify(u).includes("chunk "))).toEqual([]);
    });
  });

  test("ZCode ignores the stop and keeps streaming: still cancelled before ZCode ends the turn; nothing leaks; next prompt not lost", async () => {
    await withBridge({ env: { ZCODE_SIM_STOP_IGNORE_MS: "1200" }, record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      // n=400 (a few seconds of chunks): the cancel must reach ZCode before the turn's last chunk however busy the
      // machine; once asked to stop, the scenario streams until its ignore time is over, whatever n says.
      const p = h.prompt(sessionId, "#scenario:ignore-stop n=400");
      await h.waitFor(() => h.text(sessionId).includes("chunk 0 "), "streaming");
      await h.cancel(sessionId);
      expect((await p).stopReason).toBe("cancelled");
      const idx = responseIndex(h, "cancelled");
      // Sent right away, while ZCode still streams the cancelled turn.
      const next = await h.prompt(sessionId, "right after");
      expect(next.stopReason).toBe("end_turn");
      const after = updatesAfter(h, idx, sessionId);
      const leaked = after.filter(
        (u) => u.sessionUpdate === "agent_message_chunk" && u.content.type === "text" && u.content.text.startsWith("chunk"),
      );
      expect(leaked).toEqual([]);
      expect(h.text(sessionId)).toContain("Echo: right after");
      const frames = h.simFrames();
      expect(frames.filter((f) => f.method === "session/stop").length).toBe(1);
      // Answered on the grace, while ZCode still ran the turn: so the next
      // prompt had to wait for idle (session/read) before its send. Had the
      // answer waited for ZCode's own end, nothing would be left to wait for.
      const stop = frames.findIndex((f) => f.method === "session/stop");
      const lastSend = frames.findLastIndex((f) => f.method === "session/send");
      expect(frames.slice(stop, lastSend).some((f) => f.method === "session/read")).toBe(true);
    });
  });

  test("a send ZCode never answers: cancel still answers", async () => {
    await recording.run(async (h) => {
      const { sessionId } = await h.newSession();
      const p = h.prompt(sessionId, "#scenario:hang-request");
      await h.waitFor(() => h.simMethods(sessionId).includes("session/send"), "the send");
      await h.cancel(sessionId);
      // The send is never answered: this answer owes nothing to ZCode.
      expect((await p).stopReason).toBe("cancelled");
    });
  });

  test("$/cancel_request on the prompt ends the turn the same way", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const ac = new AbortController();
      const p = h.agent.request(
        acp.methods.agent.session.prompt,
        { sessionId, prompt: [{ type: "text", text: "#scenario:slow n=400" }] },
        { cancellationSignal: ac.signal },
      );
      await h.waitFor(() => h.text(sessionId).includes("chunk 3 "), "streaming");
      ac.abort();
      expect((await p).stopReason).toBe("cancelled");
      expect(h.text(sessionId)).not.toContain("chunk 399 ");
      expect((await h.prompt(sessionId, "again")).stopReason).toBe("end_turn");
    });
  });

  test("session/close during a turn answers the prompt cancelled", async () => {
    await recording.run(async (h) => {
      const { sessionId } = await h.newSession();
      const p = h.prompt(sessionId, "#scenario:slow n=400");
      await h.waitFor(() => h.text(sessionId).includes("chunk 3 "), "streaming");
      await h.agent.request(acp.methods.agent.session.close, { sessionId });
      expect((await p).stopReason).toBe("cancelled");
      expect(h.simMethods(sessionId)).toContain("session/stop");
    });
  });

  test("the session loaded again from another directory under a running turn: the turn goes on to its end (only cancel or close ends it)", async () => {
    await recording.run(async (h) => {
      const { sessionId } = await h.newSession();
      const p = h.prompt(sessionId, "#scenario:slow n=30");
      await h.waitFor(() => h.text(sessionId).includes("chunk 2 "), "streaming");
      await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: `${h.stateDir}/elsewhere`, mcpServers: [] });
      await h.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: `${h.stateDir}/elsewhere` });
      expect((await p).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("chunk 29 ");
      expect(h.simMethods(sessionId)).not.toContain("session/stop");
    });
  });

  test("a slash command ZCode does not answer: cancelled while ZCode is frozen, its tool call failed, nothing after", async () => {
    await withBridge({}, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "something to compact");
      const child = await zcodeChild(h.proc.pid);
      process.kill(child, "SIGSTOP");
      try {
        const p = h.prompt(sessionId, "/compact");
        await h.waitFor(
          () => h.updatesOfKind(sessionId, "tool_call").some((u) => u.title === "Compacting conversation"),
          "the compact tool call",
        );
        // ZCode is stopped (SIGSTOP): the answer cannot have waited for it.
        await h.cancel(sessionId);
        expect((await p).stopReason).toBe("cancelled");
      } finally {
        resume(child);
      }
      const call = h.updatesOfKind(sessionId, "tool_call").find((u) => u.title === "Compacting conversation")!;
      const last = h
        .updatesOfKind(sessionId, "tool_call_update")
        .filter((u) => u.toolCallId === call.toolCallId)
        .at(-1);
      expect(last?.status).toBe("failed");
      const idx = responseIndex(h, "cancelled");
      // ZCode finishes the compaction unseen: up to the next prompt's answer
      // (it reaches ZCode after the compaction), nothing of it.
      expect((await h.prompt(sessionId, "after")).stopReason).toBe("end_turn");
      const after = updatesAfter(h, idx, sessionId).filter((u) => u.sessionUpdate !== "usage_update");
      expect(after.filter((u) => ("toolCallId" in u && u.toolCallId === call.toolCallId) || JSON.stringify(u).includes("ompact"))).toEqual(
        [],
      );
    });
  });

  test("stdin closed during a slash command ZCode does not answer: the prompt still answers cancelled at once", async () => {
    await withBridge({}, async (h) => {
      const { sessionId } = await h.newSession();
      const child = await zcodeChild(h.proc.pid);
      process.kill(child, "SIGSTOP");
      try {
        const p = h.prompt(sessionId, "/compact");
        await h.waitFor(() => h.updatesOfKind(sessionId, "tool_call").length > 0, "the compact tool call");
        // ZCode is stopped (SIGSTOP): the answer cannot have waited for it, and it came before the bridge exited.
        h.proc.stdin.end();
        expect((await p).stopReason).toBe("cancelled");
      } finally {
        resume(child);
      }
    });
  });

  test("a slash command cancelled while ZCode restarts under it never reaches ZCode", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zcode-slow-start-"));
    const slow = join(dir, "slow");
    const booting = join(dir, "booting");
    const bin = join(dir, "zcode");
    // While `slow` exists, a new child says it is booting and waits until the
    // test removes `slow` (its version is known from the first one: this file
    // does not change).
    writeFileSync(
      bin,
      `#!/bin/sh\nif [ -e '${slow}' ]; then touch '${booting}'; while [ -e '${slow}' ]; do sleep 0.02; done; fi\nexec '${SIM_BIN}' "$@"\n`,
      { mode: 0o755 },
    );
    try {
      await withBridge({ env: { ZCODE_BIN: bin }, record: true }, async (h) => {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, "#scenario:crash").catch(() => {});
        writeFileSync(slow, "");
        const p = h.prompt(sessionId, "/compact");
        await h.waitFor(() => existsSync(booting), "the new child to start booting");
        await h.cancel(sessionId);
        // Answered while the child is held before it boots.
        expect((await p).stopReason).toBe("cancelled");
        rmSync(slow);
        // The session is resumed in the new child, but the command stays unsent,
        // up to the next prompt's answer (a pending /compact would go first).
        await h.waitFor(() => h.simMethods().includes("session/resume"), "the resume");
        expect((await h.prompt(sessionId, "after")).stopReason).toBe("end_turn");
        expect(h.simMethods()).not.toContain("session/compact");
        expect(h.updatesOfKind(sessionId, "tool_call").filter((u) => u.title === "Compacting conversation")).toEqual([]);
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("during a permission prompt: the client's request is withdrawn and the turn ends cancelled", async () => {
    let release: (() => void) | undefined;
    await withBridge(
      {
        onPermission: () =>
          new Promise<acp.RequestPermissionResponse>((resolve) => {
            release = () => resolve({ outcome: { outcome: "cancelled" } });
          }),
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        const p = h.prompt(sessionId, "#scenario:permission");
        await h.waitFor(() => h.received.permissionRequests.length > 0, "permission request");
        const toolCallId = h.received.permissionRequests[0]!.toolCall.toolCallId;
        expect(h.updatesOfKind(sessionId, "tool_call").some((u) => u.toolCallId === toolCallId)).toBe(true);
        // The client never answers the permission request: the answer cannot have waited for it.
        await h.cancel(sessionId);
        expect((await p).stopReason).toBe("cancelled");
        await h.waitFor(() => h.received.messages.some((x) => x.method === "$/cancel_request"), "$/cancel_request");
        release?.();
        expect(h.received.permissionRequests.length).toBe(1);
        expect((await h.prompt(sessionId, "after")).stopReason).toBe("end_turn");
      },
    );
  });
});
