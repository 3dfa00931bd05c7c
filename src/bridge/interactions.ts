import * as v from "valibot";
import {
  RequestError,
  type ClientCapabilities,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  type ElicitationPropertySchema,
  type PermissionOption,
  type PermissionOptionKind,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionUpdate,
  type ToolCallUpdate,
} from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import {
  PermissionRequestParamsSchema,
  UserInputRequestParamsSchema,
  summarizeIssues,
  type PermissionAnswer,
  type PermissionRequestParams,
  type Question,
  type UserInputAnswer,
  type UserInputRequestParams,
} from "../zcode/schemas.ts";
import { ToolCallTracker } from "./tool-calls.ts";
import { oneLine, textContent } from "./tool-presentation.ts";

// ZCode asks the editor things through interaction/requestPermission and
// interaction/requestUserInput. This router shows each once (ZCode re-sends
// an unanswered request every second under the same requestId), chooses the
// ACP mechanism the client supports (elicitation forms only when advertised),
// maps the answer back, and withdraws everything of a session on cancel.

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

// ---- permission options ----------------------------------------------------

const ACP_KIND_BY_ZCODE: Record<string, PermissionOptionKind> = {
  allow_once: "allow_once",
  allow_always: "allow_always",
  reject_once: "reject_once",
  reject_always: "reject_always",
  deny_once: "reject_once",
  deny_always: "reject_always",
};

const DEFAULT_NAME: Record<PermissionOptionKind, string> = {
  allow_once: "Allow",
  allow_always: "Always allow",
  reject_once: "Reject",
  reject_always: "Always reject",
};

/**
 * ZCode option kind → one of ACP's four (an editor refuses any other kind).
 * Unknown kinds are read by prefix (allow… / deny… / reject…, "always" in
 * them making it permanent); the option id stands in when the kind is absent.
 */
export function acpOptionKind(kind: string | undefined, optionId?: string): PermissionOptionKind | undefined {
  const k = (kind ?? optionId ?? "").toLowerCase();
  const exact = ACP_KIND_BY_ZCODE[k];
  if (exact) return exact;
  const always = k.includes("always");
  if (k.startsWith("allow") || k.startsWith("accept") || k.startsWith("approve")) return always ? "allow_always" : "allow_once";
  if (k.startsWith("deny") || k.startsWith("reject")) return always ? "reject_always" : "reject_once";
  if (kind !== undefined && optionId !== undefined) return acpOptionKind(undefined, optionId);
  return undefined;
}

/** The request's options as ACP options; Allow/Reject when ZCode gave none usable. */
export function permissionOptions(options: PermissionRequestParams["options"]): PermissionOption[] {
  const out: PermissionOption[] = [];
  for (const o of options ?? []) {
    const kind = acpOptionKind(o.kind, o.optionId);
    if (!kind) {
      logger.warn(`dropping permission option ${JSON.stringify(o.optionId)} of unknown kind ${JSON.stringify(o.kind)}`);
      continue;
    }
    out.push({ optionId: o.optionId, name: o.name || DEFAULT_NAME[kind], kind });
  }
  if (out.length > 0) return out;
  return [
    { optionId: "allow", name: DEFAULT_NAME.allow_once, kind: "allow_once" },
    { optionId: "reject", name: DEFAULT_NAME.reject_once, kind: "reject_once" },
  ];
}

// ---- question forms -----------------------------------------------------------

function optionValue(o: Question["options"][number]): string {
  return o.value ?? o.label;
}

/** Property key of question i in the form (question texts make poor keys). */
function questionKey(i: number): string {
  return `q_${i}`;
}

export const OTHER_FIELD = "other";

/** One form for all questions: an enum per single choice, an array of enums per multi-select, free text. */
export function questionsForm(questions: readonly Question[]): Record<string, ElicitationPropertySchema> {
  const props: Record<string, ElicitationPropertySchema> = {};
  questions.forEach((q, i) => {
    const choices = q.options.map((o) => ({
      const: optionValue(o),
      title: o.label,
      ...(o.description ? { description: o.description } : {}),
    }));
    const base = { title: q.question, ...(q.header ? { description: q.header } : {}) };
    props[questionKey(i)] = q.multiSelect
      ? { type: "array", ...base, items: { anyOf: choices } }
      : { type: "string", ...base, oneOf: choices };
  });
  props[OTHER_FIELD] = {
    type: "string",
    title: "Other",
    description: "Your own answer, for a question left without a choice (or a note for the agent)",
  };
  return props;
}

/** Maps a chosen value (or a label a client sent back instead) to the option value. */
function normalizeChoice(q: Question, raw: unknown): string | undefined {
  if (typeof raw !== "string" || raw === "") return undefined;
  const byValue = q.options.find((o) => optionValue(o) === raw);
  if (byValue) return optionValue(byValue);
  const byLabel = q.options.find((o) => o.label === raw);
  return byLabel ? optionValue(byLabel) : raw;
}

/**
 * Form answer → ZCode content: question text → value (an array for
 * multi-select). The free-text field answers every question left without a
 * choice; when all have one, it is passed on under "other" rather than lost.
 */
