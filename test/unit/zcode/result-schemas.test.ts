// Method results as ZCode answers them (shapes from ZCode's protocol schema
// and a captured 0.16.9 session).
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  CompactResultSchema,
  ForkResultSchema,
  GoalResultSchema,
  ListResultSchema,
  MessagesResultSchema,
  RewindResultSchema,
  SendResultSchema,
  SettingsResultSchema,
  SnapshotSchema,
  SubscribeResultSchema,
} from "../../../src/zcode/result-schemas.ts";
import { summarizeIssues } from "../../../src/zcode/schemas.ts";

const ok = <S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> => {
  const r = v.safeParse(schema, value);
  if (!r.success) throw new Error(`expected ${JSON.stringify(value).slice(0, 200)} to parse: ${summarizeIssues(r.issues)}`);
  return r.output;
};
const bad = (schema: v.GenericSchema, value: unknown) => expect(v.safeParse(schema, value).success).toBe(false);

const SID = "sess_87b8cfd7-66c0-43d1-8133-23a659bae7b2";

/** session/create's answer from a real 0.16.9 CLI (as captured in the spec fixture). */
const CREATE = {
  protocol: { name: "ZCode Protocol", version: 1 },
  session: {
    sessionId: SID,
    workspace: { workspacePath: "/workspace/probe", workspaceKey: "/workspace/probe" },
    sessionKind: "interactive",
    title: "",
    mode: "yolo",
    status: "idle",
    createdAt: 1790039034000,
    updatedAt: 1790039034000,
    traceId: "fac306de-bf37-4eff-94ca-eb8476962e3c",
  },
  settings: {
    model: {
      current: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } },
      available: [
        {
          ref: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" },
          label: "GLM-5.3",
          providerLabel: "Z.ai Coding Plan",
          contextWindow: 200000,
          maxOutputTokens: 128000,
          reasoning: {
            levels: [
              { value: "low", label: "Low" },
              { value: "high", label: "High" },
              { value: "max", label: "Max" },
            ],
            defaultLevel: "max",
          },
          properties: {},
        },
      ],
      lastUsed: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" },
    },
    thoughtLevel: {
      enabled: true,
      current: "max",
      available: [
        { value: "low", label: "Low" },
        { value: "high", label: "High" },
        { value: "max", label: "Max" },
      ],
    },
    mode: { current: "yolo" },
    permission: { mode: "yolo" },
  },
  projection: {
    sessionId: SID,
    status: "idle",
    mode: "yolo",
    turnCount: 0,
    totalTokenCount: 0,
    contextUsed: 0,
    contextWindow: 200000,
    pendingPermissions: [],
    activeToolCalls: [],
    backgroundJobs: [],
  },
  runtime: { eventSeq: 0 },
  messages: [],
};

describe("SnapshotSchema", () => {
  test("a real create answer reads whole", () => {
    const s = ok(SnapshotSchema, CREATE);
    expect(s.session.sessionId).toBe(SID);
    expect(s.session.title).toBe("");
    expect(s.settings?.model?.available?.[0]?.ref.modelId).toBe("GLM-5.3");
    expect(s.projection).toMatchObject({ status: "idle", contextUsed: 0, contextWindow: 200000 });
    expect(s.runtime?.eventSeq).toBe(0);
  });

  test("the session is required; everything else may be missing", () => {
    expect(ok(SnapshotSchema, { session: { sessionId: "s" } }).session.sessionId).toBe("s");
    bad(SnapshotSchema, { settings: CREATE.settings });
    bad(SnapshotSchema, { session: {} });
  });

  test("runtime.stateRevision, projection.target, todos and slash commands", () => {
    const s = ok(SnapshotSchema, {
      session: { sessionId: "s" },
      runtime: { eventSeq: 8, stateRevision: 4, pendingRequestIds: [] },
      projection: { status: "running", contextWindow: null, target: { objective: "Ship login", status: "active" } },
      todos: [{ content: "a", status: "pending", priority: "high" }, { status: "orphan" }],
      slashCommands: [{ name: "compact", description: "Compact" }, { description: "no name" }],
    });
    expect(s.runtime?.stateRevision).toBe(4);
    expect(s.projection?.contextWindow).toBeNull();
    expect(s.projection?.target).toEqual({ objective: "Ship login", status: "active" });
    expect(s.todos).toEqual([{ content: "a", status: "pending", priority: "high" }]);
    expect(s.slashCommands?.map((c) => c.name)).toEqual(["compact"]);
  });

  test("bad details degrade to absent rather than failing the answer", () => {
    const s = ok(SnapshotSchema, { session: { sessionId: "s" }, settings: "weird", runtime: { eventSeq: "8" }, todos: "none" });
    expect(s.settings).toBeUndefined();
    expect(s.runtime?.eventSeq).toBeUndefined();
    expect(s.todos).toBeUndefined();
  });
});

