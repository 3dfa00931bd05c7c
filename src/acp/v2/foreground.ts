import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { toRequestError } from "../../translate/errors.ts";

// ACP v2 reports a session's foreground work as state snapshots instead of
// answering session/prompt when the turn ends: `running` when work starts,
// `idle` (with the stop reason) when none is left. The session layer runs a
// turn per prompt and resolves with its stop reason; this counts the turns
// of each session that have not ended and says `running` at the first and
// `idle` after the last.

type Send = (sessionId: string, update: v2.SessionUpdate) => Promise<void>;

/** How a turn ended: the stop reason (and usage) of its v1 prompt response, or the error it failed with. */
export type TurnOutcome = { stopReason: string; usage?: unknown } | { error: unknown };

interface Active {
  count: number;
  ended: Promise<void>;
  end: () => void;
}

export class Foreground {
  private readonly active = new Map<string, Active>();
  /** Per session: the editor's answers the running work waits for (permissions, forms). */
  private readonly asking = new Map<string, number>();

  constructor(private readonly send: Send) {}

  running(sessionId: string): boolean {
    return this.active.has(sessionId);
  }

  /** The state a resume reports for the session now (no stop reason: it ends nothing). */
  snapshot(sessionId: string): v2.SessionUpdate {
    const state = !this.running(sessionId) ? "idle" : this.asking.has(sessionId) ? "requires_action" : "running";
    return { sessionUpdate: "state_update", state } as v2.SessionUpdate;
  }

  /**
   * The running work asks the editor (`ask`) and waits: `requires_action`
   * at the first question, `running` again once the last is answered, if
   * the work still runs (a cancelled turn has said `idle` already).
   */
  async waitingFor<T>(sessionId: string, ask: () => Promise<T>): Promise<T> {
    if (!this.running(sessionId)) return ask();
    const n = (this.asking.get(sessionId) ?? 0) + 1;
    this.asking.set(sessionId, n);
    if (n === 1) await this.send(sessionId, { sessionUpdate: "state_update", state: "requires_action" } as v2.SessionUpdate);
    try {
      return await ask();
    } finally {
      const left = (this.asking.get(sessionId) ?? 1) - 1;
      if (left > 0) this.asking.set(sessionId, left);
      else {
        this.asking.delete(sessionId);
        if (this.running(sessionId))
          await this.send(sessionId, { sessionUpdate: "state_update", state: "running" } as v2.SessionUpdate).catch(() => {});
      }
    }
  }

  /** A turn starts: `running` when it is the session's first. */
  async begin(sessionId: string): Promise<void> {
    const a = this.active.get(sessionId);
    if (a) {
      a.count++;
      return;
    }
    let end!: () => void;
    const ended = new Promise<void>((r) => (end = r));
    this.active.set(sessionId, { count: 1, ended, end });
    await this.send(sessionId, { sessionUpdate: "state_update", state: "running" } as v2.SessionUpdate);
  }

  /** A turn ended with `outcome` (its stop reason, or the error it failed with): `idle` after the last. */
  async finish(sessionId: string, outcome: TurnOutcome): Promise<void> {
    const a = this.active.get(sessionId);
    if (!a) return;
    if (--a.count > 0) return;
    this.active.delete(sessionId);
    this.asking.delete(sessionId);
    try {
      await this.send(sessionId, idleUpdate(outcome, sessionId));
    } finally {
      a.end();
    }
  }

  /** Resolves once the session has no foreground work left (its idle update sent). */
  ended(sessionId: string): Promise<void> {
    return this.active.get(sessionId)?.ended ?? Promise.resolve();
  }
}

export function idleUpdate(outcome: TurnOutcome, sessionId?: string): v2.SessionUpdate {
  if ("stopReason" in outcome) {
    const usage = outcome.usage ? { usage: outcome.usage } : {};
    return { sessionUpdate: "state_update", state: "idle", stopReason: outcome.stopReason, ...usage } as v2.SessionUpdate;
  }
  const e = toRequestError(outcome.error, { sessionId });
  return {
    sessionUpdate: "state_update",
    state: "idle",
    stopReason: "error",
    error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) },
  } as v2.SessionUpdate;
}
