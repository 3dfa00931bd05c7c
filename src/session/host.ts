import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ClientFeatures, NoticeLevel } from "../translate/client-features.ts";
import type { TranslationMemory } from "../translate/memory.ts";
import type { EventContext } from "../translate/events.ts";
import type { SessionOptions } from "../translate/options/options.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import type { Env } from "../zcode/host.ts";
import type { Settings } from "../zcode/schemas.ts";
import type { Timings } from "./timings.ts";

// The port a session gives the parts that work for it (a Turn, a slash
// command's run, the reads around a prompt, auto-compact): what they may read
// and the few things they may ask. They never write the session's state:
// the session does, when asked here. Declared apart from Session so that
// those parts and the session do not import each other.

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

export interface SessionHost {
  readonly id: string;
  readonly cwd: string;
  readonly env: Env;
  readonly api: ZCodeApi;
  readonly timings: Timings;
  readonly options: SessionOptions;
  readonly memory: TranslationMemory;
  readonly intake: { ensureSubscribed(): Promise<void>; recover(): Promise<void> };
  readonly isClosed: boolean;
  /** Closed or being closed, or the editor has gone: nothing new may start. */
  readonly winding: boolean;
  /** What the client opted in to. */
  readonly features: ClientFeatures;

  /** Runs a ZCode call on the session, resuming it first when ZCode lost it. */
  withActive<T>(fn: () => Promise<T>): Promise<T>;
  emit(u: SessionUpdate): void;
  /** Something the bridge itself says: a `notice` for a client that takes them, else a message of its own. */
  notice(level: NoticeLevel, text: string): void;
  /** ZCode's goal, published to a client that takes it (null: cleared; undefined: unknown). */
  publishGoal(target: { objective: string; status?: string | undefined } | null | undefined): void;
  /** Resolves once the editor's backlog is low again. */
  backlogRelieved(): Promise<void>;
  /** Resolves once everything emitted so far is on the wire. */
  flush(): Promise<void>;
  eventContext(): EventContext;
  failOpenTools(message: string): void;
  withdrawInteractions(): void;
  /** An event that is not (or no longer) part of one of our prompt turns. */
  applyOutsideTurn(e: ZCodeEvent): void;
  /** New settings from ZCode: remembered, and the editor told what changed. */
  applySettings(settings: Settings): void;
  setMode(mode: string): Promise<void>;
  setThoughtLevel(level: string): Promise<void>;
  setModel(value: string): Promise<void>;

  /** The turn that consumes the session's events from now on, until `turnEnded`. */
  turnBegan(turn: RunningTurn): void;
  turnEnded(turn: RunningTurn): void;
  turnRunning(): boolean;
  commandBegan(command: RunningCommand): void;
  commandEnded(command: RunningCommand): void;

  /**
   * ZCode may still run something we no longer want (a cancelled or failed
   * turn, a cancelled command's work): tell it to stop, and drop what it
   * still streams until our next turn starts. With `idleWait`, the next send
   * first waits for ZCode to be idle.
   */
  expectLeftovers(opts: { idleWait: boolean; stop?: TurnStop }): void;
  /** Tells ZCode to stop the session's running turn (a request; failures are logged). */
  stopZCode(how?: TurnStop): void;
  /** Leftovers of an earlier turn may still arrive (ours has not started). */
  readonly leftoversExpected: boolean;
  /** Our turn started: what follows is ours. */
  leftoversOver(): void;
  /** The next send first waits for ZCode to be idle (a stop it may have ignored). */
  idleWaitBeforeNextSend(): void;
  readonly idleWaitDue: boolean;
  idleWaited(): void;
}
