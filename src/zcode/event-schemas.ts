import * as v from "valibot";
import { bool, ErrorDetailSchema, loose, maybe, num, str, summarizeIssues } from "./schemas.ts";

// `session/event` notifications (and the `events` of a session/subscribe
// answer). Every event carries a `seq` that is contiguous over everything the
// CLI sends for the session, so an event of a type we do not use still takes
// its seq: the connection routes every envelope, and parseEvent() tells the
// types we read apart from the rest (which are skipped, seq consumed).

/** An envelope as routed: only what routing and ordering need is checked. */
export interface RawEvent {
  sessionId: string;
  seq: number;
  type: string;
  turnId?: string | null;
  payload?: unknown;
}

/** The envelope of a `session/event`, or why it is not one (no session, no seq). */
export function readEnvelope(params: unknown): RawEvent | string {
  if (typeof params !== "object" || params === null) return "params is not an object";
  const p = params as Record<string, unknown>;
  if (typeof p.sessionId !== "string" || p.sessionId === "") return "sessionId: expected a string";
  if (typeof p.seq !== "number" || !Number.isSafeInteger(p.seq) || p.seq < 0) return "seq: expected a non-negative integer";
  if (typeof p.type !== "string") return "type: expected a string";
  return p as unknown as RawEvent;
}

export const UsageSchema = loose({
  inputTokens: maybe(num),
  outputTokens: maybe(num),
  totalTokens: maybe(num),
  cacheReadTokens: maybe(num),
  cacheWriteTokens: maybe(num),
  reasoningTokens: maybe(num),
});
export type Usage = v.InferOutput<typeof UsageSchema>;

/** A finished tool: `content` is what a person reads; a failure is `success:false` (or a tool.updated `error`). */
export const ToolResultSchema = loose({
  success: maybe(bool),
  content: maybe(str),
  /** Richer views: `{kind:"file_diff", filePath, structuredPatch, …}`, `{kind:"bash_output", output, …}`. */
  display: maybe(v.unknown()),
  /** Telemetry; a command's exit code is `detail.command.exitCode`. */
  perf: maybe(v.unknown()),
  error: maybe(ErrorDetailSchema),
  truncated: maybe(bool),
});
export type ToolResult = v.InferOutput<typeof ToolResultSchema>;

export const ModelStreamingSchema = loose({
  /** text_delta, reasoning_delta, tool_input_start/delta/end, tool_call, and markers (start, finish, text_start, …). */
  kind: str,
  delta: maybe(str),
  toolCallId: maybe(str),
  /** May be absent on `tool_call`: it came with `tool_input_start`. */
  toolName: maybe(str),
  input: maybe(v.unknown()),
  assistantMessageId: maybe(str),
});
export type ModelStreaming = v.InferOutput<typeof ModelStreamingSchema>;

/** One loose shape for every `kind` (scheduled, started, progress, result, error, batch, and any new one). */
export const ToolUpdatedSchema = loose({
  kind: str,
  toolCallId: maybe(str),
  toolName: maybe(str),
  input: maybe(v.unknown()),
  /** The input is the one model.streaming `tool_call` carried. */
  inputOmitted: maybe(bool),
  stdoutTail: maybe(v.nullable(str)),
  stderrTail: maybe(v.nullable(str)),
  result: maybe(ToolResultSchema),
  error: maybe(ErrorDetailSchema),
  /** `batch`: the tools a parallel group finished. */
  toolCallIds: maybe(v.array(str)),
  successCount: maybe(num),
  errorCount: maybe(num),
  /** "subagent": a tool of a subagent mirrored into the parent (tool-event-mirror.ts), with the child session. */
  source: maybe(str),
  childSessionId: maybe(str),
});
export type ToolUpdated = v.InferOutput<typeof ToolUpdatedSchema>;

export const TurnCompletedSchema = loose({
  /** success, cancelled, error_max_turns, error_max_budget, error_during_execution, error_max_tool_calls. */
  resultType: maybe(str),
  response: maybe(str),
  usage: maybe(UsageSchema),
});
export type TurnCompleted = v.InferOutput<typeof TurnCompletedSchema>;

export const TurnFailedSchema = loose({ error: maybe(ErrorDetailSchema), turnPhase: maybe(str) });
export type TurnFailed = v.InferOutput<typeof TurnFailedSchema>;

