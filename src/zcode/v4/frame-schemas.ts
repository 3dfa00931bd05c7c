import * as v from "valibot";
import { bool, loose, maybe, num, str, tolerantArray } from "../schemas.ts";
import { RowSchema } from "./schemas.ts";

// What ZCode sends on a conversation subscription, read tolerantly: the
// fields the feed uses are checked, unknown keys and enum values pass. From
// ZCode's packages/shared/src/zcode-protocol-v4/: transport.ts (subscribe
// answer, frame envelope), wire.ts (physical wire frames), snapshot.ts,
// delta.ts, rows.ts (RowSchema in ./schemas.ts), core.ts (limits).

/** core.ts `V4_WIRE_PROTOCOL_VERSION`. */
export const WIRE_VERSION = 3;

/** core.ts `PROTOCOL_V4_LIMITS` (the ones the assembler uses). */
export const WIRE_LIMITS = {
  maxFrameBytes: 1024 * 1024,
  logicalFrameAssemblyMaxBytes: 16 * 1024 * 1024,
  logicalFrameAssemblyMaxFragments: 1024,
  logicalFrameAssemblyMaxConcurrent: 32,
  logicalFrameAssemblyMaxStagedBytes: 32 * 1024 * 1024,
  logicalFrameAssemblyTimeoutMs: 30_000,
  snapshotTailWindowRows: 60,
} as const;

// ---------------------------------------------------------------- subscribe answer

/** transport.ts `v4ConversationSubscribeResultSchema` / `v4ConversationResyncResultSchema`: `{ack}`. */
export const SubscribeAckSchema = loose({
  subscriptionId: str,
  /** snapshot | resume (resume = the base the client sent was valid, deltas follow from base.seq). */
  mode: str,
  logEpoch: str,
});
export type SubscribeAck = v.InferOutput<typeof SubscribeAckSchema>;
export const SubscribeResultSchema = loose({ ack: SubscribeAckSchema });

// ---------------------------------------------------------------- physical wire frames (wire.ts)

/** What a complete frame and a fragment both carry. */
const wireFrameBase = {
  wireVersion: v.literal(WIRE_VERSION),
  deliveryKind: v.optional(v.unknown()),
  logicalFrameId: v.pipe(str, v.minLength(1)),
  logicalFrameOrdinal: num,
  topic: v.pipe(str, v.minLength(1)),
  subscriptionId: v.pipe(str, v.minLength(1)),
};

/** wire.ts `topicWireFrameCandidateSchema`: the outer shape; the rest is the assembler's to check. */
export const WireFrameSchema = v.variant("kind", [
  loose({ ...wireFrameBase, kind: v.literal("complete"), frame: v.optional(v.unknown()) }),
  loose({
    ...wireFrameBase,
    kind: v.literal("fragment"),
    fragmentIndex: v.optional(v.unknown()),
    fragmentCount: v.optional(v.unknown()),
    logicalBytes: v.optional(v.unknown()),
    checksum: v.optional(v.unknown()),
    dataBase64: v.optional(v.unknown()),
  }),
]);
export type WireFrame = v.InferOutput<typeof WireFrameSchema>;

// ---------------------------------------------------------------- snapshot state (snapshot.ts)

const ActiveWorkSchema = loose({ kind: str, foregroundExecutionId: maybe(str), sourceCommandId: maybe(str), startedAt: maybe(num) });
/** snapshot.ts `sessionErrorInfoSchema`. */
export const SessionErrorSchema = loose({
  code: str,
  message: str,
  recoverable: maybe(bool),
  source: maybe(str),
  detail: maybe(str),
  attribution: maybe(loose({ retryable: maybe(bool), reason: maybe(str), statusCode: maybe(num) })),
});
export type SessionError = v.InferOutput<typeof SessionErrorSchema>;

/** snapshot.ts `sessionControlSchema`: phase draft|prewarming|running|completedSuccess|completedInterrupted|error. */
export const ControlSchema = loose({
  phase: str,
  canStop: maybe(bool),
  stopState: maybe(str),
  activeWorks: tolerantArray(ActiveWorkSchema),
  lastError: maybe(v.nullable(SessionErrorSchema)),
});
export type Control = v.InferOutput<typeof ControlSchema>;

