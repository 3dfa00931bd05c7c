// Prompt turns end to end: event translation, stop reasons, usage/title/plan,
// 1308, seq gaps and stalls, transient and fatal failures, eviction, crashes.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SIM_BIN, rejection, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";
import { simTurnsEnded } from "./sim-store-support.ts";

function chunks(h: Harness, sessionId: string, kind: "agent_message_chunk" | "agent_thought_chunk") {
  return h.updatesOfKind(sessionId, kind);
}

describe("event translation", () => {
  // Every test starts sessions of its own: one bridge for them all.
  const bridge = sharedBridge({});

  test("text and reasoning deltas: one messageId per message, no empty chunks, UTF-8 intact", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:text")).stopReason).toBe("end_turn");
      const text = chunks(h, sessionId, "agent_message_chunk");
      const thoughts = chunks(h, sessionId, "agent_thought_chunk");
      expect(text.length).toBeGreaterThan(0);
      expect(thoughts.length).toBeGreaterThan(0);
      expect(h.text(sessionId)).toContain("héllo wörld ✓ 日本");
      expect(new Set(text.map((u) => u.messageId)).size).toBe(1);
      expect(new Set(thoughts.map((u) => u.messageId)).size).toBe(1);
      expect(text[0]!.messageId).not.toBe(thoughts[0]!.messageId);
      for (const u of [...text, ...thoughts]) {
        expect(u.content.type === "text" && u.content.text.length > 0).toBe(true);
      }
    });
  });

  test("a second prompt gets a new messageId", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "one");
      const first = new Set(chunks(h, sessionId, "agent_message_chunk").map((u) => u.messageId));
      await h.prompt(sessionId, "two");
      const all = new Set(chunks(h, sessionId, "agent_message_chunk").map((u) => u.messageId));
      expect(first.size).toBe(1);
      expect(all.size).toBe(2);
    });
  });

  test("tool events become tool calls that all finish (completed or failed) before the response", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:tools")).stopReason).toBe("end_turn");
      const calls = h.updatesOfKind(sessionId, "tool_call");
      expect(calls.length).toBeGreaterThanOrEqual(5);
      const finals = new Map<string, string | null | undefined>();
      for (const u of h.updates(sessionId)) {
        if (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") {
          if (u.status) finals.set(u.toolCallId, u.status);
        }
      }
      for (const c of calls) expect(["completed", "failed"]).toContain(finals.get(c.toolCallId)!);
      expect(calls.filter((c) => finals.get(c.toolCallId) === "completed").length).toBeGreaterThanOrEqual(5);
      expect(calls.find((c) => c.kind === "execute")).toBeTruthy();
    });
  });

  test("usage → usage_update, first prompt → session_info_update title, todos → plan", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:usage count my tokens");
      const usage = h.updatesOfKind(sessionId, "usage_update");
      expect(usage.some((u) => u.size === 200000 && u.used === 12345 + 678)).toBe(true);
      const titles = h.updatesOfKind(sessionId, "session_info_update");
      expect(titles.at(-1)?.title).toBe("count my tokens");
      await h.prompt(sessionId, "#scenario:todo");
      const plans = h.updatesOfKind(sessionId, "plan");
      expect(plans.at(-1)?.entries.map((e) => e.status)).toEqual(["completed", "in_progress", "pending"]);
    });
  });

  test("max_tokens and refusal (the last model answer's stop reason) and max_turn_requests stop reasons", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:max-tokens")).stopReason).toBe("max_tokens");
      expect((await h.prompt(sessionId, "#scenario:refusal")).stopReason).toBe("refusal");
      expect((await h.prompt(sessionId, "#scenario:max-turns")).stopReason).toBe("max_turn_requests");
    });
  });

  test("garbage from ZCode is skipped and the turn goes on", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:garbage")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Before the noise.");
      expect(h.text(sessionId)).toContain("Echo:");
    });
  });
});