describe("smaller results", () => {
  test("set* answers are read for their settings, the session may be missing", () => {
    expect(ok(SettingsResultSchema, { settings: { mode: { current: "plan" } } }).settings?.mode?.current).toBe("plan");
    expect(ok(SettingsResultSchema, {}).settings).toBeUndefined();
  });

  test("session/list: unreadable sessions are dropped", () => {
    const r = ok(ListResultSchema, { sessions: [{ sessionId: "a", title: "A" }, { title: "no id" }, { sessionId: "b" }] });
    expect(r.sessions.map((s) => s.sessionId)).toEqual(["a", "b"]);
    bad(ListResultSchema, {});
  });

  test("session/messages", () => {
    const r = ok(MessagesResultSchema, {
      messages: [
        { info: { messageId: "m1", role: "user" }, parts: [{ type: "text", text: "hi" }] },
        { info: { messageId: "m2" }, parts: [] },
      ],
    });
    expect(r.messages.map((m) => m.info.messageId)).toEqual(["m1"]);
  });

  test("session/subscribe: raw envelopes are kept as they came", () => {
    const ev = { eventId: "e", sessionId: "s", seq: 1, type: "session.titleUpdated", payload: { title: "T" }, timestamp: 1 };
    const r = ok(SubscribeResultSchema, { sessionId: "s", eventSeq: 3, events: [ev, "junk"] });
    expect(r.eventSeq).toBe(3);
    expect(r.events).toEqual([ev, "junk"]);
    expect(ok(SubscribeResultSchema, { eventSeq: 0 }).events).toBeUndefined();
  });

  test("session/send answers {sessionId, accepted, stateRevision}", () => {
    expect(ok(SendResultSchema, { sessionId: "s", accepted: true, stateRevision: 2 }).accepted).toBe(true);
  });

  test("session/fork: the new id is required; title from snapshot.session", () => {
    const r = ok(ForkResultSchema, {
      forkedSessionId: "sess_fork",
      parentSessionId: "s",
      response: "",
      snapshot: { session: { sessionId: "sess_fork", title: "Refactor auth" } },
    });
    expect(r.forkedSessionId).toBe("sess_fork");
    expect(r.snapshot?.session?.title).toBe("Refactor auth");
    bad(ForkResultSchema, { snapshot: { session: { sessionId: "x" } } });
  });

  test("session/goal: {response, snapshot, startedTurn}", () => {
    expect(ok(GoalResultSchema, { response: "Goal active", snapshot: {}, startedTurn: true })).toMatchObject({
      response: "Goal active",
      startedTurn: true,
    });
    expect(ok(GoalResultSchema, { response: 3 }).response).toBeUndefined();
  });

  test("session/compact: {response, compact:{state}}", () => {
    expect(ok(CompactResultSchema, { response: "", snapshot: {}, compact: { state: "already_running" } }).compact?.state).toBe(
      "already_running",
    );
    expect(ok(CompactResultSchema, {}).compact).toBeUndefined();
  });

  test("session/rewind (0.15.x)", () => {
    expect(ok(RewindResultSchema, { revision: 8, checkpointId: null, removedMessages: 2 })).toEqual({
      revision: 8,
      checkpointId: null,
      removedMessages: 2,
    });
  });
});
