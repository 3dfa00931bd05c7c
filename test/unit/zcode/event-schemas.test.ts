// session/event envelopes and payloads as a real CLI sends them: every
// envelope is routed (each takes a seq), then read as one of the types the
// bridge uses, told apart from types it does not use and from broken payloads.
import { describe, expect, test } from "bun:test";
import { KNOWN_EVENT_TYPES, parseEvent, readEnvelope, type RawEvent } from "../../../src/zcode/event-schemas.ts";

const SID = "sess_87b8cfd7-66c0-43d1-8133-23a659bae7b2";

/** A full envelope as the CLI writes it (eventId, traceId, timestamp and all). */
const env = (type: string, payload: unknown, extra: Record<string, unknown> = {}): RawEvent => {
  const e = readEnvelope({
    eventId: "ba62ed88-8c55-4431-83ca-32a57b0b2395",
    sessionId: SID,
    seq: 5,
    traceId: "fac306de-bf37-4eff-94ca-eb8476962e3c",
    timestamp: 1790039046427,
    turnId: "turn_1",
    type,
    payload,
    ...extra,
  });
  if (typeof e === "string") throw new Error(e);
  return e;
};

describe("readEnvelope", () => {
  test("keeps what routing and ordering need, whatever the type", () => {
    const e = env("session.resumed", { messageCount: 15 });
    expect(e).toMatchObject({ sessionId: SID, seq: 5, type: "session.resumed", turnId: "turn_1", payload: { messageCount: 15 } });
    expect(readEnvelope({ sessionId: "s", seq: 0, type: "turn.started" })).toMatchObject({ seq: 0 });
  });

  test("says why an envelope is unusable", () => {
    expect(readEnvelope(null)).toBe("params is not an object");
    expect(readEnvelope("x")).toBe("params is not an object");
    expect(readEnvelope({ seq: 1, type: "turn.started" })).toStartWith("sessionId");
    expect(readEnvelope({ sessionId: "", seq: 1, type: "turn.started" })).toStartWith("sessionId");
    expect(readEnvelope({ sessionId: "s", type: "turn.started" })).toStartWith("seq");
    expect(readEnvelope({ sessionId: "s", seq: -1, type: "t" })).toStartWith("seq");
    expect(readEnvelope({ sessionId: "s", seq: 1.5, type: "t" })).toStartWith("seq");
    expect(readEnvelope({ sessionId: "s", seq: "3", type: "t" })).toStartWith("seq");
    expect(readEnvelope({ sessionId: "s", seq: 1 })).toStartWith("type");
  });
});