describe("ordering and recovery", () => {
  // For the tests without settings of their own (each starts its own session).
  const bridge = sharedBridge({ record: true });

  test("seq gap: missed events are fetched with afterSeq and delivered once, in order", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:seq-gap")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toBe("one two three four five six seven eight");
      const resubs = h.simFrames().filter((f) => f.method === "session/subscribe" && f.params.afterSeq !== undefined);
      // Two holes (2-3 and 6); one re-read may cover both when the second is
      // already written by then (a loaded machine), so at least one.
      expect(resubs.length).toBeGreaterThanOrEqual(1);
    });
  });

  // How soon a stall is noticed (stallMs, not a moment before) is turn.timing.test.ts's.
  test("stall: silence triggers resubscription and the turn completes", async () => {
    await withBridge({ env: { ZCODE_ACP_STALL_MS: "200" }, record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:stall")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toBe("alpha beta gamma delta epsilon zeta");
      // The second half only ever went out through a resubscription after the send.
      const frames = h.simFrames();
      const send = frames.findIndex((f) => f.method === "session/send");
      expect(frames.slice(send).some((f) => f.method === "session/subscribe" && f.params.afterSeq !== undefined)).toBe(true);
    });
  });

  test("a model pause longer than the stall limit mid-sentence: ZCode's batched tail shows once, nothing lost", async () => {
    // Stall limit 100 ms < each pause: every pause makes the bridge resubscribe (afterSeq); the re-read flushes
    // the batch ZCode's live stream still holds under a new seq, and the next delta sends that text again merged
    // with the new one under another seq (delta-batch.ts). Pauses in the thinking, three in the text, and in a
    // tool's input stream.
    await withBridge({ env: { ZCODE_ACP_STALL_MS: "100" }, record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:pause ms=400 pauses=3 reasoning=1 tool=1")).stopReason).toBe("end_turn");
      expect(h.text(sessionId, "agent_thought_chunk")).toBe("Weighing it up and settled.");
      expect(h.text(sessionId)).toBe("The answer to the question is forty-two, and that is all. Well, almost all.");
      const calls = h.updates(sessionId).filter((u) => u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update");
      expect(calls.some((u) => JSON.stringify(u.rawInput ?? {}).includes("greet.ts"))).toBe(true);
      expect(calls.at(-1)).toMatchObject({ status: "completed" });
      expect(h.simFrames().some((f) => f.method === "session/subscribe" && f.params.afterSeq !== undefined)).toBe(true);
    });
    // Stall limit above the pause: no resubscription; the next delta lets the held tail out.
    await withBridge({ env: { ZCODE_ACP_STALL_MS: "1000" } }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:pause ms=600")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toBe("The answer to the question is forty-two, and that is all.");
    });
  }, 30_000);

  test("the turn's end never arrives but ZCode is idle: the prompt still ends (end_turn) after two quiet checks", async () => {
    const dir = mkdtempSync(join(tmpdir(), "zcode-lost-end-"));
    const bin = join(dir, "zcode");
    // Every turn.completed ZCode writes (live or replayed on subscribe) becomes an event type nobody knows.
    writeFileSync(bin, `#!/bin/sh\n'${SIM_BIN}' "$@" | sed -u 's/"turn\\.completed"/"turn.vanished"/g'\n`, { mode: 0o755 });
    // The two stalls' timing (ended at 2 x stallMs) is turn.timing.test.ts's; here, the wiring.
    try {
      await withBridge({ env: { ZCODE_BIN: bin, ZCODE_ACP_STALL_MS: "150" }, record: true }, async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
        expect(h.text(sessionId)).toContain("Echo: hello");
        // Ended by the quiet checks: two resubscriptions, each followed by a read that found ZCode idle.
        const frames = h.simFrames();
        const afterSend = frames.slice(frames.findIndex((f) => f.method === "session/send"));
        expect(afterSend.filter((f) => f.method === "session/subscribe" && f.params.afterSeq !== undefined).length).toBeGreaterThanOrEqual(
          2,
        );
        expect((await h.prompt(sessionId, "again")).stopReason).toBe("end_turn");
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("after a cancel ZCode ignores, the next prompt waits for idle (session/read) and is not lost", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      // A cancelled ignore-stop turn keeps ZCode busy after the ACP turn ended
      // (2.5 s: longer than the cancel and the next prompt take on a busy machine).
      const first = h.prompt(sessionId, "#scenario:ignore-stop n=400 ignore=2500");
      await h.waitFor(() => h.text(sessionId).includes("chunk 0 "), "streaming");
      await h.cancel(sessionId);
      expect((await first).stopReason).toBe("cancelled");
      const r = await h.prompt(sessionId, "next one");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: next one");
      const frames = h.simFrames();
      const sends = frames.filter((f) => f.method === "session/send");
      expect(sends.at(-1)?.params.content).toBe("next one");
      const lastSend = frames.lastIndexOf(sends.at(-1)!);
      const stop = frames.findIndex((f) => f.method === "session/stop");
      expect(frames.slice(stop, lastSend).some((f) => f.method === "session/read")).toBe(true);
    });
  }, 30_000);

  test("busy (-32010): ZCode still busy after the idle wait; the send is retried once it is idle, not lost", async () => {
    // The send meets -32010 and its retry succeeds when the prompt reaches the bridge
    // between -0.5 s and +1.5 s after the cancel was answered (stop + 0.5 s grace):
    // ZCode busy for 4 s after the stop, the bridge waiting 2 s each time.
    await withBridge({ env: { ZCODE_SIM_STOP_IGNORE_MS: "4000", ZCODE_ACP_BUSY_WAIT_MS: "2000" }, record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      const first = h.prompt(sessionId, "#scenario:ignore-stop n=400");
      await h.waitFor(() => h.text(sessionId).includes("chunk 0 "), "streaming");
      await h.cancel(sessionId);
      expect((await first).stopReason).toBe("cancelled");
      const r = await h.prompt(sessionId, "after busy");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after busy");
      const sends = h
        .simFrames()
        .filter((f) => f.method === "session/send")
        .map((f) => f.params.content);
      // The first try met -32010, the retry went through.
      expect(sends.filter((c) => c === "after busy").length).toBe(2);
    });
  }, 30_000);

  test("busy (-32010) for longer than the wait: a clear error, and the session stays usable", async () => {
    await withBridge({ env: { ZCODE_SIM_STOP_IGNORE_MS: "2500", ZCODE_ACP_BUSY_WAIT_MS: "300" } }, async (h) => {
      const { sessionId } = await h.newSession();
      const first = h.prompt(sessionId, "#scenario:ignore-stop n=400");
      await h.waitFor(() => h.text(sessionId).includes("chunk 0 "), "streaming");
      await h.cancel(sessionId);
      expect((await first).stopReason).toBe("cancelled");
      const e = await rejection(h.prompt(sessionId, "too soon"));
      expect(e.message).toContain("busy");
      // Once ZCode has ended the cancelled turn (it is idle then), the session works again.
      await h.waitFor(() => simTurnsEnded(h, sessionId) >= 1, "ZCode to end the cancelled turn");
      expect((await h.prompt(sessionId, "later")).stopReason).toBe("end_turn");
    });
  });

  test("two prompts at once on one session run one after the other; neither is lost", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      // Two prompts at once: the second waits for the first (never overlaps).
      const [a, b] = await Promise.all([h.prompt(sessionId, "#scenario:slow n=10"), h.prompt(sessionId, "second")]);
      expect(a.stopReason).toBe("end_turn");
      expect(b.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: second");
    });
  });
});

