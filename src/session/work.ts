import { log } from "../log.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";

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

  /** An event in seq order: the running turn's, else `outside`. */
  dispatch(e: ZCodeEvent, outside: (e: ZCodeEvent) => void): void {
    if (this.turn) this.turn.apply(e);
    else outside(e);
  }

  /** Ends the running turn and command; resolves with the turn's answer when `waitForTurn` (close). */
  cancel(waitForTurn: boolean): Promise<void> {
    const turn = this.turn;
    turn?.cancel();
    this.command?.cancel();
    return waitForTurn && turn ? turn.settled : Promise.resolve();
  }

  /** The child died: the running turn fails with `err`. */
  childDied(err: unknown): void {
    this.turn?.abort(err);
  }
}
