import { log } from "../log.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import { EventHold } from "./event-hold.ts";

const logger = log.withTag("session");

/** A prompt turn, as the session sees it. */
export interface RunningTurn {
  readonly running: boolean;
  readonly isCancelled: boolean;
  /** Resolves when the turn has answered, however it ended. */
  readonly settled: Promise<void>;
  apply(e: ZCodeEvent): void;
  cancel(): void;
  /** The child died under this turn. */
  abort(err: unknown): void;
}

/** A slash command holding the session's queue. */
export interface RunningCommand {
  cancel(): void;
}

/**
 * How the running ZCode turn is stopped: a turn a v4 command started gets v4
 * stop (legacy session/stop does not reach it), naming its execution when
 * known so that a late stop never stops the next turn.
 */
export type TurnStop = { v4: true; foregroundExecutionId?: string };

/**
 * What holds a session now (its prompt turn or its slash command) and what
 * ZCode may still send of work we no longer want: leftovers of a cancelled
 * or failed turn are dropped until our next turn starts, and the next send
 * may first have to wait for ZCode to be idle. The session owns one; the
 * turn and the command runner report to it here. `expectLeftovers` is the
 * one place ZCode is told to stop such work.
 */
export class SessionWork {
  /** The running prompt turn, if any. */
  private turn: RunningTurn | undefined;
  /** The slash command holding the queue, if any. */
  private command: RunningCommand | undefined;
  /** After a turn whose end we did not see: wait for ZCode to be idle before the next send. */
  private needsIdleWait = false;
  /** Drop events that are not the next turn's (leftovers of a cancelled or failed turn). */
  private dropStale = false;
  /** Commands running beside the turn (/steer): a cancel answers them too. */
  private readonly besides = new Set<RunningCommand>();
  /**
   * A turn ZCode runs that no prompt of ours started (a steer it runs as a
   * turn of its own, or started with because no turn ran any more), seen by
   * its turn.started outside our turns; its foregroundExecutionId, for v4 stop.
   */
  private zcodeTurn: { foregroundExecutionId?: string } | undefined;
  /** Events wait here while a command's answer is handled (event-hold.ts). */
  private readonly held = new EventHold();

  constructor(
    private readonly sessionId: string,
    private readonly api: ZCodeApi,
  ) {}

  /** The turn that consumes the session's events from now on, until `turnEnded`. */
  turnBegan(turn: RunningTurn): void {
    this.turn = turn;
  }

  turnEnded(turn: RunningTurn): void {
    if (this.turn === turn) this.turn = undefined;
  }

  turnRunning(): boolean {
    return this.turn?.running === true;
  }

  /** A turn or a slash command holds the session. */
  isBusy(): boolean {
    return this.turn !== undefined || this.command !== undefined;
  }

  commandBegan(command: RunningCommand): void {
    this.command = command;
  }

  commandEnded(command: RunningCommand): void {
    if (this.command === command) this.command = undefined;
  }

  besideBegan(command: RunningCommand): void {
    this.besides.add(command);
  }

  besideEnded(command: RunningCommand): void {
    this.besides.delete(command);
  }

  /** ZCode started a turn of its own (turn.started outside our turns). */
  zcodeTurnStarted(foregroundExecutionId: string | undefined): void {
    this.zcodeTurn = foregroundExecutionId ? { foregroundExecutionId } : {};
  }

  /** ZCode's own turn ended, or ours started (ZCode runs one turn at a time). */
  zcodeTurnEnded(): void {
    this.zcodeTurn = undefined;
  }

  /** ZCode runs a turn of its own: a prompt sent now would be queued behind it (or steered into it). */
  get zcodeTurnRunning(): boolean {
    return this.zcodeTurn !== undefined;
  }

  /**
   * Stops ZCode's own turn: it was started through ZCode's v4 prompt path
   * (auto-drain, a steer), which legacy session/stop does not reach.
   */
  private stopZCodeTurn(): void {
    const own = this.zcodeTurn;
    if (!own) return;
    void this.api
      .hasV4()
      .then((v4) => this.stopZCode(v4 ? { v4: true, ...own } : undefined))
      .catch((err) => logger.debug("stopping ZCode's own turn failed:", err));
  }

  /**
   * ZCode may still run something we no longer want (a cancelled or failed
   * turn, a cancelled command's work): tell it to stop, and drop what it
   * still streams until our next turn starts. With `idleWait`, the next send
   * first waits for ZCode to be idle.
   */
  expectLeftovers(opts: { idleWait: boolean; stop?: TurnStop }): void {
    this.dropStale = true;
    if (opts.idleWait) this.needsIdleWait = true;
    this.stopZCode(opts.stop);
  }

  /** Tells ZCode to stop the session's running turn (a request; failures are logged). */
  stopZCode(how?: TurnStop): void {
    if (how?.v4) {
      const p = { sessionId: this.sessionId, ...(how.foregroundExecutionId ? { foregroundExecutionId: how.foregroundExecutionId } : {}) };
      this.api.stopV4Turn(p).catch((err) => logger.debug("v4 stop failed:", err));
      return;
    }
    this.api.stop(this.sessionId).catch((err) => logger.debug("session/stop failed:", err));
  }

  /** Leftovers of an earlier turn may still arrive (ours has not started). */
  get leftoversExpected(): boolean {
    return this.dropStale;
  }

  /** Our turn started: what follows is ours. */
  leftoversOver(): void {
    this.dropStale = false;
    this.zcodeTurn = undefined;
  }

  /** The next send first waits for ZCode to be idle (a stop it may have ignored). */
  idleWaitBeforeNextSend(): void {
    this.needsIdleWait = true;
  }

  get idleWaitDue(): boolean {
    return this.needsIdleWait;
  }

  idleWaited(): void {
    this.needsIdleWait = false;
  }

  /**
   * What ZCode asks now belongs to a cancelled turn: the current one was
   * cancelled, or ZCode may still be running one cancelled before it
   * (dropStale) while our next turn waits to start.
   */
  get refusesInteractions(): boolean {
    return this.dropStale || this.turn?.isCancelled === true;
  }

  /** An event in seq order: the running turn's, else `outside` (once a hold lets it through). */
  dispatch(e: ZCodeEvent, outside: (e: ZCodeEvent) => void): void {
    // Routed when delivered: a held event belongs to the turn running then. The closure is made only for a
    // hold (this runs for every event of a turn).
    if (this.held.isHolding) this.held.offer(() => (this.turn ? this.turn.apply(e) : outside(e)));
    else if (this.turn) this.turn.apply(e);
    else outside(e);
  }

  /**
   * Holds the session's events until the returned release is called (bounded,
   * event-hold.ts): what the bridge says of a command's answer comes before
   * the work that answer started, even when both arrive in one read.
   */
  holdEvents(): () => void {
    return this.held.hold();
  }

  /** Ends the running turn and command; resolves with the turn's answer when `waitForTurn` (close). */
  cancel(waitForTurn: boolean): Promise<void> {
    const turn = this.turn;
    turn?.cancel();
    this.command?.cancel();
    for (const c of [...this.besides]) c.cancel();
    // What the editor shows streaming may be ZCode's own turn: the cancel stops that too.
    this.stopZCodeTurn();
    return waitForTurn && turn ? turn.settled : Promise.resolve();
  }

  /** The child died: the running turn fails with `err`. */
  childDied(err: unknown): void {
    this.zcodeTurn = undefined;
    this.turn?.abort(err);
  }
}
