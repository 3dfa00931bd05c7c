import { log as rootLog } from "../log.ts";
import { readEnvelope, type RawEvent } from "./event-schemas.ts";
import { excerpt } from "./frames.ts";

// ZCode's `session/event` notifications, handed to whoever listens to the
// session they name. Every envelope goes to every listener of its session,
// whatever its type: each carries a seq the session must account for. An
// event nobody listens to is dropped (the session will read it back by seq if
// it subscribes later); a listener that throws does not stop the others.

const log = rootLog.withTag("zcode");

/** Gets every envelope of its session, whatever the type: each takes a seq the session must account for. */
export type EventListener = (e: RawEvent) => void;

export class EventRouter {
  private readonly listeners = new Map<string, Set<EventListener>>();
  private readonly unwatched = new Set<(sessionId: string) => void>();

  /** @param warnBadFrame logs an event without a usable envelope (through the connection's bad-frame budget). */
  constructor(private readonly warnBadFrame: (message: string) => void) {}

  /** Listens to one session's events; returns the unsubscribe. */
  on(sessionId: string, cb: EventListener): () => void {
    let set = this.listeners.get(sessionId);
    if (!set) this.listeners.set(sessionId, (set = new Set()));
    set.add(cb);
    return () => {
      const s = this.listeners.get(sessionId);
      if (!s) return;
      s.delete(cb);
      if (s.size > 0) return;
      this.listeners.delete(sessionId);
      // Told after the code that removed it ran on: a listener replaced at once (a session adopted again) is no end.
      queueMicrotask(() => {
        if (this.listeners.has(sessionId)) return;
        for (const f of [...this.unwatched]) f(sessionId);
      });
    };
  }

  /** `cb(sessionId)` once nobody listens to that session any more; returns the stop. */
  onUnwatched(cb: (sessionId: string) => void): () => void {
    this.unwatched.add(cb);
    return () => this.unwatched.delete(cb);
  }

  /** The params of one `session/event` notification (`line` is the raw frame, for the log). */
  route(params: unknown, line: string): void {
    const e = readEnvelope(params);
    if (typeof e === "string") {
      this.warnBadFrame(`skipped a ZCode event without a usable envelope (${e}): ${excerpt(line)}`);
      return;
    }
    this.deliver(e);
  }

  /** One envelope, read already (or made by the bridge from v4 frames), to its session's listeners. */
  deliver(e: RawEvent): void {
    const listeners = this.listeners.get(e.sessionId);
    if (!listeners || listeners.size === 0) {
      log.debug(`dropped ${e.type} #${e.seq} for session ${e.sessionId}: nobody listens`);
      return;
    }
    for (const cb of [...listeners]) {
      try {
        cb(e);
      } catch (err) {
        log.error(`an event listener for ${e.sessionId} failed: ${(err as Error).stack ?? err}`);
      }
    }
  }
}
