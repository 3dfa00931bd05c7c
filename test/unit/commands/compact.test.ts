// /compact: ZCode accepts and compacts in a turn of its own
// ({response, snapshot, compact:{state}}); the command waits for it through
// ctx.waitIdle, then shows what it freed.
import { describe, expect, test } from "bun:test";
import { runCommand, snapshot, zerr } from "../support/commands-fakes.ts";

const accepted = {
  response: "",
  snapshot: snapshot({ projection: { status: "running" } }),
  compact: { state: "accepted", inputId: "in_1" },
};
const after = (projection: Record<string, unknown>) => snapshot({ projection: { status: "idle", ...projection } });

describe("/compact", () => {
  test("a tool call in progress, ZCode's compaction waited for, completed, then usage_update and a reply", async () => {
    const r = await runCommand("/compact", { compact: accepted, read: after({ contextUsed: 1500, contextWindow: 200000 }) });
    expect(r.calls).toEqual([
      { method: "session/compact", params: { sessionId: "sess_1" } },
      { method: "session/read", params: "sess_1" },
    ]);
    expect(r.waits).toEqual([120_000]);
    const [start, done, usage, ...rest] = r.updates;
    expect(rest).toEqual([]);
    expect(start).toMatchObject({ sessionUpdate: "tool_call", title: "Compacting conversation", kind: "think", status: "in_progress" });
    expect("rawInput" in start!).toBe(false);
    const id = (start as { toolCallId: string }).toolCallId;
    expect(id).toStartWith("compact-");
    expect(done).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
    // ZCode's answer is a session snapshot: nothing for the user to read.
    expect("rawOutput" in done!).toBe(false);
    expect(usage).toEqual({ sessionUpdate: "usage_update", used: 1500, size: 200000 });
    expect(r.said).toEqual(["Conversation compacted. Context in use: 1,500 of 200,000 tokens."]);
  });

  test("instructions are passed on and shown as the tool's input", async () => {
    const r = await runCommand("/compact keep the API notes", { compact: accepted, read: after({}) });
    expect(r.calls[0]).toEqual({ method: "session/compact", params: { sessionId: "sess_1", instructions: "keep the API notes" } });
    expect(r.updates[0]).toMatchObject({ rawInput: { instructions: "keep the API notes" } });
  });

  test("already_running: waits for that compaction and says so", async () => {
    const r = await runCommand("/compact", {
      compact: { response: "", compact: { state: "already_running" } },
      read: after({ contextUsed: 10, contextWindow: 100 }),
    });
    expect(r.waits).toEqual([120_000]);
    expect(r.said).toEqual(["A compaction was already running; it has finished. Context in use: 10 of 100 tokens."]);
  });

  test("contextWindow null: the current model's window", async () => {
    const r = await runCommand("/compact", { compact: accepted, read: after({ contextUsed: 900, contextWindow: null }) });
    expect(r.updates.at(-1)).toEqual({ sessionUpdate: "usage_update", used: 900, size: 200000 });
  });

  test("ZCode still compacting after the wait: the tool call fails, the reply says it goes on", async () => {
    const r = await runCommand("/compact", { compact: accepted }, { idle: false });
    expect(r.calls.map((c) => c.method)).toEqual(["session/compact"]);
    expect(r.updates.map((u) => [u.sessionUpdate, (u as { status?: string }).status])).toEqual([
      ["tool_call", "in_progress"],
      ["tool_call_update", "failed"],
    ]);
    expect(r.said).toEqual(["ZCode is still compacting the conversation; it goes on in the background."]);
  });

  test("no context figures: no usage_update", async () => {
    const r = await runCommand("/compact", { compact: accepted, read: after({ contextUsed: undefined, contextWindow: undefined }) });
    expect(r.updates.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(r.said).toEqual(["Conversation compacted."]);
    const none = await runCommand("/compact", { compact: accepted, read: { session: { sessionId: "sess_1" } } });
    expect(none.updates.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(none.said).toEqual(["Conversation compacted."]);
  });

  test("figures ACP cannot take (negative, fractional, zero window): no usage_update", async () => {
    for (const projection of [
      { contextUsed: -5, contextWindow: 1000 },
      { contextUsed: 1.5, contextWindow: 1000 },
      { contextUsed: 5, contextWindow: 0 },
    ]) {
      const r = await runCommand("/compact", { compact: accepted, read: after(projection) });
      expect(r.updates.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
      expect(r.said).toEqual(["Conversation compacted."]);
    }
  });

  test("-32010 while a prompt runs: the tool call fails and the reason is explained", async () => {
    const r = await runCommand("/compact", { compact: zerr(-32010, "Cannot compact while a prompt is running", "session/compact") });
    expect(r.updates.map((u) => [u.sessionUpdate, (u as { status?: string }).status])).toEqual([
      ["tool_call", "in_progress"],
      ["tool_call_update", "failed"],
    ]);
    expect(r.said[0]).toContain("busy with a running turn");
    expect(r.waits).toEqual([]);
  });
});
