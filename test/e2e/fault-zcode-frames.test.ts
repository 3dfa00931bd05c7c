// Bad or unusual frames from ZCode: over-long lines (with a small cap and with
// the default one), an unknown request mid-turn, and seq gaps and stalls
// checked at the client against what the scenario streamed. The turn goes on
// and nothing is lost.
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Harness, withBridge } from "../support/acp-harness.ts";

/** What each scenario streams, word by word: some of it only reaches the bridge by resubscribing. */
const STREAMED: Record<string, string> = {
  "seq-gap": "one two three four five six seven eight",
  stall: "alpha beta gamma delta epsilon zeta",
};

describe("over-long lines", () => {
  test("a line over a small cap (ZCODE_ACP_MAX_LINE_BYTES) is skipped and the turn goes on", async () => {
    await withBridge({ env: { ZCODE_ACP_MAX_LINE_BYTES: String(256 * 1024) } }, async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, "#scenario:huge-line bytes=4194304 after the big line");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after the big line");
      expect(h.stderr).toMatch(/4194304|4\.0 MiB|4 MiB/);
      // Reported once with its size, not once per chunk it arrived in.
      expect(h.stderr.match(/skipped a line of \d+ bytes/g)).toEqual(["skipped a line of 4194304 bytes"]);
      // The bridge is still fine for the next prompt.
      expect((await h.prompt(sessionId, "next")).stopReason).toBe("end_turn");
    });
  });

  test("the default 96 MiB cap against a 97 MiB line", async () => {
    await withBridge({}, async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, `#scenario:huge-line bytes=${97 * 1024 * 1024} still here`);
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: still here");
    });
  }, 60_000);
});

describe("requests and frames nobody expects", () => {
  test("an unknown request from ZCode mid-turn is answered -32601 and the turn completes", async () => {
    await withBridge({ record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      const r = await h.prompt(sessionId, "#scenario:unknown-request odd");
      expect(r.stopReason).toBe("end_turn");
      // Answered (the simulator says so in the turn; it would give up after 5 s and say that instead).
      expect(h.text(sessionId)).toContain("unknown request answered with error -32601");
      const answer = h
        .simFrames()
        .find((f) => f.error && f.method === undefined && String(f.id).startsWith("server-") && f.error.code === -32601);
      expect(answer).toBeDefined();
    });
  });
});

describe("seq gaps and stalls: delivered once, in order, against what ZCode emitted", () => {
  for (const scenario of ["seq-gap", "stall"] as const) {
    test(scenario, async () => {
      const stateDir = mkdtempSync(join(tmpdir(), `fault-${scenario}-`));
      const h = await Harness.start({ stateDir, env: { ZCODE_ACP_STALL_MS: "300" } });
      let sessionId = "";
      try {
        ({ sessionId } = await h.newSession());
        const r = await h.prompt(sessionId, `#scenario:${scenario}`);
        expect(r.stopReason).toBe("end_turn");
        await h.prompt(sessionId, "second turn after the gap");
      } finally {
        await h.close();
      }
      // Every word once, in order, then the next turn whole.
      const text = h.text(sessionId);
      expect(text.slice(0, STREAMED[scenario]!.length)).toBe(STREAMED[scenario]!);
      expect(text.slice(STREAMED[scenario]!.length)).toStartWith("Echo: second turn after the gap");
      rmSync(stateDir, { recursive: true, force: true });
    });
  }
});
