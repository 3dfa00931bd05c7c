// ZCode's session events → what the editor is told, on real payloads.
import { describe, expect, test } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import {
  applyEvent,
  emitPlan,
  sessionUpdatedToUpdates,
  usageUpdate,
  type EventContext,
  type EventState,
  type TurnHooks,
} from "../../../src/translate/events.ts";
import { optionsFromSettings } from "../../../src/translate/options/options.ts";
import { ToolCallTracker } from "../../../src/translate/tools/tracker.ts";
import { parseEvent, readEnvelope, type ZCodeEvent } from "../../../src/zcode/event-schemas.ts";
import { CREATE_SETTINGS, CWD, DENIED_BY_USER, TOOLS, expectValid, settings } from "../support/bridge-fixtures.ts";

type Any = Record<string, any>;

let seq = 0;
/** A session/event envelope as the CLI sends it, read as the bridge reads it. */
function ev(type: string, payload: unknown): ZCodeEvent {
  const raw = readEnvelope({ eventId: `e${++seq}`, sessionId: "s1", seq, timestamp: 1, traceId: "tr", turnId: "turn_1", type, payload });
  if (typeof raw === "string") throw new Error(raw);
  const r = parseEvent(raw);
  if (!r.ok) throw new Error(`${type}: ${JSON.stringify(r)}`);
  return r.event;
}

function session(withSettings = true, plans = false, compaction = false): EventState {
  return {
    features: { plans, compaction },
    compactionId: undefined,
    options: withSettings ? optionsFromSettings(settings(CREATE_SETTINGS)) : {},
    title: undefined,
    tracker: new ToolCallTracker({ cwd: CWD, terminalOutput: false }),
    messageIds: {},
    lastPlanKey: undefined,
    lastUsage: undefined,
    steers: new Map(),
  };
}

/** Applies events to a session and returns what the editor was told (validated). */
function harness(s = session(), turn?: TurnHooks) {
  const out: SessionUpdate[] = [];
  const ctx: EventContext = { session: s, emit: (u) => out.push(u), ...(turn ? { turn } : {}) };
  return {
    s,
    out,
    apply(...events: ZCodeEvent[]): Any[] {
      const from = out.length;
      for (const e of events) applyEvent(ctx, e);
      const fresh = out.slice(from);
      expectValid(fresh);
      return fresh as Any[];
    },
  };
}

const text = (delta: string) => ev("model.streaming", { assistantMessageId: "msg_2", delta, done: false, kind: "text_delta" });
const thought = (delta: string) => ev("model.streaming", { kind: "reasoning_delta", delta });

