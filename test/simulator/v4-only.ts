// ZCODE_SIM_PROTOCOL=v4-only: a ZCode CLI whose legacy protocol file is gone
// (jimpablo/ZCode@aac4755 packages/shared/src/zcode-protocol/index.ts:22-33
// "旧协议删除边界"; transport.ts V4_METHODS: "方法名带 v4/ 前缀与旧协议并存；
// 旧 session/* 方法删除后，这里就是唯一协议面"). What it adds to the v4 surface
// the default mode already has (v4.ts): conversation topic subscribe / resync /
// unsubscribe with frames (v4-topic.ts), the sessions-index topic, attachment
// uploads, pending interactions answered by resolveInteraction
// (v4-interactions.ts), and the session commands a desktop client uses
// (createSession, renameSession, switchModelConfig, switchCollaborationMode).
// Every other method answers -32601 (methods.ts lookup).
import { createHash } from "node:crypto";
import { findModel } from "./catalog.ts";
import { type CallCtx, type Handler, methods as legacyCore, RpcError } from "./methods.ts";
import { arr, bool, enm, lit, formatIssues, nonEmpty, num, obj, opt, record, type Schema, str, unknown, validate } from "./schema.ts";
import type { Sim } from "./sim.ts";
import { uuid } from "./store.ts";
import type { SessionRecord } from "./types.ts";
import type { TurnAttachment } from "./attachments.ts";
import { type Ack, ack, type Exec, HANDLERS, PAYLOADS, resolveTarget, SESSIONLESS, startV4Turn, untilIdle, v4Attachments } from "./v4.ts";
import { followupModes } from "./v4-topic.ts";
import { resolveInteraction } from "./v4-interactions.ts";
import { connectionFlow, onSessionEvent, publisherOf } from "./v4-topic.ts";
import { sessionsIndexSubscribe, sessionsIndexChanged } from "./v4-sessions-index.ts";
import { log } from "./wire.ts";
import {
  v4AttachmentBeginParams,
  v4AttachmentChunkParams,
  v4AttachmentTerminalParams,
  v4ResyncParams,
  v4SubscribeParams,
  v4UnsubscribeParams,
} from "./zcode-schemas.ts";

/** A v4 query's bad params: -32603 with zod's issues (server.ts toProtocolError, as v4.ts queryParams). */
function parse(schema: Schema, p: unknown): Record<string, any> {
  const v = validate(schema, p);
  if (!v.ok)
    throw new RpcError(
      -32603,
      JSON.stringify(
        v.issues.map((i) => ({ code: "custom", path: i.path, message: i.message })),
        null,
        2,
      ),
      {
        name: "ZodError",
        stack: `ZodError: ${formatIssues(v.issues)}`,
      },
    );
  return v.value as Record<string, any>;
}

/** A session for a topic read: live, or cold-resumed (cold-session-resume.ts / activateSessionForResume: runtime only, no protocol snapshot). */
function liveOrCold(sim: Sim, sessionId: string): { s: SessionRecord; r: NonNullable<ReturnType<Sim["rt"]>> } {
  const s = sim.store.get(sessionId);
  if (!s) throw new RpcError(-32004, `Session not found: ${sessionId}`);
  const r = sim.rt(s.id) ?? sim.activate(s);
  return { s, r };
}

function conversationIdOf(topic: string): string | null {
  // transport.ts parseConversationTopic.
  if (!topic.startsWith("conversation/")) return null;
  const id = topic.slice("conversation/".length);
  return id.length ? id : null;
}

// ---- attachments (attachment-upload-registry.ts AttachmentUploadRegistry) ---------

interface Upload {
  sessionId: string;
  meta: { fileName: string; mime: string; totalBytes: number; totalChunks: number; checksum: string };
  chunks: Buffer[];
  received: number;
  ref?: string;
}
const uploads = new Map<string, Upload>();
/** Committed uploads by session and ref (what sendText.attachments may name). */
const committedRefs = new Map<string, Map<string, Upload>>();
const sameMeta = (a: Upload["meta"], b: Upload["meta"]) => JSON.stringify(a) === JSON.stringify(b);
const uploadKey = (p: Record<string, any>) => `${p.connectionId}\0${p.sessionId}\0${p.uploadId}`;
/** attachment-upload-registry.ts: failures are thrown as Error(reasonCode) → -32603 with that message. */
const fault = (code: string) => new Error(code);

