// The v4 conversation feed on a fake v4-only child (v4/feed.ts through
// ZCodeApi): subscribe params, the snapshot awaited, legacy envelopes
// delivered, a pending interaction put to the legacy handler once and answered
// with resolveInteraction, a faulty frame resynced, the settings a snapshot
// tells used by the next command.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ZCodeApi } from "../../../src/zcode/api.ts";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import type { ZCodeConnection } from "../../../src/zcode/connection.ts";
import type { RawEvent } from "../../../src/zcode/event-schemas.ts";
import { complete, control, deltasFrame, snapshot, snapshotFrame, toolCall } from "./v4/frames.ts";

const ID = "s1";
const TOPIC = `conversation/${ID}`;

function fakeChild() {
  const sent: { method: string; params: any }[] = [];
  const listeners: ((p: unknown) => void)[] = [];
  const events: RawEvent[] = [];
  const asked: { method: string; params: any }[] = [];
  const unwatched: ((id: string) => void)[] = [];
  let ordinal = 0;
  const conn = {
    capabilities: new CliCapabilities("0.16.9"),
    start: async () => ({}),
    onNotification: (_m: string, cb: (p: unknown) => void) => (listeners.push(cb), () => {}),
    onExit: () => () => {},
    onUnwatched: (cb: (id: string) => void) => (unwatched.push(cb), () => {}),
    deliverEvent: (e: RawEvent) => events.push(e),
    ask: async (method: string, params: any) => {
      asked.push({ method, params });
      return { decision: "allow", v4OptionId: "allowOnce" };
    },
    async request(method: string, params: any, o: { schema?: v.GenericSchema } = {}) {
      sent.push({ method, params: JSON.parse(JSON.stringify(params ?? null)) });
      let answer: unknown = {};
      if (method === "v4/commands/query") answer = { results: [{ result: "unknown" }] };
      else if (method === "v4/command") answer = { commandId: params.commandId, status: "accepted", revisionAtDecision: 1 };
      else if (method === "v4/conversation/rowsRange")
        answer = { rows: [], atRevision: 2, atLogEpoch: "epoch-1", hasMore: false, atSeq: 0 };
      else if (method === "v4/conversation/subscribe" || method === "v4/conversation/resync") {
        answer = { ack: { subscriptionId: "sub-1", mode: "snapshot", logEpoch: "epoch-1" } };
      }
      return o.schema ? v.parse(o.schema, answer) : answer;
    },
  };
  /** A logical frame of the session's topic, sent whole. */
  const push = (frame: Record<string, unknown>) => {
    const wire = {
      ...complete({ ...frame, topic: TOPIC, subscriptionId: "sub-1" }, ++ordinal, "online"),
      topic: TOPIC,
      subscriptionId: "sub-1",
    };
    for (const l of listeners) l(wire);
  };
  return { conn: conn as unknown as ZCodeConnection, sent, events, asked, push, unwatched };
}

/** Lets the fake child's answers settle until `cond` holds (they are immediate: a few turns of the loop). */
async function until(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !cond(); i++) await new Promise((r) => setTimeout(r, 0));
  expect(cond()).toBe(true);
}
const subscribed = (c: ReturnType<typeof fakeChild>) => () => c.sent.some((s) => s.method === "v4/conversation/subscribe");

const PERMISSION = {
  interactionId: "perm-1",
  kind: "permission",
  anchorRowId: 1,
  createdAt: 1,
  payload: {
    kind: "permission",
    toolCallId: "call-1",
    toolName: "Bash",
    summary: "Run ls",
    detail: { command: "ls" },
    options: [
      { optionId: "allowOnce", label: "Allow", kind: "allowOnce" },
      { optionId: "deny", label: "Deny", kind: "deny" },
    ],
  },
};

