import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { UpdateSink } from "../acp/update-sink.ts";
import { log } from "../log.ts";
import type { ZCodeApi, ZCodeMcpServer } from "../zcode/api.ts";
import { parseEvent, readEnvelope, type RawEvent, type ZCodeEvent } from "../zcode/event-schemas.ts";
import type { Settings } from "../zcode/schemas.ts";
import { isNotActive } from "./errors.ts";
import { applyEvent, emitUsage, type EventContext } from "./events.ts";
import { optionUpdates, optionsFromSettings } from "./options.ts";
import { SessionRegistry, SessionState, type Sequenced } from "./sessions.ts";
import { ToolCallTracker } from "./tool-calls.ts";

const logger = log.withTag("core");

/** Timings of the turn machinery; short values make tests fast. */
export interface CoreTimings {
  /** Silence while a turn runs before we resubscribe with afterSeq. */
  stallMs: number;
  /** How long a prompt waits for a busy ZCode session (1308) to become idle. */
  busyWaitMs: number;
  /** session/read polling interval while waiting for idle. */
  idlePollMs: number;
  /** After session/cancel: how long to wait for ZCode's own `cancelled` before answering anyway. */
  cancelGraceMs: number;
  /** Transient turn.failed: retries and the base of the exponential backoff. */
  retryTries: number;
  retryBaseMs: number;
  /** Upper bound for the cheap session/read done at the end of a turn. */
  endReadMs: number;
}

export const DEFAULT_TIMINGS: CoreTimings = {
  stallMs: 2000,
  busyWaitMs: 30_000,
  idlePollMs: 100,
  cancelGraceMs: 500,
  retryTries: 3,
  retryBaseMs: 250,
  endReadMs: 2000,
};

export interface CoreOptions {
  timings: CoreTimings;
  /** Default mode for new sessions (--mode). */
  mode?: string;
  /** The client asked for Zed's terminal extension. */
  terminalOutput(): boolean;
  /** Withdraws a session's pending interactions (set once the InteractionRouter exists). */
  cancelInteractions?(sessionId: string): void;
  /** The session was resumed in a (possibly new) child behind the editor's back. */
  onResumed?(s: SessionState): void;
}

/**
 * The session-level machinery the ACP handlers share: registry, activation
 * (resume after a new child or an eviction), event intake in seq order with
 * gap recovery, and the small reads done around turns.
 */
export class BridgeCore {
  readonly registry = new SessionRegistry();
  private readonly unsubscribers = new Map<string, () => void>();
  private readonly recovering = new Set<string>();

  constructor(
    readonly api: ZCodeApi,
    readonly sink: UpdateSink,
    readonly opts: CoreOptions,
  ) {
    api.conn.onExit((info) => {
      for (const s of this.registry.all()) {
        if (s.generation === info.generation) s.markInactive();
      }
    });
  }

  get timings(): CoreTimings {
    return this.opts.timings;
  }

  emit(s: SessionState, u: SessionUpdate): void {
    if (!s.closed) this.sink.push(s.id, u);
  }

  newTracker(cwd: string): ToolCallTracker {
    return new ToolCallTracker({ cwd, terminalOutput: this.opts.terminalOutput() });
  }

  /** Registers (or replaces) the session and starts routing its events. */
  register(
    id: string,
    cwd: string,
    settings: Settings | undefined,
    generation: number,
    opts: { title?: string | null; mcpServers?: ZCodeMcpServer[] } = {},
  ): SessionState {
    const existing = this.registry.get(id);
    if (existing && existing.cwd === cwd && !existing.closed) {
      existing.generation = generation;
      existing.activation++;
      if (settings) existing.options = optionsFromSettings(settings, existing.options);
      if (opts.mcpServers) existing.mcpServers = opts.mcpServers;
      return existing;
    }
    if (existing) this.forget(id);
    const s = new SessionState(id, cwd, this.newTracker(cwd));
    s.generation = generation;
    s.activation++;
    s.options = optionsFromSettings(settings);
    s.title = opts.title || undefined;
    s.mcpServers = opts.mcpServers;
    this.registry.add(s);
    this.unsubscribers.set(
      id,
      this.api.conn.onEvent(id, (raw) => this.intake(s, raw)),
    );
    return s;
  }