describe("model.streaming", () => {
  test("text deltas: one agent message, one messageId for the run", () => {
    const h = harness();
    const u = h.apply(text("PRO"), text("BE"), text("_OK"));
    expect(u.map((x) => [x.sessionUpdate, x.content.text])).toEqual([
      ["agent_message_chunk", "PRO"],
      ["agent_message_chunk", "BE"],
      ["agent_message_chunk", "_OK"],
    ]);
    expect(new Set(u.map((x) => x.messageId)).size).toBe(1);
  });

  test("reasoning then text: a thought and a message, each with its own id; back to reasoning is a new thought", () => {
    const h = harness();
    const u = h.apply(thought("hm"), thought("m"), text("answer"), thought("again"));
    expect(u.map((x) => x.sessionUpdate)).toEqual([
      "agent_thought_chunk",
      "agent_thought_chunk",
      "agent_message_chunk",
      "agent_thought_chunk",
    ]);
    expect(u[0]!.messageId).toBe(u[1]!.messageId);
    expect(u[2]!.messageId).not.toBe(u[0]!.messageId);
    expect(u[3]!.messageId).not.toBe(u[0]!.messageId);
  });

  test("markers, input deltas and empty deltas carry nothing to show", () => {
    const h = harness();
    const kinds = ["start", "finish", "error", "text_start", "text_end", "reasoning_start", "reasoning_end", "tool_input_end"];
    expect(h.apply(...kinds.map((kind) => ev("model.streaming", { kind })))).toEqual([]);
    expect(h.apply(ev("model.streaming", { kind: "tool_input_delta", toolCallId: "c", delta: '{"co' }))).toEqual([]);
    expect(h.apply(text(""), thought(""))).toEqual([]);
    // Nor do they split a message.
    const u = h.apply(text("a"), ...kinds.map((kind) => ev("model.streaming", { kind })), text("b"));
    expect(u.map((x) => x.content.text)).toEqual(["a", "b"]);
    expect(u[0]!.messageId).toBe(u[1]!.messageId);
  });

  test("tool_input_start announces the tool by name; tool_call adds its input; text after it is a new message", () => {
    const h = harness();
    const before = h.apply(text("Let me look."));
    const u = h.apply(
      ev("model.streaming", { kind: "tool_input_start", toolCallId: "call_1", toolName: "Bash" }),
      ev("model.streaming", { kind: "tool_call", toolCallId: "call_1", input: { command: "ls" } }),
      text("Done."),
    );
    expect(u[0]).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_1", kind: "execute", status: "pending" });
    expect(u[1]).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_1", title: "ls" });
    expect(u[2]).toMatchObject({ sessionUpdate: "agent_message_chunk", content: { text: "Done." } });
    expect(u[2]!.messageId).not.toBe(before[0]!.messageId);
  });
});

describe("turns", () => {
  test("turn.started, turn.completed and turn.failed reach the running turn", () => {
    const calls: Array<[string, unknown?]> = [];
    const hooks = {
      started: () => calls.push(["started"]),
      completed: (p: Parameters<TurnHooks["completed"]>[0]) => calls.push(["completed", p.resultType]),
      failed: (p: Parameters<TurnHooks["failed"]>[0]) => calls.push(["failed", p.error?.code]),
      modelStopped: (reason: string) => calls.push(["modelStopped", reason]),
    } as TurnHooks;
    const h = harness(session(), hooks);
    h.apply(
      ev("turn.started", { turnNumber: 7, input: "hi", messageId: "msg_1" }),
      ev("turn.completed", { response: "PROBE_OK", usage: { inputTokens: 1 }, resultType: "success" }),
      ev("turn.failed", { error: { type: "model_error", code: "model_rate_limited", message: "x" }, turnPhase: "model_streaming" }),
    );
    expect(calls).toEqual([["started"], ["completed", "success"], ["failed", "model_rate_limited"]]);
  });

  test("a model request's stopReason (session.updated) reaches the running turn", () => {
    const calls: Array<[string, unknown?]> = [];
    const hooks = {
      started: () => calls.push(["started"]),
      completed: () => calls.push(["completed"]),
      failed: () => calls.push(["failed"]),
      modelStopped: (reason: string) => calls.push(["modelStopped", reason]),
    } as TurnHooks;
    const h = harness(session(), hooks);
    const u = h.apply(
      ev("session.updated", { content: "", stopReason: "tool_use", usage: { inputTokens: 10 }, contextWindow: 1000 }),
      ev("session.updated", { stopReason: "max_tokens" }),
      ev("session.updated", { mode: "plan", previousMode: "yolo" }),
    );
    expect(calls).toEqual([
      ["modelStopped", "tool_use"],
      ["modelStopped", "max_tokens"],
    ]);
    expect(u.map((x) => x.sessionUpdate)).toEqual(["usage_update", "config_option_update", "current_mode_update"]);
    // Without a turn: nothing to tell.
    expect(harness().apply(ev("session.updated", { stopReason: "max_tokens" }))).toEqual([]);
  });

  test("turn.started starts new messages; without a turn, the turn events change nothing", () => {
    const h = harness();
    const first = h.apply(text("a"));
    const second = h.apply(ev("turn.started", {}), text("b"));
    expect(second[0]!.messageId).not.toBe(first[0]!.messageId);
    expect(h.apply(ev("turn.completed", { resultType: "success" }), ev("turn.failed", {}))).toEqual([]);
  });
});

