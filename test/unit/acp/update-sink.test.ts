import { describe, expect, test } from "bun:test";
import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { foldUpdates, UpdateSink } from "../../../src/acp/update-sink.ts";

const text = (t: string, messageId = "m1"): SessionUpdate => ({
  sessionUpdate: "agent_message_chunk",
  messageId,
  content: { type: "text", text: t },
});

/** A transport whose sends complete only when the test says so. */
function gatedTransport() {
  const sent: SessionNotification[] = [];
  const pending: Array<() => void> = [];
  const notify = (n: SessionNotification) =>
    new Promise<void>((resolve) => {
      sent.push(n);
      pending.push(resolve);
    });
  const releaseAll = async () => {
    while (pending.length) {
      pending.shift()!();
      await Bun.sleep(0);
    }
  };
  return { sent, notify, releaseAll };
}

describe("UpdateSink", () => {
  test("one in flight; chunks queued behind it merge; nothing lost, order kept", async () => {
    const t = gatedTransport();
    const sink = new UpdateSink(t.notify);
    for (let i = 0; i < 100; i++) sink.push("s", text(`${i},`));
    expect(t.sent.length).toBe(1);
    const flushed = sink.flush("s");
    await t.releaseAll();
    await flushed;
    expect(t.sent.length).toBe(2);
    const all = t.sent.map((n) => (n.update as { content: { text: string } }).content.text).join("");
    expect(all).toBe(Array.from({ length: 100 }, (_, i) => `${i},`).join(""));
  });

  test("different messages, kinds and sessions never merge", async () => {
    const t = gatedTransport();
    const sink = new UpdateSink(t.notify);
    sink.push("s", text("first"));
    sink.push("s", text("a", "m1"));
    sink.push("s", text("b", "m2"));
    sink.push("s", { sessionUpdate: "agent_thought_chunk", messageId: "m2", content: { type: "text", text: "c" } });
    sink.push("other", text("d", "m2"));
    const done = Promise.all([sink.flush("s"), sink.flush("other")]);
    await t.releaseAll();
    await done;
    expect(t.sent.map((n) => n.sessionId)).toEqual(["s", "s", "s", "s", "other"]);
  });

  test("empty chunks are not sent; flush of an idle session resolves at once", async () => {
    const t = gatedTransport();
    const sink = new UpdateSink(t.notify);
    sink.push("s", text(""));
    expect(t.sent.length).toBe(0);
    await sink.flush("s");
  });

  test("flush of one session does not wait for another session's later updates", async () => {
    const sent: SessionNotification[] = [];
    const resolvers: Array<() => void> = [];
    const sink = new UpdateSink(
      (n) =>
        new Promise<void>((r) => {
          sent.push(n);
          resolvers.push(r);
        }),
    );
    sink.push("a", text("1"));
    sink.push("b", text("2"));
    const fa = sink.flush("a");
    resolvers[0]!(); // only a's notification completes
    await fa;
    expect(sent.map((n) => n.sessionId)).toEqual(["a", "b"]); // b is in flight, unresolved
    resolvers[1]!();
    await sink.flush("b");
  });

  test("close releases flush waiters", async () => {
    const t = gatedTransport();
    const sink = new UpdateSink(t.notify);
    sink.push("s", text("x"));
    sink.push("s", text("y"));
    const f = sink.flush("s");
    sink.close();
    await f;
  });

  test("foldUpdates: terminal output appends, terminal_exit stays separate", () => {
    const out = (data: string): SessionUpdate => ({
      sessionUpdate: "tool_call_update",
      toolCallId: "t",
      _meta: { terminal_output: { terminal_id: "t", data } },
    });
    const folded = foldUpdates([
      out("a"),
      out("b"),
      { sessionUpdate: "tool_call_update", toolCallId: "t", status: "completed" },
      { sessionUpdate: "tool_call_update", toolCallId: "t", _meta: { terminal_exit: { terminal_id: "t", exit_code: 0, signal: null } } },
    ]);
    expect(folded.length).toBe(2);
    expect(folded[0]).toMatchObject({ status: "completed", _meta: { terminal_output: { data: "ab" } } });
  });
});
