import * as v from "valibot";

// The shapes the bridge reads from ZCode, from ZCode's own protocol schema
// (packages/shared/src/zcode-protocol/index.ts and zcode-protocol-legacy-types.ts;
// see ZCODE-REAL-WIRE.md). ZCode validates strictly and ships often; we read
// tolerantly: objects are loose (new keys pass), a field we use but cannot read
// falls back to "absent" instead of failing the whole answer, and a list drops
// the entries it cannot read. Only what the bridge cannot work without (a
// session id, an event's seq) is required. Types are inferred, never written twice.
//
// This file: values shared by results, events and requests. Method results are
// in result-schemas.ts, events in event-schemas.ts, requests from the CLI and
// our answers in request-schemas.ts.

export const loose = v.looseObject;
export const str = v.string();
export const num = v.number();
export const bool = v.boolean();

/** An optional field whose bad value reads as absent (a new ZCode must not turn a detail into an outage). */
export function maybe<S extends v.GenericSchema>(schema: S) {
  return v.fallback(v.optional(schema), undefined);
}

/** A list whose unreadable entries are dropped rather than failing the list. */
export function tolerantArray<S extends v.GenericSchema>(item: S) {
  return v.pipe(
    v.array(v.unknown()),
    v.transform((items) =>
      items.flatMap((x) => {
        const r = v.safeParse(item, x);
        return r.success ? [r.output as v.InferOutput<S>] : [];
      }),
    ),
  );
}

// ---------------------------------------------------------------- workspace and session

export const WorkspaceSchema = loose({ workspacePath: str, workspaceKey: maybe(str) });
export type Workspace = v.InferOutput<typeof WorkspaceSchema>;

export const SessionInfoSchema = loose({
  sessionId: str,
  title: maybe(v.nullable(str)),
  workspace: maybe(WorkspaceSchema),
  mode: maybe(str),
  status: maybe(str),
  sessionKind: maybe(str),
  createdAt: maybe(num),
  updatedAt: maybe(num),
});
export type SessionInfo = v.InferOutput<typeof SessionInfoSchema>;

// ---------------------------------------------------------------- settings

const ValueLabelSchema = loose({ value: str, label: maybe(str) });
export type ValueLabel = v.InferOutput<typeof ValueLabelSchema>;

/** `{providerId, modelId, options?}`: ZCode's model selection. */
export const ModelSelectionSchema = loose({
  providerId: str,
  modelId: str,
  options: maybe(loose({ reasoningLevel: maybe(str) })),
});
export type ModelSelection = v.InferOutput<typeof ModelSelectionSchema>;

/** An entry of `settings.model.available`: the model is named by `ref`, never at the top level. */
export const ModelOptionSchema = loose({
  ref: loose({ providerId: str, modelId: str }),
  label: maybe(str),
  providerLabel: maybe(str),
  description: maybe(str),
  contextWindow: maybe(v.nullable(num)),
  reasoning: maybe(loose({ levels: maybe(tolerantArray(ValueLabelSchema)), defaultLevel: maybe(str) })),
  disabledReason: maybe(str),
});
export type ModelOption = v.InferOutput<typeof ModelOptionSchema>;

export const SettingsSchema = loose({
  model: maybe(
    loose({
      current: maybe(ModelSelectionSchema),
      available: maybe(tolerantArray(ModelOptionSchema)),
    }),
  ),
  thoughtLevel: maybe(
    loose({
      enabled: maybe(bool),
      current: maybe(str),
      defaultLevel: maybe(str),
      available: maybe(tolerantArray(ValueLabelSchema)),
    }),
  ),
  mode: maybe(loose({ current: maybe(str) })),
});
export type Settings = v.InferOutput<typeof SettingsSchema>;

// ---------------------------------------------------------------- projection, todos, goal

export const ProjectionSchema = loose({
  status: maybe(str),
  mode: maybe(str),
  contextUsed: maybe(num),
  /** `null` has been seen on real CLIs. */
  contextWindow: maybe(v.nullable(num)),
  totalTokenCount: maybe(num),
  turnCount: maybe(num),
  currentTurnId: maybe(v.nullable(str)),
});
export type Projection = v.InferOutput<typeof ProjectionSchema>;

export const TodoSchema = loose({ content: str, status: maybe(str), priority: maybe(str) });
export type Todo = v.InferOutput<typeof TodoSchema>;

// ---------------------------------------------------------------- history messages

const SemanticsSchema = loose({
  origin: maybe(str),
  kind: maybe(str),
  uiVisibility: maybe(str),
  transcriptVisibility: maybe(str),
});

export const MessageInfoSchema = loose({
  messageId: maybe(str),
  role: str,
  time: maybe(loose({ created: maybe(num) })),
  /** Written by ZCode itself (reminders, notices), not typed by the user. */
  synthetic: maybe(bool),
  /** "model-only": never shown to the user. */
  visibility: maybe(str),
  source: maybe(str),
  semantics: maybe(SemanticsSchema),
});
export type MessageInfo = v.InferOutput<typeof MessageInfoSchema>;

export const ToolPartStateSchema = loose({
  status: str,
  input: maybe(v.unknown()),
  /** What the tool returned, as the model read it (Bash output, file text, a status line). */
  output: maybe(str),
  error: maybe(str),
  title: maybe(str),
  metadata: maybe(loose({ display: maybe(v.unknown()) })),
});

export const MessagePartSchema = v.variant("type", [
  loose({ type: v.literal("text"), text: str, synthetic: maybe(bool), ignored: maybe(bool) }),
  loose({ type: v.literal("reasoning"), text: str }),
  loose({ type: v.literal("tool"), callId: str, tool: str, state: ToolPartStateSchema }),
  loose({ type: v.literal("compaction"), auto: maybe(bool) }),
]);
export type MessagePart = v.InferOutput<typeof MessagePartSchema>;

export const MessageSchema = loose({
  info: MessageInfoSchema,
  /** Part types we do not show (step markers, snapshots, patches, newer ones) are left out. */
  parts: tolerantArray(MessagePartSchema),
});
export type Message = v.InferOutput<typeof MessageSchema>;

// ---------------------------------------------------------------- errors on the wire

/** ZCode's error detail (turn.failed, tool errors): `code` is a string; retry hints sit in `attribution`. */
export const ErrorDetailSchema = loose({
  type: maybe(str),
  code: maybe(v.union([str, num])),
  message: maybe(str),
  detail: maybe(str),
  retryable: maybe(bool),
  attribution: maybe(loose({ retryable: maybe(bool), reason: maybe(str), statusCode: maybe(num) })),
});
export type ErrorDetail = v.InferOutput<typeof ErrorDetailSchema>;

// ---------------------------------------------------------------- helpers

/** One short line describing why a value failed validation (for logs and errors). */
export function summarizeIssues(issues: readonly v.BaseIssue<unknown>[]): string {
  const first = issues[0];
  if (!first) return "invalid";
  const path = v.getDotPath(first);
  return `${path ? `${path}: ` : ""}${first.message}`;
}
