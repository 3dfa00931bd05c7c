import { RequestError, type PromptResponse, type StopReason, type Usage } from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import type { TurnCompleted, TurnFailed, ZCodeEvent } from "../zcode/schemas.ts";
import type { BridgeCore } from "./core.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import { isBusy, toRequestError } from "./errors.ts";
import { applyEvent, type EventContext, type TurnHooks } from "./events.ts";
import type { EventConsumer, SessionState } from "./sessions.ts";

const logger = log.withTag("turn");

/** ZCode resultType → ACP stopReason. Anything else ends the turn normally. */
const STOP_REASONS: Record<string, StopReason> = {
  success: "end_turn",
  max_tokens: "max_tokens",
  max_turn_requests: "max_turn_requests",
  refusal: "refusal",
  cancelled: "cancelled",
};

/** turn.failed causes worth another try. */
const TRANSIENT = new Set(["rate_limit", "timeout", "network", "overloaded", "econnreset", "etimedout"]);

type Phase = "preparing" | "sending" | "running" | "ended";

/**
 * One prompt turn: subscribe → send (waiting out 1308) → events in seq order
 * → response. Cancel, a silent stall, transient failures and the child's
 * death each move it along explicit paths; whatever happens, it answers once
 * and nothing of it reaches the editor after that answer.
 */
export class Turn implements EventConsumer {
  private phase: Phase = "preparing";
  private started = false;
  private sendIssued = false;
  /** Leftovers of a cancelled turn may still arrive before ours starts. */
  private staleExpected = false;
  private cancelled = false;
  private attempts = 0;
  /** One busy budget per turn, however often ZCode says 1308. */
  private busyDeadline: number | undefined;
  /** A todo tool ran without telling the new list: read it at the end. */
  private todosFromRead = false;
  /** Mid-turn settings reads; a normal end waits for them so nothing trails the answer. */
  private readonly pendingReads: Promise<void>[] = [];
  private stallTimer: ReturnType<typeof setTimeout> | undefined;
  private lastEventAt = 0;
  /** Stalls in a row after which ZCode said the session is idle. */
  private idleStalls = 0;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private settle!: { resolve(r: PromptResponse): void; reject(e: unknown): void };
  private readonly done: Promise<PromptResponse>;
  private readonly hooks: TurnHooks;
  private readonly ctx: EventContext;

  constructor(
    private readonly core: BridgeCore,
    private readonly s: SessionState,
    private readonly text: string,
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.hooks = {
      started: () => {
        this.started = true;
        this.s.dropStale = false;
      },
      completed: (p) => this.onCompleted(p),
      failed: (p) => this.onFailed(p),
      todosChanged: (planSent) => {
        this.todosFromRead = !planSent;
      },
      modeMayChange: () => {
        this.pendingReads.push(this.core.refreshSettings(this.s, () => this.phase !== "ended"));
      },
    };
    this.ctx = { session: s, emit: (u) => core.emit(s, u), turn: this.hooks };
  }

  /** Resolves when the turn has answered, however it ended. */
  get settled(): Promise<void> {
    return this.done.then(
      () => undefined,
      () => undefined,
    );
  }

  get isCancelled(): boolean {
    return this.cancelled;
  }

  get running(): boolean {
    return this.phase !== "ended";
  }

  /** Cancelled or answered: nothing more may reach ZCode for this turn. */
  private get over(): boolean {
    return this.cancelled || this.phase === "ended";
  }

  /**
   * Starts the turn and resolves with its answer. The answer does not wait
   * for a hung request: cancel or the child's death settle it regardless.
   */
  run(): Promise<PromptResponse> {
    this.s.turn = this;
    void (async () => {
      try {
        await this.prepare();
        if (!this.over) await this.send();
      } catch (err) {
        await this.fail(err);
      }
    })();
    return this.done;
  }

  apply(e: ZCodeEvent): void {
    if (this.phase === "ended") return this.core.applyIdle(this.s, e);
    this.touch();
    this.idleStalls = 0;
    const ours = this.sendIssued && (this.started || e.type === "turn.started" || !this.staleExpected);
    if (!ours) return this.core.applyIdle(this.s, e);
    applyEvent(this.ctx, e);
  }