describe("session.titleUpdated", () => {
  test("session_info_update once per new title", () => {
    const h = harness();
    const payload = { previousTitle: "", source: "first_input", title: "Reply with exactly the token: PROBE_OK" };
    expect(h.apply(ev("session.titleUpdated", payload))).toEqual([
      { sessionUpdate: "session_info_update", title: "Reply with exactly the token: PROBE_OK" },
    ]);
    expect(h.apply(ev("session.titleUpdated", payload))).toEqual([]);
    expect(h.s.title).toBe("Reply with exactly the token: PROBE_OK");
    expect(h.apply(ev("session.titleUpdated", { title: "" }))).toEqual([]);
    expect(h.apply(ev("session.titleUpdated", { title: "Renamed" }))).toEqual([{ sessionUpdate: "session_info_update", title: "Renamed" }]);
  });
});

describe("session.updated", () => {
  test("a mode change {mode, previousMode}: config_option_update, then current_mode_update", () => {
    const h = harness();
    const u = h.apply(ev("session.updated", { mode: "build", previousMode: "plan", source: "tool" }));
    expect(u.map((x) => x.sessionUpdate)).toEqual(["config_option_update", "current_mode_update"]);
    expect(u[1]).toEqual({ sessionUpdate: "current_mode_update", currentModeId: "build" });
    expect(u[0]!.configOptions.find((o: Any) => o.id === "mode").currentValue).toBe("build");
    expect(h.s.options.mode?.current).toBe("build");
    expect(h.apply(ev("session.updated", { mode: "build", previousMode: "build" }))).toEqual([]);
  });

  test("a ZCode mode not listed before is added to the choices", () => {
    const h = harness();
    h.s.options = { ...h.s.options, mode: { current: "build", choices: h.s.options.mode!.choices.filter((c) => c.value !== "guarded") } };
    h.apply(ev("session.updated", { mode: "guarded", previousMode: "build" }));
    expect(h.s.options.mode?.choices.map((c) => c.value)).toContain("guarded");
  });

  test("only a real mode change moves the mode: previousMode present and a known mode id (not the follow-up mode)", () => {
    const h = harness();
    const before = h.s.options.mode?.current;
    expect(h.apply(ev("session.updated", { mode: "plan" }))).toEqual([]);
    expect(h.apply(ev("session.updated", { mode: "guide", previousMode: "queue" }))).toEqual([]);
    expect(h.apply(ev("session.updated", { mode: "turbo", previousMode: "yolo" }))).toEqual([]);
    expect(h.s.options.mode?.current).toBe(before);
  });

  test("a model request's usage: used = its input + output tokens (ZCode's own meter), size = its context window", () => {
    const h = harness();
    expect(
      h.apply(
        ev("session.updated", {
          content: "",
          stopReason: "end_turn",
          usage: { inputTokens: 1200, outputTokens: 3 },
          contextWindow: 128000,
        }),
      ),
    ).toEqual([{ sessionUpdate: "usage_update", used: 1203, size: 128000 }]);
  });

  test("contextWindow null or absent: the current model's window", () => {
    const h = harness();
    expect(h.apply(ev("session.updated", { usage: { inputTokens: 134370 }, contextWindow: null }))).toEqual([
      { sessionUpdate: "usage_update", used: 134370, size: 200000 },
    ]);
    expect(h.apply(ev("session.updated", { usage: { inputTokens: 140000 } }))).toEqual([
      { sessionUpdate: "usage_update", used: 140000, size: 200000 },
    ]);
    // The same figures again are not re-sent.
    expect(h.apply(ev("session.updated", { usage: { inputTokens: 140000 }, contextWindow: null }))).toEqual([]);
  });

  test("no window anywhere, no input tokens, or a hook's payload: nothing", () => {
    const h = harness(session(false));
    expect(h.apply(ev("session.updated", { usage: { inputTokens: 5 }, contextWindow: null }))).toEqual([]);
    const g = harness();
    expect(g.apply(ev("session.updated", { usage: { outputTokens: 5 }, contextWindow: 1000 }))).toEqual([]);
    expect(g.apply(ev("session.updated", { hookEventName: "SessionStart", hookIndex: 0, descriptor: { clientVisible: true } }))).toEqual(
      [],
    );
  });

  test("sessionUpdatedToUpdates returns both a mode change and usage from one payload", () => {
    const s = session();
    expect(
      sessionUpdatedToUpdates(s, { mode: "plan", previousMode: "build", usage: { inputTokens: 10 }, contextWindow: 100 }).map(
        (u) => u.sessionUpdate,
      ),
    ).toEqual(["config_option_update", "current_mode_update", "usage_update"]);
  });
});

