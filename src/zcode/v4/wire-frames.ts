import * as v from "valibot";
import { summarizeIssues } from "../schemas.ts";
import { type ConversationFrame, ConversationFrameSchema, WIRE_LIMITS, WireFrameSchema, type WireFrame } from "./frame-schemas.ts";

// Reassembles ZCode's physical wire frames (`v4/conversation/frame` params)
// into logical conversation frames, as ZCode's own consumer does
// (packages/shared/src/zcode-protocol-v4/wire-assembler.ts
// `TopicWireFrameAssembler.accept`, wire-reassembly.ts, wire-binary.ts), then
// checks seq continuity: frames cover `(fromSeq, toSeq]` (transport.ts
// `createTopicFrameSchema`), so a deltas frame must start where the last one
// ended. Any fault (bad metadata, checksum, a gap, a budget passed) means the
// state can no longer be trusted: the answer is `{resync: reasonCode}` and the
// caller sends `v4/conversation/resync`; until a snapshot arrives the route's
// deltas are dropped. Memory is bounded by the same budgets ZCode uses.

/** A logical conversation frame, whole and validated, with what it was delivered for (initial|online|recovery). */
export type AssembledFrame = ConversationFrame & { deliveryKind: string };

/** What every topic's logical frame has (transport.ts createTopicFrameSchema): the seq range and the payload kind. */
export interface TopicFrame {
  fromSeq: number;
  toSeq: number;
  payload: { kind: string };
}

/** Reads one topic's logical frame: the frame, or why it is not one. */
export type FrameReader<F extends TopicFrame> = (value: unknown) => F | string;

export interface FrameAssemblerOptions {
  /** Bytes of one logical frame (ZCode: 16 MiB). */
  maxAssemblyBytes?: number;
  /** Fragments of one logical frame (ZCode: 1024). */
  maxFragments?: number;
  /** Logical frames being assembled at once, over all routes (ZCode: 32). */
  maxConcurrentAssemblies?: number;
  /** Decoded bytes held for all assemblies (ZCode: 32 MiB). */
  maxStagedBytes?: number;
  /** A frame whose fragments do not all arrive within this is dropped (ZCode: 30 s). */
  timeoutMs?: number;
}

interface Assembly {
  deliveryKind: string;
  logicalFrameId: string;
  ordinal: number;
  fragmentCount: number;
  logicalBytes: number;
  checksum: string;
  fragments: (Uint8Array | undefined)[];
  received: number;
  decodedBytes: number;
  firstSeenAt: number;
}

interface Route {
  assembly?: Assembly;
  /** The last logical frame settled (done or failed): older or equal ordinals are replays (wire-assembler.ts tombstone). */
  settled?: { logicalFrameId: string; ordinal: number };
  /** toSeq of the last frame applied; undefined until the first frame. */
  seq?: number;
  /** A fault was reported: deltas are dropped until a snapshot frame comes. */
  awaitingSnapshot: boolean;
}

const DELIVERY_KINDS = new Set(["initial", "online", "recovery"]);
/**
 * wire-binary.ts `topicWireBase64Schema`, i.e. the strings
 * `/^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/`
 * match. A scan, not that regex: on a fragment of a megabyte the regex (with
 * its backtracking groups) cost seconds of a big session's load.
 */
export function isBase64(s: string): boolean {
  const n = s.length;
  if (n % 4 !== 0) return false;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47) continue;
    // "=" pads only the last group: "XXX=" or "XX==".
    if (c === 61 && (i === n - 1 || (i === n - 2 && s.charCodeAt(n - 1) === 61))) continue;
    return false;
  }
  return true;
}

/**
 * The reassembly for any topic on `v4/conversation/frame` (ZCode sends the
 * sessions-index and workspace-config topics on the same notification):
 * frames of topics `accepts` refuses are ignored.
 */
export class TopicAssembler<F extends TopicFrame> {
  private readonly routes = new Map<string, Route>();
  private staged = 0;
  private assemblies = 0;
  private readonly maxAssemblyBytes: number;
  private readonly maxFragments: number;
  private readonly maxConcurrent: number;
  private readonly maxStaged: number;
  private readonly timeoutMs: number;

