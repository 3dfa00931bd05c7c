import { log } from "../log.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import { parseEvent, readEnvelope, type RawEvent, type ZCodeEvent } from "../zcode/event-schemas.ts";
import { HeldTail } from "./held-tail.ts";
import { SeqOrder } from "./seq-order.ts";

const logger = log.withTag("intake");

/** Subscribes in one recovery before a hole the answers never covered is taken as gone. */
const MAX_RECOVER_ATTEMPTS = 3;

/** An envelope in seq order; read into an event only once it is its turn (types we do not use still take their seq). */
interface Sequenced {
  seq: number;
  raw: RawEvent;
  /** The last event of a re-read: a delta there is a batch ZCode's live stream still holds (held-tail.ts). */
  rereadTail?: boolean;
}

/** What the intake needs of its session. */
export interface IntakeOwner {
  readonly id: string;
  readonly isClosed: boolean;
  /** Bumped on every create/resume: a subscription belongs to one materialization. */
  readonly activation: number;
  /** Runs a ZCode call on the session, resuming it first if needed. */
  withActive<T>(fn: () => Promise<T>): Promise<T>;
  /** An event, in seq order, once. */
  dispatch(e: ZCodeEvent): void;
}

/**
 * Where a session's events enter: live `session/event` envelopes and the
 * `events` of a subscription, in any order and any number of times. They
 * leave once each, in seq order. Every envelope takes its seq, whether the
 * bridge reads its type or not, so an unused event is never mistaken for a
 * gap; a real hole (an event that was not pushed) is fetched by
 * resubscribing with afterSeq, and skipped if ZCode no longer has it.
 */
export class EventIntake {
  private readonly order = new SeqOrder<Sequenced>();
  private readonly held = new HeldTail();
  /** Whether `order.last` is meaningful (false: subscribe without afterSeq first). */
  private seqKnown = false;
  /** The subscription did not say the current seq: take it from the first event. */
  private seqFromFirstEvent = false;
  private subscribedActivation = -1;
  private recovering = false;
  /** Who waits for the events up to a seq (reached). */
  private readonly waiters = new Set<{ seq: number; done: (reached: boolean) => void }>();

  constructor(
    private readonly owner: IntakeOwner,
    private readonly api: ZCodeApi,
  ) {}

  /** The last seq applied. */
  get lastSeq(): number {
    return this.order.last;
  }

  /** Events wait behind a missing seq. */
  get hasGap(): boolean {
    return this.order.hasGap;
  }

  /** The session will be materialized anew (new child, eviction): ZCode numbers its events from scratch. */
  reset(): void {
    this.seqKnown = false;
    this.seqFromFirstEvent = false;
    this.order.clear();
    this.held.clear();
    // Seqs of the old numbering will never come: nobody waits for them.
    for (const w of [...this.waiters]) w.done(false);
  }

  /**
   * Resolves true once every event up to `seq` has been applied (or skipped
   * as gone), false if the numbering starts anew or `timeoutMs` passes first.
   * A read can be ahead of the events: ZCode numbers a held batch when it
   * answers a read and sends it later or never, and events may wait behind
   * a hole being filled; what is missing is fetched as for a hole. Who
   * answers the editor on the strength of a read waits here, so that none of
   * those events lands in the next prompt's reply.
   */
  reached(seq: number, timeoutMs: number): Promise<boolean> {
    if (!this.seqKnown || this.seqFromFirstEvent || this.order.last >= seq || this.owner.isClosed) return Promise.resolve(true);
    return new Promise((resolve) => {
      const w = {
        seq,
        done: (reached: boolean) => {
          clearTimeout(timer);
          this.waiters.delete(w);
          resolve(reached);
        },
      };
      const timer = setTimeout(() => w.done(false), timeoutMs);
      this.waiters.add(w);
      // Behind with no later event to show a hole: what ZCode numbered may never come live (a read numbers the
      // stream's held tail, delta-batch.ts), so it is fetched as a hole is.
      void this.recover();
    });
  }

  private settleWaiters(): void {
    for (const w of [...this.waiters]) if (this.order.last >= w.seq) w.done(true);
  }

  /** A live envelope. */
  accept(raw: RawEvent): void {
    this.held.live(raw.seq);
    this.take({ seq: raw.seq, raw });
  }

