import * as v from "valibot";

// Valibot schemas for everything that crosses the ZCode wire, per
// ZCODE-PROTOCOL.md and ZCODE-SHAPES.md. Every object is loose (extra fields
// pass through: newer CLIs add fields) and everything the docs do not promise
// is optional. Types are inferred from the schemas, never written twice.

const loose = v.looseObject;
const opt = v.optional;
const str = v.string();
const num = v.number();

// ---------------------------------------------------------------- common values

export const WorkspaceSchema = loose({ workspacePath: str, workspaceKey: opt(str) });
export type Workspace = v.InferOutput<typeof WorkspaceSchema>;

export const SessionInfoSchema = loose({
  sessionId: str,
  title: opt(v.nullable(str)),
  traceId: opt(v.nullable(str)),
  workspace: opt(WorkspaceSchema),
  createdAt: opt(num),
  updatedAt: opt(num),
  status: opt(str),
  turnCount: opt(num),
});
export type SessionInfo = v.InferOutput<typeof SessionInfoSchema>;

const ValueLabelSchema = loose({ value: str, label: opt(str) });

export const ModelRefSchema = loose({
  providerId: opt(str),
  modelId: str,
  label: opt(str),
  defaultLevel: opt(str),
});
export type ModelRef = v.InferOutput<typeof ModelRefSchema>;

export const SettingsSchema = loose({
  mode: opt(loose({ current: opt(str), available: opt(v.array(ValueLabelSchema)) })),
  model: opt(loose({ current: opt(v.nullable(ModelRefSchema)), available: opt(v.array(ModelRefSchema)) })),
  thoughtLevel: opt(
    loose({ current: opt(str), available: opt(v.array(ValueLabelSchema)), defaultLevel: opt(str) }),
  ),
});
export type Settings = v.InferOutput<typeof SettingsSchema>;

export const TodoSchema = loose({
  id: opt(v.union([str, num])),
  content: str,
  status: str,
  priority: opt(str),
  activeForm: opt(str),
});
export type Todo = v.InferOutput<typeof TodoSchema>;

export const ProjectionSchema = loose({
  status: opt(str),
  mode: opt(str),
  contextUsed: opt(num),
  contextWindow: opt(num),
  totalTokenCount: opt(num),
  turnCount: opt(num),
  currentTurnId: opt(v.nullable(str)),
  revision: opt(num),
});
export type Projection = v.InferOutput<typeof ProjectionSchema>;

export const GoalSchema = loose({ objective: str, status: opt(str), setAt: opt(num) });
export type Goal = v.InferOutput<typeof GoalSchema>;

export const ToolStateSchema = loose({
  status: str,
  output: opt(v.unknown()),
  result: opt(v.unknown()),
  error: opt(v.unknown()),
});

export const MessagePartSchema = v.variant("type", [
  loose({ type: v.literal("text"), text: str }),
  loose({ type: v.literal("reasoning"), text: str }),
  loose({
    type: v.literal("tool"),
    toolCallId: str,
    toolName: str,
    input: opt(v.unknown()),
    state: opt(ToolStateSchema),
  }),
]);
export type MessagePart = v.InferOutput<typeof MessagePartSchema>;

/** Unknown part types (newer CLIs) are kept out rather than failing the whole message. */
const AnyPartSchema = v.pipe(
  v.array(v.unknown()),
  v.transform((parts) =>
    parts.flatMap((p) => {
      const r = v.safeParse(MessagePartSchema, p);
      return r.success ? [r.output] : [];
    }),
  ),
);

export const MessageSchema = loose({
  info: loose({
    id: opt(str),
    role: str,
    createdAt: opt(num),
    finish: opt(v.unknown()),
  }),
  parts: AnyPartSchema,
  semantics: opt(v.nullable(loose({ kind: opt(str) }))),
});
export type Message = v.InferOutput<typeof MessageSchema>;

// ---------------------------------------------------------------- request params

export const CreateParamsSchema = loose({
  workspace: WorkspaceSchema,
  mode: opt(str),
  mcpServers: opt(v.array(v.unknown())),
});
export type CreateParams = v.InferOutput<typeof CreateParamsSchema>;

export const ResumeParamsSchema = loose({ sessionId: str, workspace: WorkspaceSchema });
export type ResumeParams = v.InferOutput<typeof ResumeParamsSchema>;

export const SessionIdParamsSchema = loose({ sessionId: str });

