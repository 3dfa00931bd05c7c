// ZCode's v4 transport, the parts the bridge uses (ZCODE-V4.md; ZCode's
// packages/shared/src/zcode-protocol-v4/command.ts and transport.ts, the CLI's
// v4-gateway.ts, command-inbox.ts, product-projection.ts and the command
// handlers): `v4/commands/query`, `v4/conversation/rowsRange` and
// `v4/command` with sendText (guide / startNow), stop, applyFileRewind,
// editUserQuery, retryTurn and deleteSession. A bad command is a `rejected`
// ACK, never a JSON-RPC error; CAS commands are checked against the
// publisher's revision and logEpoch; settled ACKs are remembered per session
// (`duplicate`). The turns these commands start stream on the legacy
// session/event channel like any other.
import type { TurnAttachment } from "./attachments.ts";
import { closeLive, RpcError, type Handler } from "./methods.ts";
import { parsePrompt, prepareTurn, runTurn } from "./runner.ts";
import {
  arr,
  bool,
  enm,
  formatIssues,
  type Issue,
  int,
  nonEmpty,
  nullable,
  num,
  obj,
  opt,
  str,
  unknown,
  validate,
  type Schema,
} from "./schema.ts";
import type { Runtime, Sim } from "./sim.ts";
import { newId } from "./store.ts";
import type { SessionRecord, TurnLog } from "./types.ts";
import type { AckFault } from "./v4-faults.ts";
import { pendingInteractionsOf } from "./v4-interactions.ts";
import { toolRowResult } from "./v4-tool-output.ts";
import { deleteQueueItem, heldQueueDisposition, withSteerAckSwitch } from "./v4-queue.ts";
import { log } from "./wire.ts";

/** command.ts COMMAND_TYPES: the 35 types; those without a handler here fail `fault.command.notImplemented`. */
const COMMAND_TYPES = [
  "createSession",
  "sendText",
  "stop",
  "applyFileRewind",
  "forkAssistant",
  "editUserQuery",
  "retryTurn",
  "setAssistantFeedback",
  "sendQueuedNow",
  "editQueueItem",
  "reorderQueueItem",
  "deleteQueueItem",
  "setAutoDrain",
  "switchModelConfig",
  "switchCollaborationMode",
  "setFollowupMode",
  "pauseGoal",
  "resumeGoal",
  "setHighspeedMetrics",
  "deleteSession",
  "renameSession",
  "discardSharedContext",
  "answerInteraction",
  "cancelInteraction",
  "setPermissionMode",
  "compact",
  "setGoal",
  "clearGoal",
  "sendGoalCommand",
  "approvePlan",
  "rejectPlan",
  "setPlanEnabled",
  "archiveSession",
  "unarchiveSession",
  "pinSession",
] as const;

/**
 * command.ts commandPayloadSchemas keys (jimpablo/ZCode@aac4755): the envelope's `type` enum of a
 * v4-only CLI. The default mode keeps the list above, which is not ZCode's (it predates this reading).
 */
export const COMMAND_TYPES_0169 = [
  "createSession",
  "createSelectionSideSession",
  "sendText",
  "sendGoalCommand",
  "stop",
  "compact",
  "forkAssistant",
  "applyFileRewind",
  "editUserQuery",
  "retryTurn",
  "setAssistantFeedback",
  "setHighspeedMetrics",
  "sendQueuedNow",
  "editQueueItem",
  "reorderQueueItem",
  "deleteQueueItem",
  "setAutoDrain",
  "resolveInteraction",
  "respondWorkspaceHookReview",
  "toggleWorkspaceHookReviewItem",
  "revokeWorkspaceHookTrust",
  "requestWorkspaceHookReview",
  "snoozeInteractionAutoResolution",
  "switchModelConfig",
  "switchCollaborationMode",
  "setFollowupMode",
  "pauseGoal",
  "resumeGoal",
  "cancelBackgroundWork",
  "resumeWorkflowRun",
  "startSavedWorkflow",
  "amendWorkflowRunSettings",
  "renameSession",
  "deleteSession",
  "discardSharedContext",
] as const;

const CAS = new Set([
  "applyFileRewind",
  "forkAssistant",
  "editUserQuery",
  "retryTurn",
  "setAssistantFeedback",
  "sendQueuedNow",
  "editQueueItem",
  "reorderQueueItem",
  "deleteQueueItem",
  "setAutoDrain",
  "switchModelConfig",
  "switchCollaborationMode",
  "setFollowupMode",
  "pauseGoal",
  "resumeGoal",
]);
const ROW_TARGETING = new Set([
  "applyFileRewind",
  "forkAssistant",
  "editUserQuery",
  "retryTurn",
  "setAssistantFeedback",
  "setHighspeedMetrics",
]);

