// A parent session's subagents, with fake timers: announced (and registered
// as read-only children), shown from the child's v4 rows while it runs (read
// soon after a sign of life, less and less often otherwise), completed at its
// stop, or from its transcript on a CLI without v4; mirrored tools shown on
// the child after the read they prompt (at most holdMs), never twice; let go
// when the parent goes; bounded.
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { CHILD_POLL } from "../../../src/session/child-view.ts";
import { Subagents, type SubagentOwner } from "../../../src/session/subagents.ts";
import { clientFeatures } from "../../../src/translate/client-features.ts";
import type { ZCodeApi } from "../../../src/zcode/api.ts";
import type { ToolUpdated } from "../../../src/zcode/event-schemas.ts";
import type { Row, RowsRange } from "../../../src/zcode/v4/schemas.ts";
import { advance } from "../support/session-fakes.ts";

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

interface Fake {
  /** Rows the child has now (undefined: no v4). */
  rows: Row[] | undefined;
  /** Reads fail with this until cleared. */
  fail?: Error;
  /** Reads never answer. */
  hang?: boolean;
  messages: unknown[];
}

function owner(opts: { optedIn?: boolean } = {}, fake: Fake = { rows: [], messages: [] }) {
  const parent: SessionUpdate[] = [];
  const onChild: Array<{ sessionId: string; u: SessionUpdate }> = [];
  const announced: string[] = [];
  const calls: string[] = [];
  const api = {
    childRows: async (id: string): Promise<RowsRange | undefined> => {
      calls.push(`rows ${id}`);
      if (fake.fail) throw fake.fail;
      if (fake.hang) return new Promise(() => {});
      return fake.rows && { rows: fake.rows, atRevision: 1, atLogEpoch: "e1", hasMore: false };
    },
    resume: async (p: { sessionId: string }) => {
      calls.push(`resume ${p.sessionId}`);
      return {};
    },
    messages: async (id: string) => {
      calls.push(`messages ${id}`);
      return { messages: fake.messages };
    },
  } as unknown as ZCodeApi;
  const o: SubagentOwner = {
    id: "parent",
    cwd: "/w",
    api,
    features: clientFeatures(opts.optedIn === false ? {} : ({ subagents: {} } as never)),
    terminalOutput: () => false,
    emit: (u) => parent.push(u),
    emitOn: (sessionId, u) => onChild.push({ sessionId, u }),
    childAnnounced: (id) => announced.push(id),
  };
  const reads = () => calls.filter((c) => c.startsWith("rows")).length;
  const childText = (id: string) =>
    onChild
      .filter((x) => x.sessionId === id && x.u.sessionUpdate === "agent_message_chunk")
      .map((x) => (x.u as { content: { text: string } }).content.text)
      .join("");
  return { o, parent, onChild, announced, calls, reads, childText, fake };
}

const spawn = (n: number) => ({
  kind: "spawned" as const,
  agentId: `agent_${n}`,
  childSessionId: `child_${n}`,
  parentToolCallId: `call_${n}`,
  description: `task ${n}`,
  prompt: `do ${n}`,
});
const stop = (n: number) => ({ kind: "stopped" as const, agentId: `agent_${n}`, childSessionId: `child_${n}`, status: "completed" });
const header = (state: string): Row => ({ rowId: 1, turnId: "t", entityId: "t", kind: "turnHeader", state });
const said = (text: string, state = "streaming"): Row => ({ rowId: 3, turnId: "t", entityId: "m:0", kind: "assistantText", text, state });
const mirrored = (kind: string, extra: Record<string, unknown> = {}): ToolUpdated =>
  ({
    kind,
    toolCallId: "tool_subagent_agent_1_call_9",
    toolName: "Grep",
    source: "subagent",
    childSessionId: "child_1",
    childToolCallId: "call_9",
    ...extra,
  }) as ToolUpdated;