export const SubscribeParamsSchema = loose({
  sessionId: str,
  deliveryKind: str,
  includeSnapshot: opt(v.boolean()),
  afterSeq: opt(num),
});
export type SubscribeParams = v.InferOutput<typeof SubscribeParamsSchema>;

export const SendParamsSchema = loose({ sessionId: str, content: str });

export const CheckpointTargetSchema = loose({ kind: str, checkpointId: opt(str) });
export type CheckpointTarget = v.InferOutput<typeof CheckpointTargetSchema>;

export const GoalActionSchema = v.picklist(["show", "set", "replace", "clear", "pause", "resume"]);
export type GoalAction = v.InferOutput<typeof GoalActionSchema>;

// ---------------------------------------------------------------- results

export const CreateResultSchema = loose({ session: SessionInfoSchema, settings: opt(SettingsSchema) });
export type CreateResult = v.InferOutput<typeof CreateResultSchema>;

export const ResumeResultSchema = loose({ session: SessionInfoSchema, settings: opt(SettingsSchema) });
export type ResumeResult = v.InferOutput<typeof ResumeResultSchema>;

export const ListResultSchema = loose({ sessions: v.array(SessionInfoSchema) });
export type ListResult = v.InferOutput<typeof ListResultSchema>;

export const ReadResultSchema = loose({
  session: opt(SessionInfoSchema),
  projection: opt(ProjectionSchema),
  settings: opt(SettingsSchema),
  todos: opt(v.nullable(v.array(TodoSchema))),
  goal: opt(v.nullable(GoalSchema)),
});
export type ReadResult = v.InferOutput<typeof ReadResultSchema>;

export const MessagesResultSchema = loose({
  messages: v.array(MessageSchema),
  hasMore: opt(v.boolean()),
});
export type MessagesResult = v.InferOutput<typeof MessagesResultSchema>;

/** The params of a `session/event` notification (declared below the events). */
const RawEventSchema = loose({
  sessionId: str,
  seq: num,
  type: str,
  payload: opt(v.unknown()),
  turnId: opt(v.nullable(str)),
});
export type RawEvent = v.InferOutput<typeof RawEventSchema>;

export const SubscribeResultSchema = loose({
  eventSeq: opt(num),
  /** Raw envelopes; validate each with parseEvent() (unknown types are skipped there). */
  events: opt(v.array(RawEventSchema)),
  snapshot: opt(
    loose({
      projection: opt(ProjectionSchema),
      messages: opt(v.array(MessageSchema)),
    }),
  ),
});
export type SubscribeResult = v.InferOutput<typeof SubscribeResultSchema>;

export const SendResultSchema = loose({ accepted: opt(v.boolean()) });
export type SendResult = v.InferOutput<typeof SendResultSchema>;

export const EmptyResultSchema = v.nullish(loose({}));

export const ForkResultSchema = loose({ forkedSessionId: str, session: opt(SessionInfoSchema) });
export type ForkResult = v.InferOutput<typeof ForkResultSchema>;

export const RewindResultSchema = loose({
  revision: opt(num),
  checkpointId: opt(v.nullable(str)),
  removedMessages: opt(num),
});
export type RewindResult = v.InferOutput<typeof RewindResultSchema>;

export const GoalResultSchema = loose({ goal: v.nullish(GoalSchema) });
export type GoalResult = v.InferOutput<typeof GoalResultSchema>;

export const CompactResultSchema = loose({
  compacted: opt(v.boolean()),
  summary: opt(v.nullable(str)),
  messagesBefore: opt(num),
});
export type CompactResult = v.InferOutput<typeof CompactResultSchema>;

export const SteerResultSchema = loose({ accepted: opt(v.boolean()) });
export type SteerResult = v.InferOutput<typeof SteerResultSchema>;

export const SetModeResultSchema = loose({ mode: opt(loose({ current: opt(str) })) });
export type SetModeResult = v.InferOutput<typeof SetModeResultSchema>;

export const SetThoughtLevelResultSchema = loose({ thoughtLevel: opt(loose({ current: opt(str) })) });
export type SetThoughtLevelResult = v.InferOutput<typeof SetThoughtLevelResultSchema>;

// ---------------------------------------------------------------- events

const UsageSchema = loose({
  inputTokens: opt(num),
  outputTokens: opt(num),
  totalTokens: opt(num),
});
export type Usage = v.InferOutput<typeof UsageSchema>;

export const ErrorInfoSchema = loose({
  code: opt(v.union([num, str])),
  message: opt(str),
  cause: opt(v.nullable(loose({ code: opt(v.union([num, str])) }))),
});
export type ErrorInfo = v.InferOutput<typeof ErrorInfoSchema>;

