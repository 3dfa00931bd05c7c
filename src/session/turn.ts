import { type PromptResponse, type StopReason, type Usage } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import { redactLine } from "../redact.ts";
import type { ZCodeAttachment } from "../zcode/api.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import type { TurnCompleted, TurnFailed, TurnStarted, ZCodeEvent } from "../zcode/event-schemas.ts";
import { isBusy, toRequestError } from "../translate/errors.ts";
import { applyEvent, type EventContext, type TurnHooks } from "../translate/events.ts";
import { StallWatch } from "./stall-watch.ts";
import type { RunningTurn, SessionHost, TurnStop } from "./host.ts";
import { refreshAfterTurn, waitIdle } from "./reads.ts";
import { BusyBackoff } from "./busy-backoff.ts";
import { turnFailedError } from "./turn-failure.ts";
import { completedOutcome, isRetryableFailure, toUsage } from "../translate/turn-outcome.ts";

const logger = log.withTag("turn");

/**
 * - preparing: nothing reached ZCode (waiting for idle, subscribing).
 * - sending: session/send is on its way; ZCode may be running the turn.
 * - running: ZCode accepted it; its events are this turn's.
 * - retrying: ZCode's turn ended without ours (busy, a transient failure); sent again after a wait.
 * - cancelling: session/stop sent; waiting for ZCode's `cancelled` (bounded).
 * - ended: answered; nothing more of it reaches the editor.
 */
type Phase = "preparing" | "sending" | "running" | "retrying" | "cancelling" | "ended";

/** Where each phase may go. Anything else is a bug, logged and refused. */
const MOVES: Record<Phase, readonly Phase[]> = {
  preparing: ["sending", "ended"],
  sending: ["running", "retrying", "cancelling", "ended"],
  running: ["retrying", "cancelling", "ended"],
  retrying: ["sending", "ended"],
  cancelling: ["ended"],
  ended: [],
};

/**
 * A turn a command starts instead of session/send (`/rewind <new prompt>`, a
 * goal): resolves with its v4 command's id (the ZCode turn's queryId; none for
 * session/goal, stopped by session/stop), or undefined when nothing started.
 */
export type TurnStart = () => Promise<{ commandId?: string } | undefined>;

/** The phases in which ZCode may be running this turn. */
const IN_ZCODE: ReadonlySet<Phase> = new Set(["sending", "running", "cancelling"]);

/**
 * One prompt turn: subscribe → send (waiting out a busy session) → events in
 * seq order → response. Cancel, a silent stall, transient failures and the
 * child's death each move it along the table above; whatever happens, it
 * answers once, and nothing of it reaches the editor after that answer.
 */
export class Turn implements RunningTurn {
  private phase: Phase = "preparing";
  /** Our turn.started has been seen. */
  private started = false;
  /** Leftovers of a cancelled turn may still arrive before ours starts. */
  private staleExpected = false;
  private attempts = 0;
  /** session/send went out: ZCode may have the prompt (and read its attachments). */
  private sent = false;
  /** One busy budget per turn, however often ZCode says it is busy. */
  private busyDeadline: number | undefined;
  private readonly busyPause = new BusyBackoff();
  /** Why the turn's last model request ended. */
  private lastModelStop: string | undefined;
  private readonly stall: StallWatch;
  /** Stalls in a row after which ZCode said the session is idle. */
  private idleStalls = 0;
  private graceTimer: ReturnType<typeof setTimeout> | undefined;
  private settle!: { resolve(r: PromptResponse): void; reject(e: unknown): void };
  private readonly done: Promise<PromptResponse>;
  private readonly ctx: EventContext;
  /**
   * The v4 command that started ZCode's current turn (undefined: session/send
   * did). Such a turn is stopped with v4 stop: legacy session/stop does not reach it.
   */
  private v4Command: string | undefined;
  /** turn.started's foregroundExecutionId: a v4 stop names it, so a late stop never stops the next turn. */
  private foreground: string | undefined;
  /** Set when a retryable failure is retried: ZCode's id of the failed turn ("" when unknown). */
  private retryOf: string | undefined;
  private cancelled = false; // while ZCode may have had it: a start still on its way is stopped when it lands