/** v4-bridge.ts admitCommandInput: the commands refused on a subagent's session (isConversationInputAdmissionCommand and four more). */
const SUBAGENT_GUARDED = new Set([
  "sendText",
  "sendGoalCommand",
  "compact",
  "editUserQuery",
  "retryTurn",
  "resumeGoal",
  "sendQueuedNow",
  "forkAssistant",
  "createSelectionSideSession",
]);

/** core.ts conversationRowTargetSchema. */
const target = obj({ rowId: int({ min: 0 }), entityId: nonEmpty() });
const modelSelection = obj({
  providerId: nonEmpty(),
  modelId: nonEmpty(),
  options: opt(obj({ reasoningLevel: opt(str()) }, { strict: false })),
});

/** The payloads the simulator executes, strict as command.ts has them (the optional fields the bridge does not use are accepted, unread). */
export const PAYLOADS: Record<string, Schema> = {
  sendText: obj({
    text: str(),
    attachments: opt(arr(unknown())),
    conversationQuotes: opt(arr(unknown())),
    requestedDelivery: opt(enm(["startNow", "queue", "guide"])),
    modelSelection: opt(modelSelection),
    mode: opt(enm(["build", "edit", "plan", "yolo", "guarded"])),
    planEnabled: opt(bool()),
    heldQueueDisposition: opt(str()),
  }),
  stop: obj({ expectedForegroundExecutionId: opt(nonEmpty()) }),
  applyFileRewind: obj({ target }),
  editUserQuery: obj({
    target,
    newText: str(),
    conversationQuotes: opt(arr(unknown())),
    attachments: opt(arr(unknown())),
    modelSelection: opt(modelSelection),
    modelExecution: opt(unknown()),
    highspeedMeta: opt(unknown()),
    workspaceMode: opt(enm(["preserve", "rewind"])),
  }),
  retryTurn: obj({ target, modelSelection: opt(modelSelection) }),
  deleteSession: obj({}),
  deleteQueueItem: obj({ queueItemId: str() }),
};

/** command.ts commandEnvelopeSchema: a plain object (unknown keys are dropped, not refused). */
const envelope = obj(
  {
    commandId: str(),
    clientId: str(),
    sessionId: nullable(str()),
    baseRevision: opt(num()),
    baseLogEpoch: opt(nonEmpty()),
    type: enm(COMMAND_TYPES),
    payload: unknown(),
    issuedAt: num(),
    ttft: opt(obj({}, { strict: false })),
  },
  { strict: false },
);

export type Ack = Record<string, unknown> & { commandId: string; status: string; revisionAtDecision: number };

/** How zod prints issues in a ZodError message: a JSON array. */
function zodText(issues: Issue[]): string {
  return JSON.stringify(
    issues.map((i) => ({ code: i.message === "Required" ? "invalid_type" : "custom", path: i.path, message: i.message })),
    null,
    2,
  );
}

function rejected(commandId: string, reasonCode: string, message?: string): Ack {
  return { commandId, status: "rejected", reasonCode, ...(message ? { message } : {}), revisionAtDecision: 0 };
}

// ---- rows (product-projection.ts) ------------------------------------------------

interface Row extends Record<string, unknown> {
  rowId: number;
  turnId: string;
  entityId: string;
  kind: string;
}

function rowId(r: Runtime, key: string): number {
  let id = r.rowIds.get(key);
  if (id === undefined) {
    id = r.nextRowId++;
    r.rowIds.set(key, id);
  }
  return id;
}

const TOOL_ROW_STATUS = { pending: "inputStreaming", running: "running", completed: "success", error: "error" } as const;