  /** session/cancel, `$/cancel_request` on the prompt, or session/close. */
  cancel(): void {
    if (this.phase === "ended" || this.cancelled) return;
    this.cancelled = true;
    this.s.dropStale = true;
    this.core.opts.cancelInteractions?.(this.s.id);
    if (!this.sendIssued) {
      // Nothing reached ZCode yet (still waiting for idle or subscribing): done.
      void this.finish("cancelled");
      return;
    }
    try {
      this.core.api.stop(this.s.id);
    } catch (err) {
      logger.debug("session/stop failed:", err);
    }
    // ZCode may keep streaming or ignore the stop: answer anyway, and have
    // the next prompt wait until ZCode is idle.
    this.graceTimer = setTimeout(() => {
      this.s.needsIdleWait = true;
      void this.finish("cancelled");
    }, this.core.timings.cancelGraceMs);
  }

  /** The child died under this turn. */
  abort(err: unknown): void {
    void this.fail(err);
  }

  private async prepare(): Promise<void> {
    const t = this.core.timings;
    if (this.s.needsIdleWait) {
      await this.core.waitIdle(this.s, t.busyWaitMs, () => this.over);
      if (this.over) return;
      this.s.needsIdleWait = false;
    }
    // Subscribe before sending, or a short turn's completion can be missed.
    await this.core.subscribe(this.s);
  }

  private async send(): Promise<void> {
    const deadline = (this.busyDeadline ??= Date.now() + this.core.timings.busyWaitMs);
    for (;;) {
      // The child may have died (or the editor cancelled) while we waited.
      if (this.over) return;
      this.phase = "sending";
      this.staleExpected = this.s.dropStale;
      this.started = false;
      try {
        await this.core.withActive(this.s, async () => {
          await this.core.ensureSubscribed(this.s);
          // A cancel while subscribing ended the turn already: never send it.
          if (this.over) return;
          this.sendIssued = true;
          await this.core.api.send({ sessionId: this.s.id, content: this.text });
        });
        if (this.phase === "sending") this.phase = "running";
        this.touch();
        return;
      } catch (err) {
        if (!isBusy(err)) throw err;
        this.sendIssued = false;
        const left = deadline - Date.now();
        if (left <= 0) throw err;
        logger.debug("session busy (1308); waiting for idle");
        await this.core.waitIdle(this.s, left, () => this.over);
      }
    }
  }

  private onCompleted(p: TurnCompleted): void {
    if (this.phase === "ended") return;
    const stop = this.cancelled ? "cancelled" : (STOP_REASONS[p.resultType ?? "success"] ?? "end_turn");
    void this.finish(stop, toUsage(p.usage));
  }

  private onFailed(p: TurnFailed): void {
    if (this.phase === "ended") return;
    if (this.cancelled) return void this.finish("cancelled");
    const cause = String(p.error?.cause?.code ?? "").toLowerCase();
    const message = p.error?.message || "the turn failed";
    const t = this.core.timings;
    if (Number(p.error?.code) === ZCODE_ERR.busy && this.retryWhenIdle()) return;
    if (TRANSIENT.has(cause) && this.attempts < t.retryTries) {
      this.attempts++;
      const delay = t.retryBaseMs * 2 ** (this.attempts - 1);
      this.waitToResend();
      this.core.emit(this.s, {
        sessionUpdate: "agent_message_chunk",
        messageId: crypto.randomUUID(),
        content: {
          type: "text",
          text: `\n\n_ZCode: ${message} (${cause}); retrying in ${(delay / 1000).toFixed(1)} s (attempt ${this.attempts + 1} of ${t.retryTries + 1})…_\n\n`,
        },
      });
      setTimeout(() => {
        this.send().catch((err) => this.fail(err));
      }, delay);
      return;
    }
    const code = p.error?.code !== undefined ? ` (code ${p.error.code})` : "";
    void this.fail(new RequestError(-32603, `ZCode: ${message}${code}`, { zcodeError: p.error }));
  }

  /**
   * The turn itself failed with 1308 (another turn was still running): wait
   * for idle and send again, within the same budget as a 1308 on send.
   */
  private retryWhenIdle(): boolean {
    const left = (this.busyDeadline ?? 0) - Date.now();
    if (left <= 0) return false;
    this.waitToResend();
    void (async () => {
      await this.core.waitIdle(this.s, left, () => this.over);
      await this.send();
    })().catch((err) => this.fail(err));
    return true;
  }