  constructor(
    private readonly s: SessionHost,
    private readonly input: { text: string; attachments: ZCodeAttachment[] },
    private readonly opts: { start?: TurnStart } = {},
  ) {
    this.done = new Promise((resolve, reject) => (this.settle = { resolve, reject }));
    this.stall = new StallWatch(() => s.timings.stallMs, {
      watching: () => this.phase === "running",
      stalled: (quiet) => {
        logger.debug("no event for", quiet, "ms; resubscribing", s.id);
        return s.intake.recover().then(() => this.checkIdle());
      },
    });
    const hooks: TurnHooks = {
      started: (p) => this.onStarted(p),
      completed: (p) => this.onCompleted(p),
      failed: (p, turnId) => this.onFailed(p, turnId),
      modelStopped: (reason) => {
        this.lastModelStop = reason;
      },
    };
    this.ctx = { ...s.eventContext(), turn: hooks };
  }

  /** Resolves when the turn has answered, however it ended. */
  get settled(): Promise<void> {
    return this.done.then(
      () => undefined,
      () => undefined,
    );
  }

  get reachedZCode(): boolean {
    return this.sent;
  }

  get isCancelled(): boolean {
    return this.phase === "cancelling";
  }

  get running(): boolean {
    return this.phase !== "ended";
  }

  /** The phase now (it moves while we await; read through here so no narrowing outlives an await). */
  private at(phase: Phase): boolean {
    return this.phase === phase;
  }

  private move(to: Phase): boolean {
    if (!MOVES[this.phase].includes(to)) {
      logger.debug(`turn of ${this.s.id}: no move from ${this.phase} to ${to}`);
      return false;
    }
    this.phase = to;
    return true;
  }

  /**
   * Starts the turn and resolves with its answer. The answer does not wait
   * for a hung request: cancel or the child's death settle it regardless.
   */
  run(): Promise<PromptResponse> {
    this.s.work.turnBegan(this);
    void (async () => {
      try {
        await this.prepare();
        if (this.phase === "preparing") await this.send();
      } catch (err) {
        await this.fail(err);
      }
    })();
    return this.done;
  }

  apply(e: ZCodeEvent): void {
    if (this.phase === "ended") return this.s.applyOutsideTurn(e);
    this.stall.touch();
    this.idleStalls = 0;
    const ours = IN_ZCODE.has(this.phase) && (this.started || e.type === "turn.started" || !this.staleExpected);
    if (!ours) return this.s.applyOutsideTurn(e);
    applyEvent(this.ctx, e);
  }

  /** The one way a turn is cancelled (see Session.cancel for who asks). */
  cancel(): void {
    if (this.phase === "cancelling" || this.phase === "ended") return;
    if (!IN_ZCODE.has(this.phase)) {
      // Nothing reached ZCode yet (waiting for idle, subscribing, between retries): done.
      void this.finish("cancelled");
      return;
    }
    this.move("cancelling");
    this.cancelled = true;
    this.s.work.expectLeftovers({ idleWait: false, stop: this.stopHow() });
    // ZCode may keep streaming or ignore the stop: answer anyway, and have
    // the next prompt wait until ZCode is idle.
    this.graceTimer = setTimeout(() => {
      this.s.work.idleWaitBeforeNextSend();
      void this.finish("cancelled");
    }, this.s.timings.cancelGraceMs);
  }

  /** The child died under this turn. */
  abort(err: unknown): void {
    void this.fail(err, { zcodeGone: true });
  }

  /** How ZCode's current turn is stopped: v4 stop for a turn a v4 command started (see TurnStop). */
  private stopHow(): TurnStop | undefined {
    if (this.v4Command === undefined) return undefined;
    return { v4: true, ...(this.foreground ? { foregroundExecutionId: this.foreground } : {}) };
  }

  private onStarted(p: TurnStarted): void {
    this.started = true;
    this.s.work.leftoversOver();
    if (this.v4Command === undefined || p.queryId === undefined || p.queryId === this.v4Command) this.foreground = p.foregroundExecutionId;
  }

