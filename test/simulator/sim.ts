// Process-wide simulator state: the conversations active in this process
// (created, resumed or forked here — the CLI's `context.sessions`), each with
// its own event log and seq counter, and the running turns.
//
// Seq numbering follows the CLI: a per-session counter, contiguous from 1 over
// every event it would send, kept on the in-memory record. A session that is
// materialized again (resumed in a new process, or after `evict`) starts a new
// seq space at 1 [INFERRED from the server code and the 0.16.9 capture, whose
// first event in a 7-turn-old session has seq 1]. Events are stored from the
// start; they are pushed as `session/event` only once session/subscribe (or
// session/read with deliveryKind) has set the session's delivery kind.
import type { SimConfig } from "./config.ts";
import { Outgoing } from "./interactions.ts";
import type { Personality } from "./personality.ts";
import { type Store, uuid } from "./store.ts";
import type { Turn } from "./turn.ts";
import { type BatchState, newBatchState, rebatch, type SourceEvent, step } from "./delta-batch.ts";
import type { PermissionRule, SessionRecord, StoredEvent } from "./types.ts";
import type { Out } from "./wire.ts";

/** Events kept in memory per session for afterSeq replays. */
const MAX_EVENTS = 20_000;

export type DeliveryKind = "desktop-continuous" | "web-remote-replayable";

export interface PendingPermission {
  requestId: string;
  toolCallId: string;
  toolName: string;
  reason: string;
  riskLevel: "low" | "medium" | "high" | "critical";
  input: unknown;
  options: unknown[];
  requestedAt: number;
}

export interface ActiveTool {
  toolCallId: string;
  toolName: string;
  status: "pending" | "running" | "completed" | "failed" | "denied";
  startedAt?: number;
}

/** One materialization of a session in this process. */
export interface Runtime {
  deliveryKind?: DeliveryKind;
  /** `stall`: live pushes held back until the next session/subscribe. */
  holdLive: boolean;
  /** The event store (ZCode's eventStore): every event, each delta its own. */
  source: SourceEvent[];
  /** The store's sequenceNumber counter. */
  sourceSeq: number;
  /** Protocol seq per source event (`assignProtocolEventSeq`: seqBySourceEventKey). */
  seqBySource: Map<number, number>;
  /** The protocol events written live, mapped (an old one is what `fuzz` sends again). */
  events: StoredEvent[];
  /** The last protocol seq assigned (live or by a re-read). */
  seq: number;
  /** stateRevision: bumped by every state mutation (send, settings, goal, …). */
  revision: number;
  turn?: Turn;
  /** `hang-request next=1`: the answer to the next session/send is never written. */
  hangNextSend: boolean;
  /** The answer to session/requestRuntimePreferences, once validated. */
  prefs?: Record<string, unknown>;
  /** Why the last runtime-preferences answer was rejected: the next session/send fails with it. */
  prefsError?: string;
  /** The runtime-preferences request still waiting for its answer (turns wait for it). */
  prefsPending?: Promise<void>;
  pendingPermissions: Map<string, PendingPermission>;
  activeTools: Map<string, ActiveTool>;
  /** Session-scoped rules granted while this record lives (in addition to the persisted ones). */
  sessionRules: PermissionRule[];
  /** The first input of this materialization has been seen (session.updated SessionStart hook). */
  started: boolean;
  /** v4: this materialization's publisher epoch and snapshot revision (ZCODE-V4.md §3). */
  logEpoch: string;
  v4Revision: number;
  /** v4 row ids by entity key: monotonic, never reused. */
  rowIds: Map<string, number>;
  nextRowId: number;
  /** Guides that fell back to the queue when their turn was stopped: held, not run. */
  heldGuides: { commandId: string; text: string }[];
  /** The live batching of deltas (delta-batch.ts). */
  live: BatchState;
  /**
   * A running subagent's session: its runtime lives inside the parent's and
   * its events feed only the v4 gateway (server-operations.ts onSessionEvent:
   * a child event "must be routed by its own sessionId first and returned",
   * to v4Gateway.ingestDetachedLiveSession). It has no bootstrap record
   * (v4-bridge.ts resolveConversationBackingRecord: "运行中 subagent 有独立
   * child event log，但没有独立 bootstrap record"), so every legacy method
   * that needs an active session fails -32004 (server-types.ts
   * requireSession), while v4 rowsRange reads it (v4-gateway.ts
   * hasLiveConversation counts detachedLiveSessions).
   */
  detached?: boolean;
}