export function answersFromForm(questions: readonly Question[], content: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const otherRaw = content[OTHER_FIELD];
  const other = typeof otherRaw === "string" && otherRaw.trim() ? otherRaw.trim() : undefined;
  let otherUsed = false;
  questions.forEach((q, i) => {
    const raw = content[questionKey(i)];
    if (q.multiSelect) {
      const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
        .map((x) => normalizeChoice(q, x))
        .filter((x): x is string => x !== undefined);
      if (list.length > 0) out[q.question] = list;
      else if (other) {
        out[q.question] = [other];
        otherUsed = true;
      }
    } else {
      const choice = normalizeChoice(q, raw);
      if (choice !== undefined) out[q.question] = choice;
      else if (other) {
        out[q.question] = other;
        otherUsed = true;
      }
    }
  });
  if (other && !otherUsed) out[OTHER_FIELD] = other;
  return out;
}

// ---- the router ---------------------------------------------------------------

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
    const t = this.tracker(sessionId);
    for (const u of t.ensureAnnounced(toolCallId, { toolName, input })) {
      await this.port.sendUpdate(sessionId, u);
    }
    const view = t.get(toolCallId);
    return view
      ? { toolCallId, title: view.title, kind: view.kind, rawInput: view.rawInput, locations: view.locations }
      : { toolCallId, title: toolName || "Tool", rawInput: input ?? {} };
  }

  private async requestPermission(req: RequestPermissionRequest, signal: AbortSignal): Promise<RequestPermissionResponse> {
    const res = (await this.port.request("session/request_permission", req, { cancellationSignal: signal })) as
      | RequestPermissionResponse
      | undefined;
    if (!res || typeof res !== "object" || !res.outcome) throw new Error("the client answered session/request_permission without an outcome");
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
    if (!res || typeof res !== "object" || typeof res.action !== "string") throw new Error("the client answered elicitation/create without an action");
    return res;
  }

  // ---- the three interactions -------------------------------------------------

  private async askPermission(p: PermissionRequestParams, signal: AbortSignal): Promise<PermissionAnswer> {
    const toolCallId = p.toolCallId ?? `permission-${p.requestId}`;
    const toolCall = await this.announce(p.sessionId, toolCallId, p.toolName ?? "", p.input);
    const options = permissionOptions(p.options);
    let res: RequestPermissionResponse;
    try {
      res = await this.requestPermission({ sessionId: p.sessionId, toolCall, options }, signal);
    } catch (e) {
      if (signal.aborted) return CANCELLED_PERMISSION;
      logger.warn(`session/request_permission failed: ${describeError(e)}`);
      return { decision: "deny", reason: `the editor could not ask for permission: ${describeError(e)}` };
    }
    const outcome = res.outcome;
    if (outcome.outcome !== "selected") return CANCELLED_PERMISSION;
    const chosen = options.find((o) => o.optionId === outcome.optionId);
    if (!chosen) return { decision: "deny", reason: `unknown option ${JSON.stringify(outcome.optionId)}` };
    if (chosen.kind === "allow_once" || chosen.kind === "allow_always") return { decision: "allow" };
    return { decision: "deny", reason: chosen.kind === "reject_always" ? "Rejected by the user (always)" : "Rejected by the user" };
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
          message: plan ? `Approve this plan and start coding?\n\n${plan}` : "Approve the plan and start coding?",
          requestedSchema: {
            type: "object",
            title: "Plan approval",
            properties: {
              decision: {
                type: "string",
                title: "Ready to code?",
                oneOf: [
                  { const: "approve", title: "Approve: start coding" },
                  { const: "reject", title: "Reject: keep planning" },
                ],
                default: "approve",
              },
            },
            required: ["decision"],
          },
        },
        signal,
      );
      if (res.action === "accept") {
        const d = (res as { content?: Record<string, unknown> | null }).content?.decision;
        return d === "approve" || d === true ? { action: "accept", content: {} } : DECLINED;
      }
      return res.action === "cancel" ? CANCELLED_INPUT : DECLINED;
    }
    const res = await this.requestPermission(
      {
        sessionId: p.sessionId,
        toolCall: { ...toolCall, title: "Ready to code?", kind: "switch_mode", content: plan ? [textContent(plan)] : [] },
        options: [
          { optionId: "approve", name: "Yes, start coding", kind: "allow_once" },
          { optionId: "reject", name: "No, keep planning", kind: "reject_once" },
        ],
      },
      signal,
    );
    if (res.outcome.outcome !== "selected") return CANCELLED_INPUT;
    return res.outcome.optionId === "approve" ? { action: "accept", content: {} } : DECLINED;
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
          message: questions.length === 1 ? first.question : `Please answer ${questions.length} questions.`,
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
    const content: Record<string, unknown> = {};
    for (const q of questions) {
      const options: PermissionOption[] = q.options.map((o, j) => ({ optionId: `option-${j}`, name: o.label, kind: "allow_once" }));
      options.push({ optionId: "decline", name: "Don't answer", kind: "reject_once" });
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
      content[q.question] = q.multiSelect ? [optionValue(opt)] : optionValue(opt);
    }
    return { action: "accept", content };
  }
}
