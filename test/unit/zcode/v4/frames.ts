// Frames as ZCode builds them, for the feed's tests. Shapes from ZCode's
// packages/shared/src/zcode-protocol-v4/ (jimpablo/ZCode @aac4755):
// transport.ts createTopicFrameSchema (frame envelope), wire.ts
// createTopicWireFrameSchema (complete / fragment wire frames, wireVersion 3),
// wire-binary.ts (crc32 + base64 of the UTF-8 JSON), snapshot.ts
// conversationSnapshotSchema, delta.ts conversationDeltaSchema, rows.ts rows.
import { crc32 } from "../../../../src/zcode/v4/wire-frames.ts";

export const SESSION = "sess_1";
export const TOPIC = `conversation/${SESSION}`;
export const SUB = "sub-1";

type Obj = Record<string, unknown>;

/** snapshot.ts sessionControlSchema. */
export function control(phase: string, extra: Obj = {}): Obj {
  return {
    phase,
    sessionEnded: phase.startsWith("completed"),
    canStop: phase === "running",
    stopState: phase === "running" ? "stoppable" : "idle",
    stopTargetKind: phase === "running" ? "assistant" : "unknown",
    activeWorks: [],
    lastError: null,
    apiRetry: null,
    ...extra,
  };
}

/** snapshot.ts conversationSnapshotSchema, with the keys the feed reads. */
export function snapshot(rows: Obj[], extra: Obj = {}): Obj {
  return {
    protocolVersion: 1,
    sessionId: SESSION,
    logEpoch: "epoch-1",
    seq: 0,
    revision: 1,
    control: control("completedSuccess"),
    meta: { title: "", titleSource: "default" },
    config: { provider: "p", model: "m", thought: "max", thoughtLevels: ["max"], followupMode: "queue", mode: "yolo" },
    usage: { contextWindow: null, cumulative: { inputTokens: 0, outputTokens: 0, cacheReadTokens: 0, cacheWriteTokens: 0 } },
    queue: { items: [], autoDrain: true },
    pendingInteractions: [],
    pendingCommands: [],
    backgroundWorks: [],
    goal: null,
    plan: null,
    rows: { window: rows, totalCount: rows.length, firstRowId: (rows[0]?.rowId as number | undefined) ?? null },
    ...extra,
  };
}

/** transport.ts createTopicFrameSchema: (fromSeq, toSeq]; a snapshot frame has fromSeq 0. */
export function snapshotFrame(snap: Obj, toSeq = 10): Obj {
  return { topic: TOPIC, subscriptionId: SUB, fromSeq: 0, toSeq, sentAt: 1, payload: { kind: "snapshot", snapshot: snap } };
}
export function deltasFrame(fromSeq: number, deltas: Obj[], toSeq = fromSeq + deltas.length): Obj {
  return { topic: TOPIC, subscriptionId: SUB, fromSeq, toSeq, sentAt: 1, payload: { kind: "deltas", deltas } };
}

/** wire.ts complete wire frame. */
export function complete(frame: Obj, ordinal: number, deliveryKind = "online"): Obj {
  return {
    wireVersion: 3,
    kind: "complete",
    deliveryKind,
    logicalFrameId: `lf-${ordinal}`,
    logicalFrameOrdinal: ordinal,
    topic: TOPIC,
    subscriptionId: SUB,
    frame,
  };
}

/** wire.ts fragment wire frames: the UTF-8 JSON cut into `count` byte ranges (wire-codec.ts encodeTopicWireFrames). */
export function fragments(frame: Obj, ordinal: number, count: number, deliveryKind = "online"): Obj[] {
  const bytes = new TextEncoder().encode(JSON.stringify(frame));
  const size = Math.ceil(bytes.byteLength / count);
  const checksum = { algorithm: "crc32", value: crc32(bytes) };
  return Array.from({ length: count }, (_, i) => ({
    wireVersion: 3,
    kind: "fragment",
    deliveryKind,
    logicalFrameId: `lf-${ordinal}`,
    logicalFrameOrdinal: ordinal,
    topic: TOPIC,
    subscriptionId: SUB,
    fragmentIndex: i,
    fragmentCount: count,
    logicalBytes: bytes.byteLength,
    checksum,
    dataBase64: Buffer.from(bytes.subarray(i * size, (i + 1) * size)).toString("base64"),
  }));
}

// ---- rows (rows.ts) ----------------------------------------------------------

const base = (rowId: number, turnId: string) => ({ rowId, turnId, entityId: `e-${rowId}`, createdAt: 1000 + rowId, createdAtSeq: rowId });

export function header(rowId: number, turnId: string, state: string, extra: Obj = {}): Obj {
  return { ...base(rowId, turnId), kind: "turnHeader", origin: "userInput", executionKind: "agent", state, startedAt: 1, ...extra };
}
export function userInput(rowId: number, turnId: string, text: string, extra: Obj = {}): Obj {
  return { ...base(rowId, turnId), kind: "userInput", text, origin: "realUser", ...extra };
}
export function assistantText(rowId: number, turnId: string, text: string, state = "streaming", extra: Obj = {}): Obj {
  return { ...base(rowId, turnId), kind: "assistantText", assistantResponseId: `resp-${turnId}`, text, state, ...extra };
}
export function reasoning(rowId: number, turnId: string, text: string, state = "streaming"): Obj {
  return { ...base(rowId, turnId), kind: "reasoning", assistantResponseId: `resp-${turnId}`, text, state };
}
export function toolCall(rowId: number, turnId: string, status: string, extra: Obj = {}): Obj {
  return { ...base(rowId, turnId), kind: "toolCall", toolCallId: `call-${rowId}`, toolName: "Bash", status, inputText: "", ...extra };
}