  forget(id: string): void {
    // A turn cut off from its events would otherwise wait forever.
    this.registry.get(id)?.turn?.cancel();
    this.unsubscribers.get(id)?.();
    this.unsubscribers.delete(id);
    this.registry.delete(id);
  }

  /** Makes sure the current child knows the session (resume after a restart or eviction). */
  async ensureActive(s: SessionState): Promise<void> {
    const info = await this.api.conn.start();
    if (s.generation === info.generation) return;
    // Concurrent callers share one resume.
    s.resuming ??= (async () => {
      try {
        const r = await this.api.resume({ sessionId: s.id, workspace: s.cwd, mcpServers: s.mcpServers });
        s.generation = info.generation;
        s.activation++;
        if (r.settings) this.applySettings(s, r.settings);
        await this.reapplyModel(s, r.settings);
        logger.debug("resumed", s.id, "in child generation", info.generation);
        this.opts.onResumed?.(s);
      } finally {
        s.resuming = undefined;
      }
    })();
    await s.resuming;
  }

  /** The user's model choice again, when the resumed session came back with another. */
  private async reapplyModel(s: SessionState, settings: Settings | undefined): Promise<void> {
    const want = s.modelChoice;
    const cur = settings?.model?.current;
    if (!want || (cur && cur.providerId === want.providerId && cur.modelId === want.modelId)) return;
    try {
      const r = await this.api.setModel({ sessionId: s.id, model: want });
      if (r.settings) this.applySettings(s, r.settings);
      logger.info(`session ${s.id} came back with another model; ${want.providerId}/${want.modelId} chosen again`);
    } catch (err) {
      logger.warn(`could not choose ${want.providerId}/${want.modelId} again for session ${s.id}:`, err);
    }
  }

  /** Runs a session call; an eviction (-32004) resumes and retries once, silently. */
  async withActive<T>(s: SessionState, fn: () => Promise<T>): Promise<T> {
    await this.ensureActive(s);
    try {
      return await fn();
    } catch (err) {
      if (!isNotActive(err)) throw err;
      logger.info("session", s.id, "was evicted by ZCode; resuming");
      s.markInactive();
      await this.ensureActive(s);
      return fn();
    }
  }

  /**
   * session/subscribe with afterSeq = last seen (or, the first time with this
   * child, without it to learn the current seq). Events returned are applied.
   * A subscription lasts as long as the child (ZCode keeps one stream per
   * session; subscribing again replaces it).
   */
  async subscribe(s: SessionState): Promise<void> {
    await this.withActive(s, async () => {
      const known = s.seqKnown;
      const r = await this.api.subscribe({ sessionId: s.id, ...(known ? { afterSeq: s.order.last } : {}) });
      s.subscribedActivation = s.activation;
      if (!known) {
        s.seqKnown = true;
        if (r.eventSeq === undefined) {
          // No current seq given: the first event seen sets the baseline
          // (never "everything after 0", which would replay old turns).
          s.seqFromFirstEvent = true;
        } else {
          // Events of this materialization may have arrived before the answer (the
          // order was cleared when the last one ended): never go back behind them.
          this.dispatchAll(s, s.order.reset(Math.max(s.order.last, r.eventSeq)));
        }
      } else {
        this.feed(s, r.events);
      }
    });
  }

  /** Subscribes again if the session was resumed since the last subscription. */
  async ensureSubscribed(s: SessionState): Promise<void> {
    if (s.subscribedActivation !== s.activation || !s.seqKnown) await this.subscribe(s);
  }

  /** A hole in seq or a silent stall: fetch what we missed with afterSeq. */
  async recover(s: SessionState): Promise<void> {
    if (this.recovering.has(s.id) || s.closed || !s.seqKnown) return;
    this.recovering.add(s.id);
    try {
      const r = await this.withActive(s, () => this.api.subscribe({ sessionId: s.id, afterSeq: s.order.last }));
      s.subscribedActivation = s.activation;
      this.feed(s, r.events);
      if (s.order.hasGap) {
        logger.warn("session", s.id, "events after seq", s.order.last, "are gone; skipping the hole");
        this.dispatchAll(s, s.order.skipGap());
      }
    } catch (err) {
      logger.debug("resubscribe failed:", err);
    } finally {
      this.recovering.delete(s.id);
    }
  }