/** session-config.ts `sessionConfigStateSchema`: the effective provider/model/thought and the collaboration mode. */
export const ConfigSchema = loose({
  provider: maybe(str),
  model: maybe(str),
  thought: maybe(str),
  thoughtLevels: maybe(v.array(str)),
  followupMode: maybe(str),
  mode: maybe(str),
  planEnabled: maybe(bool),
});
export type Config = v.InferOutput<typeof ConfigSchema>;

export const MetaSchema = loose({ title: str, titleSource: maybe(str) });
export type Meta = v.InferOutput<typeof MetaSchema>;

/** snapshot.ts `sessionUsageStateSchema`. */
export const UsageStateSchema = loose({
  contextWindow: maybe(v.nullable(loose({ usedTokens: num, maxTokens: num, autoCompactThresholdTokens: maybe(v.nullable(num)) }))),
  cumulative: maybe(
    loose({ inputTokens: maybe(num), outputTokens: maybe(num), cacheReadTokens: maybe(num), cacheWriteTokens: maybe(num) }),
  ),
});
export type UsageState = v.InferOutput<typeof UsageStateSchema>;

/** snapshot.ts `queueStateSchema`; items are input-intent.ts `conversationInputIntentSchema` (queueItemId is a steer's pendingInputId). */
export const QueueItemSchema = loose({
  queueItemId: str,
  sourceCommandId: maybe(str),
  kind: maybe(str),
  text: maybe(str),
  delivery: maybe(loose({ requested: maybe(str), admitted: maybe(str), fallbackReasonCode: maybe(str) })),
  steer: maybe(loose({ state: maybe(str), reasonCode: maybe(str) })),
  dispatch: maybe(loose({ state: maybe(str) })),
});
export type QueueItem = v.InferOutput<typeof QueueItemSchema>;
export const QueueSchema = loose({
  items: tolerantArray(QueueItemSchema),
  autoDrain: maybe(bool),
  pauseReason: maybe(str),
});
export type Queue = v.InferOutput<typeof QueueSchema>;

/** snapshot.ts `planItemSchema`: status pending|inProgress|completed. */
export const PlanItemSchema = loose({ id: maybe(str), content: str, status: maybe(str) });
export const PlanSchema = loose({ items: tolerantArray(PlanItemSchema), updatedAt: maybe(num) });
export type Plan = v.InferOutput<typeof PlanSchema>;

/** snapshot.ts `goalStateSchema`. */
export const GoalSchema = loose({ objective: str, status: maybe(str), iteration: maybe(num) });
export type Goal = v.InferOutput<typeof GoalSchema>;

/** snapshot.ts `subagentProjectionStateSchema`. */
export const SubagentsSchema = loose({
  running: tolerantArray(
    loose({
      childSessionId: str,
      agentId: maybe(str),
      toolCallId: maybe(str),
      subagentType: maybe(str),
      title: maybe(str),
      summary: maybe(str),
      status: maybe(str),
    }),
  ),
  endedTotal: maybe(num),
});
export type Subagents = v.InferOutput<typeof SubagentsSchema>;

// ---------------------------------------------------------------- pending interactions (snapshot.ts)

