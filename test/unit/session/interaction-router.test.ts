import { describe, expect, test } from "bun:test";
import { RequestError, type ClientCapabilities, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { InteractionRouter, type InteractionPort } from "../../../src/session/interaction-router.ts";
import { ToolCallTracker } from "../../../src/translate/tools/tracker.ts";
import { checkAgentMessage } from "../../support/schema.ts";
import {
  CWD,
  DENIED_BY_USER,
  PERMISSION_OPTIONS,
  PLAN_REQUEST,
  QUESTIONS,
  expectValid,
  permissionParams,
  questionRequest,
} from "../support/bridge-fixtures.ts";
import { settle } from "../support/session-fakes.ts";

type Any = Record<string, any>;

interface Call {
  method: string;
  params: Any;
  signal: AbortSignal;
  /** Updates sent before this request. */
  updatesBefore: number;
}

class FakePort implements InteractionPort {
  calls: Call[] = [];
  updates: Array<{ sessionId: string; update: SessionUpdate }> = [];
  cancelled = new Set<string>();
  trackers = new Map<string, ToolCallTracker>();
  answer: (c: Call) => unknown | Promise<unknown> = () => ({ outcome: { outcome: "cancelled" } });

  constructor(public clientCapabilities: ClientCapabilities | undefined = {}) {}

  request(method: string, params: unknown, opts: { cancellationSignal: AbortSignal }): Promise<unknown> {
    const c: Call = { method, params: params as Any, signal: opts.cancellationSignal, updatesBefore: this.updates.length };
    this.calls.push(c);
    const problems = checkAgentMessage({ jsonrpc: "2.0", id: this.calls.length, method, params }, () => undefined);
    if (problems.length) return Promise.reject(new Error(`invalid ${method}: ${problems.join("; ")}`));
    return Promise.resolve().then(() => this.answer(c));
  }
  sendUpdate(sessionId: string, update: SessionUpdate): void {
    this.updates.push({ sessionId, update });
  }
  trackerFor(sessionId: string): ToolCallTracker | undefined {
    return this.trackers.get(sessionId);
  }
  isCancelled(sessionId: string): boolean {
    return this.cancelled.has(sessionId);
  }
  methods(): string[] {
    return this.calls.map((c) => c.method);
  }
}

const FORM: ClientCapabilities = { elicitation: { form: {} } };

const permParams = (extra: Any = {}): Any => permissionParams(extra);

/** The answer ZCode wants for one of its options: the option's own response. */
const responseOf = (optionId: string) => PERMISSION_OPTIONS.find((o) => o.optionId === optionId)!.response;

const PLAN_APPROVED = { action: "accept", content: { answers: { "Review this implementation plan.": "approve" }, answer_0: "approve" } };

const select = (optionId: string) => () => ({ outcome: { outcome: "selected", optionId } });

describe("permission", () => {
  test("announces the tool first, same toolCallId, command visible, ZCode's options on ACP kinds; the chosen response verbatim", async () => {
    const port = new FakePort();
    port.trackers.set("s1", new ToolCallTracker({ cwd: CWD, terminalOutput: false }));
    port.answer = select("allow_project");
    const r = new InteractionRouter(port);
    expect(await r.handlePermission(permParams())).toEqual({
      decision: "allow",
      permissionUpdates: [{ behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "rm -rf build" }], type: "addRules" }],
      reason: "Approved for this project",
    });
    expect(port.methods()).toEqual(["session/request_permission"]);
    const call = port.calls[0]!;
    expect(call.updatesBefore).toBe(1);
    expect(port.updates[0]!.update).toMatchObject({
      sessionUpdate: "tool_call",
      toolCallId: "call_1",
      title: "rm -rf build",
      kind: "execute",
    });
    expectValid(port.updates.map((u) => u.update));
    expect(call.params.toolCall).toMatchObject({
      toolCallId: "call_1",
      title: "rm -rf build",
      kind: "execute",
      rawInput: { command: "rm -rf build" },
    });
    expect(call.params.options.map((o: Any) => [o.optionId, o.kind, o.name])).toEqual([
      ["allow_once", "allow_once", "Allow once"],
      ["allow_project", "allow_always", "Always allow in this project"],
      ["deny", "reject_once", "Deny"],
    ]);
  });

  test("a tool already announced is not announced again", async () => {
    const port = new FakePort();
    const t = new ToolCallTracker({ cwd: CWD, terminalOutput: false });
    t.ensureAnnounced("call_1", { toolName: "Bash", input: { command: "rm -rf build" } });
    port.trackers.set("s1", t);
    port.answer = select("allow_once");
    expect(await new InteractionRouter(port).handlePermission(permParams())).toEqual(responseOf("allow_once") as never);
    expect(port.updates).toHaveLength(0);
  });

  test("deny → ZCode's deny response; cancelled outcome → deny 'cancelled'; unknown option → deny", async () => {
    for (const [answer, expected] of [
      [select("deny"), { decision: "deny", reason: DENIED_BY_USER }],
      [() => ({ outcome: { outcome: "cancelled" } }), { decision: "deny", reason: "cancelled" }],
      [select("bogus"), { decision: "deny", reason: 'unknown option "bogus"' }],
    ] as const) {
      const port = new FakePort();
      port.answer = answer;
      expect(await new InteractionRouter(port).handlePermission(permParams())).toEqual(expected as never);
    }
  });

  test("a failing client request, or an answer without an outcome, denies with the reason", async () => {
    const port = new FakePort();
    port.answer = () => {
      throw new Error("client exploded");
    };
    const a = await new InteractionRouter(port).handlePermission(permParams());
    expect(a).toMatchObject({ decision: "deny" });
    expect((a as Any).reason).toContain("client exploded");
    const port2 = new FakePort();
    port2.answer = () => ({});
    expect((await new InteractionRouter(port2).handlePermission(permParams())).reason).toContain("without an outcome");
  });

  test("ZCode's re-sent copies (same requestId) are shown once and all get the same answer, also after it was given", async () => {
    const port = new FakePort();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    port.answer = async () => {
      await gate;
      return { outcome: { outcome: "selected", optionId: "allow_once" } };
    };
    const r = new InteractionRouter(port);
    const a = r.handlePermission(permParams());
    const b = r.handlePermission(permParams());
    await Promise.resolve();
    release();
    expect(await a).toEqual(responseOf("allow_once") as never);
    expect(await b).toEqual(responseOf("allow_once") as never);
    expect(await r.handlePermission(permParams())).toEqual(responseOf("allow_once") as never);
    expect(port.calls).toHaveLength(1);
    // A different requestId is a different question; the same requestId in another session too.
    await r.handlePermission(permParams({ requestId: "perm_2" }));
    await r.handlePermission(permParams({ sessionId: "s2" }));
    expect(port.calls).toHaveLength(3);
  });

  test("cancelSession answers pending ones deny and aborts the client request ($/cancel_request)", async () => {
    const port = new FakePort();
    port.answer = () => new Promise(() => {});
    const r = new InteractionRouter(port);
    const a = r.handlePermission(permParams());
    const other = r.handlePermission(permParams({ sessionId: "s2" }));
    await settle();
    expect(r.pendingCount).toBe(2);
    r.cancelSession("s1");
    expect(await a).toEqual({ decision: "deny", reason: "cancelled" });
    expect(port.calls[0]!.signal.aborted).toBe(true);
    expect(port.calls[1]!.signal.aborted).toBe(false);
    expect(r.pendingCount).toBe(1);
    // A late copy of the cancelled request gets the same answer without a prompt.
    expect(await r.handlePermission(permParams())).toEqual({ decision: "deny", reason: "cancelled" });
    expect(port.calls).toHaveLength(2);
    r.cancelAll();
    expect(await other).toEqual({ decision: "deny", reason: "cancelled" });
    expect(r.pendingCount).toBe(0);
  });

  test("a request for a cancelled turn is denied at once, not shown", async () => {
    const port = new FakePort();
    port.cancelled.add("s1");
    expect(await new InteractionRouter(port).handlePermission(permParams())).toEqual({ decision: "deny", reason: "cancelled" });
    expect(port.calls).toHaveLength(0);
    expect(port.updates).toHaveLength(0);
  });

  test("invalid params are refused with -32602", async () => {
    for (const bad of [{ sessionId: 3 }, { sessionId: "s1" }, null]) {
      const e = await new InteractionRouter(new FakePort()).handlePermission(bad).catch((x) => x);
      expect(e).toBeInstanceOf(RequestError);
      expect(e.code).toBe(-32602);
    }
  });

  test("without a live tracker the tool is still announced before the request; no toolCallId: one made from the requestId", async () => {
    const port = new FakePort();
    port.answer = select("allow_once");
    await new InteractionRouter(port, { cwdOf: () => CWD }).handlePermission(permParams({ toolCallId: undefined }));
    expect(port.updates[0]!.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "permission-perm_1" });
    expect(port.calls[0]!.params.toolCall.toolCallId).toBe("permission-perm_1");
    expectValid(port.updates.map((u) => u.update));
  });
});