describe("parseEvent: the types the bridge reads", () => {
  test("every one of them parses from its real payload", () => {
    const good: RawEvent[] = [
      env("turn.started", {
        turnNumber: 7,
        input: "Reply with exactly the token: PROBE_OK",
        messageId: "msg_1",
        executionStartedAt: 1790039035583.7253,
      }),
      env("turn.started", undefined),
      env("model.streaming", { assistantMessageId: "msg_2", delta: "PRO", done: false, kind: "text_delta" }),
      env("model.streaming", { kind: "reasoning_delta", delta: "hm" }),
      env("model.streaming", { kind: "tool_input_start", toolCallId: "call_1", toolName: "Bash" }),
      env("model.streaming", { kind: "tool_input_delta", toolCallId: "call_1", delta: '{"command":' }),
      env("model.streaming", { kind: "tool_call", toolCallId: "call_1", input: { command: "ls" } }),
      env("tool.updated", {
        kind: "scheduled",
        toolCallId: "call_1",
        toolName: "Bash",
        inputByteLength: 17,
        inputOmitted: true,
        inputRef: "model_stream",
        schedule: { parallelGroups: [["call_1"]], executionOrder: ["call_1"] },
      }),
      env("tool.updated", { kind: "started", toolCallId: "call_1", toolName: "Bash", startedAt: 1760000000080 }),
      env("tool.updated", {
        kind: "progress",
        toolCallId: "call_1",
        toolName: "Bash",
        elapsedMs: 10,
        pid: 4,
        stdoutTail: "a",
        stderrTail: "",
        outputPreview: { text: "a" },
      }),
      env("tool.updated", {
        kind: "result",
        toolCallId: "call_1",
        duration: 33,
        result: {
          success: true,
          content: "README.md\nsrc",
          perf: { totalMs: 48, permissionWaitMs: 0, detail: { kind: "command", command: { exitCode: 0, status: "completed" } } },
          truncated: false,
          originalBytes: 13,
          returnedBytes: 13,
          budgetStrategy: "artifact",
        },
      }),
      env("tool.updated", {
        kind: "error",
        toolCallId: "call_1",
        error: { type: "tool_execution_failed", message: "String to replace not found in file.", code: "8" },
      }),
      env("tool.updated", { kind: "batch", toolCallIds: ["call_1", "call_2"], successCount: 1, errorCount: 1 }),
      env("turn.completed", {
        response: "PROBE_OK",
        tokenCount: 134374,
        usage: {
          source: "provider",
          modelRequestCount: 1,
          inputTokens: 134370,
          outputTokens: 4,
          totalTokens: 134374,
          cacheReadTokens: 64,
          cacheWriteTokens: 0,
          reasoningTokens: 1,
        },
        toolCallCount: 0,
        duration: 11229,
        resultType: "success",
      }),
      env("turn.failed", {
        error: { type: "model_error", code: "model_rate_limited", message: "Rate limit reached", attribution: { retryable: true } },
        turnPhase: "model_streaming",
      }),
      env("session.titleUpdated", { previousTitle: "", source: "first_input", title: "Reply with exactly the token: PROBE_OK" }),
      env("session.updated", { mode: "build", previousMode: "plan", source: "tool" }),
      env("session.updated", { usage: { inputTokens: 1200, outputTokens: 3 }, contextWindow: null, stopReason: "end_turn" }),
      env("session.updated", { hookEventName: "SessionStart", descriptor: { clientVisible: true } }),
      env("permission.resolved", {
        requestId: "perm_1",
        toolCallId: "call_1",
        decision: "deny",
        reason: "The user doesn't want to proceed…",
      }),
      env("turn.steerQueued", {
        inputId: "c1",
        queryId: "c1",
        pendingInputId: "queue_c1",
        input: "use TypeScript",
        inputPreview: "use TypeScript",
        inputSize: 14,
        inputPresentation: "user_steer",
        delivery: "guide",
        targetTurnId: "turn_1",
        queueLength: 1,
      }),
      env("turn.steerDrained", {
        injectedMessageIds: ["m2"],
        pendingInputIds: ["queue_c1"],
        drainedInputs: [{ pendingInputId: "queue_c1", messageId: "m2", text: "use TypeScript", delivery: "guide" }],
        queryIds: ["c1"],
        targetTurnId: "turn_1",
      }),
    ];
    for (const g of good) {
      const r = parseEvent(g);
      if (!r.ok) throw new Error(`${JSON.stringify(g).slice(0, 200)}: ${JSON.stringify(r)}`);
      expect(r.event.type).toBe(g.type as never);
      expect(r.event.seq).toBe(5);
      expect(r.event.sessionId).toBe(SID);
      expect(r.event.turnId).toBe("turn_1");
    }
    expect(new Set(good.map((g) => g.type))).toEqual(KNOWN_EVENT_TYPES as Set<string>);
  });

  test("payloads are typed by their event type", () => {
    const r = parseEvent(env("model.streaming", { kind: "text_delta", delta: "hé" }));
    if (r.ok && r.event.type === "model.streaming") expect(r.event.payload.delta).toBe("hé");
    else throw new Error("model.streaming did not narrow");
    const t = parseEvent(env("tool.updated", { kind: "batch", toolCallIds: ["a"], successCount: 0, errorCount: 1 }));
    if (t.ok && t.event.type === "tool.updated") expect(t.event.payload).toMatchObject({ toolCallIds: ["a"], errorCount: 1 });
    else throw new Error("tool.updated did not narrow");
    const c = parseEvent(env("turn.completed", { resultType: "cancelled", response: "" }));
    if (c.ok && c.event.type === "turn.completed") expect(c.event.payload.resultType).toBe("cancelled");
    else throw new Error("turn.completed did not narrow");
  });

  test("a tool result's exit code and display stay as ZCode sent them", () => {
    const r = parseEvent(
      env("tool.updated", {
        kind: "result",
        toolCallId: "c",
        result: {
          success: true,
          content: "Exit code 2\nboom",
          display: { kind: "bash_output", output: "boom", truncated: true, outputPath: "/tmp/out" },
          perf: { detail: { kind: "command", command: { exitCode: 2, status: "failed" } } },
        },
      }),
    );
    if (!r.ok || r.event.type !== "tool.updated") throw new Error("did not parse");
    expect(r.event.payload.result?.display).toEqual({ kind: "bash_output", output: "boom", truncated: true, outputPath: "/tmp/out" });
    expect(r.event.payload.result?.perf).toEqual({ detail: { kind: "command", command: { exitCode: 2, status: "failed" } } });
  });

  test("a drifting detail reads as absent, the event still parses", () => {
    const r = parseEvent(
      env("tool.updated", { kind: "result", toolCallId: "c", result: { success: "yes", content: 7 }, toolCallIds: "nope" }),
    );
    if (!r.ok || r.event.type !== "tool.updated") throw new Error("did not parse");
    expect(r.event.payload.result?.success).toBeUndefined();
    expect(r.event.payload.result?.content).toBeUndefined();
    expect(r.event.payload.toolCallIds).toBeUndefined();
    const u = parseEvent(env("session.updated", { mode: 3, usage: { inputTokens: "many" } }));
    if (!u.ok || u.event.type !== "session.updated") throw new Error("did not parse");
    expect(u.event.payload.mode).toBeUndefined();
    expect(u.event.payload.usage?.inputTokens).toBeUndefined();
  });
});

describe("parseEvent: everything else", () => {
  test("types the bridge does not read are reported as unknown (their seq is still consumed by the caller)", () => {
    for (const type of [
      "session.created",
      "session.resumed",
      "session.closed",
      "rewind.triggered",
      "checkpoint.created",
      "streamRecovery.updated",
      "message.upserted",
      "permission.requested",
      "turn.someday",
    ]) {
      expect(parseEvent(env(type, { anything: true }))).toEqual({ ok: false, unknownType: true, type });
    }
  });

  test("a known type with a payload the bridge cannot read is an issue, not an unknown type", () => {
    const bad: RawEvent[] = [
      env("model.streaming", {}),
      env("model.streaming", { kind: 7 }),
      env("tool.updated", { toolCallId: "c" }),
      env("session.titleUpdated", {}),
      env("session.titleUpdated", { title: null }),
      env("turn.completed", "string"),
    ];
    for (const b of bad) {
      const r = parseEvent(b);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.unknownType).toBe(false);
      if (!r.unknownType) expect(r.issue).toStartWith("payload");
    }
  });
});