const methodsV4Only: Record<string, Handler> = {
  "v4/connection/flow"(sim, p) {
    // transport.ts v4ConnectionFlowParamsSchema (strict) → v4ConnectionFlowResultSchema {} (strict).
    const q = parse(obj({ connectionId: str({ min: 1 }), state: enm(["saturated", "drained", "closed"]) }), p);
    connectionFlow(sim, q.connectionId, q.state);
    return {};
  },

  "v4/conversation/subscribe"(sim, p, ctx) {
    const q = parse(v4SubscribeParams, p);
    if ((q.topic as string).startsWith("sessions-index/")) return { ack: sessionsIndexSubscribe(sim, q, ctx) };
    const id = conversationIdOf(q.topic);
    // [sim] the gateway's answer to a topic it does not serve is not in the index.
    if (!id) throw new RpcError(-32602, `Unsupported topic: ${q.topic}`);
    const { s, r } = liveOrCold(sim, id);
    return { ack: publisherOf(sim, s, r).subscribe({ connectionId: q.connectionId, clientMode: q.clientMode, base: q.base }, ctx.after) };
  },

  "v4/conversation/resync"(sim, p, ctx) {
    const q = parse(v4ResyncParams, p);
    const id = conversationIdOf(q.topic);
    const r = id ? sim.rt(id) : undefined;
    const s = id ? sim.store.get(id) : undefined;
    const pub = s && r ? publisherOf(sim, s, r) : undefined;
    // [sim] resyncReserved returns null for an unknown subscription; the gateway's error for it is not in the index.
    if (!pub?.has(q.subscriptionId, q.connectionId)) throw new RpcError(-32602, `Unknown subscription: ${q.subscriptionId}`);
    const ackBody = pub.resync(q.subscriptionId, q.base, q.forceSnapshot === true, ctx.after);
    return { ack: ackBody };
  },

  "v4/conversation/unsubscribe"(sim, p) {
    const q = parse(v4UnsubscribeParams, p);
    const id = conversationIdOf(q.topic);
    const r = id ? sim.rt(id) : undefined;
    const s = id ? sim.store.get(id) : undefined;
    if (s && r) publisherOf(sim, s, r).unsubscribe(q.subscriptionId, q.connectionId);
    return {};
  },

  "v4/attachment/begin"(sim, p) {
    const q = parse(v4AttachmentBeginParams, p);
    if (!sim.store.get(q.sessionId)) throw new RpcError(-32004, `Session not found: ${q.sessionId}`);
    const meta = { fileName: q.fileName, mime: q.mime, totalBytes: q.totalBytes, totalChunks: q.totalChunks, checksum: q.checksum };
    const key = uploadKey(q);
    const u = uploads.get(key);
    if (u) {
      if (!sameMeta(u.meta, meta)) throw fault("fault.attachment.beginConflict");
      return u.ref
        ? { uploadId: q.uploadId, state: "committed", nextChunkIndex: u.chunks.length, ref: u.ref }
        : { uploadId: q.uploadId, state: "staging", nextChunkIndex: u.chunks.length };
    }
    if ([...uploads.values()].filter((x) => !x.ref).length >= 16) throw fault("fault.attachment.tooManyUploads");
    if (q.totalChunks > 0 && q.totalBytes > q.totalChunks * 512 * 1024) throw fault("fault.attachment.chunkCountInsufficient");
    uploads.set(key, { sessionId: q.sessionId, meta, chunks: [], received: 0 });
    return { uploadId: q.uploadId, state: "staging", nextChunkIndex: 0 };
  },

  "v4/attachment/chunk"(_sim, p) {
    const q = parse(v4AttachmentChunkParams, p);
    const u = uploads.get(uploadKey(q));
    if (!u || u.ref) throw fault("fault.attachment.uploadNotFound");
    const bytes = Buffer.from(q.dataBase64, "base64");
    if (q.chunkIndex < u.chunks.length) {
      if (!u.chunks[q.chunkIndex]!.equals(bytes)) throw fault("fault.attachment.chunkConflict");
      return { uploadId: q.uploadId, nextChunkIndex: u.chunks.length };
    }
    if (q.chunkIndex > u.chunks.length) throw fault("fault.attachment.chunkGap");
    if (q.chunkIndex >= u.meta.totalChunks) throw fault("fault.attachment.tooManyChunks");
    if (bytes.byteLength === 0) throw fault("fault.attachment.emptyChunk");
    if (u.received + bytes.byteLength > u.meta.totalBytes) throw fault("fault.attachment.totalBytesExceeded");
    u.chunks.push(bytes);
    u.received += bytes.byteLength;
    return { uploadId: q.uploadId, nextChunkIndex: u.chunks.length };
  },

  "v4/attachment/commit"(_sim, p) {
    const q = parse(v4AttachmentTerminalParams, p);
    const u = uploads.get(uploadKey(q));
    if (!u) throw fault("fault.attachment.uploadNotFound");
    if (u.ref) return { ref: u.ref };
    if (u.chunks.length !== u.meta.totalChunks || u.received !== u.meta.totalBytes) throw fault("fault.attachment.uploadIncomplete");
    const hash = createHash("sha256");
    for (const c of u.chunks) hash.update(c);
    if (`sha256:${hash.digest("hex")}` !== u.meta.checksum) throw fault("fault.attachment.checksumMismatch");
    // [sim] putSessionAttachment's ref format is not in the index; the gateway checks refs with a `zcode-artifa…` prefix.
    u.ref = `zcode-artifact://${u.sessionId}/${uuid()}`;
    let set = committedRefs.get(u.sessionId);
    if (!set) committedRefs.set(u.sessionId, (set = new Map()));
    set.set(u.ref, u);
    return { ref: u.ref };
  },

  "v4/attachment/abort"(_sim, p) {
    const q = parse(v4AttachmentTerminalParams, p);
    const key = uploadKey(q);
    if (!uploads.get(key)?.ref) uploads.delete(key);
    return {};
  },
};