/** Every row of the conversation in ascending rowId, `actions` computed now. */
export function projectRows(sim: Sim, s: SessionRecord, r: Runtime): Row[] {
  const rows: Row[] = [];
  const byId = new Map(s.messages.map((m) => [m.info.messageId, m]));
  const idle = !r.turn && r.pendingPermissions.size === 0;
  const approvals = new Map(pendingInteractionsOf(s.id).map((p) => [p.toolCallId, p.view.interactionId as string]));
  for (const t of s.turnLog ?? []) {
    const base = { turnId: t.turnId, productTurnId: t.turnId, createdAt: t.startedAt, createdAtSeq: 1 };
    const header: Row = {
      rowId: rowId(r, `h:${t.turnId}`),
      ...base,
      entityId: t.turnId,
      kind: "turnHeader",
      origin: t.origin,
      executionKind: "agent",
      state: t.state,
      startedAt: t.startedAt,
      ...(t.endedAt ? { endedAt: t.endedAt, activeMs: t.endedAt - t.startedAt } : {}),
      ...(t.sourceCommandId ? { sourceCommandId: t.sourceCommandId } : {}),
    };
    if (t.files.length)
      header.fileChanges = { additions: t.files.length, deletions: t.files.length, files: t.files.length, state: t.fileState };
    if (idle && t.state !== "running" && t.files.length && t.fileState === "active") header.actions = { canRewindFiles: true };
    rows.push(header);
    for (const id of t.messageIds) {
      const m = byId.get(id);
      if (!m) continue;
      if (m.info.role === "user") {
        const text = m.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
        const guided = t.guidedIds.includes(id);
        rows.push({
          rowId: rowId(r, `u:${id}`),
          ...base,
          entityId: id,
          kind: "userInput",
          text,
          origin: "realUser",
          ...(guided ? { guided: true } : {}),
          ...(t.sourceCommandId && !guided ? { sourceCommandId: t.sourceCommandId, rootSourceCommandId: t.sourceCommandId } : {}),
        });
        continue;
      }
      m.parts.forEach((p, i) => {
        if (p.type === "text") {
          const running = t.state === "running" && m.info.time.completed === undefined;
          const state = running
            ? "streaming"
            : t.state === "failed" && (m.info as { error?: unknown }).error
              ? "failed"
              : t.state === "completedInterrupted" && (m.info as { finish?: string }).finish === "cancelled"
                ? "interrupted"
                : "complete";
          rows.push({
            rowId: rowId(r, `a:${id}:${i}`),
            ...base,
            entityId: `${id}:${i}`,
            kind: "assistantText",
            assistantResponseId: id,
            text: p.text,
            state,
          });
        } else if (p.type === "reasoning") {
          // rows.ts reasoningRowSchema: state streaming | complete | interrupted.
          const running = t.state === "running" && m.info.time.completed === undefined;
          rows.push({
            rowId: rowId(r, `r:${id}:${i}`),
            ...base,
            entityId: `${id}:${i}`,
            kind: "reasoning",
            assistantResponseId: id,
            text: p.text,
            state: running ? "streaming" : t.state === "completedInterrupted" ? "interrupted" : "complete",
          });
        } else if (p.type === "tool") {
          // rows.ts toolCallRowSchema: status inputStreaming | pendingApproval | running | success | error | cancelled;
          // output {text, display?, truncated?} (toolDisplay.ts toolOutputSchema) once done; error {code, message} "status=error 时必带".
          const st = p.state;
          // v4-only: a tool waiting for its permission is `pendingApproval` with the interaction's id (the projection's
          // `seeded.approvalInteractionId`, rows.ts toolCall). None in the default mode, which asks by reverse request.
          const approval = approvals.get(p.callId);
          rows.push({
            rowId: rowId(r, `t:${p.callId}`),
            ...base,
            entityId: p.callId,
            kind: "toolCall",
            assistantResponseId: id,
            toolCallId: p.callId,
            toolName: p.tool,
            status: approval ? "pendingApproval" : TOOL_ROW_STATUS[st.status],
            ...(approval ? { approvalInteractionId: approval } : {}),
            inputText: JSON.stringify(st.input),
            input: st.input,
            // product-projection.ts onToolCallResult: output = projection-rows.ts buildToolOutput (text cut to 32 KiB
            // head + tail, the result's display), display = toProtocolToolCallDisplay (v4-tool-output.ts).
            ...toolRowResult(st, p.callId),
            ...(st.status === "error" ? { error: { code: "tool_error", message: st.error } } : {}),
          });
          // rows.ts subagentRowSchema: the subagent this call spawned (product-projection.ts onSubagentSpawned /
          // onSubagentMessage / onSubagentStopped), keyed by its agentId; a row of its own after the call's.
          for (const f of s.subagentRows ?? []) {
            if (f.parentToolCallId !== p.callId) continue;
            rows.push({
              rowId: rowId(r, `sa:${f.agentId}`),
              ...base,
              turnId: f.turnId,
              productTurnId: f.turnId,
              entityId: f.agentId,
              kind: "subagent",
              parentToolCallId: f.parentToolCallId,
              subagentType: f.subagentType,
              status: f.status,
              summaryText: f.summaryText,
              childSessionId: f.childSessionId,
              startedAt: f.startedAt,
              ...(f.endedAt !== undefined ? { endedAt: f.endedAt } : {}),
            });
          }
        }
      });
    }
  }
  // canEdit: the latest realUser prompt (not a guide); canRetry: the latest reply of the whole conversation, complete, nothing active.
  const prompts = rows.filter((x) => x.kind === "userInput" && !x.guided);
  const lastPrompt = prompts[prompts.length - 1];
  if (lastPrompt) lastPrompt.actions = { canEdit: true, editDisposition: "rewind" };
  const replies = rows.filter((x) => x.kind === "assistantText");
  const lastReply = replies[replies.length - 1];
  const turnOf = (turnId: string) => (s.turnLog ?? []).find((t) => t.turnId === turnId);
  if (
    lastReply &&
    idle &&
    lastReply.state === "complete" &&
    turnOf(lastReply.turnId)?.state !== "running" &&
    prompts.some((p) => p.turnId === lastReply.turnId)
  ) {
    lastReply.actions = { canRetry: true, canFork: true };
  }
  rows.sort((a, b) => a.rowId - b.rowId);
  return rows;
}