describe("Subagents", () => {
  test("announced with its task and registered; its rows read while it runs; the rest read at its stop; nothing twice", async () => {
    const f = owner();
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    expect(f.parent.map((u) => u.sessionUpdate)).toEqual(["subagent_update", "session_message"]);
    expect(f.announced).toEqual(["child_1"]);
    // No read before the child had a moment to reach ZCode's v4 gateway.
    await advance(CHILD_POLL.firstMs - 1);
    expect(f.reads()).toBe(0);
    f.fake.rows = [header("running"), said("Searching")];
    await advance(1);
    expect(f.reads()).toBe(1);
    expect(f.childText("child_1")).toBe("Searching");
    f.fake.rows = [header("running"), said("Searching the sources.")];
    await advance(CHILD_POLL.minMs);
    expect(f.childText("child_1")).toBe("Searching the sources.");
    // The child ended: its last words come with the final read, the idle state on the parent.
    f.fake.rows = [header("completedSuccess"), said("Searching the sources. Found 2.", "complete")];
    subs.event({ kind: "message", agentId: "agent_1", text: "report" });
    subs.event(stop(1));
    // Idle only once the child's last words are shown.
    expect(f.parent.filter((u) => u.sessionUpdate === "subagent_update")).toHaveLength(1);
    await advance(CHILD_POLL.minMs);
    expect(f.childText("child_1")).toBe("Searching the sources. Found 2.");
    expect(f.parent.slice(2).map((u) => u.sessionUpdate)).toEqual(["session_message", "session_message_chunk", "subagent_update"]);
    // Settled: no more reads, no transcript.
    const after = f.reads();
    await advance(10 * CHILD_POLL.maxMs, 50);
    expect(f.reads()).toBe(after);
    expect(f.calls.some((c) => c.startsWith("resume"))).toBe(false);
    subs.dispose();
  });

  test("nothing new: the reads slow down to maxMs; a mirrored tool makes the next one soon", async () => {
    const f = owner();
    f.fake.rows = [header("running")];
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    await advance(CHILD_POLL.firstMs + 4 * CHILD_POLL.maxMs, 10);
    const slow = f.reads();
    await advance(CHILD_POLL.maxMs * 5, 10);
    // One read per maxMs at most once it has backed off.
    expect(f.reads() - slow).toBeLessThanOrEqual(5);
    expect(f.reads() - slow).toBeGreaterThanOrEqual(4);
    const before = f.reads();
    expect(subs.mirrored(mirrored("scheduled", { input: { pattern: "greet" } }))).toBe(true);
    await advance(CHILD_POLL.minMs);
    expect(f.reads()).toBe(before + 1);
    subs.dispose();
    const gone = f.reads();
    await advance(CHILD_POLL.maxMs * 3, 50);
    expect(f.reads()).toBe(gone);
  });

  test("a child whose stop never comes: the reads pause after a long while of nothing new, and a sign of life resumes them", async () => {
    const f = owner();
    f.fake.rows = [header("running")];
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    await advance(CHILD_POLL.maxIdleReads * CHILD_POLL.maxMs + 20 * CHILD_POLL.maxMs, 500);
    const paused = f.reads();
    expect(paused).toBeLessThanOrEqual(CHILD_POLL.maxIdleReads + 1);
    await advance(20 * CHILD_POLL.maxMs, 500);
    expect(f.reads()).toBe(paused);
    subs.mirrored(mirrored("scheduled", { input: { pattern: "greet" } }));
    await advance(1);
    expect(f.reads()).toBe(paused + 1);
    subs.dispose();
  });

  test("a mirrored tool shows on the child under the child's own id after the read it prompts, its words first; its row only adds to it", async () => {
    const f = owner();
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    f.fake.rows = [header("running"), said("Searching.")];
    expect(subs.mirrored(mirrored("scheduled", { input: { pattern: "greet" } }))).toBe(true);
    expect(subs.mirrored(mirrored("started"))).toBe(true);
    const onChild = () => f.onChild.filter((x) => x.sessionId === "child_1").map((x) => x.u);
    expect(onChild()).toEqual([]);
    await advance(CHILD_POLL.minMs);
    expect(f.reads()).toBe(1);
    expect(onChild().map((u) => u.sessionUpdate)).toEqual(["agent_message_chunk", "tool_call", "tool_call_update"]);
    expect(onChild()[1]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_9" });
    f.fake.rows = [
      header("running"),
      said("Searching."),
      {
        rowId: 4,
        turnId: "t",
        entityId: "call_9",
        kind: "toolCall",
        toolCallId: "call_9",
        toolName: "Grep",
        status: "success",
        output: { text: "found" },
      },
    ];
    await advance(CHILD_POLL.minMs);
    expect(onChild().filter((u) => u.sessionUpdate === "tool_call")).toHaveLength(1);
    expect(onChild().at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_9", status: "completed" });
    // Another child's (or an unknown child's) mirror stays in the parent.
    expect(subs.mirrored(mirrored("scheduled", { childSessionId: "child_9" }))).toBe(false);
    subs.dispose();
  });

  test("a read that never answers holds a mirrored tool at most holdMs", async () => {
    const f = owner({}, { rows: [], messages: [], hang: true });
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    await advance(CHILD_POLL.firstMs);
    expect(f.reads()).toBe(1);
    subs.mirrored(mirrored("scheduled", { input: { pattern: "greet" } }));
    await advance(CHILD_POLL.holdMs - 1);
    expect(f.onChild).toEqual([]);
    await advance(1);
    expect(f.onChild.map((x) => x.u)).toMatchObject([{ sessionUpdate: "tool_call", toolCallId: "call_9" }]);
    subs.dispose();
  });

  test("a CLI without v4: nothing read while it runs; at its stop the transcript, without the tool already shown or the task", async () => {
    const f = owner({}, { rows: undefined, messages: [] });
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    subs.mirrored(mirrored("scheduled", { input: { pattern: "greet" } }));
    await advance(CHILD_POLL.maxMs * 3, 50);
    expect(f.reads()).toBe(1);
    f.fake.messages = [
      { info: { messageId: "u1", role: "user" }, parts: [{ type: "text", text: "do 1" }] },
      {
        info: { messageId: "a1", role: "assistant" },
        parts: [
          { type: "text", text: "Searching." },
          { type: "tool", callId: "call_9", tool: "Grep", state: { status: "completed", input: { pattern: "greet" }, output: "x" } },
          { type: "text", text: " Found 2." },
        ],
      },
    ];
    subs.event(stop(1));
    await advance(10);
    expect(f.calls.filter((c) => !c.startsWith("rows"))).toEqual(["resume child_1", "messages child_1"]);
    expect(f.childText("child_1")).toBe("Searching. Found 2.");
    const child = f.onChild.filter((x) => x.sessionId === "child_1").map((x) => x.u.sessionUpdate);
    expect(child.filter((k) => k === "tool_call")).toHaveLength(1);
    expect(child).not.toContain("user_message_chunk");
    subs.dispose();
  });

  test("rows that keep failing: backed off, given up, and the transcript read at the stop", async () => {
    const f = owner({}, { rows: [], fail: new Error("boom"), messages: [] });
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    await advance(CHILD_POLL.maxMs * 20, 50);
    expect(f.reads()).toBe(CHILD_POLL.maxFailures);
    f.fake.messages = [{ info: { messageId: "a1", role: "assistant" }, parts: [{ type: "text", text: "Done." }] }];
    subs.event(stop(1));
    await advance(CHILD_POLL.maxMs * 10, 50);
    expect(f.calls).toContain("resume child_1");
    expect(f.childText("child_1")).toBe("Done.");
    subs.dispose();
  });

  test("a child resumed by SendMessage (spawned again) is announced again with a new task, and read again", async () => {
    const f = owner();
    f.fake.rows = [header("completedSuccess")];
    const subs = new Subagents(f.o);
    subs.event(spawn(1));
    subs.event(stop(1));
    await advance(CHILD_POLL.maxMs, 10);
    const reads = f.reads();
    subs.event({ ...spawn(1), prompt: "and now this" });
    f.fake.rows = [header("running"), said("Again")];
    await advance(CHILD_POLL.firstMs + CHILD_POLL.minMs, 10);
    expect(f.reads()).toBeGreaterThan(reads);
    expect(f.childText("child_1")).toBe("Again");
    const tasks = f.parent.filter((u) => u.sessionUpdate === "session_message") as Array<{ messageId: string }>;
    expect(tasks.map((m) => m.messageId)).toEqual(["child_1-message-1", "child_1-message-2"]);
    expect(
      f.parent.filter((u) => u.sessionUpdate === "subagent_update").map((u) => (u as { state?: { state: string } }).state?.state),
    ).toEqual(["running", "idle", "running"]);
    subs.dispose();
  });

  test("a client that did not opt in gets nothing; a message or stop of an unknown agent is dropped", async () => {
    const off = owner({ optedIn: false });
    const subs0 = new Subagents(off.o);
    subs0.event(spawn(1));
    expect(subs0.mirrored(mirrored("scheduled"))).toBe(false);
    await advance(CHILD_POLL.maxMs, 50);
    expect(off.parent).toEqual([]);
    expect(off.calls).toEqual([]);
    expect(off.announced).toEqual([]);
    const on = owner();
    const subs = new Subagents(on.o);
    subs.event({ kind: "message", agentId: "nobody", text: "x" });
    subs.event({ kind: "stopped", agentId: "nobody", status: "completed" });
    expect(on.parent).toEqual([]);
  });

  test("memory stays bounded: past 16 children the oldest stopped one is let go", async () => {
    const f = owner();
    const subs = new Subagents(f.o);
    for (let i = 0; i < 16; i++) subs.event(spawn(i));
    subs.event(stop(3));
    subs.event(spawn(16));
    expect(subs.mirrored(mirrored("scheduled", { childSessionId: "child_3" }))).toBe(false);
    expect(subs.mirrored(mirrored("scheduled", { childSessionId: "child_16" }))).toBe(true);
    subs.dispose();
    expect(subs.mirrored(mirrored("scheduled", { childSessionId: "child_16" }))).toBe(false);
  });
});