export const TurnStartedSchema = loose({ turnId: opt(str), inputSource: opt(str) });
export type TurnStarted = v.InferOutput<typeof TurnStartedSchema>;

export const TextDeltaSchema = loose({ kind: v.literal("text_delta"), delta: str });
export const ReasoningDeltaSchema = loose({ kind: v.literal("reasoning_delta"), delta: str });
export const ModelToolCallSchema = loose({
  kind: v.literal("tool_call"),
  toolCallId: str,
  toolName: str,
  input: opt(v.unknown()),
});
export type ModelToolCall = v.InferOutput<typeof ModelToolCallSchema>;
export const ModelStreamingSchema = v.variant("kind", [TextDeltaSchema, ReasoningDeltaSchema, ModelToolCallSchema]);
export type ModelStreaming = v.InferOutput<typeof ModelStreamingSchema>;

const toolBase = { toolCallId: str, toolName: opt(str) };
export const ToolScheduledSchema = loose({
  kind: v.literal("scheduled"),
  ...toolBase,
  input: opt(v.unknown()),
  inputOmitted: opt(v.boolean()),
});
export const ToolStartedSchema = loose({ kind: v.literal("started"), ...toolBase, input: opt(v.unknown()) });
export const ToolProgressSchema = loose({
  kind: v.literal("progress"),
  ...toolBase,
  stdoutTail: opt(v.nullable(str)),
  stderrTail: opt(v.nullable(str)),
});
export const ToolResultSchema = loose({
  kind: v.literal("result"),
  ...toolBase,
  output: opt(v.unknown()),
  result: opt(v.unknown()),
  durationMs: opt(num),
});
export const ToolErrorSchema = loose({
  kind: v.literal("error"),
  ...toolBase,
  error: opt(v.union([loose({ message: opt(str) }), str])),
});
export const ToolBatchItemSchema = loose({
  toolCallId: str,
  toolName: opt(str),
  kind: str,
  output: opt(v.unknown()),
  result: opt(v.unknown()),
  error: opt(v.unknown()),
});
export type ToolBatchItem = v.InferOutput<typeof ToolBatchItemSchema>;
export const ToolBatchSchema = loose({
  kind: v.literal("batch"),
  toolCallId: opt(str),
  toolName: opt(str),
  items: v.array(ToolBatchItemSchema),
});
export const ToolUpdatedSchema = v.variant("kind", [
  ToolScheduledSchema,
  ToolStartedSchema,
  ToolProgressSchema,
  ToolResultSchema,
  ToolErrorSchema,
  ToolBatchSchema,
]);
export type ToolUpdated = v.InferOutput<typeof ToolUpdatedSchema>;

export const TurnCompletedSchema = loose({
  turnId: opt(str),
  resultType: opt(str),
  usage: opt(v.nullable(UsageSchema)),
});
export type TurnCompleted = v.InferOutput<typeof TurnCompletedSchema>;

export const TurnFailedSchema = loose({ turnId: opt(str), error: opt(ErrorInfoSchema) });
export type TurnFailed = v.InferOutput<typeof TurnFailedSchema>;

export const SessionUpdatedSchema = loose({
  usage: opt(v.nullable(UsageSchema)),
  contextWindow: opt(num),
  title: opt(str),
});
export type SessionUpdated = v.InferOutput<typeof SessionUpdatedSchema>;

export const SteerQueuedSchema = loose({ content: opt(str) });
export type SteerQueued = v.InferOutput<typeof SteerQueuedSchema>;

const envelope = { sessionId: str, seq: num, turnId: opt(v.nullable(str)) };
const payloadOf = <S extends v.GenericSchema>(s: S) => v.optional(s, {});
export const ZCodeEventSchema = v.variant("type", [
  loose({ ...envelope, type: v.literal("turn.started"), payload: payloadOf(TurnStartedSchema) }),
  loose({ ...envelope, type: v.literal("model.streaming"), payload: ModelStreamingSchema }),
  loose({ ...envelope, type: v.literal("tool.updated"), payload: ToolUpdatedSchema }),
  loose({ ...envelope, type: v.literal("turn.completed"), payload: payloadOf(TurnCompletedSchema) }),
  loose({ ...envelope, type: v.literal("turn.failed"), payload: payloadOf(TurnFailedSchema) }),
  loose({ ...envelope, type: v.literal("session.updated"), payload: payloadOf(SessionUpdatedSchema) }),
  loose({ ...envelope, type: v.literal("turn.steerQueued"), payload: payloadOf(SteerQueuedSchema) }),
]);
export type ZCodeEvent = v.InferOutput<typeof ZCodeEventSchema>;
export type ZCodeEventType = ZCodeEvent["type"];