export function v4OnlyMethod(method: string): Handler | undefined {
  return Object.hasOwn(methodsV4Only, method) ? methodsV4Only[method] : undefined;
}

// ---- commands -------------------------------------------------------------------

/** attachment-ref.ts attachmentRefSchema: strict. */
const attachmentRef = obj({
  ref: str(),
  fileName: str(),
  mime: str(),
  bytes: num(),
  sourceKind: opt(str()),
  messageCount: opt(num({ int: true, min: 0 })),
  previewRef: opt(str()),
});
const modelSelection = obj(
  { providerId: nonEmpty(), modelId: nonEmpty(), options: opt(obj({ reasoningLevel: opt(str()) }, { strict: false })) },
  { strict: false },
);
const SUBMISSION_MODES = ["build", "edit", "plan", "yolo", "guarded"] as const;
/** model-execution.ts modelExecutionSchema: strict; requestAuth carries this execution's provider credentials. */
const modelExecution = obj({
  memoryExtraction: opt(lit("skip")),
  selectionScope: lit("execution"),
  requestAuth: opt(
    obj({
      apiKey: opt(str({ min: 1 })),
      apiKeyId: opt(str({ trim: true, min: 1 })),
      accountScope: opt(str({ regex: /^[a-f0-9]{64}$/ })),
      headers: opt(record(str({ min: 1 }))),
    }),
  ),
  subagents: opt(obj({ foregroundModel: lit("submission"), background: lit("deny") })),
  selectionFallback: opt(unknown()),
});