// ---- commands ------------------------------------------------------------------

export interface Exec {
  sim: Sim;
  s: SessionRecord;
  r: Runtime;
  env: Record<string, any>;
  payload: Record<string, any>;
  /** A switched-on fault of this command (v4-faults.ts), for the handlers that act on it. */
  fault?: AckFault;
  /** Runs once the ACK is written (a turn the command starts streams after it). */
  after(fn: () => void): void;
}

export function ack(e: Exec, status: string, extra: Record<string, unknown> = {}): Ack {
  return { commandId: e.env.commandId, status, revisionAtDecision: e.r.v4Revision, ...extra, memoryEnabled: false };
}

/** v4-only (v4-only.ts): committed attachment refs → the turn's attachments (attachment-refs.ts). */
export const v4Attachments: { resolve?: (s: SessionRecord, refs: unknown[]) => TurnAttachment[] } = {};

/** Starts a turn for a v4 command: inputId = queryId = commandId (prompt-turn.ts). */
export function startV4Turn(e: Exec, text: string, origin: "userInput" | "editRerun"): void {
  const { sim, s, r } = e;
  const commandId = e.env.commandId as string;
  s.promptCounts[text] = (s.promptCounts[text] ?? 0) + 1;
  if (s.persistence === "deferred") {
    s.persistence = "immediate";
    sim.store.saveNow(s);
  }
  const refs = e.payload.attachments as unknown[] | undefined;
  const attachments = refs?.length && v4Attachments.resolve ? v4Attachments.resolve(s, refs) : undefined;
  const turn = prepareTurn(sim, s, r, {
    raw: text,
    prompt: parsePrompt(text, sim.cfg.defaultScenario),
    ...(attachments ? { attachments } : {}),
    inputId: commandId,
    queryId: commandId,
    origin,
    sourceCommandId: commandId,
  });
  turn.v4Started = true;
  if (e.payload.modelExecution?.requestAuth) turn.requestAuth = e.payload.modelExecution.requestAuth;
  r.revision++;
  s.updatedAt = Date.now();
  sim.stateUpdated(s, "prompt_started", { status: "running" });
  e.after(() => {
    const go = () => runTurn(turn).catch((err) => log(`turn crashed: ${(err as Error).stack ?? err}`));
    if (r.prefsPending) void r.prefsPending.then(go);
    else setImmediate(go);
  });
}

/** Waits for the running turn to end after a stop (editUserQuery preempts; stop's ACK follows the end). */
export async function untilIdle(r: Runtime): Promise<void> {
  for (let i = 0; r.turn && i < 500; i++) await new Promise((res) => setTimeout(res, 10));
}

function turnOfRow(s: SessionRecord, row: Row): TurnLog | undefined {
  return (s.turnLog ?? []).find((t) => t.turnId === row.turnId);
}

function preview(t: TurnLog) {
  // [sim: a turn whose files are already rewound has nothing left to restore; ZCode's
  // previewWorkspaceFileRewind is not in the index, the audit (§2.2 A1) reads it so.]
  const files = t.fileState === "active" ? t.files : [];
  const unsafe = files.filter((f) => f.unsafeReason);
  return {
    canApply: unsafe.length === 0 && files.length > 0,
    ignoredFiles: [] as { path: string; reason: string }[],
    safeFiles: files
      .filter((f) => !f.unsafeReason)
      .map((f) => ({ action: f.action, operationCount: f.operationCount, path: f.path, toolNames: f.toolNames })),
    unsafeFiles: unsafe.map((f) => ({
      operationCount: f.operationCount,
      path: f.path,
      reason: f.unsafeReason,
      toolNames: f.toolNames,
      message: `${f.path} changed after the turn`,
    })),
  };
}

/** Restores a turn's files from its checkpoints (the simulator keeps no file contents: the record flips). */
function rewindFiles(e: Exec, t: TurnLog): void {
  t.fileState = "reverted";
  const userId = t.messageIds[0] ?? "";
  e.sim.emit(e.s, "rewind.triggered", {
    rewindId: newId("rewind"),
    scope: "workspace",
    strategy: "active_chain",
    targetMessageId: userId,
    targetCheckpointId: newId("cp"),
    reason: "file_summary_rewind",
  });
}

/** Cuts the conversation from turn `t`'s prompt on (rewind-message.ts), as rewind.triggered. */
function rewindConversation(e: Exec, t: TurnLog): void {
  const { sim, s, r } = e;
  const userId = t.messageIds[0]!;
  const at = s.messages.findIndex((m) => m.info.messageId === userId);
  const before = at > 0 ? s.messages[at - 1]!.info.messageId : userId;
  if (at >= 0) s.messages.splice(at);
  const i = (s.turnLog ?? []).indexOf(t);
  if (i >= 0) s.turnLog!.splice(i);
  s.checkpoints = s.checkpoints.filter((c) => s.messages.some((m) => m.info.messageId === c.targetMessageId));
  s.turnCount = s.checkpoints.length;
  sim.emit(s, "rewind.triggered", {
    rewindId: newId("rewind"),
    scope: "conversation",
    strategy: "active_chain",
    targetMessageId: userId,
    branchCutAfterMessageId: before,
    branchGeneration: (s.turnLog?.length ?? 0) + 1,
  });
  r.revision++;
  sim.store.touch(s);
  sim.stateUpdated(s, "session_rewound", { status: "idle" });
}

