// Process-wide simulator state: sessions, which of them are active and
// subscribed here, the event log with seq numbers, and the running turns.
import type { SimConfig } from "./config.ts";
import { Outgoing } from "./interactions.ts";
import type { Personality } from "./personality.ts";
import type { Store } from "./store.ts";
import type { Turn } from "./turn.ts";
import type { EventEnvelope, SessionRecord } from "./types.ts";
import type { Out } from "./wire.ts";

export interface Runtime {
  /** Created or resumed in this process and not evicted. */
  active: boolean;
  subscribed: boolean;
  /** `stall`: live pushes held back until the next session/subscribe. */
  holdLive: boolean;
  turn?: Turn;
  /** `hang-request next=1`: the next session/send is never answered. */
  hangNextSend: boolean;
}

export class Sim {
  readonly runtimes = new Map<string, Runtime>();
  readonly outgoing: Outgoing;
  /** Hooks for the fuzzing mode; no-ops otherwise. */
  fuzz: {
    between(s: SessionRecord): void;
    answer(id: unknown, body: Record<string, unknown>): Record<string, unknown>;
  } = { between() {}, answer: (_id, body) => body };
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

  rt(id: string): Runtime {
    let r = this.runtimes.get(id);
    if (!r) {
      r = { active: false, subscribed: false, holdLive: false, hangNextSend: false };
      this.runtimes.set(id, r);
    }
    return r;
  }

  /** Stores an event (seq+1) and pushes it when the session is subscribed. */
  emit(s: SessionRecord, type: string, payload: Record<string, unknown>, opts: { live?: boolean; turnId?: string } = {}): EventEnvelope {
    const env: EventEnvelope = { sessionId: s.id, seq: ++s.seq, type, payload };
    if (opts.turnId && this.pers.turnIdOnEnvelope) env.turnId = opts.turnId;
    s.events.push(env);
    this.store.trimEvents(s);
    // Serialized once for both the durable log and the wire.
    const json = JSON.stringify(env);
    this.store.appendEvent(s.id, json);
    const r = this.rt(s.id);
    if (r.subscribed && !r.holdLive && opts.live !== false) {
      this.fuzz.between(s);
      this.out.raw(`{"method":"session/event","params":${json}}`);
    }
    return env;
  }

  eventsAfter(s: SessionRecord, afterSeq: number): EventEnvelope[] {
    // Events are in seq order: binary search the first one after afterSeq.
    const ev = s.events;
    let lo = 0;
    let hi = ev.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ev[mid]!.seq <= afterSeq) lo = mid + 1;
      else hi = mid;
    }
    return ev.slice(lo);
  }
}
