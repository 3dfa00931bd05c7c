import * as v from "valibot";
import { loose, maybe, num, str, tolerantArray } from "../schemas.ts";

// What the v4 command channel answers (ZCODE-V4.md §2-§5; ZCode's
// packages/shared/src/zcode-protocol-v4/command.ts, transport.ts, rows.ts).
// Read tolerantly like every other answer: only what the bridge decides on
// is required.

export const ACK_STATUSES = ["accepted", "rejected", "stale", "duplicate", "noop", "failed"] as const;
export type AckStatus = (typeof ACK_STATUSES)[number];

/** command.ts `commandAckSchema`. */
export const AckSchema = loose({
  commandId: str,
  status: v.picklist(ACK_STATUSES),
  reasonCode: maybe(str),
  message: maybe(str),
  revisionAtDecision: maybe(num),
  result: maybe(v.unknown()),
});
export type Ack = v.InferOutput<typeof AckSchema>;

/** `v4/commands/query`: one result per key, a settled ACK or "unknown". */
export const QueryResultSchema = loose({
  results: v.array(loose({ result: v.unknown() })),
});

const FileEntrySchema = loose({ path: str, reason: maybe(str), message: maybe(str), action: maybe(str) });
export type FileEntry = v.InferOutput<typeof FileEntrySchema>;

/** transport.ts `fileRewindPreview` result, as carried in ACK results. */
export const PreviewSchema = loose({
  canApply: maybe(v.boolean()),
  safeFiles: maybe(tolerantArray(FileEntrySchema)),
  unsafeFiles: maybe(tolerantArray(FileEntrySchema)),
  ignoredFiles: maybe(tolerantArray(FileEntrySchema)),
});
export type Preview = v.InferOutput<typeof PreviewSchema>;

/** rows.ts: the kinds the bridge targets; other kinds pass through unread. */
export const RowSchema = loose({
  rowId: num,
  turnId: maybe(str),
  entityId: maybe(str),
  kind: str,
  state: maybe(str),
  text: maybe(str),
  origin: maybe(str),
  /** A turnHeader's file changes: "active" = there is something to restore (rows.ts). */
  fileChanges: maybe(loose({ state: maybe(str) })),
  actions: maybe(
    loose({
      canEdit: maybe(v.boolean()),
      canRetry: maybe(v.boolean()),
      canRewindFiles: maybe(v.boolean()),
      /** An assistant answer forkAssistant may fork at (rows.ts). */
      canFork: maybe(v.boolean()),
    }),
  ),
  /** toolCall rows (a subagent's session is shown from them): status inputStreaming|pendingApproval|running|success|error|cancelled. */
  toolCallId: maybe(str),
  toolName: maybe(str),
  status: maybe(str),
  input: maybe(v.unknown()),
  /** toolDisplay.ts toolOutputSchema: what a person reads is `text`; `display` is the legacy result view (file_diff, bash_output, …). */
  output: maybe(loose({ text: maybe(str), display: maybe(v.unknown()), truncated: maybe(v.unknown()) })),
  /** Present when status is error (rows.ts). */
  error: maybe(loose({ code: maybe(str), message: maybe(str) })),
  // What the conversation feed projects into legacy events (frame-schemas.ts, row-events.ts):
  createdAt: maybe(num),
  /** turnHeader / userInput / timelineMarker: the command that caused the row (a turn's queryId). */
  sourceCommandId: maybe(str),
  /** userInput: a steer (v4 guide) that reached the running turn. */
  guided: maybe(v.boolean()),
  /** assistantText / reasoning / toolCall: one model response shares it. */
  assistantResponseId: maybe(str),
  /** toolCall: the input as streamed text (`row.delta` path inputText); display: toolDisplay.ts toolCallDisplaySchema. */
  inputText: maybe(str),
  display: maybe(v.unknown()),
  approvalInteractionId: maybe(str),
  /** subagent rows. */
  parentToolCallId: maybe(str),
  subagentType: maybe(str),
  summaryText: maybe(str),
  childSessionId: maybe(str),
  /** timelineMarker rows: `{type:"compact", origin, status, tokensBefore?, tokensAfter?}` and others. */
  marker: maybe(loose({ type: str })),
});
export type Row = v.InferOutput<typeof RowSchema>;

/** `v4/conversation/rowsRange`. */
export const RowsRangeSchema = loose({
  rows: tolerantArray(RowSchema),
  atRevision: num,
  atLogEpoch: str,
  hasMore: maybe(v.boolean()),
});
export type RowsRange = v.InferOutput<typeof RowsRangeSchema>;

/** ACK results of the commands the bridge sends (`result.type` tells them apart). */
export const FileRewindResultSchema = loose({
  type: v.literal("applyFileRewind"),
  applied: v.boolean(),
  preview: maybe(PreviewSchema),
  response: maybe(str),
});
export const EditResultSchema = loose({
  type: v.literal("editUserQuery"),
  disposition: str,
  reasonCode: maybe(str),
  preview: maybe(PreviewSchema),
});
export const InputAcceptedSchema = loose({ type: v.literal("inputAccepted"), delivery: str, inputId: maybe(str) });