  /**
   * Starts ZCode's turn: a retry of a failed turn goes through ZCode's own
   * retry (one copy of the prompt in its history; ZCODE-V4.md §5.4) when the
   * CLI offers it, a command's turn through its v4 command, anything else
   * as session/send. False: nothing was started (the command said why).
   */
  private async startInZCode(): Promise<boolean> {
    this.foreground = undefined;
    const retryOf = this.retryOf;
    this.retryOf = undefined;
    // Without the failed turn's id (a CLI before 0.16) the retry could pick another turn: sent again instead.
    const start = retryOf ? () => this.s.api.retryTurn({ sessionId: this.s.id, turnId: retryOf }) : this.opts.start;
    if (start) {
      // Its turn's events may come in the answer's read: held until the answer is handled (event-hold.ts).
      const release = this.s.work.holdEvents();
      try {
        const started = await start();
        if (started) {
          this.v4Command = started.commandId;
          return true;
        }
        if (!retryOf) return false;
      } finally {
        release();
      }
      logger.debug(`no ZCode retry offered for ${this.s.id}; sending the prompt again`);
    }
    this.v4Command = undefined;
    await this.s.api.send({ sessionId: this.s.id, content: this.input.text, attachments: this.input.attachments });
    return true;
  }

  private async prepare(): Promise<void> {
    // A turn ZCode runs by itself would take session/send in as a queued input, not refuse it.
    if (this.s.work.idleWaitDue || this.s.work.zcodeTurnRunning) {
      await waitIdle(this.s, this.s.timings.busyWaitMs, () => this.phase !== "preparing");
      if (this.phase !== "preparing") return;
      this.s.work.idleWaited();
    }
    // Subscribed before sending, or a short turn's completion can be missed.
    await this.s.intake.ensureSubscribed();
  }

  private async send(): Promise<void> {
    const deadline = (this.busyDeadline ??= Date.now() + this.s.timings.busyWaitMs);
    for (;;) {
      // The child may have died (or the editor cancelled) while we waited.
      if (this.phase !== "preparing" && this.phase !== "retrying") return;
      this.staleExpected = this.s.work.leftoversExpected;
      this.started = false;
      try {
        let startedInZCode = true;
        // ZCode offers its retry only once the failed turn is over: wait for idle first.
        if (this.retryOf && (await this.s.api.hasV4())) await waitIdle(this.s, this.s.timings.busyWaitMs, () => this.phase !== "retrying");
        await this.s.withActive(async () => {
          await this.s.intake.ensureSubscribed();
          // A cancel while subscribing ended the turn already: never send it.
          // ("sending": the send is retried after ZCode evicted the session.)
          if (!this.at("preparing") && !this.at("retrying") && !this.at("sending")) return;
          if (!this.at("sending")) this.move("sending");
          this.sent = true;
          startedInZCode = await this.startInZCode();
        });
        if (!startedInZCode) {
          await this.finish("end_turn");
          return;
        }
        if (this.at("sending")) this.move("running");
        // Cancelled while the start was on its way (the stop went first, or was legacy for a v4 start): stop it now.
        else if (this.cancelled) this.s.work.stopZCode(this.stopHow());
        this.stall.touch();
        return;
      } catch (err) {
        if (!isBusy(err) || !this.at("sending")) throw err;
        this.move("retrying");
        const left = deadline - Date.now();
        if (left <= 0) throw err;
        logger.debug("session busy; waiting for idle");
        await this.busyPause.waitToResend(this.s, left, () => this.phase !== "retrying");
      }
    }
  }

  private onCompleted(p: TurnCompleted): void {
    if (this.phase === "ended") return;
    if (this.phase === "cancelling") return void this.finish("cancelled", toUsage(p.usage));
    const outcome = completedOutcome(p.resultType, this.lastModelStop);
    if (outcome.notice) this.notice(outcome.notice);
    void this.finish(outcome.stop, toUsage(p.usage));
  }

  /** A line of the bridge's own in the conversation, apart from ZCode's text. */
  private notice(text: string): void {
    this.s.notice("warning", text);
  }