/** command.ts commandPayloadSchemas (plain z.object: unknown keys are stripped, not refused). */
const PAYLOADS_V4_ONLY: Record<string, Schema> = {
  createSession: obj(
    {
      workspaceId: str(),
      permissionScope: opt(enm(["session"])),
      firstInput: opt(
        obj(
          {
            text: str(),
            attachments: opt(arr(attachmentRef)),
            modelSelection: opt(modelSelection),
            mode: opt(enm(SUBMISSION_MODES)),
            planEnabled: opt(bool()),
          },
          { strict: false },
        ),
      ),
      config: opt(record()),
      mcpServers: opt(arr(record())),
      offPeakToolEnabled: opt(bool()),
      dynamicWorkflowEnabled: opt(bool()),
      dynamicWorkflowMode: opt(str()),
    },
    { strict: false },
  ),
  sendText: obj(
    {
      text: str(),
      attachments: opt(arr(attachmentRef)),
      requestedDelivery: opt(enm(["startNow", "queue", "guide"])),
      heldQueueDisposition: opt(enm(["clearQueueAndSend", "keepQueueAndSend"])),
      expectedHeldQueueItemIds: opt(arr(str({ min: 1 }))),
      modelSelection: opt(modelSelection),
      mode: opt(enm(SUBMISSION_MODES)),
      planEnabled: opt(bool()),
      modelExecution: opt(modelExecution),
      conversationQuotes: opt(unknown()),
    },
    {
      strict: false,
      // command.ts requireModelSelectionForExecution.
      refine(v, issues, path) {
        if (v.modelExecution && !v.modelSelection)
          issues.push({ path: [...path, "modelExecution"], message: "modelExecution requires modelSelection" });
      },
    },
  ),
  resolveInteraction: obj(
    {
      interactionId: str(),
      answer: obj(
        { optionId: opt(str()), freeText: opt(str()), action: opt(enm(["accept", "decline", "cancel"])), content: opt(record()) },
        { strict: false },
      ),
    },
    { strict: false },
  ),
  renameSession: obj({ title: str() }, { strict: false }),
  switchModelConfig: obj({ provider: str(), model: str(), thought: str() }, { strict: false }),
  switchCollaborationMode: obj({ mode: enm(SUBMISSION_MODES) }, { strict: false }),
  setFollowupMode: obj({ mode: enm(["queue", "guide"]) }, { strict: false }),
  compact: obj({}, { strict: false }),
  forkAssistant: obj({ target: obj({ rowId: num({ int: true, min: 0 }), entityId: nonEmpty() }) }, { strict: false }),
  sendGoalCommand: obj(
    {
      text: str(),
      displayText: opt(str()),
      modelSelection: opt(modelSelection),
      mode: opt(enm(SUBMISSION_MODES)),
      planEnabled: opt(bool()),
      heldQueueDisposition: opt(enm(["clearQueueAndSend", "keepQueueAndSend"])),
      expectedHeldQueueItemIds: opt(arr(str({ min: 1 }))),
    },
    { strict: false },
  ),
  pauseGoal: obj({}, { strict: false }),
  resumeGoal: obj({}, { strict: false }),
};

/** Runs one of the simulator's core operations (the legacy method's body: what ZCode's core does for both protocols). */
async function core(e: Exec, method: string, params: Record<string, unknown>): Promise<Record<string, any>> {
  const ctx: CallCtx = { after: e.after, dropAnswer() {} };
  return (await legacyCore[method]!(e.sim, { sessionId: e.s.id, ...params }, ctx)) as Record<string, any>;
}

/** A core refusal (RpcError) as the failed ACK the gateway turns a handler error into. */
function failedOf(e: Exec, err: unknown): Ack {
  const code = err instanceof RpcError && err.code === -32010 ? "activePrompt" : "fault.command.executionFailed";
  return ack(e, "failed", { reasonCode: code, message: (err as Error).message });
}

function refsKnown(sessionId: string, refs: { ref: string }[] | undefined): boolean {
  const set = committedRefs.get(sessionId);
  return (refs ?? []).every((a) => set?.has(a.ref));
}