/** snapshot.ts `permissionOptionSchema`: kind allowOnce|allowAlways|deny|custom; `response` is ZCode's legacy permission response. */
export const PermissionOptionSchema = loose({ optionId: str, label: str, kind: maybe(str), response: maybe(v.unknown()) });
export const PermissionPayloadSchema = loose({
  kind: v.literal("permission"),
  toolCallId: str,
  toolName: str,
  summary: maybe(str),
  detail: maybe(v.unknown()),
  freeText: maybe(bool),
  display: maybe(v.unknown()),
  fullAccessOption: maybe(PermissionOptionSchema),
  options: tolerantArray(PermissionOptionSchema),
});
export const QuestionSchema = loose({
  question: str,
  header: maybe(str),
  options: tolerantArray(loose({ value: maybe(str), label: str, description: maybe(str) })),
  multiSelect: maybe(bool),
});
export const UserInputPayloadSchema = loose({
  kind: v.literal("userInput"),
  prompt: maybe(str),
  freeText: maybe(bool),
  options: maybe(tolerantArray(loose({ optionId: str, label: str }))),
  sensitive: maybe(bool),
  toolName: maybe(str),
  toolCallId: maybe(str),
  input: maybe(v.unknown()),
  schema: maybe(v.unknown()),
  questions: maybe(tolerantArray(QuestionSchema)),
});
/** snapshot.ts `pendingInteractionSchema`; workspaceHookReview and newer kinds are kept as "other". */
export const PendingInteractionSchema = loose({
  interactionId: str,
  kind: str,
  anchorRowId: maybe(v.nullable(num)),
  payload: v.union([PermissionPayloadSchema, UserInputPayloadSchema, loose({ kind: str })]),
});
export type PendingInteraction = v.InferOutput<typeof PendingInteractionSchema>;

// ---------------------------------------------------------------- snapshot, deltas, frames

/** snapshot.ts `rowsWindowSchema`: the tail window, rowId ascending. */
export const RowsWindowSchema = loose({
  window: tolerantArray(RowSchema),
  totalCount: maybe(num),
  firstRowId: maybe(v.nullable(num)),
});

/** The state keys the feed reads; a bad value of one reads as absent rather than losing the frame. */
const stateEntries = {
  control: maybe(ControlSchema),
  meta: maybe(MetaSchema),
  config: maybe(ConfigSchema),
  usage: maybe(UsageStateSchema),
  queue: maybe(QueueSchema),
  pendingInteractions: maybe(tolerantArray(PendingInteractionSchema)),
  subagents: maybe(SubagentsSchema),
  goal: maybe(v.nullable(GoalSchema)),
  plan: maybe(v.nullable(PlanSchema)),
};

/** snapshot.ts `conversationSnapshotSchema`. */
export const SnapshotSchema = loose({
  sessionId: maybe(str),
  logEpoch: str,
  seq: maybe(num),
  revision: num,
  ...stateEntries,
  rows: RowsWindowSchema,
});
export type Snapshot = v.InferOutput<typeof SnapshotSchema>;

/** delta.ts `statePatchSchema`: key-level replace (a key present replaces the whole value). */
export const StatePatchSchema = loose({ revision: maybe(num), ...stateEntries });
export type StatePatch = v.InferOutput<typeof StatePatchSchema>;

/** delta.ts `conversationDeltaSchema`: the ops the feed applies; others (pluginUi.*, workflowRun.*) are "other" and skipped. */
export const DeltaSchema = v.union([
  loose({ op: v.literal("row.appended"), row: RowSchema }),
  loose({ op: v.literal("row.upserted"), row: RowSchema }),
  loose({ op: v.literal("row.removed"), fromRowId: num }),
  /** path: text | inputText | output.text | summaryText (core.ts `streamablePathSchema`). */
  loose({ op: v.literal("row.delta"), rowId: num, path: str, append: str }),
  loose({ op: v.literal("state.updated"), patch: StatePatchSchema }),
  loose({ op: str }),
]);
export type Delta = v.InferOutput<typeof DeltaSchema>;

/** transport.ts `createTopicFrameSchema`: `(fromSeq, toSeq]`; a snapshot frame has fromSeq 0. */
export const ConversationFrameSchema = loose({
  topic: str,
  subscriptionId: str,
  fromSeq: num,
  toSeq: num,
  sentAt: maybe(num),
  payload: v.variant("kind", [
    loose({ kind: v.literal("snapshot"), snapshot: SnapshotSchema }),
    loose({ kind: v.literal("deltas"), deltas: v.array(DeltaSchema) }),
  ]),
});
export type ConversationFrame = v.InferOutput<typeof ConversationFrameSchema>;
