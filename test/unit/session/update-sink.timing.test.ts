// The UpdateSink under an editor that reads slower than ZCode writes, with
// fake timers: the editor takes `readMs` per notification while ZCode sends an
// update every millisecond. What goes out is bounded by the editor's pace
// (one notification per read, whatever queued meanwhile merged into it), not
// by ZCode's, and nothing is lost or reordered. This is the bound the
// end-to-end slow-editor test can only approximate on a loaded machine.
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { UpdateSink } from "../../../src/session/update-sink.ts";
import { advance } from "../support/session-fakes.ts";

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

/** An editor that needs `readMs` of (fake) time for each notification. */
function slowEditor(readMs: number) {
  const sent: SessionNotification[] = [];
  const notify = async (n: SessionNotification) => {
    sent.push(n);
    await Bun.sleep(readMs);
  };
  return { sent, notify };
}

/** ZCode's pace: `n` updates, one per millisecond; then everything is flushed. */
async function stream(sink: UpdateSink, n: number, update: (i: number) => SessionUpdate): Promise<void> {
  for (let i = 0; i < n; i++) {
    sink.push("s", update(i));
    await advance(1);
  }
  const flushed = sink.flush("s");
  let done = false;
  void flushed.then(() => (done = true));
  for (let i = 0; i < 10_000 && !done; i++) await advance(1);
  await flushed;
}

describe("UpdateSink and a slow editor", () => {
  test("text deltas: one notification per editor read, every delta in order", async () => {
    const n = 2000;
    const readMs = 50;
    const editor = slowEditor(readMs);
    await stream(new UpdateSink(editor.notify), n, (i) => ({
      sessionUpdate: "agent_message_chunk",
      messageId: "m1",
      content: { type: "text", text: `${i},` },
    }));
    const text = editor.sent.map((x) => (x.update as { content: { text: string } }).content.text).join("");
    expect(text).toBe(Array.from({ length: n }, (_, i) => `${i},`).join(""));
    // The first alone, then one per read: at most n / readMs + 2, against n unmerged.
    expect(editor.sent.length).toBeLessThanOrEqual(n / readMs + 2);
    expect(editor.sent.length).toBeGreaterThanOrEqual(n / readMs - 2);
  });

  test("terminal output of one tool call: data appended in order, one update per read, the exit kept apart", async () => {
    const n = 1000;
    const readMs = 20;
    const editor = slowEditor(readMs);
    const sink = new UpdateSink(editor.notify);
    await stream(sink, n, (i) => ({
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      _meta: { terminal_output: { terminal_id: "t1", data: `line ${i}\n` } },
    }));
    await stream(sink, 1, () => ({
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      status: "completed",
      _meta: { terminal_exit: { terminal_id: "t1", exit_code: 0, signal: null } },
    }));
    const updates = editor.sent.map((x) => x.update as { _meta?: Record<string, any>; status?: string });
    const data = updates.map((u) => u._meta?.terminal_output?.data ?? "").join("");
    expect(data).toBe(Array.from({ length: n }, (_, i) => `line ${i}\n`).join(""));
    expect(updates.length).toBeLessThanOrEqual(n / readMs + 3);
    const exits = updates.filter((u) => u._meta?.terminal_exit);
    expect(exits).toHaveLength(1);
    expect(updates.at(-1)).toBe(exits[0]!);
    expect(exits[0]!.status).toBe("completed");
  });
});
