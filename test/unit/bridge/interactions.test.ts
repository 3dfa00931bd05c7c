import { describe, expect, test } from "bun:test";
import { RequestError, type ClientCapabilities, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { InteractionRouter, acpOptionKind, answersFromForm, permissionOptions, type InteractionPort } from "../../../src/bridge/interactions.ts";
import { ToolCallTracker } from "../../../src/bridge/tool-calls.ts";
import { checkAgentMessage } from "../../support/schema.ts";
import { CWD, expectValid } from "../support/bridge-fixtures.ts";

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

function permParams(extra: Any = {}): Any {
  return {
    requestId: "req_1",
    sessionId: "s1",
    toolCallId: "call_1",
    toolName: "Bash",
    reason: "run command",
    input: { command: "rm -rf build" },
    options: [
      { optionId: "allow", kind: "allow_once", name: "Allow once" },
      { optionId: "allow_always", kind: "allow_always", name: "Always allow" },
      { optionId: "deny", kind: "deny_once", name: "Deny" },
      { optionId: "deny_always", kind: "deny_always", name: "Always deny" },
    ],
    ...extra,
  };
}

const select = (optionId: string) => () => ({ outcome: { outcome: "selected", optionId } });

describe("permission", () => {
  test("announces the tool first, same toolCallId, command visible, options on ACP's four kinds; allow", async () => {
    const port = new FakePort();
    port.trackers.set("s1", new ToolCallTracker({ cwd: CWD, terminalOutput: false }));
    port.answer = select("allow");
    const r = new InteractionRouter(port);
    expect(await r.handlePermission(permParams())).toEqual({ decision: "allow" });
    expect(port.methods()).toEqual(["session/request_permission"]);
    const call = port.calls[0]!;
    expect(call.updatesBefore).toBe(1);
    expect(port.updates[0]!.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_1", title: "rm -rf build", kind: "execute" });
    expectValid(port.updates.map((u) => u.update));
    expect(call.params.toolCall).toMatchObject({ toolCallId: "call_1", title: "rm -rf build", kind: "execute", rawInput: { command: "rm -rf build" } });
    expect(call.params.options.map((o: Any) => [o.optionId, o.kind])).toEqual([
      ["allow", "allow_once"],
      ["allow_always", "allow_always"],
      ["deny", "reject_once"],
      ["deny_always", "reject_always"],
    ]);
  });

  test("a tool already announced is not announced again", async () => {
    const port = new FakePort();
    const t = new ToolCallTracker({ cwd: CWD, terminalOutput: false });
    t.ensureAnnounced("call_1", { toolName: "Bash", input: { command: "rm -rf build" } });
    port.trackers.set("s1", t);
    port.answer = select("allow");
    await new InteractionRouter(port).handlePermission(permParams());
    expect(port.updates).toHaveLength(0);
  });

  test("reject → deny with a reason; cancelled outcome → deny 'cancelled'; unknown option → deny", async () => {
    for (const [answer, expected] of [
      [select("deny"), { decision: "deny", reason: "Rejected by the user" }],
      [select("deny_always"), { decision: "deny", reason: "Rejected by the user (always)" }],
      [() => ({ outcome: { outcome: "cancelled" } }), { decision: "deny", reason: "cancelled" }],
      [select("bogus"), { decision: "deny", reason: 'unknown option "bogus"' }],
    ] as const) {
      const port = new FakePort();
      port.answer = answer;
      expect(await new InteractionRouter(port).handlePermission(permParams())).toEqual(expected as never);
    }
  });

  test("a failing client request denies, with the reason", async () => {
    const port = new FakePort();
    port.answer = () => {
      throw new Error("client exploded");
    };
    const a = await new InteractionRouter(port).handlePermission(permParams());
    expect(a).toMatchObject({ decision: "deny" });
    expect((a as Any).reason).toContain("client exploded");
  });

  test("re-sent copies (same requestId) are shown once and all get the same answer, also after it was given", async () => {
    const port = new FakePort();
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    port.answer = async () => {
      await gate;
      return { outcome: { outcome: "selected", optionId: "allow" } };
    };
    const r = new InteractionRouter(port);
    const a = r.handlePermission(permParams());
    const b = r.handlePermission(permParams());
    await Promise.resolve();
    release();
    expect(await a).toEqual({ decision: "allow" });
    expect(await b).toEqual({ decision: "allow" });
    expect(await r.handlePermission(permParams())).toEqual({ decision: "allow" });
    expect(port.calls).toHaveLength(1);
    // A different requestId is a different question.
    await r.handlePermission(permParams({ requestId: "req_2" }));
    expect(port.calls).toHaveLength(2);
  });

  test("cancelSession answers pending ones deny and aborts the client request ($/cancel_request)", async () => {
    const port = new FakePort();
    port.answer = () => new Promise(() => {});
    const r = new InteractionRouter(port);
    const a = r.handlePermission(permParams());
    const other = r.handlePermission(permParams({ sessionId: "s2" }));
    await Bun.sleep(1);
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
  });

  test("a request for a cancelled turn is denied at once, not shown", async () => {
    const port = new FakePort();
    port.cancelled.add("s1");
    expect(await new InteractionRouter(port).handlePermission(permParams())).toEqual({ decision: "deny", reason: "cancelled" });
    expect(port.calls).toHaveLength(0);
    expect(port.updates).toHaveLength(0);
  });

  test("invalid params are refused with -32602", async () => {
    const e = await new InteractionRouter(new FakePort()).handlePermission({ sessionId: 3 }).catch((x) => x);
    expect(e).toBeInstanceOf(RequestError);
    expect(e.code).toBe(-32602);
  });

  test("option kinds: exact, by prefix, by id, dropped; none usable → Allow/Reject", () => {
    expect(acpOptionKind("deny_once")).toBe("reject_once");
    expect(acpOptionKind("allow_session")).toBe("allow_once");
    expect(acpOptionKind("allow_always_for_project")).toBe("allow_always");
    expect(acpOptionKind("reject")).toBe("reject_once");
    expect(acpOptionKind(undefined, "deny_always")).toBe("reject_always");
    expect(acpOptionKind("weird", "allow")).toBe("allow_once");
    expect(acpOptionKind("weird", "x")).toBeUndefined();
    expect(permissionOptions([{ optionId: "x", kind: "weird" }, { optionId: "ok", kind: "allow_once" }])).toEqual([
      { optionId: "ok", name: "Allow", kind: "allow_once" },
    ]);
    expect(permissionOptions(undefined).map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
    expect(permissionOptions([{ optionId: "x", kind: "weird" }]).map((o) => o.kind)).toEqual(["allow_once", "reject_once"]);
  });

  test("without a live tracker the tool is still announced before the request", async () => {
    const port = new FakePort();
    port.answer = select("allow");
    await new InteractionRouter(port, { cwdOf: () => CWD }).handlePermission(permParams({ toolCallId: undefined }));
    expect(port.updates[0]!.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "permission-req_1" });
    expect(port.calls[0]!.params.toolCall.toolCallId).toBe("permission-req_1");
  });
});

const PLAN = { requestId: "req_p", sessionId: "s1", toolCallId: "call_p", schema: { interaction: "plan_approval" }, input: { plan: "1. a\n2. b" } };

describe("plan approval", () => {
  test("with elicitation.form: an approve/reject form; approve → accept, reject → decline, cancel → cancel", async () => {
    for (const [resp, expected] of [
      [{ action: "accept", content: { decision: "approve" } }, { action: "accept", content: {} }],
      [{ action: "accept", content: { decision: "reject" } }, { action: "decline" }],
      [{ action: "decline" }, { action: "decline" }],
      [{ action: "cancel" }, { action: "cancel" }],
    ] as const) {
      const port = new FakePort(FORM);
      port.answer = () => resp;
      expect(await new InteractionRouter(port).handleUserInput(PLAN)).toEqual(expected as never);
      expect(port.methods()).toEqual(["elicitation/create"]);
      const p = port.calls[0]!.params;
      expect(p).toMatchObject({ mode: "form", sessionId: "s1", toolCallId: "call_p" });
      expect(p.message).toContain("1. a\n2. b");
      expect(p.requestedSchema.properties.decision.oneOf.map((o: Any) => o.const)).toEqual(["approve", "reject"]);
      expect(port.updates[0]!.update).toMatchObject({ sessionUpdate: "tool_call", toolCallId: "call_p", kind: "switch_mode" });
    }
  });

  test("without elicitation.form: a permission request on the switch_mode tool call showing the plan", async () => {
    for (const caps of [{}, undefined, { elicitation: {} }, { elicitation: { form: null } }] as Array<ClientCapabilities | undefined>) {
      const port = new FakePort(caps);
      port.answer = select("approve");
      expect(await new InteractionRouter(port).handleUserInput(PLAN)).toEqual({ action: "accept", content: {} });
      expect(port.methods()).toEqual(["session/request_permission"]);
      const p = port.calls[0]!.params;
      expect(p.toolCall).toMatchObject({ toolCallId: "call_p", kind: "switch_mode", content: [{ content: { text: "1. a\n2. b" } }] });
      expect(p.options.map((o: Any) => o.kind)).toEqual(["allow_once", "reject_once"]);
    }
    const port = new FakePort({});
    port.answer = select("reject");
    expect(await new InteractionRouter(port).handleUserInput(PLAN)).toEqual({ action: "decline" });
  });
});

const QUESTIONS = [
  { question: "Which files?", header: "Files", multiSelect: true, options: [{ label: "auth.test.ts", value: "auth" }, { label: "user.test.ts", value: "user" }] },
  { question: "Framework?", multiSelect: false, options: [{ label: "Bun", value: "bun", description: "fast" }, { label: "Jest" }] },
];

describe("AskUserQuestion", () => {
  test("with elicitation.form: one form, enum per single choice, array per multi-select, free text; values mapped back", async () => {
    const port = new FakePort(FORM);
    port.answer = () => ({ action: "accept", content: { q_0: ["auth", "user.test.ts"], q_1: "bun" } });
    const a = await new InteractionRouter(port).handleUserInput({ requestId: "r", sessionId: "s1", toolCallId: "c", input: { questions: QUESTIONS } });
    expect(a).toEqual({ action: "accept", content: { "Which files?": ["auth", "user"], "Framework?": "bun" } });
    expect(port.methods()).toEqual(["elicitation/create"]);
    const props = port.calls[0]!.params.requestedSchema.properties;
    expect(props.q_0).toMatchObject({ type: "array", title: "Which files?", items: { anyOf: [{ const: "auth", title: "auth.test.ts" }, { const: "user", title: "user.test.ts" }] } });
    expect(props.q_1).toMatchObject({ type: "string", title: "Framework?", oneOf: [{ const: "bun", title: "Bun", description: "fast" }, { const: "Jest", title: "Jest" }] });
    expect(props.other).toMatchObject({ type: "string" });
  });

  test("top-level questions; decline and cancel pass through", async () => {
    const port = new FakePort(FORM);
    port.answer = () => ({ action: "decline" });
    const r = new InteractionRouter(port);
    expect(await r.handleUserInput({ requestId: "r1", sessionId: "s1", questions: QUESTIONS })).toEqual({ action: "decline" });
    port.answer = () => ({ action: "cancel" });
    expect(await r.handleUserInput({ requestId: "r2", sessionId: "s1", questions: QUESTIONS })).toEqual({ action: "cancel" });
  });

  test("free text answers the questions left open, else travels as 'other'", () => {
    expect(answersFromForm(QUESTIONS, { q_1: "bun", other: "  the flaky ones " })).toEqual({ "Which files?": ["the flaky ones"], "Framework?": "bun" });
    expect(answersFromForm(QUESTIONS, { q_0: ["auth"], q_1: "Bun", other: "note" })).toEqual({ "Which files?": ["auth"], "Framework?": "bun", other: "note" });
    expect(answersFromForm(QUESTIONS, {})).toEqual({});
  });

  test("without elicitation.form: one permission request per question, options as allow_once; multi-select → one choice in an array", async () => {
    const port = new FakePort({});
    const picks = ["option-1", "option-0"];
    port.answer = () => ({ outcome: { outcome: "selected", optionId: picks.shift() } });
    const a = await new InteractionRouter(port).handleUserInput({ requestId: "r", sessionId: "s1", toolCallId: "c", questions: QUESTIONS });
    expect(a).toEqual({ action: "accept", content: { "Which files?": ["user"], "Framework?": "bun" } });
    expect(port.methods()).toEqual(["session/request_permission", "session/request_permission"]);
    expect(port.calls[0]!.params.toolCall).toMatchObject({ toolCallId: "c", title: "Files: Which files?" });
    expect(port.calls[0]!.params.options.map((o: Any) => [o.name, o.kind])).toEqual([
      ["auth.test.ts", "allow_once"],
      ["user.test.ts", "allow_once"],
      ["Don't answer", "reject_once"],
    ]);
  });

  test("without forms: 'Don't answer' declines, a cancelled prompt cancels and stops asking", async () => {
    const port = new FakePort({});
    port.answer = select("decline");
    expect(await new InteractionRouter(port).handleUserInput({ requestId: "r", sessionId: "s1", questions: QUESTIONS })).toEqual({ action: "decline" });
    const port2 = new FakePort({});
    port2.answer = () => ({ outcome: { outcome: "cancelled" } });
    expect(await new InteractionRouter(port2).handleUserInput({ requestId: "r", sessionId: "s1", questions: QUESTIONS })).toEqual({ action: "cancel" });
    expect(port2.calls).toHaveLength(1);
  });

  test("a cancelled turn's request is declined at once; cancelSession declines pending ones", async () => {
    const port = new FakePort(FORM);
    port.cancelled.add("s1");
    const r = new InteractionRouter(port);
    expect(await r.handleUserInput({ requestId: "r", sessionId: "s1", questions: QUESTIONS })).toEqual({ action: "decline" });
    expect(port.calls).toHaveLength(0);
    const port2 = new FakePort(FORM);
    port2.answer = () => new Promise(() => {});
    const r2 = new InteractionRouter(port2);
    const pending = r2.handleUserInput(PLAN);
    await Bun.sleep(1);
    r2.cancelSession("s1");
    expect(await pending).toEqual({ action: "decline" });
    expect(port2.calls[0]!.signal.aborted).toBe(true);
  });

  test("a request that is neither plan nor questions is declined", async () => {
    const port = new FakePort(FORM);
    expect(await new InteractionRouter(port).handleUserInput({ requestId: "r", sessionId: "s1" })).toEqual({ action: "decline" });
    expect(port.calls).toHaveLength(0);
  });
});