  /** ZCode's turn ended without ours: nothing runs there until we send again (a cancel now ends at once). */
  private waitToResend(): void {
    this.clearStall();
    this.phase = "sending";
    this.sendIssued = false;
  }

  /**
   * Notes activity. One timer per stall period, not per event: a flood of
   * events costs a Date.now() each, and the timer re-arms for what is left.
   */
  private touch(): void {
    if (this.phase !== "running") return;
    this.lastEventAt = Date.now();
    if (!this.stallTimer) this.armStall(this.core.timings.stallMs);
  }

  private armStall(ms: number): void {
    this.stallTimer = setTimeout(() => {
      this.stallTimer = undefined;
      if (this.phase !== "running") return;
      const quiet = Date.now() - this.lastEventAt;
      const stallMs = this.core.timings.stallMs;
      if (quiet < stallMs) return this.armStall(stallMs - quiet);
      logger.debug("no event for", quiet, "ms; resubscribing", this.s.id);
      void this.core
        .recover(this.s)
        .then(() => this.checkIdle())
        .finally(() => this.touch());
    }, ms);
  }

  /**
   * Silence even after resubscribing, and ZCode says the session is idle:
   * the turn's end was lost on the way. Seen at two stalls in a row (with no
   * event between), the turn ends rather than waiting forever.
   */
  private async checkIdle(): Promise<void> {
    const quietSince = this.lastEventAt;
    const r = await this.core.withActive(this.s, () => this.core.api.read(this.s.id)).catch(() => undefined);
    // An event meanwhile (events also reset the count) or the end itself: not lost.
    if (this.phase !== "running" || this.lastEventAt !== quietSince) return;
    const status = r?.projection?.status;
    // Before our turn.started, idle may only mean "not begun yet".
    this.idleStalls = this.started && status !== undefined && status !== "running" ? this.idleStalls + 1 : 0;
    if (this.idleStalls < 2) return;
    logger.warn(`ZCode is idle but the end of the turn never arrived (session ${this.s.id}); ending the turn`);
    void this.finish("end_turn");
  }

  private clearStall(): void {
    if (this.stallTimer) clearTimeout(this.stallTimer);
    this.stallTimer = undefined;
  }

  private end(): boolean {
    if (this.phase === "ended") return false;
    this.phase = "ended";
    this.clearStall();
    if (this.graceTimer) clearTimeout(this.graceTimer);
    if (this.s.turn === this) this.s.turn = undefined;
    return true;
  }

  private closeOpenTools(reason: string): void {
    for (const u of this.s.tracker.failOpen(reason)) this.core.emit(this.s, u);
  }

  private async finish(stop: StopReason, usage?: Usage): Promise<void> {
    if (!this.end()) return;
    this.closeOpenTools(stop === "cancelled" ? "Cancelled" : "The turn ended before this tool finished");
    if (stop !== "cancelled") {
      await Promise.allSettled(this.pendingReads);
      await this.core.refreshAfterTurn(this.s, { todosFromRead: this.todosFromRead });
    }
    await this.core.sink.flush(this.s.id);
    this.settle.resolve(usage ? { stopReason: stop, usage } : { stopReason: stop });
  }

  private async fail(err: unknown): Promise<void> {
    // After a cancel the editor expects `cancelled`, whatever broke meanwhile.
    if (this.cancelled) return this.finish("cancelled");
    if (!this.end()) return;
    // What ZCode still asked of this turn can no longer matter: withdraw it from the editor.
    this.core.opts.cancelInteractions?.(this.s.id);
    this.closeOpenTools("The turn failed");
    await this.core.sink.flush(this.s.id);
    this.settle.reject(toRequestError(err, { sessionId: this.s.id }));
  }
}

function toUsage(u: TurnCompleted["usage"]): Usage | undefined {
  if (!u) return undefined;
  const inputTokens = u.inputTokens ?? 0;
  const outputTokens = u.outputTokens ?? 0;
  const totalTokens = u.totalTokens ?? inputTokens + outputTokens;
  // ACP wants unsigned integers: nonsensical counts leave usage out.
  const ok = [inputTokens, outputTokens, totalTokens].every((n) => Number.isSafeInteger(n) && n >= 0);
  return ok ? { inputTokens, outputTokens, totalTokens } : undefined;
}