  private onFailed(p: TurnFailed, turnId: string | undefined): void {
    if (this.phase === "ended") return;
    if (this.phase === "cancelling") return void this.finish("cancelled");
    // ZCode's own words, often a provider's error quoting the request: redacted
    // like every error built from the child's output.
    const message = p.error?.message ? redactLine(p.error.message) : t().bridge.turn.failed;
    const timings = this.s.timings;
    const code = Number(p.error?.code);
    if ((code === ZCODE_ERR.promptRunning || code === ZCODE_ERR.busy) && this.retryWhenIdle()) return;
    if (isRetryableFailure(p) && this.attempts < timings.retryTries) {
      this.attempts++;
      const delay = timings.retryBaseMs * 2 ** (this.attempts - 1);
      this.waitToResend();
      this.retryOf = turnId ?? "";
      this.notice(t().bridge.turn.retrying(message, (delay / 1000).toFixed(1), this.attempts + 1, timings.retryTries + 1));
      setTimeout(() => {
        this.send().catch((err) => this.fail(err));
      }, delay);
      return;
    }
    // A cancel meanwhile wins: fail() does nothing once the turn has ended.
    void turnFailedError(this.s, p, message).then((error) => this.fail(error, { zcodeGone: true }));
  }

  /**
   * The turn itself failed as busy (another turn was still running): wait for
   * idle and send again, within the same budget as a busy answer to send.
   */
  private retryWhenIdle(): boolean {
    const left = (this.busyDeadline ?? 0) - Date.now();
    if (left <= 0) return false;
    this.waitToResend();
    void (async () => {
      await this.busyPause.waitToResend(this.s, left, () => this.phase !== "retrying");
      await this.send();
    })().catch((err) => this.fail(err));
    return true;
  }

  /** ZCode's turn ended without ours: nothing runs there until we send again (a cancel now ends at once). */
  private waitToResend(): void {
    this.stall.clear();
    this.move("retrying");
  }

  /**
   * Silence even after resubscribing, and ZCode says the session is idle:
   * the turn's end was lost on the way. Seen at two stalls in a row (with no
   * event between), the turn ends rather than waiting forever.
   */
  private async checkIdle(): Promise<void> {
    const quietSince = this.stall.lastEventAt;
    const r = await this.s.withActive(() => this.s.api.read(this.s.id)).catch(() => undefined);
    // An event meanwhile (events also reset the count) or the end itself: not lost.
    if (this.phase !== "running" || this.stall.lastEventAt !== quietSince) return;
    const status = r?.projection?.status;
    // Before our turn.started, idle may only mean "not begun yet".
    this.idleStalls = this.started && status !== undefined && status !== "running" ? this.idleStalls + 1 : 0;
    if (this.idleStalls < 2) return;
    logger.warn(`ZCode is idle but the end of the turn never arrived (session ${this.s.id}); ending the turn`);
    void this.finish("end_turn");
  }

  private end(): boolean {
    if (!this.move("ended")) return false;
    this.stall.clear();
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.s.work.turnEnded(this);
    return true;
  }

  private async finish(stop: StopReason, usage?: Usage): Promise<void> {
    if (!this.end()) return;
    this.s.failOpenTools(stop === "cancelled" ? t().tools.cancelled : t().tools.turnEnded);
    if (stop !== "cancelled") await refreshAfterTurn(this.s);
    await this.s.flush();
    this.settle.resolve(usage ? { stopReason: stop, usage } : { stopReason: stop });
  }

  /**
   * The prompt fails. When ZCode may still be running it (the send's answer
   * was lost, timed out, or came oddly), ZCode is told to stop and whatever
   * it still streams is not shown: once the prompt has answered, nothing of
   * its turn reaches the editor.
   */
  private async fail(err: unknown, opts: { zcodeGone?: boolean } = {}): Promise<void> {
    // After a cancel the editor expects `cancelled`, whatever broke meanwhile.
    if (this.phase === "cancelling") return this.finish("cancelled");
    const mayRun = IN_ZCODE.has(this.phase) && !opts.zcodeGone;
    if (!this.end()) return;
    if (mayRun) this.s.work.expectLeftovers({ idleWait: true, stop: this.stopHow() });
    // What ZCode still asked of this turn can no longer matter: withdraw it from the editor.
    this.s.withdrawInteractions();
    this.s.failOpenTools(t().tools.turnFailed);
    await this.s.flush();
    this.settle.reject(toRequestError(err, { sessionId: this.s.id }));
  }
}