describe("many sessions", () => {
  test("concurrent turns on several sessions stay apart; cancelling one leaves the others whole", async () => {
    await withBridge({}, async (h) => {
      const ids: string[] = [];
      for (let i = 0; i < 6; i++) ids.push((await h.newSession()).sessionId);
      const victim = ids[0]!;
      const prompts = ids.map((id, i) => h.prompt(id, i === 0 ? "#scenario:slow n=400" : `#scenario:slow n=40 session ${i}`));
      await h.waitFor(() => h.text(victim).includes("chunk 3 "), "streaming");
      await h.cancel(victim);
      const results = await Promise.all(prompts);
      expect(results[0]!.stopReason).toBe("cancelled");
      for (let i = 1; i < ids.length; i++) {
        expect(results[i]!.stopReason).toBe("end_turn");
        const text = h.text(ids[i]!);
        for (let k = 0; k < 40; k++) expect(text).toContain(`chunk ${k} `);
      }
    });
  });
});

describe("failures", () => {
  // For the tests without settings of their own that leave the CLI running (each starts its own session).
  const bridge = sharedBridge({});

  test("transient turn.failed is retried with a visible notice", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, "#scenario:fail-transient fails=2 hi");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Rate limit reached");
      expect(h.text(sessionId)).toContain("retrying");
      expect(h.text(sessionId)).toContain("Echo:");
    });
  });

  test("transient failures beyond the retries become an error", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "#scenario:fail-transient fails=9"));
      expect(e.message).toContain("Rate limit reached");
    });
  });

  test("fatal turn.failed → ACP error with ZCode's message; the session stays usable", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "#scenario:fail-fatal"));
      expect(e.message).toContain("Insufficient balance");
      expect((await h.prompt(sessionId, "still there?")).stopReason).toBe("end_turn");
    });
  });

  test("a prompt that fails after session/send went out: ZCode is told to stop, and nothing of that turn reaches the editor after the error", async () => {
    await withBridge({ record: true, env: { ZCODE_ACP_REQUEST_TIMEOUT_MS: "800" } }, async (h) => {
      const { sessionId } = await h.newSession();
      // The turn runs in ZCode, but its session/send is never answered: the prompt fails on the timeout.
      const e = await rejection(h.prompt(sessionId, "#scenario:slow n=400 noanswer=1"));
      expect(e.message).toMatch(/timed out|did not answer/i);
      const answered = h.received.messages.length;
      await h.waitFor(() => h.simMethods().includes("session/stop"), "session/stop");
      // The session is usable: the next prompt waits for ZCode to be idle, then runs.
      expect((await h.prompt(sessionId, "after")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after");
      // Up to that answer (updates are ordered, and ZCode was idle before it ran), nothing of the failed turn.
      const after = h.received.messages.slice(answered).filter((m) => m.method === "session/update");
      expect(after.filter((m) => JSON.stringify(m).includes("chunk "))).toEqual([]);
    });
  });

  test("eviction (-32004) is resumed and retried silently", async () => {
    await withBridge({ record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, "#scenario:evict come back");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: come back");
      expect(h.simMethods()).toContain("session/resume");
    });
  });

  test("the CLI dies while a prompt waits for idle: that prompt fails and is never sent later", async () => {
    await withBridge({ env: { ZCODE_SIM_STOP_IGNORE_MS: "3000", ZCODE_ACP_BUSY_WAIT_MS: "5000" }, record: true }, async (h) => {
      const a = (await h.newSession()).sessionId;
      const b = (await h.newSession()).sessionId;
      const first = h.prompt(a, "#scenario:ignore-stop n=200");
      await h.waitFor(() => h.text(a).includes("chunk 0 "), "streaming");
      await h.cancel(a);
      expect((await first).stopReason).toBe("cancelled");
      // ZCode still runs the cancelled turn: this prompt polls session/read for idle.
      const waiting = rejection(h.prompt(a, "never sent"));
      const stopAt = h.simMethods().lastIndexOf("session/stop");
      await h.waitFor(() => h.simMethods().slice(stopAt).includes("session/read"), "the idle wait's session/read");
      // Another session's turn takes the shared child down.
      await rejection(h.prompt(b, "#scenario:crash"));
      expect((await waiting).message).toMatch(/died|exited/);
      // The idle wait must not go on in a new child and send the failed prompt
      // (that it stops at once is turn.timing.test.ts's; here, up to the next answer).
      expect((await h.prompt(a, "after the crash")).stopReason).toBe("end_turn");
      const sends = h
        .simFrames()
        .filter((f) => f.method === "session/send")
        .map((f) => f.params.content);
      expect(sends).not.toContain("never sent");
    });
  });

  test("the CLI dies mid-turn: the prompt fails fast saying so; the next prompt restarts it and works", async () => {
    await withBridge({ record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      const e = await rejection(h.prompt(sessionId, "#scenario:crash"));
      expect(e.message).toMatch(/died|exited/);
      expect(e.message).toContain("code 3");
      expect(e.message).toContain("simulated crash");
      const r = await h.prompt(sessionId, "after the crash");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after the crash");
      // The new child learned the session through session/resume, once.
      const methods = h.simMethods();
      expect(methods.filter((x) => x === "session/resume").length).toBe(1);
      expect(methods.lastIndexOf("session/resume")).toBeLessThan(methods.lastIndexOf("session/send"));
    });
  });
});
