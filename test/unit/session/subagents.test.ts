// A parent session's subagents: announced, followed on their own session id,
// let go when the parent goes, and bounded in number.
import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { Subagents, type SubagentOwner } from "../../../src/session/subagents.ts";
import { clientFeatures } from "../../../src/translate/client-features.ts";
import type { ZCodeApi } from "../../../src/zcode/api.ts";
import type { EventListener } from "../../../src/zcode/event-router.ts";

function owner(opts: { optedIn?: boolean; subscribeFails?: boolean } = {}) {
  const parent: SessionUpdate[] = [];
  const onChild: Array<{ sessionId: string; u: SessionUpdate }> = [];
  const routes = new Map<string, EventListener>();
  const subscribed: unknown[] = [];
  const api = {
    subscribe: async (p: unknown) => {
      subscribed.push(p);
      if (opts.subscribeFails) throw new Error("Session not found");
      return { eventSeq: 0, events: [] };
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
    routeEvents: (id, cb) => {
      routes.set(id, cb);
      return () => routes.delete(id);
    },
  };
  return { o, parent, onChild, routes, subscribed };
}

const spawn = (n: number) => ({
  kind: "spawned" as const,
  agentId: `agent_${n}`,
  childSessionId: `child_${n}`,
  parentToolCallId: `call_${n}`,
  description: `task ${n}`,
  prompt: `do ${n}`,
});

describe("Subagents", () => {
  test("a spawn is announced with its task, then followed from seq 0; its events land on the child's id", async () => {
    const { o, parent, onChild, routes, subscribed } = owner();
    const subs = new Subagents(o);
    subs.event(spawn(1));
    expect(parent.map((u) => u.sessionUpdate)).toEqual(["subagent_update", "session_message"]);
    await Bun.sleep(0);
    expect(subscribed).toEqual([{ sessionId: "child_1", afterSeq: 0 }]);
    expect(subs.shows("child_1")).toBe(true);
    routes.get("child_1")!({ sessionId: "child_1", seq: 1, type: "model.streaming", payload: { kind: "text_delta", delta: "hi" } });
    expect(onChild).toMatchObject([{ sessionId: "child_1", u: { sessionUpdate: "agent_message_chunk", content: { text: "hi" } } }]);
    subs.event({ kind: "message", agentId: "agent_1", text: "report" });
    subs.event({ kind: "stopped", agentId: "agent_1", childSessionId: "child_1", status: "completed" });
    expect(parent.slice(2).map((u) => u.sessionUpdate)).toEqual(["session_message", "session_message_chunk", "subagent_update"]);
    subs.dispose();
    expect(routes.size).toBe(0);
    expect(subs.shows("child_1")).toBe(false);
  });

  test("a child resumed by SendMessage (spawned again) is announced again with a new task, and followed once", async () => {
    const { o, parent, subscribed } = owner();
    const subs = new Subagents(o);
    subs.event(spawn(1));
    subs.event({ kind: "stopped", agentId: "agent_1", childSessionId: "child_1", status: "completed" });
    subs.event({ ...spawn(1), prompt: "and now this" });
    await Bun.sleep(0);
    expect(subscribed).toHaveLength(1);
    const tasks = parent.filter((u) => u.sessionUpdate === "session_message") as Array<{ messageId: string }>;
    expect(tasks.map((m) => m.messageId)).toEqual(["child_1-message-1", "child_1-message-2"]);
    expect(
      parent.filter((u) => u.sessionUpdate === "subagent_update").map((u) => (u as { state?: { state: string } }).state?.state),
    ).toEqual(["running", "idle", "running"]);
    subs.dispose();
  });

  test("a client that did not opt in gets nothing; a message or stop of an unknown agent is dropped", () => {
    const off = owner({ optedIn: false });
    new Subagents(off.o).event(spawn(1));
    expect(off.parent).toEqual([]);
    expect(off.routes.size).toBe(0);
    const on = owner();
    const subs = new Subagents(on.o);
    subs.event({ kind: "message", agentId: "nobody", text: "x" });
    subs.event({ kind: "stopped", agentId: "nobody", status: "completed" });
    expect(on.parent).toEqual([]);
  });

  test("a child ZCode will not subscribe stops hiding its mirrored tools in the parent", async () => {
    const { o, routes } = owner({ subscribeFails: true });
    const subs = new Subagents(o);
    subs.event(spawn(1));
    await Bun.sleep(0);
    expect(subs.shows("child_1")).toBe(false);
    expect(routes.size).toBe(0);
  });

  test("memory stays bounded: past 16 children the oldest stopped one is let go", async () => {
    const { o, routes } = owner();
    const subs = new Subagents(o);
    for (let i = 0; i < 16; i++) subs.event(spawn(i));
    subs.event({ kind: "stopped", agentId: "agent_3", childSessionId: "child_3", status: "completed" });
    subs.event(spawn(16));
    await Bun.sleep(0);
    expect(routes.size).toBe(16);
    expect(routes.has("child_3")).toBe(false);
    expect(subs.shows("child_16")).toBe(true);
    subs.dispose();
  });
});
