// One prompt turn against a scripted ZCode: what is sent, how each real turn
// end (turn.completed resultType, turn.failed with attribution.retryable) is
// answered, and races the simulator cannot time precisely (a cancel that
// lands while the turn is still getting ready to send must end it without
// ever sending the prompt to ZCode).
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { DEFAULT_TIMINGS, type Timings } from "../../../src/session/timings.ts";
import { Turn } from "../../../src/session/turn.ts";
import type { ZCodeAttachment } from "../../../src/zcode/api.ts";
import { advance, fakeSession, settle, tick, zcodeError } from "../support/session-fakes.ts";

// Under fake timers: "at once" is "with no time passing", and "never sent" holds however long we wait.
describe("Turn", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test("cancelled while resuming before the send: answers cancelled at once and never sends the prompt", async () => {
    const f = await fakeSession({ timings: { cancelGraceMs: DEFAULT_TIMINGS.cancelGraceMs } });
    // The child restarts right after the subscription; the resume answers only when told.
    f.zcode.answers["session/subscribe"] = () => {
      f.zcode.generation = 2;
      return { eventSeq: 0, events: [] };
    };
    let answerResume!: () => void;
    let resumeCalled!: () => void;
    const resuming = new Promise<void>((r) => (resumeCalled = r));
    f.zcode.answers["session/resume"] = () => {
      resumeCalled();
      return new Promise((r) => (answerResume = () => r({ session: { sessionId: "s1" } })));
    };
    const turn = new Turn(f.s, { text: "do not send me", attachments: [] });
    let answer: unknown;
    void turn.run().then((r) => (answer = r));
    await resuming;
    turn.cancel();
    await settle();
    expect(answer).toEqual({ stopReason: "cancelled" });
    answerResume();
    await advance(DEFAULT_TIMINGS.busyWaitMs, 100);
    expect(f.zcode.methods()).not.toContain("session/send");
    expect(f.zcode.methods()).not.toContain("session/stop");
  });
});

describe("interactions of a cancelled turn", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test("refused from the cancel until the next turn has really started, also while that turn waits", async () => {
    const f = await fakeSession({ timings: { cancelGraceMs: 20, busyWaitMs: DEFAULT_TIMINGS.busyWaitMs } });
    const s = f.s;
    const sends = () => f.zcode.methods().filter((m) => m === "session/send").length;
    const first = new Turn(s, { text: "first", attachments: [] });
    const firstAnswer = first.run();
    // ZCode starts the turn once the prompt reached it.
    await settle();
    expect(sends()).toBe(1);
    f.zcode.emit("turn.started", {}, { seq: 1 });
    expect(s.refusesInteractions).toBe(false);
    first.cancel();
    expect(s.refusesInteractions).toBe(true);
    await advance(20);
    expect(await firstAnswer).toEqual({ stopReason: "cancelled" });
    // ZCode ignored the stop: the next turn waits, and what ZCode asks meanwhile is the old turn's.
    const second = new Turn(s, { text: "second", attachments: [] });
    const secondAnswer = second.run();
    expect(s.refusesInteractions).toBe(true);
    f.zcode.emit("turn.completed", { resultType: "cancelled" }, { seq: 2 });
    // ZCode idle now: the second turn is sent, and until its turn.started, still refused.
    for (let i = 0; i < 100 && sends() < 2; i++) await advance(1);
    expect(sends()).toBe(2);
    expect(s.refusesInteractions).toBe(true);
    f.zcode.emit("turn.started", {}, { seq: 3 });
    expect(s.refusesInteractions).toBe(false);
    f.zcode.emit("turn.completed", { resultType: "success" }, { seq: 4 });
    expect((await secondAnswer).stopReason).toBe("end_turn");
  });
});

/** A session and a running turn on a scripted ZCode. */
async function start(text = "hi", opts: { attachments?: ZCodeAttachment[]; timings?: Partial<Timings> } = {}) {
  const f = await fakeSession(opts.timings ? { timings: opts.timings } : {});
  const s = f.s;
  const turn = new Turn(s, { text, attachments: opts.attachments ?? [] });
  const answer = turn.run();
  /** Resolves once the prompt reached ZCode. */
  const sent = async () => {
    for (let i = 0; i < 200 && !f.zcode.methods().includes("session/send"); i++) await tick(1);
  };
  return { ...f, turn, answer, sent };
}