  private take(item: Sequenced): void {
    if (this.owner.isClosed) return;
    if (this.seqFromFirstEvent) {
      this.seqFromFirstEvent = false;
      this.order.reset(item.seq - 1);
    }
    this.dispatchAll(this.order.accept(item));
    if (this.order.hasGap) void this.recover();
  }

  /**
   * session/subscribe with afterSeq = last seen (or, the first time in this
   * materialization, without it to learn the current seq). A subscription
   * lasts as long as the materialization: ZCode keeps one stream per session
   * and subscribing again replaces it.
   */
  async ensureSubscribed(): Promise<void> {
    if (this.subscribedActivation === this.owner.activation && this.seqKnown) return;
    await this.owner.withActive(async () => {
      const known = this.seqKnown;
      const r = await this.api.subscribe({ sessionId: this.owner.id, ...(known ? { afterSeq: this.order.last } : {}) });
      this.subscribedActivation = this.owner.activation;
      if (known) {
        this.seqKnown = true;
        this.feed(r.events);
        return;
      }
      this.seqKnown = true;
      if (r.eventSeq === undefined) {
        // No current seq given: the first event seen sets the baseline
        // (never "everything after 0", which would replay old turns).
        this.seqFromFirstEvent = true;
        return;
      }
      // Events of this materialization may have arrived before the answer:
      // never go back behind them.
      this.dispatchAll(this.order.reset(Math.max(this.order.last, r.eventSeq)));
    });
  }

  /**
   * A hole in seq or a silent stall: fetch what we missed with afterSeq. A
   * hole past what the answer covered opened while it was on its way (ZCode
   * stored the event after answering): asked for again, a few times, before
   * it is skipped as gone.
   */
  async recover(): Promise<void> {
    if (this.recovering || this.owner.isClosed || !this.seqKnown) return;
    this.recovering = true;
    try {
      for (let attempt = 1; ; attempt++) {
        const afterSeq = this.order.last;
        const r = await this.owner.withActive(() => this.api.subscribe({ sessionId: this.owner.id, afterSeq }));
        this.subscribedActivation = this.owner.activation;
        const covered = this.feed(r.events, Math.max(afterSeq, r.eventSeq ?? 0));
        if (!this.order.hasGap || this.owner.isClosed) return;
        if (this.order.last + 1 > covered && attempt < MAX_RECOVER_ATTEMPTS) continue;
        logger.warn("session", this.owner.id, "events after seq", this.order.last, "are gone; skipping the hole");
        this.dispatchAll(this.order.skipGap());
        return;
      }
    } catch (err) {
      logger.debug("resubscribe failed:", err);
    } finally {
      this.recovering = false;
    }
  }

  /** The `events` of a subscribe answer: envelopes like live ones. Returns the highest seq the answer knew of. */
  private feed(events: readonly unknown[] | undefined, known = 0): number {
    const list = events ?? [];
    list.forEach((e, i) => {
      const raw = readEnvelope(e);
      if (typeof raw === "string") logger.debug("skipping a subscribed event without a usable envelope:", raw);
      else if (raw.sessionId === this.owner.id) {
        known = Math.max(known, raw.seq);
        this.take({ seq: raw.seq, raw, rereadTail: i === list.length - 1 });
      }
    });
    return known;
  }

  private dispatchAll(items: readonly Sequenced[]): void {
    try {
      this.dispatchEach(items);
    } finally {
      if (this.waiters.size) this.settleWaiters();
    }
  }

  private dispatchEach(items: readonly Sequenced[]): void {
    for (const it of items) {
      const raw = this.held.trim(it.raw);
      if (it.rereadTail) this.held.reread(it.raw);
      if (!raw) continue;
      const parsed = parseEvent(raw);
      if (!parsed.ok) {
        // Its seq is consumed all the same: an event we do not use is no gap.
        if (!parsed.unknownType) logger.debug("skipping", it.raw.type, "event", it.seq, "that fails its schema:", parsed.issue);
        continue;
      }
      try {
        this.owner.dispatch(parsed.event);
      } catch (err) {
        // One odd event must not take the session down.
        logger.warn("failed to apply event", it.raw.type, "seq", it.seq, err);
      }
    }
  }
}