describe("the feed", () => {
  test("resume = subscribe (topic, connectionId, clientMode, workspace), resolved by the snapshot, settings from its config", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const resumed = api.resume({ sessionId: ID, workspace: "/w" });
    await until(subscribed(c));
    c.push(snapshotFrame(snapshot([]), 4));
    const snap = await resumed;
    const sub = c.sent.find((s) => s.method === "v4/conversation/subscribe")!.params;
    expect(Object.keys(sub).sort()).toEqual(["clientMode", "connectionId", "topic", "workspace"]);
    expect(sub).toMatchObject({ topic: TOPIC, clientMode: "desktop-continuous", workspace: { workspacePath: "/w", workspaceKey: "/w" } });
    expect(snap.session.sessionId).toBe(ID);
    expect(snap.settings?.model?.current).toMatchObject({ providerId: "p", modelId: "m" });
    expect(snap.settings?.mode?.current).toBe("yolo");
    // The level alone is switched with the model the snapshot told.
    await api.setThoughtLevel({ sessionId: ID, thoughtLevel: "max" });
    const cmd = c.sent.filter((s) => s.method === "v4/command").at(-1)!.params;
    expect(cmd).toMatchObject({ type: "switchModelConfig", payload: { provider: "p", model: "m", thought: "max" }, baseRevision: 2 });
  });

  test("a pending interaction: the legacy handler asked once, answered with resolveInteraction; a resync snapshot does not ask again", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const opened = api.subscribe({ sessionId: ID });
    await until(subscribed(c));
    c.push(snapshotFrame(snapshot([toolCall(1, "t1", "pendingApproval")], { pendingInteractions: [PERMISSION] }), 4));
    await opened;
    await until(() => c.sent.some((s) => s.params?.type === "resolveInteraction"));
    expect(c.asked.map((a) => [a.method, a.params.requestId, a.params.sessionId])).toEqual([
      ["interaction/requestPermission", "perm-1", ID],
    ]);
    const resolve = c.sent.filter((s) => s.method === "v4/command" && s.params.type === "resolveInteraction");
    expect(resolve).toHaveLength(1);
    expect(resolve[0]!.params).toMatchObject({ sessionId: ID, payload: { interactionId: "perm-1", answer: { optionId: "allowOnce" } } });
    expect(resolve[0]!.params.baseRevision).toBeUndefined();
    // A fresh snapshot (after a resync) still lists it: not asked twice.
    c.push(snapshotFrame(snapshot([toolCall(1, "t1", "pendingApproval")], { pendingInteractions: [PERMISSION] }), 6));
    await Promise.resolve();
    expect(c.asked).toHaveLength(1);
  });

  test("a gap in the seq: resync of the same subscription for a fresh snapshot", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const opened = api.subscribe({ sessionId: ID });
    await until(subscribed(c));
    c.push(snapshotFrame(snapshot([]), 4));
    await opened;
    c.push(deltasFrame(9, [{ op: "state.updated", patch: {} }]));
    const resync = c.sent.find((s) => s.method === "v4/conversation/resync");
    expect(resync?.params).toEqual({
      subscriptionId: "sub-1",
      base: null,
      forceSnapshot: true,
      topic: TOPIC,
      connectionId: expect.any(String),
    });
  });

  test("nobody listens to the session any more (ACP session/close): unsubscribed", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const opened = api.subscribe({ sessionId: ID });
    await until(subscribed(c));
    c.push(snapshotFrame(snapshot([]), 4));
    await opened;
    for (const f of c.unwatched) f("other");
    expect(c.sent.some((s) => s.method === "v4/conversation/unsubscribe")).toBe(false);
    for (const f of c.unwatched) f(ID);
    await until(() => c.sent.some((s) => s.method === "v4/conversation/unsubscribe"));
    expect(c.sent.find((s) => s.method === "v4/conversation/unsubscribe")?.params).toMatchObject({ topic: TOPIC, subscriptionId: "sub-1" });
  });

  test("release: unsubscribe with the subscription's id", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const opened = api.subscribe({ sessionId: ID });
    await until(subscribed(c));
    c.push(snapshotFrame(snapshot([]), 4));
    await opened;
    await api.release(ID);
    expect(c.sent.find((s) => s.method === "v4/conversation/unsubscribe")?.params).toEqual({
      topic: TOPIC,
      subscriptionId: "sub-1",
      connectionId: expect.any(String),
    });
  });
});

