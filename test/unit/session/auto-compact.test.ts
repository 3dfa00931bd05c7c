// --auto-compact in-process: when a compaction is due (compactionDue), and
// what compactInBackground does once the prompt that filled the context has
// answered: its notice, the same session/compact as /compact, ahead of any
// prompt typed meanwhile; nothing when below the threshold, closed, or when
// this ZCode cannot compact.
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import type { PromptResponse } from "@agentclientprotocol/sdk/unstable";
import { compactionDue } from "../../../src/session/auto-compact.ts";
import type { AutoCompact } from "../../../src/config.ts";
import { advance, FAST, fakeSession } from "../support/session-fakes.ts";

describe("compactionDue", () => {
  test.each([
    [{ tokens: 1000 }, { used: 999, size: 10_000 }, false],
    [{ tokens: 1000 }, { used: 1000, size: 10_000 }, true],
    [{ tokens: 1000 }, { used: 1000, size: 0 }, true],
    [{ percent: 80 }, { used: 7999, size: 10_000 }, false],
    [{ percent: 80 }, { used: 8000, size: 10_000 }, true],
    [{ percent: 80 }, { used: 8000, size: 0 }, false],
    [{ percent: 0.001 }, { used: 1, size: 100_000 }, true],
  ] as [AutoCompact, { used: number; size: number }, boolean][])("%o at %o → %p", (threshold, usage, due) => {
    expect(compactionDue(threshold, usage)).toBe(due);
  });

  test("no usage known yet: not due", () => {
    expect(compactionDue({ tokens: 1 }, undefined)).toBe(false);
  });
});

describe("compactInBackground", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** A session whose turns end with `used` of 10,000 tokens in use, each prompt's answer recorded in order. */
  async function session(threshold: AutoCompact, used: number) {
    const f = await fakeSession({ autoCompact: threshold });
    f.zcode.answers["session/read"] = {
      session: { sessionId: "s1" },
      projection: { status: "idle", contextUsed: used, contextWindow: 10_000 },
    };
    /** Each answer, with what ZCode and the editor had been sent when it came. */
    const answers: { r: PromptResponse; methods: string[]; text: string }[] = [];
    /** A prompt whose turn ZCode runs as soon as it is sent. */
    const prompt = async (text: string) => {
      const sends = f.zcode.methods().filter((m) => m === "session/send").length;
      const answer = f.s.prompt([{ type: "text", text }], new AbortController().signal).then((r) => {
        answers.push({ r, methods: f.zcode.methods(), text: f.editor.text() });
        return r;
      });
      for (let i = 0; i < 100 && f.zcode.methods().filter((m) => m === "session/send").length === sends; i++) await advance(1);
      f.zcode.emit("turn.started");
      f.zcode.emit("turn.completed", { resultType: "success" });
      return answer;
    };
    return { ...f, prompt, answers };
  }

  test("at the threshold: the answer first, then the notice and session/compact; a prompt typed meanwhile goes after it", async () => {
    const f = await session({ percent: 80 }, 8000);
    const first = await f.prompt("fill the context");
    expect(first.stopReason).toBe("end_turn");
    // Answered before anything of the compaction reached ZCode or the editor.
    expect(f.answers[0]!.methods).not.toContain("session/compact");
    expect(f.answers[0]!.text).not.toContain("auto-compact");
    const second = f.s.prompt([{ type: "text", text: "typed right away" }], new AbortController().signal);
    await advance(FAST.autoCompactQuietMs + 10);
    // The compaction (its turn ends at once: ZCode says idle), then the prompt that waited.
    const methods = f.zcode.methods();
    expect(methods.filter((m) => m === "session/compact")).toHaveLength(1);
    expect(methods.indexOf("session/send")).toBeLessThan(methods.indexOf("session/compact"));
    expect(methods.lastIndexOf("session/send")).toBeGreaterThan(methods.indexOf("session/compact"));
    expect(f.editor.text()).toMatch(/8,000.*10,000.*auto-compact threshold of 80%/s);
    expect(f.editor.text()).toContain("Conversation compacted.");
    f.zcode.emit("turn.started");
    f.zcode.emit("turn.completed", { resultType: "success" });
    expect((await second).stopReason).toBe("end_turn");
  });

  test("below the threshold: no compaction", async () => {
    const f = await session({ percent: 80 }, 7999);
    await f.prompt("a small turn");
    await advance(FAST.autoCompactQuietMs + 100);
    expect(f.zcode.methods()).not.toContain("session/compact");
  });

  test("this ZCode cannot compact: skipped, nothing said", async () => {
    const f = await session({ tokens: 1 }, 5000);
    f.zcode.api.capabilities = (() => ({ supports: (m: string) => m !== "session/compact" })) as never;
    await f.prompt("fill the context");
    await advance(FAST.autoCompactQuietMs + 100);
    expect(f.zcode.methods()).not.toContain("session/compact");
    expect(f.editor.text()).not.toContain("auto-compact");
  });

  test("decided after a quiet moment, not at the answer: an editor gone 5 ms after the answer sets nothing compacting", async () => {
    const f = await session({ tokens: 1 }, 5000);
    await f.prompt("fill the context");
    // stdin closed a few ms after the answer: the bridge winds down.
    await advance(5);
    expect(f.zcode.methods()).not.toContain("session/compact");
    f.s.forgotten();
    await advance(FAST.autoCompactQuietMs + 100);
    expect(f.zcode.methods()).not.toContain("session/compact");
    expect(f.editor.text()).not.toContain("auto-compact");
  });

  test("the quiet moment over, the compaction starts", async () => {
    const f = await session({ tokens: 1 }, 5000);
    await f.prompt("fill the context");
    await advance(FAST.autoCompactQuietMs - 5);
    expect(f.zcode.methods()).not.toContain("session/compact");
    await advance(10);
    expect(f.zcode.methods()).toContain("session/compact");
  });

  test("the session closed right after the answer: no compaction", async () => {
    const f = await session({ tokens: 1 }, 5000);
    const answer = f.prompt("fill the context");
    // Closed between the answer and the compaction's start (it waits one timer tick).
    void answer.then(() => f.s.forgotten());
    await answer;
    await advance(100);
    expect(f.zcode.methods()).not.toContain("session/compact");
  });
});