const HANDLERS_V4_ONLY: Record<string, (e: Exec) => Promise<Ack> | Ack> = {
  resolveInteraction(e) {
    // handlers/interaction-background.ts resolveInteraction: a miss (already answered, withdrawn, unknown) settles as an
    // idempotent success ("未命中…按幂等成功收口，不抛错——多端先到先得"): the handler returns undefined → accepted.
    const delivered = resolveInteraction(e.payload.interactionId, e.payload.answer);
    if (!delivered) log(`v4 resolveInteraction ${e.payload.interactionId}: no pending interaction (idempotent)`);
    return ack(e, "accepted");
  },

  renameSession(e) {
    // session-mgmt.ts renameSession → runtime.setCustomSessionTitle; titleSource becomes custom.
    e.s.title = e.payload.title;
    e.s.titleSource = "custom";
    e.sim.store.touch(e.s, { activity: false });
    e.sim.emit(e.s, "session.titleUpdated", { title: e.payload.title, source: "custom" });
    return ack(e, "accepted");
  },

  switchModelConfig(e) {
    // handlers/model-config.ts: provider/model/thought of the session config.
    const sel = { providerId: e.payload.provider, modelId: e.payload.model };
    if (!findModel(sel))
      return ack(e, "failed", { reasonCode: "fault.command.executionFailed", message: `unknown model ${sel.providerId}/${sel.modelId}` });
    e.s.model = { ...sel, ...(e.payload.thought ? { options: { reasoningLevel: e.payload.thought } } : {}) };
    e.sim.store.touch(e.s, { activity: false });
    e.sim.emit(e.s, "session.updated", { model: e.s.model });
    return ack(e, "accepted");
  },

  setFollowupMode(e) {
    // projection config.followupMode; computeInputRouting reads it (guide while running).
    followupModes.set(e.s.id, e.payload.mode);
    e.sim.v4Hook?.(e.s);
    return ack(e, "accepted");
  },

  async compact(e) {
    // goal-compact.ts compact: an input-type maintenance command; idle → runs now; busy → typed FIFO, run once the
    // turn's work is let go (projection-state.ts computeAvailability: "running/goal verifier 时命令进入 typed FIFO"),
    // accepted at once with delivery queue. [sim: the FIFO holds this compact alone; a held queue is not simulated.]
    if (e.r.turn) {
      // The ACK is long written when the queued compact runs: what it starts after its answer starts at once.
      const queued = { ...e, after: (fn: () => void) => fn() };
      void untilIdle(e.r)
        .then(() => core(queued, "session/compact", { inputId: e.env.commandId }))
        .catch((err) => log(`queued compact of ${e.s.id} failed: ${(err as Error).message}`));
      return ack(e, "accepted", { result: { type: "inputAccepted", delivery: "queue", inputId: e.env.commandId } });
    }
    try {
      await core(e, "session/compact", { inputId: e.env.commandId });
    } catch (err) {
      return failedOf(e, err);
    }
    return ack(e, "accepted", { result: { type: "inputAccepted", delivery: "startNow", inputId: e.env.commandId } });
  },

  async forkAssistant(e) {
    // fork-edit-retry.ts forkAssistant: the target must be the turn's latest assistant segment (canFork); the result
    // names the child session (command.ts commandResultSchema {type:"forkAssistant", sessionId}).
    const found = resolveTarget(e, "canFork");
    if (found.refused) return found.refused;
    try {
      const res = await core(e, "session/fork", { target: { kind: "message", messageId: found.row.assistantResponseId } });
      const forked = e.sim.store.get(res.forkedSessionId);
      if (forked) sessionsIndexChanged(e.sim, forked);
      return ack(e, "accepted", { result: { type: "forkAssistant", sessionId: res.forkedSessionId } });
    } catch (err) {
      return failedOf(e, err);
    }
  },

  async sendGoalCommand(e) {
    // goal-compact.ts sendGoalCommand: the text, trimmed, is the objective (no verbs: pause and resume are commands
    // of their own, there is no clear); empty → V4GoalCompactRejectedError emptyObjective "Usage: /goal <objective>";
    // a target already set is replaced (applyGoalCommand: replacesExistingGoal → goal_replaced). Input-type,
    // answered as inputAccepted.
    const objective = (e.payload.text as string).trim();
    if (!objective) return ack(e, "failed", { reasonCode: "emptyObjective", message: "Usage: /goal <objective>" });
    try {
      await core(e, "session/goal", { action: e.s.goal ? "replace" : "set", objective, inputId: e.env.commandId });
    } catch (err) {
      return failedOf(e, err);
    }
    return ack(e, "accepted", { result: { type: "inputAccepted", delivery: "startNow", inputId: e.env.commandId } });
  },

  async pauseGoal(e) {
    // projection-state.ts computeAvailability.pauseGoal: only an active goal. [sim] a refusal is a failed ACK with that guard.
    const st = e.s.goal?.status;
    if (st !== "active") return ack(e, "failed", { reasonCode: st ? "goalNotActive" : "noGoalToPause" });
    await core(e, "session/goal", { action: "pause" });
    return ack(e, "accepted");
  },

  async resumeGoal(e) {
    const st = e.s.goal?.status;
    if (st !== "paused") return ack(e, "failed", { reasonCode: st ? "goalNotPaused" : "noGoalToResume" });
    try {
      await core(e, "session/goal", { action: "resume" });
    } catch (err) {
      return failedOf(e, err);
    }
    return ack(e, "accepted");
  },

  switchCollaborationMode(e) {
    e.s.mode = e.payload.mode;
    e.sim.store.touch(e.s, { activity: false });
    e.sim.emit(e.s, "session.updated", { mode: e.s.mode });
    return ack(e, "accepted");
  },
};

