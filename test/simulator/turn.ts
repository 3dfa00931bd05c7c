// One turn: the events it streams (stored with seq, pushed when subscribed),
// the messages it adds to the transcript (the CLI's part shapes), its model
// requests ("steps"), its tools with their permission flow, and stop handling.
//
// Event order of a step with tools, as the CLI's runtime emits it:
//   model.streaming reasoning_delta/text_delta* (assistantMessageId)
//   model.streaming tool_input_start, tool_input_delta*, tool_input_end, tool_call
//   session.updated {stopReason, usage, contextWindow}      (model request done)
//   tool.updated scheduled (input omitted: streamed already)
//   per tool: [permission.requested, (interaction), permission.resolved]
//             tool.updated started, progress*, result | error
//   tool.updated batch {toolCallIds, successCount, errorCount}
//   per tool: [checkpoint.created (Edit/Write)], streamRecovery.updated (anchor)
//   … next step …
import { askV4 } from "./v4-interactions.ts";
import type { TurnAttachment } from "./attachments.ts";
import type { Answer } from "./interactions.ts";
import { permissionResponse, userInputResponse } from "./zcode-schemas.ts";
import { formatIssues, validate } from "./schema.ts";
import type { PendingPermission, Runtime, Sim } from "./sim.ts";
import { contextWindow, settings } from "./snapshot.ts";
import { newId, uuid } from "./store.ts";
import type { AssistantInfo, Message, SessionRecord, TokenUsage, ToolPart, TurnLog, UserInfo } from "./types.ts";

export class Stopped extends Error {
  constructor() {
    super("turn stopped");
  }
}

export const PERMISSION_DENIED_BY_USER_CONTENT =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

export const PLAN_QUESTION = "Review this implementation plan.";

/** Text parts stop growing past this (floods); the stream itself is not capped. */
const MAX_PART_CHARS = 1 << 20;

export interface TurnFailure {
  type: string;
  code?: string;
  message: string;
  attribution?: Record<string, unknown>;
  retryable?: boolean;
  detail?: string;
  turnPhase: string;
}

export interface Usage {
  source: "provider";
  modelRequestCount: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  cacheReadTokens: number;
  cacheWriteTokens: number;
  reasoningTokens: number;
  webSearchRequests: number;
  webFetchRequests: number;
}

export interface ToolCall {
  toolCallId: string;
  toolName: string;
  input: Record<string, unknown>;
  part: ToolPart;
  assistantMessageId: string;
  startedAt?: number;
  permissionWaitMs: number;
  outcome?: "success" | "error" | "denied";
}

export type ToolOutcome =
  | {
      kind: "result";
      content: string;
      display?: Record<string, unknown>;
      detail?: Record<string, unknown>;
      budgetStrategy?: "inline" | "truncate" | "artifact";
      duration?: number;
    }
  | { kind: "error"; type: string; message: string; code?: string };

/** How a tool is approved before it runs. */
export type Approval =
  | { kind: "permission"; reason?: string; riskLevel?: "low" | "medium" | "high" | "critical" }
  | { kind: "plan" }
  | { kind: "question" };

export interface ToolExec {
  approval?: Approval;
  /** Runs after `started`; may stream progress. `input` is the (possibly modified) input. */
  run(call: ToolCall, input: Record<string, unknown>): Promise<ToolOutcome>;
}

type Verdict = { allow: true; input: Record<string, unknown> } | { allow: false; reason: string } | { fail: string };

function isObj(x: unknown): x is Record<string, unknown> {
  return !!x && typeof x === "object" && !Array.isArray(x);
}

const zeroTokens = (): TokenUsage => ({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });

/** `buildProtocolPermissionOptions`' default rule content. */
export function ruleContentOf(input: unknown): string | undefined {
  if (typeof input === "string" && input.trim()) return input;
  if (!isObj(input)) return undefined;
  for (const k of ["command", "url", "file_path", "path", "pattern"]) {
    const v = input[k];
    if (typeof v === "string" && v.trim()) return v;
  }
  return undefined;
}

/** The legacy permission options (allow_once, allow_project, deny) of interaction/requestPermission. */
export function permissionOptions(toolName: string, input: unknown): Record<string, unknown>[] {
  const ruleContent = ruleContentOf(input);
  const rule: Record<string, unknown> = { toolName };
  if (ruleContent !== undefined) rule.ruleContent = ruleContent;
  return [
    { kind: "allow_once", name: "Allow once", optionId: "allow_once", response: { decision: "allow", reason: "Approved once" } },
    {
      description: "Do not ask again for matching requests in this project",
      kind: "allow_always",
      name: "Always allow in this project",
      optionId: "allow_project",
      response: {
        decision: "allow",
        permissionUpdates: [{ behavior: "allow", rules: [rule], type: "addRules" }],
        reason: "Approved for this project",
      },
    },
    { kind: "deny", name: "Deny", optionId: "deny", response: { decision: "deny", reason: PERMISSION_DENIED_BY_USER_CONTENT } },
  ];
}