export class Sim {
  readonly runtimes = new Map<string, Runtime>();
  /**
   * v4 stop commands received, counted on arrival (before the request queue
   * runs them): a test switch (`slow untilstop=1`), no CLI behaviour.
   */
  stopsArrived = 0;
  /** v4 settled ACKs per session (command-inbox.ts idempotency table), kept past a deleteSession. */
  readonly v4Acks = new Map<string, Map<string, Promise<Record<string, unknown>>>>();
  readonly outgoing: Outgoing;
  /** Hooks for the fuzzing mode; no-ops otherwise. */
  fuzz: {
    between(s: SessionRecord): void;
    answer(id: unknown, body: Record<string, unknown>): Record<string, unknown>;
  } = { between() {}, answer: (_id, body) => body };
  /**
   * v4-only mode (v4-only.ts): told of every stored event so the session's
   * conversation topic publisher can project and publish it
   * (conversation-topic-publisher.ts `ingest`). Unset in the default mode.
   */
  v4Hook?: (s: SessionRecord) => void;
  /** Ends the process (flushing state and stdout first); set by main. */
  exit: (code: number) => Promise<void> = async (code) => process.exit(code);

  constructor(
    readonly cfg: SimConfig,
    readonly pers: Personality,
    readonly store: Store,
    readonly out: Out,
  ) {
    this.outgoing = new Outgoing(out, cfg.resendMs);
  }

  /** The session's runtime if it is active in this process. */
  rt(id: string): Runtime | undefined {
    return this.runtimes.get(id);
  }

  /** Materializes a session here: a fresh record, a fresh seq space (`detached`: a running subagent's, see Runtime). */
  activate(s: SessionRecord, opts: { detached?: boolean } = {}): Runtime {
    const r: Runtime = {
      ...(opts.detached ? { detached: true } : {}),
      holdLive: false,
      source: [],
      sourceSeq: 0,
      seqBySource: new Map(),
      events: [],
      seq: 0,
      revision: 1,
      hangNextSend: false,
      pendingPermissions: new Map(),
      activeTools: new Map(),
      sessionRules: [],
      started: false,
      logEpoch: `${Date.now().toString(36)}-${uuid().replaceAll("-", "").slice(0, 8)}`,
      v4Revision: 0,
      rowIds: new Map(),
      nextRowId: 1,
      heldGuides: [],
      live: newBatchState(),
    };
    this.runtimes.set(s.id, r);
    return r;
  }

  deactivate(id: string): void {
    const r = this.runtimes.get(id);
    r?.turn?.abortNow();
    this.runtimes.delete(id);
  }

  /** The envelope as the CLI maps it (keys in its order), with the current delivery kind. */
  mapEvent(e: StoredEvent, deliveryKind: DeliveryKind | undefined): Record<string, unknown> {
    const m: Record<string, unknown> = {};
    if (deliveryKind) m.deliveryKind = deliveryKind;
    m.eventId = e.eventId;
    m.payload = e.payload;
    m.seq = e.seq;
    m.sessionId = e.sessionId;
    m.timestamp = e.timestamp;
    m.traceId = e.traceId;
    if (e.turnId !== undefined) m.turnId = e.turnId;
    m.type = e.type;
    return m;
  }