/**
 * session-mgmt.ts createSession: a deferred ("draft") record for `workspaceId`
 * (a local workspace's id is its path), `mcpServers` kept in the record;
 * `firstInput` goes through the same prompt turn as sendText (the draft is
 * promoted to immediate by it); result {type:"createSession", sessionId, input?}.
 */
async function createSession(
  sim: Sim,
  env: Record<string, any>,
  payload: Record<string, any>,
  after: (fn: () => void) => void,
): Promise<Ack> {
  const fail = (reasonCode: string, message: string): Ack => ({
    commandId: env.commandId,
    status: "failed",
    reasonCode,
    message,
    revisionAtDecision: 0,
  });
  const first = payload.firstInput as { text: string; attachments?: unknown[]; mode?: string } | undefined;
  if (first && !first.text.trim() && !first.attachments?.length) return fail("proto.invalidPayload", "input must not be empty");
  const workspace = { workspacePath: payload.workspaceId, workspaceKey: payload.workspaceId };
  const s = sim.store.create(workspace, first?.mode ?? "build", { persistence: "deferred" });
  s.mcpServerNames = ((payload.mcpServers ?? []) as { name?: string }[]).map((m) => String(m.name ?? ""));
  const r = sim.activate(s);
  sessionsIndexChanged(sim, s);
  const result: Record<string, unknown> = { type: "createSession", sessionId: s.id };
  const e: Exec = { sim, s, r, env, payload: first ?? {}, after };
  if (first) {
    startV4Turn(e, first.text, "userInput");
    result.input = { delivery: "startNow", inputId: env.commandId };
  }
  return { ...ack(e, "accepted", { result }), revisionAtDecision: 0 };
}

/** Installs the v4-only surface (main.ts, when ZCODE_SIM_PROTOCOL=v4-only). */
export function installV4Only(sim: Sim): void {
  Object.assign(PAYLOADS, PAYLOADS_V4_ONLY);
  const sendText = HANDLERS.sendText!;
  Object.assign(HANDLERS, HANDLERS_V4_ONLY);
  // A command that changes the record without an event (goal pause, settings …) is still a projection change.
  for (const [type, h] of Object.entries(HANDLERS))
    HANDLERS[type] = async (e) => {
      try {
        return await h(e);
      } finally {
        sim.v4Hook?.(e.s);
      }
    };
  // attachment-refs.ts mapAttachmentRefsToTurnAttachments: a ref must be a committed upload of this session.
  HANDLERS.sendText = (e) =>
    refsKnown(e.s.id, e.payload.attachments)
      ? sendText(e)
      : ack(e, "failed", { reasonCode: "fault.command.inputRejected", message: "attachment ref is not committed for this session" });
  SESSIONLESS.createSession = createSession;
  // commands/attachment-refs.ts mapAttachmentRefsToTurnAttachments: a committed ref becomes a turn attachment
  // (pdf / image / video by mime, anything else a file) carrying the upload's bytes.
  v4Attachments.resolve = (s, refs) =>
    (refs as { ref: string; fileName: string; mime: string }[]).flatMap((a) => {
      const u = committedRefs.get(s.id)?.get(a.ref);
      if (!u) return [];
      const mime = u.meta.mime;
      const type = mime === "application/pdf" ? "pdf" : mime.startsWith("image/") ? "image" : mime.startsWith("video/") ? "video" : "file";
      return [
        {
          type,
          path: a.ref,
          filename: u.meta.fileName,
          mimeType: mime,
          sizeBytes: u.meta.totalBytes,
          seen: `${u.meta.fileName} ${u.meta.totalBytes} bytes (v4 attachment ref)`,
        } as TurnAttachment,
      ];
    });
  sim.v4Hook = (s) => {
    onSessionEvent(sim, s);
    sessionsIndexChanged(sim, s);
  };
}

export type { CallCtx };
