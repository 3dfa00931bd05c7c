import * as v from "valibot";
import {
  RequestError,
  type ClientCapabilities,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type PermissionOption,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import {
  PermissionRequestParamsSchema,
  UserInputRequestParamsSchema,
  type PermissionAnswer,
  type PermissionRequestParams,
  type Question,
  type UserInputAnswer,
  type UserInputRequestParams,
} from "../zcode/request-schemas.ts";
import { summarizeIssues } from "../zcode/schemas.ts";
import { permissionOptions } from "../translate/interactions/permission-options.ts";
import { answersFromForm, planAnswer, planForm, questionsForm } from "../translate/interactions/question-forms.ts";
import { ToolCallTracker } from "../translate/tools/tracker.ts";
import { oneLine, textContent } from "../translate/tools/format.ts";

// ZCode asks the editor things through interaction/requestPermission and
// interaction/requestUserInput. This router shows each once (ZCode re-sends
// an unanswered request under a new id with the same requestId), chooses the
// ACP mechanism the client supports (elicitation forms only when advertised),
// maps the answer back as ZCode reads it, and withdraws everything of a
// session on cancel.

const logger = log.withTag("interactions");

/** What the router needs from the ACP side (provided by the agent core). */
export interface InteractionPort {
  /** An ACP request to the client; aborting the signal sends $/cancel_request. */
  request(method: string, params: unknown, opts: { cancellationSignal: AbortSignal }): Promise<unknown>;
  sendUpdate(sessionId: string, update: SessionUpdate): Promise<void> | void;
  /** Read on every interaction (initialize may come after construction). */
  readonly clientCapabilities: ClientCapabilities | undefined;
  trackerFor(sessionId: string): ToolCallTracker | undefined;
  /** True while the session's current turn has been cancelled. */
  isCancelled(sessionId: string): boolean;
}

interface Pending<T> {
  sessionId: string;
  promise: Promise<T>;
  settle(answer: T): void;
  settled: boolean;
  controller: AbortController;
  /** The answer given when the session is cancelled under it. */
  onCancel: T;
}

/** Answered requests remembered for late copies of them. */
const ANSWERED_MAX = 256;

const CANCELLED_PERMISSION: PermissionAnswer = { decision: "deny", reason: "cancelled" };
const DECLINED: UserInputAnswer = { action: "decline" };
const CANCELLED_INPUT: UserInputAnswer = { action: "cancel" };

function invalid(what: string, issues: readonly v.BaseIssue<unknown>[]): RequestError {
  return RequestError.invalidParams(undefined, `${what}: ${summarizeIssues(issues)}`);
}

function describeError(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

export class InteractionRouter {
  private readonly pending = new Map<string, Pending<unknown>>();
  private readonly answered = new Map<string, unknown>();
  /** Trackers for sessions without a running turn (an interaction still needs its tool_call). */
  private readonly spareTrackers = new Map<string, ToolCallTracker>();

  constructor(
    private readonly port: InteractionPort,
    private readonly opts: { cwdOf?: (sessionId: string) => string | undefined } = {},
  ) {}

  /** interaction/requestPermission → session/request_permission. */
  handlePermission(params: unknown): Promise<PermissionAnswer> {
    const parsed = v.safeParse(PermissionRequestParamsSchema, params);
    if (!parsed.success) return Promise.reject(invalid("interaction/requestPermission", parsed.issues));
    const p = parsed.output;
    return this.once(p.sessionId, `perm:${p.requestId}`, CANCELLED_PERMISSION, (signal) => this.askPermission(p, signal));
  }

  /** interaction/requestUserInput → plan approval or questions, by form or by permission prompts. */
  handleUserInput(params: unknown): Promise<UserInputAnswer> {
    const parsed = v.safeParse(UserInputRequestParamsSchema, params);
    if (!parsed.success) return Promise.reject(invalid("interaction/requestUserInput", parsed.issues));
    const p = parsed.output;
    const questions = p.questions ?? p.input?.questions ?? [];
    const isPlan = p.schema?.interaction === "plan_approval" || (questions.length === 0 && typeof p.input?.plan === "string");
    return this.once(p.sessionId, `input:${p.requestId}`, DECLINED, (signal) => {
      if (isPlan) return this.askPlanApproval(p, signal);
      if (questions.length > 0) return this.askQuestions(p, questions, signal);
      logger.warn(`interaction/requestUserInput ${p.requestId}: neither a plan approval nor questions; declined`);
      return Promise.resolve(DECLINED);
    });
  }

  /**
   * The session's turn was cancelled: every pending interaction is answered
   * (deny / decline) and the client's open prompts are withdrawn.
   */
  cancelSession(sessionId: string): void {
    for (const [key, pend] of this.pending) {
      if (pend.sessionId !== sessionId) continue;
      pend.settle(pend.onCancel);
      pend.controller.abort();
      this.pending.delete(key);
    }
    this.spareTrackers.delete(sessionId);
  }

  /** Connection closing: withdraw everything. */
  cancelAll(): void {
    for (const pend of this.pending.values()) this.cancelSession(pend.sessionId);
  }

  /** Number of interactions waiting for the user (tests, diagnostics). */
  get pendingCount(): number {
    return this.pending.size;
  }

  // ---- dedupe and cancel -------------------------------------------------

  private once<T>(sessionId: string, id: string, onCancel: T, run: (signal: AbortSignal) => Promise<T>): Promise<T> {
    const key = `${sessionId}\u0000${id}`;
    const open = this.pending.get(key);
    if (open) return open.promise as Promise<T>;
    if (this.answered.has(key)) return Promise.resolve(this.answered.get(key) as T);
    if (this.port.isCancelled(sessionId)) {
      this.remember(key, onCancel);
      return Promise.resolve(onCancel);
    }
    let resolve!: (a: T) => void;
    const promise = new Promise<T>((r) => (resolve = r));
    const pend: Pending<T> = {
      sessionId,
      promise,
      settled: false,
      controller: new AbortController(),
      onCancel,
      settle: (answer) => {
        if (pend.settled) return;
        pend.settled = true;
        this.pending.delete(key);
        this.remember(key, answer);
        resolve(answer);
      },
    };
    this.pending.set(key, pend as Pending<unknown>);
    run(pend.controller.signal).then(
      (answer) => pend.settle(pend.controller.signal.aborted ? onCancel : answer),
      (e) => {
        if (!pend.settled) logger.warn(`interaction ${id} failed: ${describeError(e)}`);
        pend.settle(onCancel);
      },
    );
    return promise;
  }

  private remember(key: string, answer: unknown): void {
    this.answered.set(key, answer);
    if (this.answered.size > ANSWERED_MAX) {
      const oldest = this.answered.keys().next().value;
      if (oldest !== undefined) this.answered.delete(oldest);
    }
  }

  // ---- client plumbing ------------------------------------------------------

  private tracker(sessionId: string): ToolCallTracker {
    const live = this.port.trackerFor(sessionId);
    if (live) return live;
    let spare = this.spareTrackers.get(sessionId);
    if (!spare) {
      spare = new ToolCallTracker({ cwd: this.opts.cwdOf?.(sessionId) ?? process.cwd(), terminalOutput: false });
      this.spareTrackers.set(sessionId, spare);
    }
    return spare;
  }

  /** Announces the tool (tool_call before the request, same id) and returns its view. */
  private async announce(sessionId: string, toolCallId: string, toolName: string, input: unknown): Promise<ToolCallUpdate> {
    const tracker = this.tracker(sessionId);
    for (const u of tracker.ensureAnnounced(toolCallId, { toolName, input })) {
      await this.port.sendUpdate(sessionId, u);
    }
    const view = tracker.get(toolCallId);
    if (view) {
      const u: ToolCallUpdate = { toolCallId, title: view.title, kind: view.kind, locations: view.locations };
      if (view.rawInput !== undefined) u.rawInput = view.rawInput;
      return u;
    }
    return input === undefined
      ? { toolCallId, title: toolName || t().tools.tool }
      : { toolCallId, title: toolName || t().tools.tool, rawInput: input };
  }

  private async requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const res = (await this.port.request("session/request_permission", req, { cancellationSignal: signal })) as
      | RequestPermissionResponse
      | undefined;
    if (!res || typeof res !== "object" || !res.outcome)
      throw new Error("the client answered session/request_permission without an outcome");
    return res;
  }

  private canElicitForm(): boolean {
    const form = this.port.clientCapabilities?.elicitation?.form;
    return form !== undefined && form !== null;
  }

  private async elicit(req: CreateElicitationRequest, signal: AbortSignal): Promise<CreateElicitationResponse> {
    // Guarded here too: a client that did not advertise forms never gets one.
    if (!this.canElicitForm()) throw new Error("client did not advertise elicitation.form");
    const res = (await this.port.request("elicitation/create", req, { cancellationSignal: signal })) as
      | CreateElicitationResponse
      | undefined;
    if (!res || typeof res !== "object" || typeof res.action !== "string")
      throw new Error("the client answered elicitation/create without an action");
    return res;
  }

  // ---- the three interactions -------------------------------------------------

  private async askPermission(p: PermissionRequestParams, signal: AbortSignal): Promise<PermissionAnswer> {
    const toolCallId = p.toolCallId ?? `permission-${p.requestId}`;
    const toolCall = await this.announce(p.sessionId, toolCallId, p.toolName ?? "", p.input);
    const offered = permissionOptions(p.options);
    let res: RequestPermissionResponse;
    try {
      res = await this.requestPermission({ sessionId: p.sessionId, toolCall, options: offered.options }, signal);
    } catch (e) {
      if (signal.aborted) return CANCELLED_PERMISSION;
      logger.warn(`session/request_permission failed: ${describeError(e)}`);
      return { decision: "deny", reason: `the editor could not ask for permission: ${describeError(e)}` };
    }
    const outcome = res.outcome;
    if (outcome.outcome !== "selected") return CANCELLED_PERMISSION;
    return offered.answerFor(outcome.optionId);
  }

  private async askPlanApproval(p: UserInputRequestParams, signal: AbortSignal): Promise<UserInputAnswer> {
    const plan = p.input?.plan ?? "";
    const toolCallId = p.toolCallId ?? `plan-${p.requestId}`;
    const toolCall = await this.announce(p.sessionId, toolCallId, "ExitPlanMode", p.input ?? { plan });
    if (this.canElicitForm()) {
      const res = await this.elicit(
        {
          mode: "form",
          sessionId: p.sessionId,
          toolCallId,
          message: plan ? t().bridge.plan.ask(plan) : t().bridge.plan.askNoPlan,
          requestedSchema: planForm(),
        },
        signal,
      );
      if (res.action === "accept") {
        const content = (res as { content?: Record<string, unknown> | null }).content ?? {};
        const d = content.decision;
        if (d === "approve" || d === true) return planAnswer(p, { approve: true });
        return planAnswer(p, { approve: false, feedback: typeof content.feedback === "string" ? content.feedback : undefined });
      }
      return res.action === "cancel" ? CANCELLED_INPUT : DECLINED;
    }
    const res = await this.requestPermission(
      {
        sessionId: p.sessionId,
        toolCall: { ...toolCall, title: t().tools.readyToCode, kind: "switch_mode", content: plan ? [textContent(plan)] : [] },
        options: [
          { optionId: "approve", name: t().bridge.plan.yes, kind: "allow_once" },
          { optionId: "reject", name: t().bridge.plan.no, kind: "reject_once" },
        ],
      },
      signal,
    );
    if (res.outcome.outcome !== "selected") return CANCELLED_INPUT;
    return res.outcome.optionId === "approve" ? planAnswer(p, { approve: true }) : DECLINED;
  }

  private async askQuestions(p: UserInputRequestParams, questions: readonly Question[], signal: AbortSignal): Promise<UserInputAnswer> {
    const toolCallId = p.toolCallId ?? `question-${p.requestId}`;
    await this.announce(p.sessionId, toolCallId, "AskUserQuestion", p.input ?? { questions });
    if (this.canElicitForm()) {
      const first = questions[0]!;
      const res = await this.elicit(
        {
          mode: "form",
          sessionId: p.sessionId,
          toolCallId,
          message: questions.length === 1 ? first.question : t().bridge.question.answerAll(questions.length),
          requestedSchema: { type: "object", properties: questionsForm(questions) },
        },
        signal,
      );
      if (res.action === "accept") {
        const content = (res as { content?: Record<string, unknown> | null }).content ?? {};
        return { action: "accept", content: answersFromForm(questions, content) };
      }
      return res.action === "cancel" ? CANCELLED_INPUT : DECLINED;
    }
    // No forms: one permission prompt per question, its options as choices.
    // A multi-select question degrades to a single choice (sent as a
    // one-element array) because a permission prompt picks exactly one option.
    const answers: Record<string, unknown> = {};
    for (const q of questions) {
      const options: PermissionOption[] = q.options.map((o, j) => ({ optionId: `option-${j}`, name: o.label, kind: "allow_once" }));
      options.push({ optionId: "decline", name: t().bridge.question.decline, kind: "reject_once" });
      const described = q.options
        .filter((o) => o.description)
        .map((o) => `- **${o.label}**: ${o.description}`)
        .join("\n");
      const res = await this.requestPermission(
        {
          sessionId: p.sessionId,
          toolCall: {
            toolCallId,
            title: oneLine(q.header ? `${q.header}: ${q.question}` : q.question),
            kind: "other",
            content: [textContent(described ? `${q.question}\n\n${described}` : q.question)],
          },
          options,
        },
        signal,
      );
      if (res.outcome.outcome !== "selected") return CANCELLED_INPUT;
      const picked = res.outcome.optionId;
      const idx = options.findIndex((o) => o.optionId === picked);
      const opt = idx >= 0 && idx < q.options.length ? q.options[idx] : undefined;
      if (!opt) return DECLINED;
      const value = opt.value ?? opt.label;
      answers[q.question] = q.multiSelect ? [value] : value;
    }
    return { action: "accept", content: { answers } };
  }
}