describe("plan approval", () => {
  test("with elicitation.form: an approve/reject form answered as ZCode's broker reads it", async () => {
    for (const [resp, expected] of [
      [{ action: "accept", content: { decision: "approve" } }, PLAN_APPROVED],
      [
        { action: "accept", content: { decision: "reject", feedback: "Split step 2." } },
        { action: "accept", content: { answers: { "Review this implementation plan.": "Split step 2." }, answer_0: "Split step 2." } },
      ],
      [{ action: "accept", content: { decision: "reject" } }, { action: "decline" }],
      [{ action: "decline" }, { action: "decline" }],
      [{ action: "cancel" }, { action: "cancel" }],
    ] as const) {
      const port = new FakePort(FORM);
      port.answer = () => resp;
      expect(await new InteractionRouter(port).handleUserInput(PLAN_REQUEST)).toEqual(expected as never);
      expect(port.methods()).toEqual(["elicitation/create"]);
      const p = port.calls[0]!.params;
      expect(p).toMatchObject({ mode: "form", sessionId: "s1", toolCallId: "call_p" });
      expect(p.message).toContain("1. a\n2. b");
      expect(p.requestedSchema.properties.decision.oneOf.map((o: Any) => o.const)).toEqual(["approve", "reject"]);
      expect(port.updates[0]!.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_p", kind: "switch_mode" });
      expectValid(port.updates.map((u) => u.update));
    }
  });

  test("without elicitation.form: a permission request on the switch_mode tool call showing the plan", async () => {
    for (const caps of [{}, undefined, { elicitation: {} }, { elicitation: { form: null } }] as Array<ClientCapabilities | undefined>) {
      const port = new FakePort(caps);
      port.answer = select("approve");
      expect(await new InteractionRouter(port).handleUserInput(PLAN_REQUEST)).toEqual(PLAN_APPROVED as never);
      expect(port.methods()).toEqual(["session/request_permission"]);
      const p = port.calls[0]!.params;
      expect(p.toolCall).toMatchObject({ toolCallId: "call_p", kind: "switch_mode", content: [{ content: { text: "1. a\n2. b" } }] });
      expect(p.options.map((o: Any) => o.kind)).toEqual(["allow_once", "reject_once"]);
    }
    const port = new FakePort({});
    port.answer = select("reject");
    expect(await new InteractionRouter(port).handleUserInput(PLAN_REQUEST)).toEqual({ action: "decline" });
    const port2 = new FakePort({});
    port2.answer = () => ({ outcome: { outcome: "cancelled" } });
    expect(await new InteractionRouter(port2).handleUserInput(PLAN_REQUEST)).toEqual({ action: "cancel" });
  });

  test("a plan approval known only by its input's plan (no schema) is still one", async () => {
    const port = new FakePort({});
    port.answer = select("approve");
    const { schema: _s, questions: _q, ...bare } = PLAN_REQUEST;
    expect(await new InteractionRouter(port).handleUserInput(bare)).toEqual(PLAN_APPROVED as never);
  });
});

describe("AskUserQuestion", () => {
  test("with elicitation.form: one form, enum per single choice, array per multi-select, free text; answers under content.answers", async () => {
    const port = new FakePort(FORM);
    port.answer = () => ({ action: "accept", content: { q_0: ["auth.test.ts", "user.test.ts"], q_1: "Bun" } });
    const a = await new InteractionRouter(port).handleUserInput(questionRequest());
    expect(a).toEqual({
      action: "accept",
      content: { answers: { "Which files?": ["auth.test.ts", "user.test.ts"], "Framework?": "Bun" } },
    });
    expect(port.methods()).toEqual(["elicitation/create"]);
    const params = port.calls[0]!.params;
    expect(params).toMatchObject({ mode: "form", sessionId: "s1", toolCallId: "call_q", message: "Please answer 2 questions." });
    const props = params.requestedSchema.properties;
    expect(props.q_0).toMatchObject({ type: "array", title: "Which files?" });
    expect(props.q_1).toMatchObject({ type: "string", title: "Framework?" });
    expect(props.other).toMatchObject({ type: "string" });
    expect(port.updates[0]!.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_q", title: "Ask: Files, Framework" });
  });

  test("one question: the form's message is the question", async () => {
    const port = new FakePort(FORM);
    port.answer = () => ({ action: "accept", content: { q_0: "Jest" } });
    const a = await new InteractionRouter(port).handleUserInput(questionRequest({ questions: [QUESTIONS[1]], input: undefined }));
    expect(a).toEqual({ action: "accept", content: { answers: { "Framework?": "Jest" } } });
    expect(port.calls[0]!.params.message).toBe("Framework?");
  });

  test("questions only in the input; decline and cancel pass through", async () => {
    const port = new FakePort(FORM);
    port.answer = () => ({ action: "decline" });
    const r = new InteractionRouter(port);
    expect(await r.handleUserInput({ requestId: "r1", sessionId: "s1", input: { questions: QUESTIONS } })).toEqual({ action: "decline" });
    port.answer = () => ({ action: "cancel" });
    expect(await r.handleUserInput({ requestId: "r2", sessionId: "s1", questions: QUESTIONS })).toEqual({ action: "cancel" });
  });

  test("without elicitation.form: one permission request per question, answers under content.answers; multi-select → one choice in an array", async () => {
    const port = new FakePort({});
    const picks = ["option-1", "option-0"];
    port.answer = () => ({ outcome: { outcome: "selected", optionId: picks.shift() } });
    const a = await new InteractionRouter(port).handleUserInput(questionRequest());
    expect(a).toEqual({ action: "accept", content: { answers: { "Which files?": ["user.test.ts"], "Framework?": "Bun" } } });
    expect(port.methods()).toEqual(["session/request_permission", "session/request_permission"]);
    expect(port.calls[0]!.params.toolCall).toMatchObject({ toolCallId: "call_q", title: "Files: Which files?" });
    expect(port.calls[0]!.params.options.map((o: Any) => [o.name, o.kind])).toEqual([
      ["auth.test.ts", "allow_once"],
      ["user.test.ts", "allow_once"],
      ["Don't answer", "reject_once"],
    ]);
    expect(port.calls[1]!.params.toolCall.content[0].content.text).toBe("Framework?\n\n- **Bun**: fast");
  });

  test("without forms: 'Don't answer' declines, a cancelled prompt cancels and stops asking", async () => {
    const port = new FakePort({});
    port.answer = select("decline");
    expect(await new InteractionRouter(port).handleUserInput(questionRequest())).toEqual({ action: "decline" });
    const port2 = new FakePort({});
    port2.answer = () => ({ outcome: { outcome: "cancelled" } });
    expect(await new InteractionRouter(port2).handleUserInput(questionRequest())).toEqual({ action: "cancel" });
    expect(port2.calls).toHaveLength(1);
  });

  test("a cancelled turn's request is declined at once; cancelSession declines pending ones", async () => {
    const port = new FakePort(FORM);
    port.cancelled.add("s1");
    const r = new InteractionRouter(port);
    expect(await r.handleUserInput(questionRequest())).toEqual({ action: "decline" });
    expect(port.calls).toHaveLength(0);
    const port2 = new FakePort(FORM);
    port2.answer = () => new Promise(() => {});
    const r2 = new InteractionRouter(port2);
    const pending = r2.handleUserInput(PLAN_REQUEST);
    await settle();
    r2.cancelSession("s1");
    expect(await pending).toEqual({ action: "decline" });
    expect(port2.calls[0]!.signal.aborted).toBe(true);
  });

  test("re-sent copies of a question are asked once", async () => {
    const port = new FakePort(FORM);
    port.answer = () => ({ action: "accept", content: { q_0: ["auth.test.ts"], q_1: "Bun" } });
    const r = new InteractionRouter(port);
    const [a, b] = await Promise.all([r.handleUserInput(questionRequest()), r.handleUserInput(questionRequest())]);
    expect(b).toEqual(a);
    expect(port.calls).toHaveLength(1);
  });

  test("a request that is neither plan nor questions is declined; invalid params are refused", async () => {
    const port = new FakePort(FORM);
    expect(await new InteractionRouter(port).handleUserInput({ requestId: "r", sessionId: "s1" })).toEqual({ action: "decline" });
    expect(port.calls).toHaveLength(0);
    const e = await new InteractionRouter(port).handleUserInput({ sessionId: "s1" }).catch((x) => x);
    expect(e).toBeInstanceOf(RequestError);
    expect(e.code).toBe(-32602);
  });
});