describe("tool.updated and permission.resolved", () => {
  test("a TodoWrite result: the plan from the tool's input, sent once", () => {
    const h = harness();
    const call = (id: string) => [
      ev("model.streaming", { kind: "tool_call", toolCallId: id, toolName: "TodoWrite", input: TOOLS.todo.input }),
      ev("tool.updated", { kind: "result", toolCallId: id, result: TOOLS.todo.result, duration: 1 }),
    ];
    const u = h.apply(...call("td1"));
    expect(u.map((x) => x.sessionUpdate)).toEqual(["tool_call", "tool_call_update", "plan"]);
    expect(u[2]).toEqual({
      sessionUpdate: "plan",
      entries: [
        { content: "Read the code", status: "completed", priority: "high" },
        { content: "Fix the bug", status: "in_progress", priority: "high" },
        { content: "Add a test", status: "pending", priority: "medium" },
      ],
    });
    // The same list again: the tool call, no second plan.
    expect(h.apply(...call("td2")).map((x) => x.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
  });

  test("a client with the plan capability: plan_update by id, plan_removed once the list is emptied", () => {
    const h = harness(session(true, true));
    const todo = (id: string, todos: unknown[]) => [
      ev("model.streaming", { kind: "tool_call", toolCallId: id, toolName: "TodoWrite", input: { todos } }),
      ev("tool.updated", { kind: "result", toolCallId: id, result: { success: true, content: "ok" }, duration: 1 }),
    ];
    const first = h.apply(...todo("t1", [{ content: "a", status: "pending", priority: "high" }]));
    expect(first.at(-1)).toEqual({
      sessionUpdate: "plan_update",
      plan: { type: "items", planId: "todos", entries: [{ content: "a", status: "pending", priority: "high" }] },
    });
    expect(h.apply(...todo("t2", [])).at(-1)).toEqual({ sessionUpdate: "plan_removed", planId: "todos" });
    // Emptied again: nothing more to remove.
    expect(h.apply(...todo("t3", [])).map((x) => x.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
  });

  test("an approved ExitPlanMode: a Markdown plan for a client with the plan capability, nothing extra otherwise", () => {
    for (const plans of [true, false]) {
      const h = harness(session(true, plans));
      const u = h.apply(
        ev("model.streaming", { kind: "tool_call", toolCallId: "xp", toolName: "ExitPlanMode", input: { plan: "1. a\n2. b" } }),
        ev("tool.updated", {
          kind: "result",
          toolCallId: "xp",
          result: { success: true, content: "User has approved your plan." },
          duration: 1,
        }),
      );
      expect(u.filter((x) => x.sessionUpdate === "plan_update")).toEqual(
        plans ? [{ sessionUpdate: "plan_update", plan: { type: "markdown", planId: "plan-xp", content: "1. a\n2. b" } }] : [],
      );
      // The tool's rawOutput is the verdict, never ZCode's echo to the model.
      expect(u.at(plans ? -2 : -1)).toMatchObject({ sessionUpdate: "tool_call_update", rawOutput: "Plan approved." });
    }
  });

  test("ZCode's compaction progress: compaction_update for a client that takes it, one entity; nothing otherwise", () => {
    const start = ev("session.updated", { trigger: "auto", phase: "pre_request", preCompactTokenCount: 9000 });
    const end = ev("session.updated", { trigger: "auto", phase: "pre_request", preCompactTokenCount: 9000, postCompactTokenCount: 900 });
    const h = harness(session(true, false, true));
    const u = h.apply(start, end);
    expect(u.map((x) => [x.sessionUpdate, x.status])).toEqual([
      ["compaction_update", "in_progress"],
      ["compaction_update", "completed"],
    ]);
    expect(u[0]!.compactionId).toBe(u[1]!.compactionId);
    // An interrupted one is cancelled; a new one gets a new id.
    const v = h.apply(start, ev("session.updated", { trigger: "auto", preCompactTokenCount: 9000, status: "interrupted" }));
    expect(v.map((x) => x.status)).toEqual(["in_progress", "cancelled"]);
    expect(v[0]!.compactionId).not.toBe(u[0]!.compactionId);
    expect(harness().apply(start, end)).toEqual([]);
  });

  test("a failed TodoWrite sends no plan", () => {
    const h = harness();
    const u = h.apply(
      ev("model.streaming", { kind: "tool_call", toolCallId: "td", toolName: "TodoWrite", input: TOOLS.todo.input }),
      ev("tool.updated", {
        kind: "result",
        toolCallId: "td",
        result: { success: false, content: "", error: { message: "invalid todos" } },
      }),
    );
    expect(u.map((x) => x.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
  });

  test("permission.resolved deny: the tool fails", () => {
    const h = harness();
    const u = h.apply(
      ev("model.streaming", { kind: "tool_call", toolCallId: "call_1", toolName: "Bash", input: { command: "rm -rf /" } }),
      ev("permission.resolved", { requestId: "perm_1", toolCallId: "call_1", decision: "deny", reason: DENIED_BY_USER }),
    );
    expect(u[1]).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "failed" });
    expect(h.apply(ev("permission.resolved", { requestId: "perm_2", toolCallId: "call_1", decision: "allow" }))).toEqual([]);
  });
});

describe("usage_update and plan helpers", () => {
  test("usageUpdate: only what ACP can take", () => {
    expect(usageUpdate(10, 100)).toEqual({ sessionUpdate: "usage_update", used: 10, size: 100 });
    expect(usageUpdate(0, 100)).toEqual({ sessionUpdate: "usage_update", used: 0, size: 100 });
    for (const [used, size] of [
      [undefined, 100],
      [10, null],
      [-1, 100],
      [1.5, 100],
      [5, 0],
      [5, 2.5],
      [Number.NaN, 100],
    ] as const) {
      expect(usageUpdate(used, size)).toBeUndefined();
    }
  });

  test("emitPlan: the full list, not re-sent unchanged", () => {
    const s = session();
    const out: SessionUpdate[] = [];
    const ctx = { session: s, emit: (u: SessionUpdate) => out.push(u) };
    emitPlan(ctx, [{ content: "a", status: "pending", priority: "low" }]);
    emitPlan(ctx, [{ content: "a", status: "pending", priority: "low" }]);
    emitPlan(ctx, [{ content: "a", status: "completed", priority: "low" }]);
    expectValid(out);
    expect(out.map((u) => (u as Any).entries[0].status)).toEqual(["pending", "completed"]);
  });
});

describe("steers (v4 guides)", () => {
  const queued = (id: string, input: string) =>
    ev("turn.steerQueued", {
      inputId: id,
      queryId: id,
      pendingInputId: `queue_${id}`,
      input,
      inputPreview: input,
      inputSize: input.length,
      inputPresentation: "user_steer",
      delivery: "guide",
      targetTurnId: "turn_1",
      queueLength: 1,
    });

  test("taken into the turn: the steer shows as the user's words, and the reply after it is a new message", () => {
    const h = harness();
    const before = h.apply(ev("model.streaming", { kind: "text_delta", delta: "Working. " }))[0];
    expect(h.apply(queued("c1", "use TypeScript"))).toEqual([]);
    const drained = h.apply(
      ev("turn.steerDrained", {
        injectedMessageIds: ["m2"],
        pendingInputIds: ["queue_c1"],
        drainedInputs: [{ pendingInputId: "queue_c1", messageId: "m2", text: "use TypeScript", delivery: "guide" }],
        queryIds: ["c1"],
        targetTurnId: "turn_1",
      }),
    );
    expect(drained).toEqual([
      { sessionUpdate: "user_message_chunk", messageId: expect.any(String), content: { type: "text", text: "use TypeScript" } },
    ]);
    const after = h.apply(ev("model.streaming", { kind: "text_delta", delta: "OK, TypeScript." }))[0];
    expect(after!.messageId).not.toBe(before!.messageId);
    expect(h.s.steers.size).toBe(0);
  });

  test("fallen back (TurnSteerDeliveryChanged as session.updated): said, with the steer's text and what becomes of it", () => {
    const h = harness();
    h.apply(queued("c2", "also lint"));
    const [stopped] = h.apply(
      ev("session.updated", {
        admittedDelivery: "queue",
        fallbackReasonCode: "guide.turnInterrupted",
        pendingInputId: "queue_c2",
        requestedDelivery: "guide",
        targetTurnId: "turn_1",
      }),
    );
    expect(stopped!.content.text).toContain("This steer did not reach the turn: the turn was stopped first.");
    expect(stopped!.content.text).toContain("> also lint");
    h.apply(queued("c3", "then this"));
    const [noBoundary] = h.apply(
      ev("session.updated", {
        admittedDelivery: "queue",
        fallbackReasonCode: "guide.noToolBoundary",
        pendingInputId: "queue_c3",
        requestedDelivery: "guide",
        targetTurnId: "turn_1",
      }),
    );
    expect(noBoundary!.content.text).toContain("runs it as a turn of its own");
  });

  test("held by ZCode (stopped or failed first): said, and handed to steerHeld for removal; a fallback to a turn of its own is not", () => {
    const held: string[] = [];
    const s = session();
    const out: SessionUpdate[] = [];
    const ctx: EventContext = { session: s, emit: (u) => out.push(u), steerHeld: (id) => held.push(id) };
    applyEvent(ctx, queued("c4", "also lint"));
    applyEvent(ctx, ev("session.updated", { fallbackReasonCode: "guide.turnInterrupted", pendingInputId: "queue_c4" }));
    applyEvent(ctx, queued("c5", "then this"));
    applyEvent(ctx, ev("session.updated", { fallbackReasonCode: "guide.noToolBoundary", pendingInputId: "queue_c5" }));
    // core turn.ts: a failed turn says nothing of the guides it kept.
    applyEvent(ctx, queued("c6", "and docs"));
    applyEvent(ctx, ev("turn.failed", { error: { message: "boom" } }));
    expectValid(out);
    expect(held).toEqual(["queue_c4", "queue_c6"]);
    const texts = out.map((u) => (u as Any).content.text as string);
    expect(texts[2]).toContain("This steer did not reach the turn: the turn failed first.");
    expect(texts[2]).toContain("> and docs");
    expect(s.steers.size).toBe(0);
  });

  test("an input queued behind the turn (delivery queue) is no steer: nothing said when the turn fails", () => {
    const h = harness();
    h.apply(ev("turn.steerQueued", { pendingInputId: "queue_q1", input: "next prompt", delivery: "queue" }));
    expect(h.apply(ev("turn.failed", { error: { message: "boom" } }))).toEqual([]);
  });

  test("memory stays bounded however many steers are never taken in", () => {
    const h = harness();
    for (let i = 0; i < 500; i++) h.apply(queued(`x${i}`, "x"));
    expect(h.s.steers.size).toBeLessThanOrEqual(64);
  });
});