/** §3-§4 step 5: the row a targeting command names, checked against the projection. */
export function resolveTarget(
  e: Exec,
  action: "canRewindFiles" | "canEdit" | "canRetry" | "canFork",
): { row: Row; refused?: undefined } | { refused: Ack } {
  const t = e.payload.target as { rowId: number; entityId: string };
  const row = projectRows(e.sim, e.s, e.r).find((x) => x.rowId === t.rowId);
  if (!row || row.entityId !== t.entityId) return { refused: ack(e, "stale", { reasonCode: "proto.staleTarget" }) };
  if (!(row.actions as Record<string, unknown> | undefined)?.[action])
    return { refused: ack(e, "rejected", { reasonCode: "guard.actionUnavailable" }) };
  return { row };
}

export const HANDLERS: Record<string, (e: Exec) => Promise<Ack> | Ack> = {
  async sendText(e) {
    const { r, payload } = e;
    const text: string = payload.text;
    if (!text.trim() && !payload.attachments?.length)
      return ack(e, "failed", { reasonCode: "proto.invalidPayload", message: "input must not be empty" });
    // A held queue and an idle session: the user must say what becomes of the queue (v4-queue.ts).
    const held = heldQueueDisposition(r, payload.heldQueueDisposition);
    if (held)
      return ack(e, "failed", {
        reasonCode: held,
        message: "held queue requires heldQueueDisposition (clearQueueAndSend | keepQueueAndSend)",
      });
    const turn = r.turn;
    const delivery = payload.requestedDelivery;
    // A guide is admitted into any running regular turn; whether it is ever drained is the turn's business.
    if (turn && delivery === "guide" && turn.kind === "regular" && !turn.stopped && !payload.attachments?.length) {
      const commandId = e.env.commandId as string;
      turn.guides.push({ commandId, text });
      e.sim.emit(
        e.s,
        "turn.steerQueued",
        {
          inputId: commandId,
          queryId: commandId,
          pendingInputId: `queue_${commandId}`,
          input: text,
          inputPreview: text.slice(0, 80),
          inputSize: Buffer.byteLength(text),
          inputPresentation: "user_steer",
          delivery: "guide",
          targetTurnId: turn.id,
          queueLength: turn.guides.length,
        },
        { turnId: turn.id },
      );
      return ack(e, "accepted", { result: { type: "inputAccepted", delivery: "queue", inputId: commandId } });
    }
    if (turn) {
      if (delivery !== "startNow")
        return ack(e, "failed", { reasonCode: "fault.command.notImplemented", message: "the simulator queues only guides" });
      turn.requestStop();
      await untilIdle(r);
    }
    startV4Turn(e, text, "userInput");
    return ack(e, "accepted", { result: { type: "inputAccepted", delivery: "startNow", inputId: e.env.commandId } });
  },

  async stop(e) {
    const { r, payload } = e;
    const expected: string | undefined = payload.expectedForegroundExecutionId;
    const turn = r.turn;
    if (!turn) return expected ? ack(e, "noop", { reasonCode: "guard.stopTargetChanged" }) : ack(e, "accepted");
    if (expected && turn.foregroundExecutionId !== expected) return ack(e, "noop", { reasonCode: "guard.stopTargetChanged" });
    const pauseGoal = e.s.goal?.status === "active";
    turn.requestStop();
    await untilIdle(r);
    if (pauseGoal && e.s.goal) {
      e.s.goal.status = "paused";
      e.s.goal.updatedAt = Date.now();
    }
    return ack(e, "accepted");
  },

  applyFileRewind(e) {
    const found = resolveTarget(e, "canRewindFiles");
    if (found.refused) return found.refused;
    const t = turnOfRow(e.s, found.row);
    if (!t) return ack(e, "failed", { reasonCode: "fault.command.executionFailed" });
    const p = preview(t);
    if (!p.canApply)
      return ack(e, "accepted", {
        result: {
          type: "applyFileRewind",
          applied: false,
          preview: p,
          response: "File rewind was not applied because at least one file is unsafe.",
        },
      });
    rewindFiles(e, t);
    const n = p.safeFiles.length;
    return ack(e, "accepted", {
      result: {
        type: "applyFileRewind",
        applied: true,
        preview: p,
        response: `Rewound ${n} file${n === 1 ? "" : "s"} from summary checkpoints.`,
      },
    });
  },

  async editUserQuery(e) {
    const found = resolveTarget(e, "canEdit");
    if (found.refused) return found.refused;
    const t = turnOfRow(e.s, found.row);
    if (!t) return ack(e, "failed", { reasonCode: "fault.command.executionFailed" });
    if (e.r.turn) {
      e.r.turn.requestStop();
      await untilIdle(e.r);
    }
    const decision = e.r.v4Revision;
    // fork-edit-retry.ts editUserQuery (:155-175): workspaceMode defaults to "preserve"; "rewind" previews the
    // turn's files and fails closed when `!preview.canApply || ignoredFiles.length > 0 || safeFiles.length === 0`,
    // so a turn that changed no file (or whose files are rewound) is blocked with guard.workspaceRewindUnavailable.
    if ((e.payload.workspaceMode ?? "preserve") === "rewind") {
      const p = preview(t);
      if (!p.canApply || p.ignoredFiles.length > 0 || p.safeFiles.length === 0) {
        const reasonCode =
          p.unsafeFiles.length > 0
            ? "guard.workspaceRewindUnsafeFiles"
            : p.ignoredFiles.length > 0
              ? "guard.workspaceRewindIgnoredFiles"
              : p.safeFiles.length === 0
                ? "guard.workspaceRewindUnavailable"
                : "guard.workspaceRewindApplyConflict";
        return ack(e, "accepted", {
          result: { type: "editUserQuery", disposition: "blocked", sessionId: e.s.id, reasonCode, preview: p },
        });
      }
      rewindFiles(e, t);
    }
    rewindConversation(e, t);
    startV4Turn(e, e.payload.newText, "editRerun");
    return {
      ...ack(e, "accepted", { result: { type: "editUserQuery", disposition: "rewind", sessionId: e.s.id } }),
      revisionAtDecision: decision,
    };
  },

  retryTurn(e) {
    const found = resolveTarget(e, "canRetry");
    if (found.refused) return found.refused;
    const t = turnOfRow(e.s, found.row);
    const prompt = t ? e.s.messages.find((m) => m.info.messageId === t.messageIds[0]) : undefined;
    if (!t || !prompt) return ack(e, "failed", { reasonCode: "fault.command.executionFailed" });
    const text = prompt.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
    const decision = e.r.v4Revision;
    // fork-edit-retry.ts retryTurn: the conversation is cut (submitConversationRewind) before the new turn's
    // admission, which may refuse it (prompt-turn.ts: `activePrompt` while Core still settles a turn).
    rewindConversation(e, t);
    if (e.fault?.kind === "activePrompt")
      return ack(e, "failed", { reasonCode: "activePrompt", message: "Core prompt admission rejected: turn_active" });
    startV4Turn(e, text, "userInput");
    return { ...ack(e, "accepted"), revisionAtDecision: decision };
  },

  deleteQueueItem(e) {
    // handlers/queue.ts deleteQueueItem: a miss (drained meanwhile, deleted twice) is noop queue.itemMissing.
    if (!deleteQueueItem(e.r, e.payload.queueItemId)) return ack(e, "noop", { reasonCode: "queue.itemMissing" });
    e.r.v4Revision++;
    return ack(e, "accepted");
  },

  deleteSession(e) {
    // jimpablo/ZCode@aac4755 …/zcode-protocol-v4/commands/handlers/session-mgmt.ts:164-181: "deleteSession：
    // 语义 = closeSession … 非真删 record——message 库无删除 API": host.closeSession, the same close as legacy
    // session/close (server-operations.ts closeSession). The conversation stays in the store and in session/list.
    const { sim, s } = e;
    closeLive(sim, s);
    log(`session ${s.id} closed (v4 deleteSession; ZCode keeps the conversation)`);
    return ack(e, "accepted");
  },
};