describe("a turn on the real wire", () => {
  test("subscribed before sending; the text and attachments go out in session/send", async () => {
    const png: ZCodeAttachment = { kind: "image", filename: "a.png", mimeType: "image/png", sizeBytes: 3, dataBase64: "AAAA" };
    const t = await start("what is this?", { attachments: [png] });
    await t.sent();
    expect(t.zcode.methods()).toEqual(["session/subscribe", "session/send"]);
    expect(t.zcode.calls[1]!.params).toEqual({ sessionId: "s1", content: "what is this?", attachments: [png] });
    t.zcode.emit("turn.started", { turnNumber: 1, input: "what is this?" });
    t.zcode.emit("model.streaming", { kind: "text_delta", delta: "A cat." });
    t.zcode.emit("turn.completed", { response: "A cat.", resultType: "success" });
    expect(await t.answer).toEqual({ stopReason: "end_turn" });
    expect(t.editor.text()).toBe("A cat.");
  });

  test("an event type the bridge does not know, mid-turn, takes its seq and costs no extra session/subscribe", async () => {
    const t = await start();
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("model.streaming", { kind: "text_delta", delta: "a" });
    t.zcode.emit("hologram.projected", { anything: [1, 2, 3] });
    t.zcode.emit("turn.steerQueued", { pendingInputId: "p1" });
    t.zcode.emit("model.streaming", { kind: "text_delta", delta: "b" });
    t.zcode.emit("turn.completed", { resultType: "success" });
    expect(await t.answer).toEqual({ stopReason: "end_turn" });
    expect(t.editor.text()).toBe("ab");
    expect(t.zcode.methods().filter((m) => m === "session/subscribe")).toHaveLength(1);
    expect(t.s.intake.lastSeq).toBe(6);
  });

  test("turn.completed's usage becomes the answer's usage", async () => {
    const t = await start();
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.completed", {
      response: "PROBE_OK",
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
      resultType: "success",
    });
    expect(await t.answer).toEqual({
      stopReason: "end_turn",
      usage: { inputTokens: 134370, outputTokens: 4, totalTokens: 134374, thoughtTokens: 1, cachedReadTokens: 64, cachedWriteTokens: 0 },
    });
  });

  const ENDS: Array<[string, string, string | undefined]> = [
    ["success", "end_turn", undefined],
    ["cancelled", "cancelled", undefined],
    ["error_max_turns", "max_turn_requests", "limit of model requests"],
    ["error_max_tool_calls", "max_turn_requests", "limit of tool calls"],
    ["error_max_budget", "max_turn_requests", "token budget"],
    ["error_during_execution", "end_turn", "an error interrupted the turn"],
    ["some_future_result", "end_turn", undefined],
  ];
  for (const [resultType, stopReason, notice] of ENDS) {
    test(`resultType ${resultType} → ${stopReason}${notice ? ", with a notice" : ""}`, async () => {
      const t = await start();
      await t.sent();
      t.zcode.emit("turn.started");
      t.zcode.emit("turn.completed", { response: "", resultType });
      expect((await t.answer).stopReason).toBe(stopReason as never);
      if (notice) expect(t.editor.text()).toContain(notice);
      else expect(t.editor.text()).toBe("");
    });
  }

  for (const [reason, stopReason] of [
    ["max_tokens", "max_tokens"],
    ["length", "max_tokens"],
    ["refusal", "refusal"],
    ["content-filter", "refusal"],
    ["end_turn", "end_turn"],
    ["tool_use", "end_turn"],
  ] as const) {
    test(`a success whose last model request stopped at ${reason} → ${stopReason}`, async () => {
      const t = await start();
      await t.sent();
      t.zcode.emit("turn.started");
      // An earlier request of the turn does not count, only the last.
      t.zcode.emit("session.updated", { stopReason: reason === "end_turn" ? "max_tokens" : "tool_use", usage: { inputTokens: 1 } });
      t.zcode.emit("session.updated", { stopReason: reason, usage: { inputTokens: 2 } });
      t.zcode.emit("turn.completed", { resultType: "success" });
      expect((await t.answer).stopReason).toBe(stopReason);
    });
  }

  test("a cut-short answer does not override a cancel or a limit", async () => {
    for (const [resultType, stopReason] of [
      ["cancelled", "cancelled"],
      ["error_max_turns", "max_turn_requests"],
    ] as const) {
      const t = await start();
      await t.sent();
      t.zcode.emit("turn.started");
      t.zcode.emit("session.updated", { stopReason: "max_tokens" });
      t.zcode.emit("turn.completed", { resultType });
      expect((await t.answer).stopReason).toBe(stopReason);
    }
  });

  test("a retryable turn.failed (attribution.retryable) is sent again, with a notice", async () => {
    const t = await start();
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.failed", {
      error: {
        type: "model_error",
        code: "model_rate_limited",
        message: "Rate limit reached",
        attribution: { source: "provider", retryable: true, statusCode: 429 },
      },
      turnPhase: "model_streaming",
    });
    for (let i = 0; i < 100 && t.zcode.methods().filter((m) => m === "session/send").length < 2; i++) await tick(2);
    expect(t.zcode.methods().filter((m) => m === "session/send")).toHaveLength(2);
    expect(t.editor.text()).toContain("Rate limit reached; retrying");
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.completed", { resultType: "success" });
    expect((await t.answer).stopReason).toBe("end_turn");
  });

  test("a turn.failed that is not retryable fails the prompt with ZCode's message and code", async () => {
    const t = await start();
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.failed", {
      error: { type: "model_context_exceeded", code: "1261", message: "Model request exceeded the provider context window." },
      turnPhase: "model_streaming",
    });
    const e = await t.answer.catch((x) => x);
    expect(e).toBeInstanceOf(RequestError);
    expect(e.code).toBe(-32603);
    expect(e.message).toBe("ZCode: Model request exceeded the provider context window. (code 1261)");
    expect(t.zcode.methods().filter((m) => m === "session/send")).toHaveLength(1);
  });

  test("a failed turn withdraws the session's open interactions and fails its open tools", async () => {
    const withdrawn: string[] = [];
    const t = await start("hi");
    t.s.withdrawInteractions = () => void withdrawn.push(t.s.id);
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("model.streaming", { kind: "tool_input_start", toolCallId: "call_1", toolName: "Bash" });
    t.zcode.emit("turn.failed", { error: { message: "boom" } });
    await t.answer.catch(() => undefined);
    expect(withdrawn).toEqual(["s1"]);
    expect(t.editor.updates().at(-1)).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: "call_1", status: "failed" });
  });

  test("busy (-32010) from session/send: wait for idle, then send again", async () => {
    const t = await start();
    let sends = 0;
    t.zcode.answers["session/send"] = () =>
      ++sends === 1 ? zcodeError(-32010, "A prompt is already running for this session", "session/send") : { accepted: true };
    for (let i = 0; i < 200 && sends < 2; i++) await tick(1);
    expect(sends).toBe(2);
    expect(t.zcode.methods()).toContain("session/read");
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.completed", { resultType: "success" });
    expect((await t.answer).stopReason).toBe("end_turn");
  });

  test("cancel: session/stop as a request, then ZCode's `cancelled` ends the turn", async () => {
    const t = await start("hi", { timings: { cancelGraceMs: 5000 } });
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("model.streaming", { kind: "tool_input_start", toolCallId: "call_1", toolName: "Bash" });
    t.turn.cancel();
    await tick(1);
    expect(t.zcode.calls.filter((c) => c.method === "session/stop")).toEqual([{ method: "session/stop", params: { sessionId: "s1" } }]);
    t.zcode.emit("turn.completed", { response: "", resultType: "cancelled" });
    expect(await t.answer).toEqual({ stopReason: "cancelled" });
    expect(t.editor.updates().at(-1)).toMatchObject({
      toolCallId: "call_1",
      status: "failed",
      content: [{ content: { text: "Cancelled" } }],
    });
  });

  test("cancel: a ZCode that never ends the turn still gets an answer after the grace, and the next prompt waits for idle", async () => {
    const t = await start();
    await t.sent();
    t.zcode.emit("turn.started");
    t.turn.cancel();
    expect(await t.answer).toEqual({ stopReason: "cancelled" });
    expect(t.s.idleWaitDue).toBe(true);
  });

  test("nothing of a turn reaches the editor after its answer", async () => {
    const t = await start();
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("model.streaming", { kind: "text_delta", delta: "before" });
    t.turn.cancel();
    await t.answer;
    t.zcode.emit("model.streaming", { kind: "text_delta", delta: " after" });
    await t.s.flush();
    expect(t.editor.text()).toBe("before");
  });

  test("the end of turn read refreshes the title and the context in use", async () => {
    const t = await start();
    t.zcode.answers["session/read"] = {
      session: { sessionId: "s1", title: "Reply with exactly the token: PROBE_OK" },
      projection: { status: "idle", contextUsed: 134374, contextWindow: 200000 },
    };
    await t.sent();
    t.zcode.emit("turn.started");
    t.zcode.emit("turn.completed", { resultType: "success" });
    await t.answer;
    expect(t.editor.updates()).toEqual([
      { sessionUpdate: "session_info_update", title: "Reply with exactly the token: PROBE_OK" },
      { sessionUpdate: "usage_update", used: 134374, size: 200000 },
    ]);
  });
});