  /**
   * Stores an event (ZCode's eventStore) and, once the session has a delivery
   * kind, runs it through the live batching (`onSessionEvent`,
   * server-operations.ts): what comes out takes the next protocol seq and is
   * pushed. `live:false` stores without pushing (seq-gap); `noBatch` keeps a
   * delta apart (seq-gap, flood).
   */
  emit(
    s: SessionRecord,
    type: string,
    payload: Record<string, unknown>,
    opts: { live?: boolean; turnId?: string; noFuzz?: boolean; noBatch?: boolean } = {},
  ): void {
    const r = this.runtimes.get(s.id);
    if (!r) return;
    const e: SourceEvent = { n: ++r.sourceSeq, eventId: uuid(), type, payload, timestamp: Date.now() };
    if (opts.turnId && this.pers.turnIdOnEnvelope) e.turnId = opts.turnId;
    if (opts.live === false) e.hidden = true;
    if (opts.noBatch || !this.cfg.batchDeltas) e.noBatch = true;
    r.source.push(e);
    if (r.source.length > MAX_EVENTS * 1.1) {
      for (const old of r.source.splice(0, r.source.length - MAX_EVENTS)) r.seqBySource.delete(old.n);
    }
    // Streamed text does not move the v4 revision; every structural change does (projection-state.ts).
    if (type !== "model.streaming") r.v4Revision++;
    this.v4Hook?.(s);
    // onSessionEvent: `if (!record.deliveryKind) return;` before any batching.
    if (r.deliveryKind === undefined) return;
    step(r.live, e, (out) => this.send(s, r, out, opts.noFuzz === true));
  }

  /** `assignProtocolEventSeq`: one protocol seq per source event, kept. */
  private protocolSeq(r: Runtime, e: SourceEvent): number {
    let seq = r.seqBySource.get(e.n);
    if (seq === undefined) {
      seq = ++r.seq;
      r.seqBySource.set(e.n, seq);
    }
    return seq;
  }

  /** `sendProtocolSessionEvent`: maps (taking the seq) and writes, unless held back. */
  private send(s: SessionRecord, r: Runtime, src: SourceEvent, noFuzz: boolean): void {
    const e = this.stored(s, r, src);
    r.events.push(e);
    if (r.events.length > MAX_EVENTS * 1.1) r.events.splice(0, r.events.length - MAX_EVENTS);
    const pushing = r.deliveryKind !== undefined && !r.holdLive && !src.hidden;
    if (!pushing) return;
    if (!noFuzz) this.fuzz.between(s);
    this.out.raw(`{"method":"session/event","params":${JSON.stringify(this.mapEvent(e, r.deliveryKind))}}`);
  }

  private stored(s: SessionRecord, r: Runtime, src: SourceEvent): StoredEvent {
    const e: StoredEvent = {
      eventId: src.eventId,
      payload: src.payload,
      seq: this.protocolSeq(r, src),
      sessionId: s.id,
      timestamp: src.timestamp,
      traceId: s.traceId,
      type: src.type,
    };
    if (src.turnId !== undefined) e.turnId = src.turnId;
    return e;
  }

  /**
   * `readProtocolSessionEvents`: the whole store batched again (the held tail
   * flushed, under a seq of its own if it has none yet), those with seq >
   * afterSeq (optionally only the last `limit`), mapped with the current
   * delivery kind.
   */
  eventsAfter(s: SessionRecord, afterSeq: number, limit?: number): Record<string, unknown>[] {
    const r = this.runtimes.get(s.id);
    if (!r) return [];
    const out: StoredEvent[] = [];
    rebatch(r.source, (src) => {
      const e = this.stored(s, r, src);
      if (e.seq > afterSeq) out.push(e);
    });
    const picked = limit !== undefined && limit > 0 ? out.slice(-limit) : out;
    return picked.map((e) => this.mapEvent(e, r.deliveryKind));
  }

  /** `getProtocolEventSeq`: a re-read (which may number the held tail), then the last seq. */
  eventSeq(s: SessionRecord): number {
    const r = this.runtimes.get(s.id);
    if (!r) return 0;
    this.eventsAfter(s, r.seq);
    return r.seq;
  }

  /** A `state.updated` notification (written whether or not the session is subscribed). */
  stateUpdated(s: SessionRecord, reason: string, patch: unknown): void {
    const r = this.runtimes.get(s.id);
    if (!r) return;
    // A v4-only CLI has no legacy notifications: its state reaches clients as topic frames (v4-topic.ts).
    if (this.cfg.protocol === "v4-only") return;
    this.out.frame({
      method: "state.updated",
      params: { patch, reason, revision: r.revision, scope: "session", sessionId: s.id, type: "state.updated", workspace: s.workspace },
    });
  }
}