/**
 * The problems ZCode's parse would find in a `v4/command` frame's params
 * (envelope, payload of its type, CAS fields): [] when it is valid. For tests
 * that check every frame a client produced.
 */
export function envelopeIssues(raw: unknown): string[] {
  const v = validate(envelope, raw);
  if (!v.ok) return v.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  const env = v.value as Record<string, any>;
  // Extra keys pass zod's plain object but mean the client writes what ZCode would drop.
  const extra = Object.keys(raw as object).filter((k) => !(k in envelope.shape));
  const issues = extra.map((k) => `${k}: not an envelope field`);
  const schema = PAYLOADS[env.type];
  if (!schema) issues.push(`type: ${env.type} is not simulated`);
  else {
    const pv = validate(schema, env.payload);
    if (!pv.ok) issues.push(...pv.issues.map((i) => `payload.${i.path.join(".")}: ${i.message}`));
  }
  if (CAS.has(env.type) && (env.baseRevision === undefined || (ROW_TARGETING.has(env.type) && env.baseLogEpoch === undefined)))
    issues.push("CAS commands require baseRevision and baseLogEpoch");
  return issues;
}

/** v4-only: commands that run without a session (createSession, sessionId null; v4-only.ts fills it). */
export const SESSIONLESS: Record<
  string,
  (sim: Sim, env: Record<string, any>, payload: Record<string, any>, after: (fn: () => void) => void) => Promise<Ack>
