import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ClientFeatures, NoticeLevel } from "../translate/client-features.ts";
import type { TranslationMemory } from "../translate/memory.ts";
import type { EventContext } from "../translate/events.ts";
import type { SessionOptions } from "../translate/options/options.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { ZCodeEvent } from "../zcode/event-schemas.ts";
import type { Env } from "../zcode/host.ts";
import type { Settings } from "../zcode/schemas.ts";
import type { GoalPublisher } from "./goal-publisher.ts";
import type { Timings } from "./timings.ts";
import type { SessionWork } from "./work.ts";

// The port a session gives the parts that work for it (a Turn, a slash
// command's run, the reads around a prompt, auto-compact): what they may read
// and the few things they may ask. They never write the session's state:
// the session does, when asked here. Declared apart from Session so that
// those parts and the session do not import each other.

export type { RunningCommand, RunningTurn, TurnStop } from "./work.ts";

/** What a session asks of the plan's quota (src/session/quota-push.ts QuotaPush). */
export interface QuotaPort {
  afterTurn(s: SessionHost): Promise<void>;
  spentWords(s: Pick<SessionHost, "options">, message: string | undefined, code?: string): Promise<string | undefined>;
}

export interface SessionHost {
  readonly id: string;
  readonly cwd: string;
  readonly env: Env;
  readonly api: ZCodeApi;
  readonly timings: Timings;
  readonly options: SessionOptions;
  readonly memory: TranslationMemory;
  readonly intake: {
    ensureSubscribed(): Promise<void>;
    recover(): Promise<void>;
    reached(seq: number, timeoutMs: number): Promise<boolean>;
  };
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
  /** The plan's quota after turns and in a spent turn's error (absent in tests that build sessions bare). */
  readonly quota?: QuotaPort;
  /** ZCode's goal, published to a client that takes it. */
  readonly goal: GoalPublisher;
  /** Reads ZCode's goal and publishes it; a failed read is only logged. */
  refreshGoalQuietly(): Promise<void>;
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

  /** The turn or command holding the session, and ZCode's leftovers of earlier ones. */
  readonly work: SessionWork;
}