describe("a command whose ACK starts a turn in the background (goal-compact.ts)", () => {
  test("compact and a goal set are answered once the turn they started is seen; a goal shown comes from the snapshot", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const opened = api.subscribe({ sessionId: ID });
    await until(subscribed(c));
    c.push(snapshotFrame(snapshot([], { goal: { objective: "ship", status: "active", timeUsedSeconds: 3 } }), 4));
    await opened;
    let answered = false;
    const compacted = api.compact({ sessionId: ID }).then((r) => ((answered = true), r));
    await until(() => c.sent.some((s) => s.params?.type === "compact"));
    // The ACK came, the frame showing the work not yet: a read now would find the session idle.
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(answered).toBe(false);
    // A frame that moves no revision (usage: projection-state.ts REVISION_BEARING_PATCH_KEYS) is not the command's.
    c.push(deltasFrame(4, [{ op: "state.updated", patch: { usage: { contextWindow: null, cumulative: {} } } }]));
    for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
    expect(answered).toBe(false);
    // snapshot.ts activeWorkSummarySchema: a compaction is active work, whatever the phase says.
    c.push(
      deltasFrame(5, [
        { op: "state.updated", patch: { revision: 2, control: control("completedSuccess", { activeWorks: [{ kind: "compact" }] }) } },
      ]),
    );

    expect((await compacted).compact?.state).toBe("accepted");
    expect((await api.read(ID)).projection?.status).toBe("running");
    c.push(deltasFrame(6, [{ op: "state.updated", patch: { revision: 3, control: control("completedSuccess") } }]));
    expect((await api.read(ID)).projection?.status).not.toBe("running");

    const set = api.goal({ sessionId: ID, action: "set", objective: "ship it" });
    await until(() => c.sent.some((s) => s.params?.type === "sendGoalCommand"));
    c.push(
      deltasFrame(7, [
        {
          op: "row.appended",
          row: { rowId: 1, turnId: "t2", entityId: "t2", createdAt: 1, createdAtSeq: 1, kind: "turnHeader", state: "running" },
        },
      ]),
    );
    expect(await set).toMatchObject({ startedTurn: true });

    const sent = c.sent.length;
    expect(await api.goal({ sessionId: ID, action: "show" })).toEqual({
      response: "Goal active\nObjective: ship\nTime: 3 seconds",
      startedTurn: false,
    });
    expect(c.sent.length).toBe(sent);
  });
});

describe("the legacy snapshot of v4 state", () => {
  test("read: title, context use, plan as todos, goal, running or not", async () => {
    const c = fakeChild();
    const api = new ZCodeApi(c.conn, { protocol: "v4" });
    const read = api.read(ID);
    await until(subscribed(c));
    c.push(
      snapshotFrame(
        snapshot([], {
          control: { phase: "running", activeWorks: [] },
          meta: { title: "Fix tests", titleSource: "generated" },
          usage: { contextWindow: { usedTokens: 1200, maxTokens: 200000 } },
          plan: { items: [{ id: "1", content: "write it", status: "in_progress" }] },
          goal: { objective: "ship", status: "active" },
        }),
        4,
      ),
    );
    const r = await read;
    expect(r.session.title).toBe("Fix tests");
    expect(r.projection).toMatchObject({
      status: "running",
      contextUsed: 1200,
      contextWindow: 200000,
      target: { objective: "ship", status: "active" },
    });
    expect(r.todos).toEqual([{ content: "write it", status: "in_progress" }]);
    expect(r.settings?.model?.available?.[0]?.ref).toEqual({ providerId: "p", modelId: "m" });
  });
});