> = {};

/** The envelope of a v4-only CLI: command.ts commandEnvelopeSchema with its own type list. */
const envelopeV4Only = obj({ ...envelope.shape, type: enm(COMMAND_TYPES_0169) }, { strict: false });

/** The inbox: envelope, payload, CAS, idempotency, live session, then the handler (command-inbox.ts). */
async function decide(sim: Sim, raw: unknown, after: (fn: () => void) => void): Promise<Ack> {
  const rawId = (raw as { commandId?: unknown } | null)?.commandId;
  const idOf = typeof rawId === "string" ? rawId : "";
  const v = validate(sim.cfg.protocol === "v4-only" ? envelopeV4Only : envelope, raw);
  if (!v.ok) return rejected(idOf, "proto.invalidPayload", zodText(v.issues));
  const env = v.value as Record<string, any>;
  // ZCODE_SIM_V4_ACK (v4-faults.ts): a late command waits here, as behind a busy serial queue.
  const fault = sim.cfg.v4Faults?.nextAck(env.type);
  if (fault?.kind === "delay") await Bun.sleep(fault.ms);
  const schema = PAYLOADS[env.type];
  let payload: Record<string, any> = {};
  if (schema) {
    const pv = validate(schema, env.payload);
    if (!pv.ok)
      return rejected(env.commandId, "proto.invalidPayload", zodText(pv.issues.map((i) => ({ ...i, path: ["payload", ...i.path] }))));
    payload = pv.value as Record<string, any>;
  }
  if (CAS.has(env.type) && (env.baseRevision === undefined || (ROW_TARGETING.has(env.type) && env.baseLogEpoch === undefined))) {
    return rejected(
      env.commandId,
      "proto.invalidPayload",
      zodText([{ path: ["baseRevision"], message: "CAS commands require baseRevision and baseLogEpoch" }]),
    );
  }
  const key = env.sessionId ?? "";
  let table = sim.v4Acks.get(key);
  const earlier = table?.get(env.commandId);
  if (earlier) {
    const settled = (await earlier) as Ack;
    return settled.status === "failed" ? settled : { ...settled, status: "duplicate" };
  }
  const sessionless = env.sessionId === null ? SESSIONLESS[env.type] : undefined;
  if (sessionless) {
    // v4-only createSession: remembered under the null session like any settled ACK.
    const pending = sessionless(sim, env, payload, after);
    if (!table) sim.v4Acks.set(key, (table = new Map()));
    table.set(env.commandId, pending);
    const settled = await pending;
    if (settled.status === "rejected" || settled.status === "stale") table.delete(env.commandId);
    return settled;
  }
  const s = env.sessionId ? sim.store.get(env.sessionId) : undefined;
  const r = env.sessionId ? sim.rt(env.sessionId) : undefined;
  // A running subagent's session has no record (sim.ts Runtime.detached): ZCode's own test "SAT27/SAT28 … child warm"
  // gets rejected proto.sessionNotFound for sendText, sendGoalCommand, compact, retryTurn and editUserQuery on it.
  if (!s || !r || r.detached) return rejected(env.commandId, "proto.sessionNotFound");
  if (CAS.has(env.type)) {
    if (ROW_TARGETING.has(env.type) && env.baseLogEpoch !== r.logEpoch)
      return { commandId: env.commandId, status: "stale", reasonCode: "proto.staleLogEpoch", revisionAtDecision: r.v4Revision };
    if (env.baseRevision !== r.v4Revision)
      return { commandId: env.commandId, status: "stale", reasonCode: "proto.staleRevision", revisionAtDecision: r.v4Revision };
  }
  const refused = faultAnswer(fault, env.commandId, r.v4Revision);
  if (refused) return refused;
  const handler = HANDLERS[env.type];
  const run = async (): Promise<Ack> => {
    // v4-bridge.ts admitCommandInput: input commands on a subagent_child session (resumed once it ended) throw
    // "Subagent sessions are read-only" with reasonCode guard.subagentReadOnly, a failed ACK (SAT27/SAT28 "cold").
    if (SUBAGENT_GUARDED.has(env.type) && s.taskType === "subagent_child")
      return { commandId: env.commandId, status: "failed", reasonCode: "guard.subagentReadOnly", revisionAtDecision: r.v4Revision };
    if (!handler)
      return { commandId: env.commandId, status: "failed", reasonCode: "fault.command.notImplemented", revisionAtDecision: r.v4Revision };
    try {
      return await handler({ sim, s, r, env, payload, after, ...(fault ? { fault } : {}) });
    } catch (err) {
      log(`v4 ${env.type} failed: ${(err as Error).stack ?? err}`);
      return {
        commandId: env.commandId,
        status: "failed",
        reasonCode: "fault.command.executionFailed",
        message: (err as Error).message,
        revisionAtDecision: r.v4Revision,
      };
    }
  };
  const pending = run();
  if (!table) sim.v4Acks.set(key, (table = new Map()));
  table.set(env.commandId, pending);
  const settled = await pending;
  // rejected and stale ACKs are not remembered: the same commandId may come again after a fresh read.
  if (settled.status === "rejected" || settled.status === "stale") table.delete(env.commandId);
  while (table.size > 512) table.delete(table.keys().next().value!);
  // `garbage`: the command ran, its ACK has a shape no version of command.ts knows.
  if (fault?.kind === "garbage") return { commandId: env.commandId, status: "done", revisionAtDecision: "soon" } as never;
  return settled;
}