export const KNOWN_EVENT_TYPES: ReadonlySet<string> = new Set<ZCodeEventType>([
  "turn.started",
  "model.streaming",
  "tool.updated",
  "turn.completed",
  "turn.failed",
  "session.updated",
  "turn.steerQueued",
]);

export type EventParse =
  | { ok: true; event: ZCodeEvent }
  | { ok: false; unknownType: true; type: string; sessionId?: string }
  | { ok: false; unknownType: false; issue: string };

/** Validates a `session/event` envelope. Unknown event types are told apart from bad ones. */
export function parseEvent(params: unknown): EventParse {
  const raw = v.safeParse(RawEventSchema, params);
  if (!raw.success) return { ok: false, unknownType: false, issue: summarizeIssues(raw.issues) };
  if (!KNOWN_EVENT_TYPES.has(raw.output.type))
    return { ok: false, unknownType: true, type: raw.output.type, sessionId: raw.output.sessionId };
  // The type is known to be valid here, so validate against that one option
  // directly: v.variant would first try the other options' literals, and
  // each miss builds an issue (2.0 -> 0.8 µs per text delta, the hot path).
  const r = v.safeParse(EVENT_SCHEMA_BY_TYPE.get(raw.output.type)!, params);
  if (!r.success) return { ok: false, unknownType: false, issue: summarizeIssues(r.issues) };
  return { ok: true, event: r.output as ZCodeEvent };
}

const EVENT_SCHEMA_BY_TYPE: ReadonlyMap<string, (typeof ZCodeEventSchema.options)[number]> = new Map(
  ZCodeEventSchema.options.map((o) => [o.entries.type.literal, o]),
);

// ---------------------------------------------------------------- requests from the CLI

export const PermissionOptionSchema = loose({ optionId: str, kind: opt(str), name: opt(str) });
export type PermissionOption = v.InferOutput<typeof PermissionOptionSchema>;

export const PermissionRequestParamsSchema = loose({
  requestId: str,
  sessionId: str,
  toolCallId: opt(str),
  toolName: opt(str),
  reason: opt(v.nullable(str)),
  input: opt(v.unknown()),
  options: opt(v.array(PermissionOptionSchema)),
});
export type PermissionRequestParams = v.InferOutput<typeof PermissionRequestParamsSchema>;

export const QuestionOptionSchema = loose({ label: str, value: opt(str), description: opt(str) });
export const QuestionSchema = loose({
  question: str,
  header: opt(str),
  multiSelect: opt(v.boolean()),
  options: v.array(QuestionOptionSchema),
});
export type Question = v.InferOutput<typeof QuestionSchema>;

export const UserInputRequestParamsSchema = loose({
  requestId: str,
  sessionId: str,
  toolCallId: opt(str),
  schema: opt(loose({ interaction: opt(str) })),
  input: opt(
    loose({
      plan: opt(str),
      questions: opt(v.array(QuestionSchema)),
    }),
  ),
  questions: opt(v.array(QuestionSchema)),
});
export type UserInputRequestParams = v.InferOutput<typeof UserInputRequestParamsSchema>;

export const PermissionAnswerSchema = v.union([
  loose({ decision: v.literal("allow") }),
  loose({ decision: v.literal("deny"), reason: opt(str) }),
]);
export type PermissionAnswer = v.InferOutput<typeof PermissionAnswerSchema>;

export const UserInputAnswerSchema = v.union([
  loose({ action: v.literal("accept"), content: opt(v.record(str, v.unknown())) }),
  loose({ action: v.literal("decline") }),
  loose({ action: v.literal("cancel") }),
]);
export type UserInputAnswer = v.InferOutput<typeof UserInputAnswerSchema>;

export const RUNTIME_PREFERENCES = {
  nativeSearchEnhancementsEnabled: false,
  memoryEnabled: false,
  askUserQuestionAutoResolutionEnabled: false,
} as const;

// ---------------------------------------------------------------- helpers

/** One short line describing why a value failed validation (for logs and errors). */
export function summarizeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (!first) return "invalid";
  const path = v.getDotPath(first);
  return `${path ? `${path}: ` : ""}${first.message}`;
}