/** The broker's reading of an answer: trims, drops blanks, joins arrays with ", ". */
function answerValue(v: unknown): string | undefined {
  if (typeof v === "string") return v.trim() || undefined;
  if (Array.isArray(v)) {
    const s = v
      .map((x) => (typeof x === "string" ? x.trim() : ""))
      .filter(Boolean)
      .join(", ");
    return s || undefined;
  }
  return undefined;
}

interface Step {
  message: Message;
  info: AssistantInfo;
  text: string;
  outputChars: number;
  reasoningChars: number;
}

export class Turn {
  readonly id = newId("turn");
  readonly startedAt = Date.now();
  private readonly abort = new AbortController();
  private stopRequestedAt: number | undefined;
  /** How long a session/stop is ignored (`ignore-stop`). */
  ignoreStopMs = 0;
  resultType = "success";
  failure: TurnFailure | undefined;
  /** Set by a scenario whose deltas must each be an event of its own (`seq-gap`, `flood`: no CLI batching). */
  unbatched = false;
  /** Set by a scenario to choose which events are pushed live (`seq-gap`). */
  live: (type: string) => boolean = () => true;
  /** Overrides the usage of the next model request (`usage`). */
  nextStepUsage: Partial<Usage> | undefined;
  stopReasonOverride: string | undefined;
  step: Step | undefined;
  /** The text of the last model request: turn.completed.response. */
  response = "";
  toolCallCount = 0;
  historyRoundCount = 0;
  usage: Usage = {
    source: "provider",
    modelRequestCount: 0,
    inputTokens: 0,
    outputTokens: 0,
    totalTokens: 0,
    cacheReadTokens: 0,
    cacheWriteTokens: 0,
    reasoningTokens: 0,
    webSearchRequests: 0,
    webFetchRequests: 0,
  };
  /** Appended to the echo of the default reply (attachments, auth). */
  notes: string[] = [];
  userMessage!: Message;
  /** v4: guides steered into this turn, not yet drained (steering.ts pendingInputs). */
  guides: { commandId: string; text: string }[] = [];
  /** Inputs queued behind this turn (delivery "queue"), promoted after it (v4-queue.ts). */
  queued: { commandId: string; text: string }[] = [];
  /**
   * Started through the v4 prompt path (a command, or the queue draining):
   * legacy session/stop does not reach it (server-operations.ts stopSession
   * aborts only the record's activeAbortController, which that path never sets).
   */
  v4Started = false;
  /** v4-only: sendText.modelExecution.requestAuth, this execution's provider credentials (runner.ts v4RequestAuth). */
  requestAuth?: Record<string, unknown>;
  /**
   * The core's turn is over (turn.completed/failed emitted): the runtime's projection, which
   * session/read reports (session-mapper.ts buildSessionSnapshot → runtime.getProjection()), is
   * idle, while the prompt lock sendPrompt checks is still held until the turn's completion
   * resolves (server-operations.ts runPromptTurnInBackground, `finally`).
   */
  coreEnded = false;
  /** turn.started's foregroundExecutionId (what a v4 stop names). */
  foregroundExecutionId: string | undefined;
  /** v4: the projection's record of this turn. */
  log: TurnLog | undefined;

  constructor(
    readonly sim: Sim,
    readonly s: SessionRecord,
    readonly r: Runtime,
    readonly o: {
      /** Prompt text without the scenario tag. */
      text: string;
      raw: string;
      scenario: string;
      params: Record<string, string>;
      kind: "regular" | "compact";
      inputId?: string;
      queryId?: string;
      attachments: TurnAttachment[];
      inputSource?: string;
      /** state.updated reasons at the end: [completed, failed, cancelled]. */
      endReasons: [string, string, string];
    },
  ) {}

  get kind(): "regular" | "compact" {
    return this.o.kind;
  }
  get text(): string {
    return this.o.text;
  }
  get raw(): string {
    return this.o.raw;
  }
  get scenario(): string {
    return this.o.scenario;
  }
  get params(): Record<string, string> {
    return this.o.params;
  }
  get cfg() {
    return this.sim.cfg;
  }
  get ws(): string {
    return this.s.workspace.workspacePath;
  }
  get stopped(): boolean {
    return this.abort.signal.aborted;
  }
  get stopRequested(): boolean {
    return this.stopRequestedAt !== undefined;
  }
  get signal(): AbortSignal {
    return this.abort.signal;
  }

  num(key: string, dflt: number): number {
    const v = this.params[key];
    const n = v === undefined ? Number.NaN : Number(v);
    return Number.isFinite(n) ? n : dflt;
  }