  /**
   * Polls session/read until ZCode reports the session idle, the budget is
   * spent, or the waiter gave up (`abandoned`: its turn ended meanwhile, and
   * polling on would start a new child for nobody).
   */
  async waitIdle(s: SessionState, budgetMs: number, abandoned: () => boolean = () => false): Promise<boolean> {
    const end = Date.now() + budgetMs;
    // Quick at first (a cancelled turn ends in a moment), then gentler (a compaction takes minutes).
    let pollMs = this.timings.idlePollMs;
    for (;;) {
      if (abandoned()) return false;
      try {
        const r = await this.withActive(s, () => this.api.read(s.id));
        if (r.projection?.status !== "running") return true;
      } catch (err) {
        logger.debug("session/read while waiting for idle failed:", err);
      }
      if (Date.now() >= end) return false;
      await Bun.sleep(Math.min(pollMs, Math.max(1, end - Date.now())));
      pollMs = Math.min(pollMs * 1.5, 1000);
    }
  }

  /**
   * After a turn: one session/read tells whether ZCode changed the mode or the
   * title behind our back, and how much context is in use now.
   */
  async refreshAfterTurn(s: SessionState): Promise<void> {
    const read = this.withActive(s, () => this.api.read(s.id));
    const r = await Promise.race([read, Bun.sleep(this.timings.endReadMs).then(() => undefined)]).catch(
      (err) => {
        logger.debug("session/read after turn failed:", err);
        return undefined;
      },
    );
    if (!r) return;
    if (r.settings) this.applySettings(s, r.settings);
    const title = r.session?.title;
    if (title && title !== s.title) {
      s.title = title;
      this.emit(s, { sessionUpdate: "session_info_update", title });
    }
    emitUsage(this.ctx(s), r.projection?.contextUsed, r.projection?.contextWindow);
  }

  /** New settings from ZCode: remember them and tell the editor what changed. */
  applySettings(s: SessionState, settings: Settings): void {
    const next = optionsFromSettings(settings, s.options);
    for (const u of optionUpdates(s.options, next)) this.emit(s, u);
    s.options = next;
  }

  ctx(s: SessionState): EventContext {
    return { session: s, emit: (u) => this.emit(s, u) };
  }

  /** An event that is not (or no longer) part of one of our prompt turns. */
  applyIdle(s: SessionState, e: ZCodeEvent): void {
    if (s.dropStale) return;
    applyEvent(this.ctx(s), e);
  }

  /** The `events` of a subscribe answer: envelopes like live ones. */
  private feed(s: SessionState, events: readonly unknown[] | undefined): void {
    for (const e of events ?? []) {
      const raw = readEnvelope(e);
      if (typeof raw === "string") logger.debug("skipping a subscribed event without a usable envelope:", raw);
      else if (raw.sessionId === s.id) this.intake(s, raw);
    }
  }

  /** Every envelope of the session enters here, live or fetched, in any order, any number of times. */
  private intake(s: SessionState, raw: RawEvent): void {
    if (s.closed) return;
    if (s.seqFromFirstEvent) {
      s.seqFromFirstEvent = false;
      s.order.reset(raw.seq - 1);
    }
    this.dispatchAll(s, s.order.accept({ seq: raw.seq, raw }));
    if (s.order.hasGap) void this.recover(s);
  }

  private dispatchAll(s: SessionState, items: readonly Sequenced[]): void {
    for (const it of items) {
      const parsed = parseEvent(it.raw);
      if (!parsed.ok) {
        // Its seq is consumed all the same: an event we do not use is no gap.
        if (!parsed.unknownType) logger.debug("skipping", it.raw.type, "event", it.seq, "that fails its schema:", parsed.issue);
        continue;
      }
      try {
        if (s.turn) s.turn.apply(parsed.event);
        else this.applyIdle(s, parsed.event);
      } catch (err) {
        // One odd event must not take the session down.
        logger.warn("failed to apply event", it.raw.type, "seq", it.seq, err);
      }
    }
  }
}
