// The single path of every session/update: one notification in flight, text
// chunks queued behind it merged, nothing lost, order kept; and its memory
// bounds for a slow editor: merged chunks stop at MAX_MERGED_CHARS, and
// backpressure() holds the ZCode reader while the backlog is above the high
// mark, until it drains below the low mark.
import { describe, expect, test } from "bun:test";
import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { BACKLOG_HIGH_CHARS, BACKLOG_LOW_CHARS, foldUpdates, MAX_MERGED_CHARS, UpdateSink } from "../../../src/session/update-sink.ts";

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

  test("a notification the transport refuses is dropped; the rest still go out", async () => {
    const sent: string[] = [];
    let calls = 0;
    const sink = new UpdateSink(async (n) => {
      if (++calls === 1) throw new Error("connection closing");
      sent.push((n.update as { content: { text: string } }).content.text);
    });
    sink.push("s", text("lost"));
    sink.push("s", text("kept", "m2"));
    await sink.flush("s");
    expect(sent).toEqual(["kept"]);
  });

  test("queued updates of one tool call fold into one; later fields win", async () => {
    const t = gatedTransport();
    const sink = new UpdateSink(t.notify);
    sink.push("s", text("in flight"));
    sink.push("s", { sessionUpdate: "tool_call_update", toolCallId: "t", status: "in_progress" });
    sink.push("s", { sessionUpdate: "tool_call_update", toolCallId: "t", title: "ls -la" });
    sink.push("s", { sessionUpdate: "tool_call_update", toolCallId: "other", status: "in_progress" });
    const done = sink.flush("s");
    await t.releaseAll();
    await done;
    expect(t.sent.map((n) => n.update)).toEqual([
      text("in flight"),
      { sessionUpdate: "tool_call_update", toolCallId: "t", status: "in_progress", title: "ls -la" },
      { sessionUpdate: "tool_call_update", toolCallId: "other", status: "in_progress" },
    ]);
  });

  test("chunks carrying _meta or annotations are never merged", () => {
    const meta: SessionUpdate = {
      sessionUpdate: "agent_message_chunk",
      messageId: "m1",
      content: { type: "text", text: "b" },
      _meta: { x: 1 },
    };
    expect(foldUpdates([text("a"), meta, text("c")])).toHaveLength(3);
    expect(foldUpdates([text("a"), text("b"), text("c")])).toEqual([text("abc")]);
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

/** A transport that completes one send per `next()`. */
function steppedTransport() {
  const sent: SessionNotification[] = [];
  const pending: Array<() => void> = [];
  return {
    sent,
    notify: (n: SessionNotification) =>
      new Promise<void>((resolve) => {
        sent.push(n);
        pending.push(resolve);
      }),
    async next() {
      pending.shift()?.();
      await Bun.sleep(0);
    },
    get waiting() {
      return pending.length;
    },
  };
}

describe("UpdateSink memory bounds", () => {
  test("a merged chunk never grows past MAX_MERGED_CHARS; the text stays whole and in order", async () => {
    const t = steppedTransport();
    const sink = new UpdateSink(t.notify);
    const piece = "x".repeat(1000);
    const n = 300;
    for (let i = 0; i < n; i++) sink.push("s", text(`${piece.slice(0, 990)}${String(i).padStart(10, "0")}`));
    const done = sink.flush("s");
    while (t.waiting) await t.next();
    await done;
    const texts = t.sent.map((m) => (m.update as { content: { text: string } }).content.text);
    for (const s of texts) expect(s.length).toBeLessThanOrEqual(MAX_MERGED_CHARS);
    expect(texts.length).toBeGreaterThan(1);
    expect(texts.length).toBeLessThan(n / 10);
    const all = texts.join("");
    expect(all.length).toBe(n * 1000);
    for (let i = 0; i < n; i++) expect(all.slice(i * 1000 + 990, (i + 1) * 1000)).toBe(String(i).padStart(10, "0"));
  });

  test("backpressure(): none while small, a promise above the high mark, released below the low mark", async () => {
    const t = steppedTransport();
    const sink = new UpdateSink(t.notify);
    expect(sink.backpressure()).toBeUndefined();
    const chunk = "y".repeat(MAX_MERGED_CHARS);
    // Enough full-size chunks to pass the high mark (the first is in flight).
    const count = Math.ceil(BACKLOG_HIGH_CHARS / MAX_MERGED_CHARS) + 2;
    for (let i = 0; i < count; i++) sink.push("s", text(chunk));
    const gate = sink.backpressure();
    expect(gate).toBeInstanceOf(Promise);
    // The same promise for every caller until released.
    expect(sink.backpressure()).toBe(gate!);
    let released = false;
    void gate!.then(() => (released = true));
    // Draining to just above the low mark keeps it closed...
    const sendsToLow = count - Math.floor(BACKLOG_LOW_CHARS / MAX_MERGED_CHARS);
    for (let i = 0; i < sendsToLow - 1; i++) await t.next();
    expect(released).toBe(false);
    // ...one more send crosses it.
    await t.next();
    await t.next();
    expect(released).toBe(true);
    expect(sink.backpressure()).toBeUndefined();
  });

  test("closing the sink releases a held reader", async () => {
    const t = steppedTransport();
    const sink = new UpdateSink(t.notify);
    const chunk = "z".repeat(MAX_MERGED_CHARS);
    for (let i = 0; i < BACKLOG_HIGH_CHARS / MAX_MERGED_CHARS + 2; i++) sink.push("s", text(chunk));
    const gate = sink.backpressure()!;
    sink.close();
    await gate;
    expect(sink.backpressure()).toBeUndefined();
  });
});