  constructor(
    private readonly read: FrameReader<F>,
    private readonly accepts: (topic: string) => boolean,
    opts: FrameAssemblerOptions = {},
  ) {
    // Never above ZCode's own limits (wire-assembler.ts `hardBound`).
    this.maxAssemblyBytes = Math.min(opts.maxAssemblyBytes ?? Infinity, WIRE_LIMITS.logicalFrameAssemblyMaxBytes);
    this.maxFragments = Math.min(opts.maxFragments ?? Infinity, WIRE_LIMITS.logicalFrameAssemblyMaxFragments);
    this.maxConcurrent = Math.min(opts.maxConcurrentAssemblies ?? Infinity, WIRE_LIMITS.logicalFrameAssemblyMaxConcurrent);
    this.maxStaged = Math.min(opts.maxStagedBytes ?? Infinity, WIRE_LIMITS.logicalFrameAssemblyMaxStagedBytes);
    this.timeoutMs = Math.min(opts.timeoutMs ?? Infinity, WIRE_LIMITS.logicalFrameAssemblyTimeoutMs);
  }

  /** The params of one `v4/conversation/frame` notification → the frames it completes, or why to resync. */
  push(params: unknown, now = Date.now()): (F & { deliveryKind: string })[] | { resync: string } {
    const expired = this.expire(now);
    if (expired) return { resync: expired };
    const parsed = v.safeParse(WireFrameSchema, params);
    if (!parsed.success) return { resync: `proto.frameEnvelopeInvalid (${summarizeIssues(parsed.issues)})` };
    const wire = parsed.output;
    if (!this.accepts(wire.topic)) return [];
    const route = this.route(wire);
    if (!Number.isSafeInteger(wire.logicalFrameOrdinal) || wire.logicalFrameOrdinal < 1) {
      return this.fault(route, "proto.frameAssemblyMetadataMismatch");
    }
    // Replays of a settled frame are dropped before anything else is read (wire-assembler.ts).
    const settled = route.settled;
    if (settled && wire.logicalFrameOrdinal <= settled.ordinal) {
      if (wire.logicalFrameOrdinal === settled.ordinal && wire.logicalFrameId !== settled.logicalFrameId) {
        return this.fault(route, "proto.frameAssemblyOrdinalConflict");
      }
      return [];
    }
    const deliveryKind = typeof wire.deliveryKind === "string" && DELIVERY_KINDS.has(wire.deliveryKind) ? wire.deliveryKind : null;
    const current = route.assembly;
    if (current) {
      if (wire.logicalFrameOrdinal < current.ordinal) return [];
      if (wire.logicalFrameOrdinal === current.ordinal && wire.logicalFrameId !== current.logicalFrameId) {
        return this.failAssembly(route, current, "proto.frameAssemblyOrdinalConflict");
      }
      if (wire.logicalFrameOrdinal > current.ordinal) {
        // A newer frame while one is incomplete: only a recovery frame may replace it quietly.
        this.drop(route, current);
        this.settle(route, { logicalFrameId: current.logicalFrameId, logicalFrameOrdinal: current.ordinal });
        if (deliveryKind !== "recovery") return this.fault(route, "proto.frameAssemblySuperseded");
      }
    }
    if (deliveryKind === null) return this.settleFault(route, wire, "proto.frameAssemblyMetadataMismatch");
    if (wire.kind === "complete") return this.complete(route, wire, deliveryKind);
    return this.fragment(route, wire, deliveryKind, now);
  }

  /**
   * Drops frames whose fragments stopped coming (ZCode: 30 s), for a caller's timer: push() checks too,
   * but only when something arrives. A dropped frame means a resync.
   */
  check(now = Date.now()): { resync: string } | undefined {
    const expired = this.expire(now);
    return expired ? { resync: expired } : undefined;
  }

  /** Forgets a subscription (after unsubscribe, or before a new subscribe of the same topic). */
  discard(topic: string, subscriptionId: string): void {
    const key = `${topic}\0${subscriptionId}`;
    const route = this.routes.get(key);
    if (route?.assembly) this.drop(route, route.assembly);
    this.routes.delete(key);
  }

  /** Bytes and frames held right now (for tests and the log). */
  get stats(): { assemblies: number; stagedBytes: number } {
    return { assemblies: this.assemblies, stagedBytes: this.staged };
  }

  private route(wire: WireFrame): Route {
    const key = `${wire.topic}\0${wire.subscriptionId}`;
    let route = this.routes.get(key);
    if (!route) this.routes.set(key, (route = { awaitingSnapshot: false }));
    return route;
  }

