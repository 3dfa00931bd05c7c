// One prompt turn: the events it streams (stored with seq, pushed when
// subscribed), the assistant message it builds for session/messages, stop
// handling, and interactions with the bridge.
import type { Answer } from "./interactions.ts";
import type { Sim } from "./sim.ts";
import { newId } from "./store.ts";
import type { Message, MessagePart, SessionRecord, Todo } from "./types.ts";
import { CONTEXT_WINDOW } from "./types.ts";

export class Stopped extends Error {
  constructor() {
    super("turn stopped");
  }
}

/** Text parts stop growing past this (floods); the stream itself is not capped. */
const MAX_PART_CHARS = 1 << 20;

export type ToolPart = Extract<MessagePart, { type: "tool" }>;

export interface TurnFailure {
  code: number;
  message: string;
  cause?: { code: string };
}

export class Turn {
  readonly id = newId("turn");
  readonly assistant: Message;
  private readonly abort = new AbortController();
  private stopRequestedAt: number | undefined;
  /** How long a session/stop is ignored (`ignore-stop`). */
  ignoreStopMs = 0;
  resultType = "success";
  failure: TurnFailure | undefined;
  outputChars = 0;
  /** Set by a scenario to choose which events are pushed live (`seq-gap`). */
  live: (type: string) => boolean = () => true;
  /** Usage reported mid-turn by the `usage` scenario, reused at the end. */
  usageOverride: { inputTokens: number; outputTokens: number } | undefined;

  constructor(
    readonly sim: Sim,
    readonly s: SessionRecord,
    /** Prompt text without the scenario tag. */
    readonly text: string,
    readonly raw: string,
    readonly scenario: string,
    readonly params: Record<string, string>,
  ) {
    this.assistant = { info: { id: newId("msg"), role: "assistant", createdAt: Date.now() }, parts: [] };
  }

  get cfg() {
    return this.sim.cfg;
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

  /** Throws Stopped once a stop has been honoured. */
  check(): void {
    if (this.stopped) throw new Stopped();
  }

  async emit(type: string, payload: Record<string, unknown>, opts: { live?: boolean } = {}): Promise<void> {
    this.check();
    const live = opts.live ?? this.live(type);
    this.sim.emit(this.s, type, payload, { live, turnId: this.id });
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

  private appendText(type: "text" | "reasoning", delta: string): void {
    const parts = this.assistant.parts;
    const last = parts[parts.length - 1];
    if (last && last.type === type) {
      if (last.text.length < MAX_PART_CHARS) last.text += delta;
    } else parts.push({ type, text: delta });
  }

  async reasoning(delta: string): Promise<void> {
    this.appendText("reasoning", delta);
    this.outputChars += delta.length;
    await this.emit("model.streaming", { kind: "reasoning_delta", delta });
  }

  async say(delta: string): Promise<void> {
    this.appendText("text", delta);
    this.outputChars += delta.length;
    await this.emit("model.streaming", { kind: "text_delta", delta });
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

  // ---- tools -------------------------------------------------------------

  /** model.streaming tool_call: the model declares the tool with its input. */
  async toolCall(toolName: string, input: unknown): Promise<ToolPart> {
    const part: ToolPart = { type: "tool", toolCallId: newId("call"), toolName, input, state: { status: "pending" } };
    this.assistant.parts.push(part);
    await this.emit("model.streaming", { kind: "tool_call", toolCallId: part.toolCallId, toolName, input });
    return part;
  }

  /** Like the real CLI, `scheduled` omits the input the tool_call already carried. */
  async scheduled(part: ToolPart, withInput = false): Promise<void> {
    const p: Record<string, unknown> = { kind: "scheduled", toolCallId: part.toolCallId, toolName: part.toolName };
    if (withInput) p.input = part.input;
    else p.inputOmitted = true;
    await this.emit("tool.updated", p);
  }

  async started(part: ToolPart): Promise<void> {
    part.state.status = "running";
    await this.emit("tool.updated", { kind: "started", toolCallId: part.toolCallId, toolName: part.toolName });
  }

  async progress(part: ToolPart, stdoutTail: string, stderrTail: string): Promise<void> {
    await this.emit("tool.updated", { kind: "progress", toolCallId: part.toolCallId, toolName: part.toolName, stdoutTail, stderrTail });
  }

  async result(part: ToolPart, output: string, result: unknown, durationMs = 12): Promise<void> {
    part.state = { status: "completed", output, result };
    await this.emit("tool.updated", { kind: "result", toolCallId: part.toolCallId, toolName: part.toolName, output, result, durationMs });
  }

  async toolError(part: ToolPart, message: string): Promise<void> {
    part.state = { status: "error", error: message };
    await this.emit("tool.updated", { kind: "error", toolCallId: part.toolCallId, toolName: part.toolName, error: { message } });
  }

  /** The whole lifecycle of a tool that needs no interaction. */
  async runTool(toolName: string, input: unknown, output: string, result: unknown): Promise<ToolPart> {
    const part = await this.toolCall(toolName, input);
    await this.pace();
    await this.scheduled(part);
    await this.started(part);
    await this.pace();
    await this.result(part, output, result);
    await this.pace();
    return part;
  }

  /** Replaces the session's todos a little after the TodoWrite result, like the CLI. */
  setTodosLater(todos: Todo[], ms = 50): void {
    setTimeout(() => {
      this.s.todos = todos;
      // The turn's checkpoint may already exist: it must hold the todos the turn produced.
      const cp = this.s.checkpoints.find((c) => c.turnId === this.id);
      if (cp) cp.todosAfter = structuredClone(todos);
      this.sim.store.touch(this.s);
    }, ms);
  }

  // ---- interactions ------------------------------------------------------

  /** Sends an interaction request, re-sent until answered; Stopped if the turn is stopped first. */
  async ask(method: string, params: Record<string, unknown>): Promise<Answer> {
    this.check();
    return this.sim.outgoing.request(method, { requestId: newId("req"), sessionId: this.s.id, ...params }, { resend: true, signal: this.abort.signal });
  }

  // ---- usage -------------------------------------------------------------

  usage(): { inputTokens: number; outputTokens: number; totalTokens: number } {
    if (this.usageOverride) return { ...this.usageOverride, totalTokens: this.usageOverride.inputTokens + this.usageOverride.outputTokens };
    let chars = 0;
    for (const m of this.s.messages) for (const p of m.parts) chars += p.type === "tool" ? 200 : p.text.length;
    const inputTokens = 1200 + Math.ceil(chars / 4);
    const outputTokens = Math.max(1, Math.ceil(this.outputChars / 4));
    return { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens };
  }

  contextWindow(): number {
    return CONTEXT_WINDOW;
  }
}