  requestStop(): void {
    if (this.stopRequestedAt !== undefined || this.stopped) return;
    this.stopRequestedAt = Date.now();
    if (this.ignoreStopMs <= 0) this.abort.abort(new Stopped());
    else setTimeout(() => this.abort.abort(new Stopped()), this.ignoreStopMs);
  }

  /** Ends the turn at once (session closed or evicted). */
  abortNow(): void {
    if (!this.stopped) this.abort.abort(new Stopped());
  }

  /** Throws Stopped once a stop has been honoured. */
  check(): void {
    if (this.stopped) throw new Stopped();
  }

  async emit(type: string, payload: Record<string, unknown>, opts: { live?: boolean } = {}): Promise<void> {
    this.check();
    const live = opts.live ?? this.live(type);
    this.sim.emit(this.s, type, payload, { live, turnId: this.id, noBatch: this.unbatched });
    const wait = this.sim.out.ready();
    if (wait) await wait;
  }

  /** Sleeps, waking early (and throwing Stopped) when a stop is honoured. */
  sleep(ms: number): Promise<void> {
    this.check();
    if (ms <= 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const onAbort = () => {
        clearTimeout(timer);
        reject(new Stopped());
      };
      const timer = setTimeout(() => {
        this.abort.signal.removeEventListener("abort", onAbort);
        resolve();
      }, ms);
      this.abort.signal.addEventListener("abort", onAbort, { once: true });
    });
  }

  pace(factor = 1): Promise<void> {
    return this.sleep(this.cfg.delayMs * factor);
  }

  // ---- transcript ----------------------------------------------------------

  userInfo(extra: Partial<UserInfo> = {}): UserInfo {
    return {
      messageId: newId("msg"),
      sessionId: this.s.id,
      role: "user",
      time: { created: Date.now() },
      agent: this.agent(),
      model: { providerId: this.s.model.providerId, modelId: this.s.model.modelId },
      ...extra,
    };
  }

  agent(): string {
    return this.s.mode === "plan" ? "plan" : "build";
  }

  part<T extends object>(messageId: string, p: T): T & { partId: string; sessionId: string; messageId: string } {
    return { partId: newId("prt"), sessionId: this.s.id, messageId, ...p };
  }

  // ---- model requests --------------------------------------------------------

  /** Starts a model request (an assistant message) unless one is open. */
  beginStep(): Step {
    if (this.step) return this.step;
    this.check();
    const info: AssistantInfo = {
      messageId: newId("msg"),
      sessionId: this.s.id,
      role: "assistant",
      time: { created: Date.now() },
      parentMessageId: this.userMessage.info.messageId,
      agent: this.agent(),
      model: { providerId: this.s.model.providerId, modelId: this.s.model.modelId },
      path: { cwd: this.ws, root: this.ws },
      cost: 0,
      tokens: zeroTokens(),
    };
    const message: Message = { info, parts: [] };
    message.parts.push(this.part(info.messageId, { type: "step-start" as const }));
    this.s.messages.push(message);
    this.log?.messageIds.push(info.messageId);
    this.historyRoundCount++;
    this.step = { message, info, text: "", outputChars: 0, reasoningChars: 0 };
    return this.step;
  }

  private appendText(type: "text" | "reasoning", delta: string): Step {
    const st = this.beginStep();
    const parts = st.message.parts;
    const last = parts[parts.length - 1];
    if (last && last.type === type) {
      if (last.text.length < MAX_PART_CHARS) last.text += delta;
    } else parts.push(this.part(st.info.messageId, { type, text: delta }));
    return st;
  }

  async reasoning(delta: string): Promise<void> {
    this.check();
    const st = this.appendText("reasoning", delta);
    st.reasoningChars += delta.length;
    await this.emit("model.streaming", { assistantMessageId: st.info.messageId, delta, done: false, kind: "reasoning_delta" });
  }

  async say(delta: string): Promise<void> {
    this.check();
    const st = this.appendText("text", delta);
    st.outputChars += delta.length;
    if (st.text.length < MAX_PART_CHARS) st.text += delta;
    await this.emit("model.streaming", { assistantMessageId: st.info.messageId, delta, done: false, kind: "text_delta" });
  }

  /** Streams `text` in a few deltas with the configured pacing. */
  async sayChunked(text: string, kind: "text" | "reasoning" = "text", pieces = 4): Promise<void> {
    const size = Math.max(1, Math.ceil(text.length / pieces));
    for (let i = 0; i < text.length; i += size) {
      const d = text.slice(i, i + size);
      if (kind === "text") await this.say(d);
      else await this.reasoning(d);
      await this.pace();
    }
  }

  private transcriptChars(): number {
    let n = 0;
    for (const m of this.s.messages)
      for (const p of m.parts) n += p.type === "text" || p.type === "reasoning" ? p.text.length : p.type === "tool" ? 400 : 0;
    return n;
  }

  /** Ends the open model request: step-finish part and the per-request session.updated usage. */
  async endStep(stopReason = "stop"): Promise<void> {
    const st = this.step;
    if (!st) return;
    this.step = undefined;
    const o = this.nextStepUsage;
    this.nextStepUsage = undefined;
    const output = o?.outputTokens ?? Math.max(1, Math.ceil(st.outputChars / 4) + 8);
    // ZCODE_SIM_CONTEXT_FILL (a test switch): a near-full context without a near-full transcript.
    const filled = Math.round(this.cfg.contextFill * contextWindow(this.s)) - output;
    const input = o?.inputTokens ?? Math.max(1200 + Math.ceil(this.transcriptChars() / 4), filled);
    const reasoning = o?.reasoningTokens ?? Math.ceil(st.reasoningChars / 4);
    const cacheRead = o?.cacheReadTokens ?? Math.floor(input * 0.5);
    const total = input + output;
    const reason = this.stopReasonOverride ?? stopReason;
    const tokens: TokenUsage = { total, input, output, reasoning, cache: { read: cacheRead, write: 0 } };
    st.message.parts.push(this.part(st.info.messageId, { type: "step-finish" as const, reason, cost: 0, tokens }));
    st.info.tokens = tokens;
    st.info.finish = reason;
    st.info.time.completed = Date.now();
    const u = this.usage;
    u.modelRequestCount++;
    u.inputTokens += input;
    u.outputTokens += output;
    u.totalTokens += total;
    u.cacheReadTokens += cacheRead;
    u.reasoningTokens += reasoning;
    this.s.contextUsed = total;
    this.response = st.text;
    await this.emit("session.updated", {
      stopReason: reason,
      usage: {
        inputTokens: input,
        outputTokens: output,
        totalTokens: total,
        cacheReadTokens: cacheRead,
        cacheWriteTokens: 0,
        reasoningTokens: reasoning,
      },
      cacheHit: cacheRead > 0,
      contextWindow: contextWindow(this.s),
    });
  }

  // ---- tools -------------------------------------------------------------

  /**
   * The model calls tools: tool_input_start/delta/end and tool_call per tool
   * (toolName left off tool_call when `nameOnCall` is false), then the model
   * request ends.
   */
  async callTools(
    specs: { toolName: string; input: Record<string, unknown>; nameOnCall?: boolean; inputPauseMs?: number }[],
  ): Promise<ToolCall[]> {
    const st = this.beginStep();
    const amid = st.info.messageId;
    const calls: ToolCall[] = [];
    for (const spec of specs) {
      const toolCallId = `call_${uuid().replaceAll("-", "").slice(0, 24)}`;
      const part = this.part(amid, {
        type: "tool" as const,
        callId: toolCallId,
        tool: spec.toolName,
        state: { status: "pending" as const, input: spec.input, raw: JSON.stringify(spec.input) },
      });
      st.message.parts.push(part);
      calls.push({ toolCallId, toolName: spec.toolName, input: spec.input, part, assistantMessageId: amid, permissionWaitMs: 0 });
      await this.emit("model.streaming", { assistantMessageId: amid, kind: "tool_input_start", toolCallId, toolName: spec.toolName });
      const json = JSON.stringify(spec.input);
      const size = Math.max(16, Math.ceil(json.length / 3));
      for (let i = 0; i < json.length; i += size) {
        // A model pausing mid-input (the `pause` scenario): the CLI's batch holds what came before.
        if (i > 0 && spec.inputPauseMs) await this.sleep(spec.inputPauseMs);
        await this.emit("model.streaming", {
          assistantMessageId: amid,
          delta: json.slice(i, i + size),
          kind: "tool_input_delta",
          toolCallId,
        });
      }
      await this.emit("model.streaming", { assistantMessageId: amid, kind: "tool_input_end", toolCallId });
      const call: Record<string, unknown> = { assistantMessageId: amid, input: spec.input, kind: "tool_call", toolCallId };
      if (spec.nameOnCall !== false) call.toolName = spec.toolName;
      await this.emit("model.streaming", call);
      await this.pace();
    }
    await this.endStep("tool-calls");
    return calls;
  }

  /** Schedules, approves, runs and settles the tools of one model request. */
  async runTools(calls: ToolCall[], exec: (call: ToolCall) => ToolExec, opts: { parallel?: boolean } = {}): Promise<void> {
    const ids = calls.map((c) => c.toolCallId);
    const schedule = { executionOrder: ids, parallelGroups: opts.parallel ? [ids] : ids.map((id) => [id]) };
    for (const c of calls) {
      this.r.activeTools.set(c.toolCallId, { toolCallId: c.toolCallId, toolName: c.toolName, status: "pending" });
      await this.emit("tool.updated", {
        assistantMessageId: c.assistantMessageId,
        inputByteLength: Buffer.byteLength(JSON.stringify(c.input), "utf8"),
        inputOmitted: true,
        inputRef: "model_stream",
        kind: "scheduled",
        schedule,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
      });
    }
    const execs = calls.map(exec);
    if (opts.parallel) {
      const inputs: (Record<string, unknown> | undefined)[] = [];
      for (let i = 0; i < calls.length; i++) inputs.push(await this.approveAndStart(calls[i]!, execs[i]!));
      for (let i = 0; i < calls.length; i++) if (inputs[i]) await this.finishTool(calls[i]!, await execs[i]!.run(calls[i]!, inputs[i]!));
    } else {
      for (let i = 0; i < calls.length; i++) {
        const input = await this.approveAndStart(calls[i]!, execs[i]!);
        if (input) await this.finishTool(calls[i]!, await execs[i]!.run(calls[i]!, input));
      }
    }
    const ok = calls.filter((c) => c.outcome === "success").length;
    await this.emit("tool.updated", { errorCount: calls.length - ok, kind: "batch", successCount: ok, toolCallIds: ids });
    for (const c of calls) {
      if (c.outcome === "success" && (c.toolName === "Edit" || c.toolName === "Write")) {
        await this.emit("checkpoint.created", {
          checkpointId: newId("checkpoint"),
          messageId: this.userMessage.info.messageId,
          targetMessageId: this.userMessage.info.messageId,
          toolMessageId: c.assistantMessageId,
          scope: "workspace",
          snapshotRef: `zcode-artifact://snapshots/${uuid()}`,
          diffRef: `zcode-artifact://diffs/${uuid()}`,
          fileCount: 1,
        });
      }
      await this.emit("streamRecovery.updated", {
        anchorId: `${c.assistantMessageId}:${c.toolCallId}:tool-result`,
        attemptId: `${c.assistantMessageId}:end-of-stream`,
        kind: c.outcome === "success" ? "tool_result" : "tool_error",
        assistantMessageId: c.assistantMessageId,
        toolCallId: c.toolCallId,
        toolName: c.toolName,
        committedToolCallIds: [c.toolCallId],
        committedAt: new Date().toISOString(),
      });
    }
    for (const c of calls) this.r.activeTools.delete(c.toolCallId);
    this.recordFileChanges(calls);
    // Every tool result of this model step is committed: a tool-batch boundary.
    await this.drainGuide();
  }

  /** Can a guide be steered in now (steering.ts: a running regular turn; noboundary=1 never offers a boundary)? */
  get steerable(): boolean {
    return this.kind === "regular" && !this.stopped && this.params.noboundary !== "1";
  }

  /**
   * One pending guide becomes a real user message of this turn
   * (TurnSteerDrained → turn.steerDrained); the next model step sees it.
   */
  async drainGuide(): Promise<boolean> {
    if (!this.steerable) return false;
    const g = this.guides.shift();
    if (!g) return false;
    const info = this.userInfo();
    this.s.messages.push({ info, parts: [this.part(info.messageId, { type: "text" as const, text: g.text })] });
    this.log?.messageIds.push(info.messageId);
    this.log?.guidedIds.push(info.messageId);
    const pendingInputId = `queue_${g.commandId}`;
    await this.emit("turn.steerDrained", {
      injectedMessageIds: [info.messageId],
      pendingInputIds: [pendingInputId],
      drainedInputs: [{ pendingInputId, messageId: info.messageId, text: g.text, delivery: "guide" }],
      queryIds: [g.commandId],
      targetTurnId: this.id,
    });
    // The simulator's way of showing the model saw it.
    await this.say(`[guide received: ${g.text}] `);
    return true;
  }

  /** Edit and Write results, as file rewind will see them (unsafe=<reason> marks them unrestorable). */
  private recordFileChanges(calls: ToolCall[]): void {
    if (!this.log) return;
    for (const c of calls) {
      if (c.outcome !== "success" || (c.toolName !== "Edit" && c.toolName !== "Write")) continue;
      const path = String((c.input as { file_path?: unknown }).file_path ?? "");
      const known = this.log.files.find((f) => f.path === path);
      if (known) {
        known.operationCount++;
        if (!known.toolNames.includes(c.toolName)) known.toolNames.push(c.toolName);
        continue;
      }
      this.log.files.push({
        path,
        action: c.toolName === "Write" ? "delete" : "restore",
        toolNames: [c.toolName],
        operationCount: 1,
        ...(this.params.unsafe ? { unsafeReason: this.params.unsafe === "1" ? "external_modified" : this.params.unsafe } : {}),
      });
    }
  }

  /** Permission flow, then `started`. Returns the input to run with, or undefined (denied / failed). */
  private async approveAndStart(c: ToolCall, x: ToolExec): Promise<Record<string, unknown> | undefined> {
    const t0 = Date.now();
    const v = x.approval ? await this.approve(c, x.approval) : { allow: true as const, input: c.input };
    c.permissionWaitMs = x.approval ? Date.now() - t0 : 0;
    this.toolCallCount++;
    if ("fail" in v) {
      await this.toolError(c, { kind: "error", type: "tool_execution_failed", message: v.fail });
      return undefined;
    }
    if (!v.allow) {
      const now = Date.now();
      c.outcome = "denied";
      c.part.state = { status: "error", input: c.input, error: v.reason, metadata: {}, startedAt: now, completedAt: now };
      const at = this.r.activeTools.get(c.toolCallId);
      if (at) at.status = "denied";
      return undefined;
    }
    c.startedAt = Date.now();
    c.part.state = { status: "running", input: v.input, title: c.toolName, metadata: {}, startedAt: c.startedAt };
    this.r.activeTools.set(c.toolCallId, { toolCallId: c.toolCallId, toolName: c.toolName, status: "running", startedAt: c.startedAt });
    await this.emit("tool.updated", { kind: "started", startedAt: c.startedAt, toolCallId: c.toolCallId, toolName: c.toolName });
    return v.input;
  }

  private async finishTool(c: ToolCall, out: ToolOutcome): Promise<void> {
    if (out.kind === "error") return this.toolError(c, out);
    const now = Date.now();
    const startedAt = c.startedAt ?? now;
    const bytes = Buffer.byteLength(out.content, "utf8");
    const budgetStrategy = out.budgetStrategy ?? "truncate";
    const perf: Record<string, unknown> = { totalMs: now - startedAt + c.permissionWaitMs, permissionWaitMs: c.permissionWaitMs };
    if (out.detail) perf.detail = out.detail;
    const result: Record<string, unknown> = { success: true, content: out.content };
    if (out.display) result.display = out.display;
    Object.assign(result, { perf, truncated: false, originalBytes: bytes, returnedBytes: bytes, budgetStrategy });
    const metadata: Record<string, unknown> = { schemaVersion: 1 };
    if (out.display) metadata.display = out.display;
    metadata.serialization = { truncated: false, originalBytes: bytes, returnedBytes: bytes, budgetStrategy };
    const input = c.part.state.input;
    c.part.state = { status: "completed", input, output: out.content, title: c.toolName, metadata, startedAt, completedAt: now };
    c.outcome = "success";
    const at = this.r.activeTools.get(c.toolCallId);
    if (at) at.status = "completed";
    await this.emit("tool.updated", {
      duration: out.duration ?? Math.max(1, now - startedAt),
      kind: "result",
      result,
      toolCallId: c.toolCallId,
    });
  }

  private async toolError(c: ToolCall, e: Extract<ToolOutcome, { kind: "error" }>): Promise<void> {
    const now = Date.now();
    c.part.state = {
      status: "error",
      input: c.part.state.input,
      error: e.message,
      metadata: {},
      startedAt: c.startedAt ?? now,
      completedAt: now,
    };
    c.outcome = "error";
    const at = this.r.activeTools.get(c.toolCallId);
    if (at) at.status = "failed";
    const error: Record<string, unknown> = { type: e.type, message: e.message };
    if (e.code !== undefined) error.code = e.code;
    error.stack = `Error: ${e.message.split("\n")[0]}\n    at ToolExecutor.execute (zcode.cjs:1:1)`;
    await this.emit("tool.updated", { error, kind: "error", toolCallId: c.toolCallId });
  }

  /** Marks tools a stop interrupted: running ones get a tool_cancelled error event. */
  interruptTools(): void {
    for (const m of this.s.messages) {
      for (const p of m.parts) {
        if (p.type !== "tool") continue;
        if (p.state.status === "running") {
          const now = Date.now();
          this.sim.emit(
            this.s,
            "tool.updated",
            { error: { type: "tool_cancelled", message: "Tool execution cancelled" }, kind: "error", toolCallId: p.callId },
            { turnId: this.id, live: this.live("tool.updated") },
          );
          p.state = {
            status: "error",
            input: p.state.input,
            error: "Tool execution cancelled",
            metadata: {},
            startedAt: p.state.startedAt,
            completedAt: now,
          };
        } else if (p.state.status === "pending") {
          const now = Date.now();
          p.state = {
            status: "error",
            input: p.state.input,
            error: "Tool execution cancelled",
            metadata: {},
            startedAt: now,
            completedAt: now,
          };
        }
      }
    }
    this.r.activeTools.clear();
    this.r.pendingPermissions.clear();
  }

  // ---- approvals -----------------------------------------------------------

  private matchesRule(toolName: string, input: unknown): boolean {
    const content = ruleContentOf(input);
    return [...this.s.permissionRules, ...this.r.sessionRules].some(
      (r) => r.behavior === "allow" && r.toolName === toolName && (r.ruleContent === undefined || r.ruleContent === content),
    );
  }

  private async ask(method: string, params: Record<string, unknown>, pending: PendingPermission): Promise<Answer> {
    this.r.pendingPermissions.set(pending.requestId, pending);
    try {
      if (this.sim.cfg.protocol === "v4-only") {
        // v4-only: no reverse request; a pendingInteraction anchored on the tool's row (v4-interactions.ts).
        const key = `t:${pending.toolCallId}`;
        let anchor = this.r.rowIds.get(key);
        if (anchor === undefined) {
          anchor = this.r.nextRowId++;
          this.r.rowIds.set(key, anchor);
        }
        return await askV4(this.sim, this.s, this.r, method, params, anchor, this.abort.signal);
      }
      return await this.sim.outgoing.request(method, params, { reannounce: true, signal: this.abort.signal });
    } catch (e) {
      throw e instanceof Stopped ? e : new Stopped();
    } finally {
      this.r.pendingPermissions.delete(pending.requestId);
    }
  }

  private async approve(c: ToolCall, a: Approval): Promise<Verdict> {
    this.check();
    if (a.kind === "permission") {
      // yolo runs tools without asking; a granted "always" rule answers for the user.
      if (this.s.mode === "yolo" || this.matchesRule(c.toolName, c.input)) return { allow: true, input: c.input };
    }
    const requestId = newId("perm");
    const reason =
      a.kind === "permission"
        ? (a.reason ?? `Tool ${c.toolName} requires approval`)
        : a.kind === "plan"
          ? "Exit plan mode and start implementation"
          : "Answer the questions";
    const riskLevel = a.kind === "permission" ? (a.riskLevel ?? "medium") : "low";
    const options = permissionOptions(c.toolName, c.input);
    const pending: PendingPermission = {
      requestId,
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      reason,
      riskLevel,
      input: c.input,
      options,
      requestedAt: Date.now(),
    };
    await this.emit("permission.requested", {
      requestId,
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      riskLevel,
      reason,
      input: c.input,
      suggestedPermissionUpdates: [],
      options,
    });
    const base = {
      input: c.input,
      reason,
      requestId,
      riskLevel,
      sessionId: this.s.id,
      options,
      toolCallId: c.toolCallId,
      toolName: c.toolName,
      turnId: this.id,
    };
    let v: Verdict;
    let modifiedInput: Record<string, unknown> | undefined;
    if (a.kind === "permission") {
      const ans = await this.ask("interaction/requestPermission", base, pending);
      v = this.readPermission(ans, c);
    } else {
      const params: Record<string, unknown> =
        a.kind === "plan"
          ? {
              input: c.input,
              prompt: reason,
              questions: [
                {
                  header: "Plan",
                  options: [{ description: "Exit plan mode and start implementation.", label: "Approve", value: "approve" }],
                  question: PLAN_QUESTION,
                },
              ],
              requestId,
              schema: { interaction: "plan_approval", toolName: c.toolName },
              sessionId: this.s.id,
              toolCallId: c.toolCallId,
              toolName: c.toolName,
              turnId: this.id,
            }
          : {
              input: c.input,
              prompt: reason,
              questions: ((c.input.questions as Record<string, unknown>[]) ?? []).map((q) => ({
                header: q.header,
                multiSelect: q.multiSelect ?? false,
                options: ((q.options as Record<string, unknown>[]) ?? []).map((op) => ({
                  description: op.description,
                  label: op.label,
                  value: op.label,
                })),
                question: q.question,
              })),
              requestId,
              schema: { toolName: c.toolName },
              sessionId: this.s.id,
              toolCallId: c.toolCallId,
              toolName: c.toolName,
              turnId: this.id,
            };
      const ans = await this.ask("interaction/requestUserInput", params, pending);
      v = a.kind === "plan" ? this.readPlanApproval(ans, c) : this.readQuestions(ans, c);
      if (a.kind === "question" && "allow" in v && v.allow) modifiedInput = v.input;
    }
    this.check();
    if ("fail" in v) return v;
    const resolved: Record<string, unknown> = { requestId, toolCallId: c.toolCallId, toolName: c.toolName };
    if (v.allow) {
      resolved.decision = modifiedInput ? "modify" : "allow";
      if (modifiedInput) resolved.modifiedInput = modifiedInput;
    } else {
      resolved.decision = "deny";
      resolved.reason = v.reason;
    }
    await this.emit("permission.resolved", resolved);
    return v;
  }

  private answerFailure(
    method: string,
    ans: Answer,
    schema: typeof permissionResponse,
  ): { fail: string } | { value: Record<string, unknown> } {
    if ("error" in ans) return { fail: `Client request failed: ${method}: ${ans.error.message} (${ans.error.code})` };
    const r = validate(schema, ans.result);
    if (!r.ok) return { fail: `Invalid ${method} result — ${formatIssues(r.issues)}` };
    return { value: r.value };
  }

  /** zcodePermissionResponseSchema, strictly; permissionUpdates of an allow are remembered. */
  private readPermission(ans: Answer, c: ToolCall): Verdict {
    const a = this.answerFailure("interaction/requestPermission", ans, permissionResponse);
    if ("fail" in a) return a;
    const r = a.value as {
      decision: string;
      reason?: string;
      modifiedInput?: unknown;
      permissionUpdates?: { behavior: "allow" | "deny" | "ask"; rules: { toolName: string; ruleContent?: string }[] }[];
    };
    if (r.decision === "allow" || r.decision === "modify") {
      for (const u of r.permissionUpdates ?? []) {
        for (const rule of u.rules) {
          const pr = {
            toolName: rule.toolName,
            behavior: u.behavior,
            ...(rule.ruleContent !== undefined ? { ruleContent: rule.ruleContent } : {}),
          };
          if (!this.s.permissionRules.some((x) => JSON.stringify(x) === JSON.stringify(pr))) this.s.permissionRules.push(pr);
        }
      }
      this.sim.store.touch(this.s, { activity: false });
      const input = r.decision === "modify" && isObj(r.modifiedInput) ? r.modifiedInput : c.input;
      return { allow: true, input };
    }
    // deny and escalate [GUESSED: escalate is treated as a deny here].
    return { allow: false, reason: r.reason?.trim() ? r.reason : PERMISSION_DENIED_BY_USER_CONTENT };
  }

  /** planApprovalResponseToBrokerResult: approved only when the answer trims to "approve". */
  private readPlanApproval(ans: Answer, call: ToolCall): Verdict {
    const a = this.answerFailure("interaction/requestUserInput", ans, userInputResponse);
    if ("fail" in a) return a;
    const r = a.value as { action: string; content?: Record<string, unknown>; reason?: string };
    const denied = (reason?: string): Verdict => ({ allow: false, reason: reason?.trim() ? reason : PERMISSION_DENIED_BY_USER_CONTENT });
    if (r.action !== "accept") return denied(r.reason);
    const c = r.content;
    const answers = c && isObj(c.answers) ? c.answers : {};
    const answer = c ? answerValue(answers[PLAN_QUESTION] ?? c.answer_0 ?? c.answer) : undefined;
    if (answer === "approve") return { allow: true, input: call.input };
    if (!answer) return denied(r.reason);
    // Feedback: the CLI denies with the text as reason (reasonSource plan_approval_feedback).
    return { allow: false, reason: `${PERMISSION_DENIED_BY_USER_CONTENT} To tell you how to proceed, the user said:\n${answer}` };
  }

  /** userInputResponseToBrokerResult: accept → modify with the normalized answers. */
  private readQuestions(ans: Answer, c: ToolCall): Verdict {
    const a = this.answerFailure("interaction/requestUserInput", ans, userInputResponse);
    if ("fail" in a) return a;
    const r = a.value as { action: string; content?: Record<string, unknown>; reason?: string };
    if (r.action !== "accept")
      return {
        allow: false,
        reason: r.reason ?? (r.action === "cancel" ? "AskUserQuestion was cancelled" : "AskUserQuestion was declined"),
      };
    const questions = ((c.input.questions as Record<string, unknown>[]) ?? []).map((q) => String(q.question));
    const input: Record<string, unknown> = { ...c.input };
    const content = r.content;
    if (content) {
      const raw = isObj(content.answers) ? content.answers : {};
      const answers: Record<string, string> = {};
      questions.forEach((q, i) => {
        const v = answerValue(raw[q] ?? content[`answer_${i}`] ?? (questions.length === 1 ? content.answer : undefined));
        if (v !== undefined) answers[q] = v;
      });
      if (Object.keys(answers).length > 0 || (isObj(content.answers) && Object.keys(content.answers).length === 0)) input.answers = answers;
    }
    return { allow: true, input };
  }

  // ---- misc ----------------------------------------------------------------

  /** Replaces the session's todos a little after the TodoWrite result, like the CLI. */
  setTodosLater(todos: SessionRecord["todos"], ms = this.cfg.todosLagMs): void {
    setTimeout(() => {
      this.s.todos = todos;
      this.sim.store.touch(this.s);
    }, ms);
  }

  /** Settings as patch of state.updated (current model only, as afterStateMutation). */
  settingsPatch(): Record<string, unknown> {
    return settings(this.s, "current");
  }
}