/** A switched-on refusal, answered without running the command (not remembered, as rejected/stale are not). */
function faultAnswer(fault: AckFault | undefined, commandId: string, revision: number): Ack | undefined {
  switch (fault?.kind) {
    case "stale":
      return { commandId, status: "stale", reasonCode: "proto.staleRevision", revisionAtDecision: revision };
    case "rejected":
    case "failed":
      return { commandId, status: fault.kind, reasonCode: fault.reasonCode, revisionAtDecision: revision };
    default:
      return undefined;
  }
}

/** A v4 query's bad params: -32603 with zod's message (server.ts toProtocolError). */
function queryParams(schema: Schema, p: unknown): Record<string, any> {
  const v = validate(schema, p);
  if (!v.ok) throw new RpcError(-32603, zodText(v.issues), { name: "ZodError", stack: `ZodError: ${formatIssues(v.issues)}` });
  return v.value as Record<string, any>;
}

const queryKey = obj({ sessionId: nullable(str()), commandId: str({ min: 1 }) });

export const v4Methods: Record<string, Handler> = {
  async "v4/command"(sim, p, ctx) {
    return withSteerAckSwitch(p, ctx, () => decide(sim, p, (fn) => ctx.after(fn)));
  },

  async "v4/commands/query"(sim, p, ctx) {
    // ZCODE_SIM_V4_PROBE (v4-faults.ts): a probe that fails, says nothing readable, or is never answered.
    const fault = sim.cfg.v4Faults?.nextProbe();
    if (fault?.kind === "error") throw new Error("command store unavailable");
    if (fault?.kind === "garbage") return { results: "unknown" };
    if (fault?.kind === "hang") {
      ctx.dropAnswer();
      return {};
    }
    const q = queryParams(obj({ commands: arr(queryKey, { min: 1, max: 64 }), clock: opt(bool()) }), p);
    const results = [];
    for (const k of q.commands as { sessionId: string | null; commandId: string }[]) {
      const settled = sim.v4Acks.get(k.sessionId ?? "")?.get(k.commandId);
      results.push({ key: k, result: settled ? await settled : "unknown" });
    }
    return { results };
  },

  "v4/conversation/rowsRange"(sim, p) {
    const q = queryParams(
      obj({
        sessionId: nonEmpty(),
        clientMode: opt(enm(["desktop-continuous", "web-remote-replayable"])),
        beforeRowId: opt(int({ min: 0 })),
        limit: int({ min: 1, max: 200 }),
      }),
      p,
    );
    const s = sim.store.get(q.sessionId);
    if (!s) throw new RpcError(-32004, `Session not found: ${q.sessionId}`);
    // transport.ts v4ConversationRowsRangeParamsSchema ("游标制行分页，loadOlder"): the newest `limit` rows,
    // or those before `beforeRowId`, rowId ascending; hasMore when older rows remain.
    // A session not active here is cold-resumed for the read; a running subagent's (detached, sim.ts) is read as it is
    // (v4-gateway.ts rowsRange: hasLiveConversation counts detachedLiveSessions, so no second runtime of it).
    const r = sim.rt(s.id) ?? sim.activate(s);
    let rows = projectRows(sim, s, r);
    if (q.beforeRowId !== undefined) rows = rows.filter((x) => x.rowId < q.beforeRowId);
    const hasMore = rows.length > q.limit;
    rows = rows.slice(-q.limit);
    // v4-only: atSeq is the topic's seq (conversation-topic-publisher.ts getRowsRange: `atSeq: snapshot.seq`, the last
    // ingested event's sequenceNumber), which a v4-only client compares with frames; the default mode keeps its own.
    const atSeq = sim.cfg.protocol === "v4-only" ? r.sourceSeq : r.seq;
    return { rows, atSeq, atRevision: r.v4Revision, atLogEpoch: r.logEpoch, hasMore };
  },

  "v4/conversation/subscribe"() {
    throw new RpcError(-32603, "v4/conversation/subscribe is not simulated");
  },
};