  private complete(
    route: Route,
    wire: WireFrame & { kind: "complete" },
    deliveryKind: string,
  ): (F & { deliveryKind: string })[] | { resync: string } {
    this.settle(route, wire);
    const bytes = Buffer.byteLength(JSON.stringify(wire.frame ?? null));
    if (bytes > this.maxAssemblyBytes) return this.fault(route, "proto.frameAssemblyTooLarge");
    return this.logical(route, wire, wire.frame, deliveryKind);
  }

  private fragment(
    route: Route,
    wire: WireFrame & { kind: "fragment" },
    deliveryKind: string,
    now: number,
  ): (F & { deliveryKind: string })[] | { resync: string } {
    const { fragmentIndex: index, fragmentCount: count, logicalBytes, checksum, dataBase64 } = wire;
    if (
      typeof index !== "number" ||
      typeof count !== "number" ||
      typeof logicalBytes !== "number" ||
      typeof dataBase64 !== "string" ||
      typeof checksum !== "object" ||
      checksum === null
    ) {
      return this.settleFault(route, wire, "proto.frameAssemblyMetadataMismatch");
    }
    if (count > this.maxFragments) return this.settleFault(route, wire, "proto.frameFragmentCountExceeded");
    if (logicalBytes > this.maxAssemblyBytes) return this.settleFault(route, wire, "proto.frameAssemblyTooLarge");
    const sum = checksum as { algorithm?: unknown; value?: unknown };
    if (
      !Number.isInteger(count) ||
      count < 1 ||
      !Number.isInteger(index) ||
      index < 0 ||
      index >= count ||
      !Number.isInteger(logicalBytes) ||
      logicalBytes < 1 ||
      count > logicalBytes ||
      sum.algorithm !== "crc32" ||
      typeof sum.value !== "string" ||
      !/^[0-9a-f]{8}$/u.test(sum.value)
    ) {
      return this.settleFault(route, wire, "proto.frameAssemblyMetadataMismatch");
    }
    const decoded = dataBase64.length >= 4 && isBase64(dataBase64) ? new Uint8Array(Buffer.from(dataBase64, "base64")) : null;
    if (!decoded) return this.settleFault(route, wire, "proto.frameAssemblyInvalidBase64");

    let a = route.assembly;
    if (a) {
      if (a.fragmentCount !== count || a.deliveryKind !== deliveryKind || a.logicalBytes !== logicalBytes || a.checksum !== sum.value) {
        return this.failAssembly(route, a, "proto.frameAssemblyMetadataMismatch");
      }
    } else {
      if (this.assemblies >= this.maxConcurrent) return this.settleFault(route, wire, "proto.frameAssemblyConcurrentLimit");
      if (this.staged + decoded.byteLength > this.maxStaged) return this.settleFault(route, wire, "proto.frameAssemblyBudgetExceeded");
      a = {
        deliveryKind,
        logicalFrameId: wire.logicalFrameId,
        ordinal: wire.logicalFrameOrdinal,
        fragmentCount: count,
        logicalBytes,
        checksum: sum.value,
        fragments: new Array(count),
        received: 0,
        decodedBytes: 0,
        firstSeenAt: now,
      };
      route.assembly = a;
      this.assemblies += 1;
    }
    const previous = a.fragments[index];
    if (previous) {
      // A duplicate is harmless when it carries the same bytes.
      return Buffer.compare(previous, decoded) === 0 ? [] : this.failAssembly(route, a, "proto.frameAssemblyFragmentConflict");
    }
    if (this.staged + decoded.byteLength > this.maxStaged) return this.failAssembly(route, a, "proto.frameAssemblyBudgetExceeded");
    if (a.decodedBytes + decoded.byteLength > a.logicalBytes) return this.failAssembly(route, a, "proto.frameAssemblyLengthMismatch");
    a.fragments[index] = decoded;
    a.received += 1;
    a.decodedBytes += decoded.byteLength;
    this.staged += decoded.byteLength;
    if (a.received !== a.fragmentCount) return [];

    this.drop(route, a);
    this.settle(route, { logicalFrameId: a.logicalFrameId, logicalFrameOrdinal: a.ordinal });
    if (a.decodedBytes !== a.logicalBytes) return this.fault(route, "proto.frameAssemblyLengthMismatch");
    const logical = Buffer.concat(a.fragments as Uint8Array[]);
    if (crc32(logical) !== a.checksum) return this.fault(route, "proto.frameAssemblyChecksumMismatch");
    let value: unknown;
    try {
      value = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(logical));
    } catch (err) {
      return this.fault(route, err instanceof SyntaxError ? "proto.frameAssemblyInvalidJson" : "proto.frameAssemblyInvalidUtf8");
    }
    return this.logical(route, wire, value, a.deliveryKind);
  }

  /** A whole logical frame: it must name the same route, read as a conversation frame, and continue the seq. */
  private logical(
    route: Route,
    wire: WireFrame,
    value: unknown,
    deliveryKind: string,
  ): (F & { deliveryKind: string })[] | { resync: string } {
    const rec = (typeof value === "object" && value !== null ? value : {}) as { topic?: unknown; subscriptionId?: unknown };
    if (rec.topic !== wire.topic || rec.subscriptionId !== wire.subscriptionId)
      return this.fault(route, "proto.frameAssemblyMetadataMismatch");
    const frame = this.read(value);
    if (typeof frame === "string") return this.fault(route, `proto.frameInvalidPayload (${frame})`);
    if (frame.payload.kind === "snapshot") {
      route.awaitingSnapshot = false;
      route.seq = frame.toSeq;
      return [{ ...frame, deliveryKind }];
    }
    if (route.awaitingSnapshot) return [];
    if (route.seq !== undefined) {
      // A frame already covered (a replay after resume) is dropped; one that skips seqs is a gap.
      if (frame.toSeq <= route.seq) return [];
      if (frame.fromSeq !== route.seq) return this.fault(route, `proto.frameSeqGap (expected fromSeq ${route.seq}, got ${frame.fromSeq})`);
    }
    route.seq = frame.toSeq;
    return [{ ...frame, deliveryKind }];
  }

  /** Drops assemblies older than the timeout; a dropped frame is a fault of its route. */
  private expire(now: number): string | undefined {
    let reason: string | undefined;
    for (const route of this.routes.values()) {
      const a = route.assembly;
      if (!a || now - a.firstSeenAt < this.timeoutMs) continue;
      this.failAssembly(route, a, "proto.frameAssemblyTimedOut");
      reason ??= "proto.frameAssemblyTimedOut";
    }
    return reason;
  }

  private drop(route: Route, a: Assembly): void {
    if (route.assembly !== a) return;
    route.assembly = undefined;
    this.assemblies -= 1;
    this.staged -= a.decodedBytes;
  }

  private settle(route: Route, f: { logicalFrameId: string; logicalFrameOrdinal: number }): void {
    if (route.settled && route.settled.ordinal > f.logicalFrameOrdinal) return;
    route.settled = { logicalFrameId: f.logicalFrameId, ordinal: f.logicalFrameOrdinal };
  }

  private failAssembly(route: Route, a: Assembly, reason: string): { resync: string } {
    this.drop(route, a);
    this.settle(route, { logicalFrameId: a.logicalFrameId, logicalFrameOrdinal: a.ordinal });
    return this.fault(route, reason);
  }

  private settleFault(route: Route, wire: WireFrame, reason: string): { resync: string } {
    if (route.assembly && route.assembly.ordinal === wire.logicalFrameOrdinal && route.assembly.logicalFrameId === wire.logicalFrameId) {
      this.drop(route, route.assembly);
    }
    this.settle(route, wire);
    return this.fault(route, reason);
  }

  private fault(route: Route, reason: string): { resync: string } {
    route.awaitingSnapshot = true;
    return { resync: reason };
  }
}

/** The conversation topic's frames (`conversation/<sessionId>`), as the feed applies them. */
export class FrameAssembler extends TopicAssembler<ConversationFrame> {
  constructor(opts: FrameAssemblerOptions = {}) {
    super(readConversationFrame, (topic) => topic.startsWith("conversation/"), opts);
  }
}

function readConversationFrame(value: unknown): ConversationFrame | string {
  const parsed = v.safeParse(ConversationFrameSchema, value);
  return parsed.success ? parsed.output : summarizeIssues(parsed.issues);
}

const CRC32_TABLE = Uint32Array.from({ length: 256 }, (_, byte) => {
  let r = byte;
  for (let i = 0; i < 8; i++) r = (r >>> 1) ^ ((r & 1) * 0xedb88320);
  return r >>> 0;
});

/** wire-binary.ts `crc32WireBytes`: CRC-32 (IEEE), 8 lowercase hex digits. */
export function crc32(bytes: Uint8Array): string {
  let r = 0xffffffff;
  for (const b of bytes) r = (CRC32_TABLE[(r ^ b) & 255] as number) ^ (r >>> 8);
  return (~r >>> 0).toString(16).padStart(8, "0");
}