/** Raw runtime payloads with no type tag: a mode change `{mode, previousMode}`, a model request's `{usage, contextWindow}`, hooks… */
export const SessionUpdatedSchema = loose({
  mode: maybe(str),
  previousMode: maybe(str),
  usage: maybe(UsageSchema),
  contextWindow: maybe(v.nullable(num)),
  /** Why a model request ended (max_tokens, refusal, end_turn, tool_use, …). */
  stopReason: maybe(str),
  /** TurnSteerDeliveryChanged (no legacy name): a guide that could not reach its turn fell back to the queue. */
  fallbackReasonCode: maybe(str),
  pendingInputId: maybe(str),
  /** A compaction's progress: what started it (manual, auto, partial, reactive, session_memory) and the token counts. */
  trigger: maybe(str),
  preCompactTokenCount: maybe(num),
  postCompactTokenCount: maybe(num),
  /** A compaction that ended without a result (failed, interrupted); a subagent's state (running, completed, failed, stopped). */
  status: maybe(str),
  /**
   * ZCode's subagent events (SubagentSpawned / SubagentMessage / SubagentStopped,
   * core/src/subagent/runner.ts) arrive here untyped: the child session, the
   * parent's Agent tool call, and the words of each.
   */
  agentId: maybe(str),
  agentType: maybe(str),
  childSessionId: maybe(str),
  parentToolCallId: maybe(str),
  description: maybe(str),
  prompt: maybe(str),
  summaryText: maybe(str),
  text: maybe(str),
  error: maybe(v.unknown()),
  /** Set on a background task's payload (taskKind "subagent"), which is not a subagent event. */
  taskKind: maybe(str),
});
export type SessionUpdated = v.InferOutput<typeof SessionUpdatedSchema>;
export type TurnStarted = v.InferOutput<(typeof EVENT_PAYLOADS)["turn.started"]>;

const EVENT_PAYLOADS = {
  /** queryId: the v4 commandId of a turn a command started; foregroundExecutionId: what v4 stop names. */
  "turn.started": loose({ input: maybe(str), messageId: maybe(str), queryId: maybe(str), foregroundExecutionId: maybe(str) }),
  /** A steer (v4 guide) admitted into the running turn. */
  "turn.steerQueued": loose({ pendingInputId: maybe(str), input: maybe(str), delivery: maybe(str) }),
  /** Steers taken into the turn as the user's words, at a step boundary. */
  "turn.steerDrained": loose({ drainedInputs: maybe(v.array(loose({ pendingInputId: maybe(str), text: maybe(str) }))) }),
  "model.streaming": ModelStreamingSchema,
  "tool.updated": ToolUpdatedSchema,
  "turn.completed": TurnCompletedSchema,
  "turn.failed": TurnFailedSchema,
  "session.titleUpdated": loose({ title: str }),
  "session.updated": SessionUpdatedSchema,
  /** A permission ZCode decided: a denied tool gets no tool.updated result or error. */
  "permission.resolved": loose({ toolCallId: maybe(str), decision: maybe(str), reason: maybe(str) }),
} as const;

type Payloads = { [K in keyof typeof EVENT_PAYLOADS]: v.InferOutput<(typeof EVENT_PAYLOADS)[K]> };
export type ZCodeEventType = keyof Payloads;
export type ZCodeEvent = {
  [K in ZCodeEventType]: { sessionId: string; seq: number; turnId?: string | null; type: K; payload: Payloads[K] };
}[ZCodeEventType];

export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set(Object.keys(EVENT_PAYLOADS));

export type EventParse =
  | { ok: true; event: ZCodeEvent }
  | { ok: false; unknownType: true; type: string }
  | { ok: false; unknownType: false; issue: string };

/** Reads a routed envelope as one of the events the bridge uses; other types are told apart from bad payloads. */
export function parseEvent(raw: RawEvent): EventParse {
  const schema = (EVENT_PAYLOADS as Record<string, v.GenericSchema>)[raw.type];
  if (!schema) return { ok: false, unknownType: true, type: raw.type };
  const r = v.safeParse(schema, raw.payload ?? {});
  if (!r.success) return { ok: false, unknownType: false, issue: `payload.${summarizeIssues(r.issues)}` };
  return {
    ok: true,
    event: { sessionId: raw.sessionId, seq: raw.seq, turnId: raw.turnId, type: raw.type, payload: r.output } as ZCodeEvent,
  };
}
