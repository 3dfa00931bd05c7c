// The v4 physical wire: a logical topic frame becomes one `complete` wire frame
// or, when its physical envelope would exceed the frame budget, `fragment`s of
// its UTF-8 JSON bytes, as ZCode encodes them:
// - packages/shared/src/zcode-protocol-v4/wire-codec.ts `encodeTopicWireFrames`,
//   `measureTopicNotificationEnvelopeBytes`, `findFragmentByteBudget`
//   (read in sulistta/ZCode, same 0.16.9 tree; not in jimpablo's index);
// - wire-binary.ts `crc32WireBytes` (lowercase 8-hex CRC-32), `encodeWireBytesBase64`;
// - core.ts (rayn1314/ZCode) PROTOCOL_V4_LIMITS.maxFrameBytes 1 MiB,
//   logicalFrameAssemblyMaxFragments 1024, transportEnvelopeIdMaxChars 256,
//   V4_WIRE_PROTOCOL_VERSION 3;
// - the gateway measures with `measureTopicNotificationEnvelopeBytes(wire).maxBytes`
//   (v4-gateway.ts `encodeReservedTopicFrame`).

export const V4_WIRE_PROTOCOL_VERSION = 3;
export const MAX_FRAME_BYTES = 1024 * 1024;
const MAX_FRAGMENTS = 1024;
const TRANSPORT_ENVELOPE_ID_MAX_CHARS = 256;
const CHANNEL_EVENT_RESPONSE_TYPE = 204;
const SOCKET_PROTOCOL_HEADER_BYTES = 13;

export type DeliveryKind = "initial" | "online" | "recovery";

export interface WireIdentity {
  deliveryKind: DeliveryKind;
  topic: string;
  subscriptionId: string;
  logicalFrameId: string;
  logicalFrameOrdinal: number;
}

const enc = new TextEncoder();
const bytesOf = (v: unknown) => enc.encode(JSON.stringify(v)).byteLength;

const CRC_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let r = byte;
  for (let i = 0; i < 8; i++) r = (r >>> 1) ^ (r & 1 ? 0xedb88320 : 0);
  return r >>> 0;
});

/** wire-binary.ts crc32WireBytes. */
export function crc32Hex(bytes: Uint8Array): string {
  let crc = 0xffffffff;
  for (const b of bytes) crc = CRC_TABLE[(crc ^ b) & 255]! ^ (crc >>> 8);
  return ((crc ^ 0xffffffff) >>> 0).toString(16).padStart(8, "0");
}

function vqlByteLength(value: number): number {
  let bytes = 1;
  for (let remaining = value >>> 7; remaining > 0; remaining >>>= 7) bytes += 1;
  return bytes;
}

/** wire-codec.ts measureTopicNotificationEnvelopeBytes(...).maxBytes: NDJSON, Channel socket and mobile relay, the largest. */
export function measureEnvelopeBytes(wire: unknown): number {
  const cliNdjsonBytes = bytesOf({ method: "v4/conversation/frame", params: wire }) + 1;
  const wireJsonBytes = bytesOf(wire);
  const maxEventIdJsonBytes = String(Number.MAX_SAFE_INTEGER).length;
  const maxEventIdSerializedBytes = 1 + vqlByteLength(maxEventIdJsonBytes) + maxEventIdJsonBytes;
  const channelHeaderBytes = 1 + vqlByteLength(2) + 1 + vqlByteLength(CHANNEL_EVENT_RESPONSE_TYPE) + maxEventIdSerializedBytes;
  const channelPayloadBytes = channelHeaderBytes + 1 + vqlByteLength(wireJsonBytes) + wireJsonBytes;
  const channelSocketBytes = channelPayloadBytes + SOCKET_PROTOCOL_HEADER_BYTES;
  const dataBase64Bytes = 4 * Math.ceil(channelPayloadBytes / 3);
  const transportId = "x".repeat(TRANSPORT_ENVELOPE_ID_MAX_CHARS);
  const mobileRelayFixedBytes = bytesOf({
    type: "data",
    payload: {
      zcode_type: "rpc-frame",
      bridgeSessionId: transportId,
      bridgeGeneration: Number.MAX_SAFE_INTEGER,
      recoveryId: transportId,
      seq: Number.MAX_SAFE_INTEGER,
      dataBase64: "",
    },
    client_ts: Number.MAX_SAFE_INTEGER,
    server_ts: Number.MAX_SAFE_INTEGER,
  });
  return Math.max(cliNdjsonBytes, channelSocketBytes, mobileRelayFixedBytes + dataBase64Bytes);
}

function fragment(id: WireIdentity, index: number, count: number, logicalBytes: number, checksum: string, dataBase64: string) {
  return {
    wireVersion: V4_WIRE_PROTOCOL_VERSION,
    kind: "fragment",
    deliveryKind: id.deliveryKind,
    logicalFrameId: id.logicalFrameId,
    logicalFrameOrdinal: id.logicalFrameOrdinal,
    topic: id.topic,
    subscriptionId: id.subscriptionId,
    fragmentIndex: index,
    fragmentCount: count,
    logicalBytes,
    checksum: { algorithm: "crc32", value: checksum },
    dataBase64,
  };
}

/** wire-codec.ts encodeTopicWireFrames: complete when it fits, else byte fragments (binary-searched budget, worst-case index digits). */
export function encodeTopicWireFrames(
  frame: unknown,
  id: WireIdentity,
  maxPhysicalFrameBytes = MAX_FRAME_BYTES,
): Record<string, unknown>[] {
  const max = Math.min(Math.floor(maxPhysicalFrameBytes), MAX_FRAME_BYTES);
  const complete = {
    wireVersion: V4_WIRE_PROTOCOL_VERSION,
    kind: "complete",
    deliveryKind: id.deliveryKind,
    logicalFrameId: id.logicalFrameId,
    logicalFrameOrdinal: id.logicalFrameOrdinal,
    topic: id.topic,
    subscriptionId: id.subscriptionId,
    frame,
  };
  if (measureEnvelopeBytes(complete) <= max) return [complete];
  const logical = enc.encode(JSON.stringify(frame));
  const checksum = crc32Hex(logical);
  // findFragmentByteBudget: the largest chunk whose worst-case fragment (index = count-1 = logicalBytes-1) fits.
  let low = 1;
  let high = Math.min(logical.byteLength, max);
  let best = 0;
  const worst = logical.byteLength;
  while (low <= high) {
    const mid = Math.floor((low + high) / 2);
    const probe = fragment(id, Math.max(0, worst - 1), worst, logical.byteLength, checksum, "A".repeat(4 * Math.ceil(mid / 3)));
    if (measureEnvelopeBytes(probe) <= max) {
      best = mid;
      low = mid + 1;
    } else high = mid - 1;
  }
  if (best < 1) throw new Error("proto.frameEnvelopeTooLarge");
  const count = Math.ceil(logical.byteLength / best);
  if (count > MAX_FRAGMENTS) throw new Error("proto.frameFragmentCountExceeded");
  const out: Record<string, unknown>[] = [];
  for (let i = 0; i < count; i++) {
    const chunk = logical.subarray(i * best, Math.min((i + 1) * best, logical.byteLength));
    out.push(fragment(id, i, count, logical.byteLength, checksum, Buffer.from(chunk).toString("base64")));
  }
  return out;
}
