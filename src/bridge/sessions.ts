import { log } from "../log.ts";
import type { ModelChoice, ZCodeMcpServer } from "../zcode/api.ts";
import type { RawEvent, ZCodeEvent } from "../zcode/event-schemas.ts";
import type { ToolCallTracker } from "./tool-calls.ts";
import type { SessionOptions } from "./options.ts";
import { SeqOrder } from "./seq-order.ts";

const logger = log.withTag("sessions");

/** An envelope in seq order; read into an event only once it is its turn (types we do not use still take their seq). */
export interface Sequenced {
  seq: number;
  raw: RawEvent;
}

/** What a running turn wants to see of its session's events. */
export interface EventConsumer {
  apply(e: ZCodeEvent): void;
  /** The session is going away under the turn: end it as cancelled. */
  cancel(): void;
  readonly isCancelled: boolean;
}

/**
 * One ACP session = one ZCode session (same id, so list/load/resume work
 * across bridge restarts without an alias store).
 */
export class SessionState {
  /** Child generation the session was created or resumed in; 0 = must resume before use. */
  generation = 0;
  /** Bumped on every create/resume; a subscription belongs to one activation. */
  activation = 0;
  subscribedActivation = -1;
  /** Names of the slash commands last advertised to the editor. */
  commandsKey: string | undefined;
  /** A resume in progress (shared by concurrent callers). */
  resuming: Promise<void> | undefined;
  /** Whether `order.last` is meaningful for the current child (false: subscribe without afterSeq first). */
  seqKnown = false;
  /** The subscription did not say the current seq: take it from the first event. */
  seqFromFirstEvent = false;
  readonly order = new SeqOrder<Sequenced>();
  options: SessionOptions = {};
  title: string | undefined;
  /** JSON of the last plan sent, so an unchanged todo list is not re-sent. */
  lastPlanKey: string | undefined;
  /** `used/size` of the last usage_update sent. */
  lastUsageKey: string | undefined;
  /** The editor's MCP servers: ZCode takes them again on every resume. */
  mcpServers: ZCodeMcpServer[] | undefined;
  /** The model the user chose here: a resume in a new child may fall back to ZCode's default. */
  modelChoice: ModelChoice | undefined;
  /** The running prompt turn, if any. */
  turn: EventConsumer | undefined;
  /** Ends the slash command holding the queue, answering its prompt `cancelled`. */
  cancelCommand: (() => void) | undefined;
  /** After a cancel whose turn did not end in time: wait for ZCode to be idle before the next send. */
  needsIdleWait = false;
  /** Drop events that are not the next turn's (leftovers of a cancelled turn). */
  dropStale = false;
  /** Message ids of the current agent message and thought (one per contiguous run). */
  messageIds: { text?: string; reasoning?: string } = {};
  private tail: Promise<unknown> = Promise.resolve();
  private running = 0;
  closed = false;

  constructor(
    readonly id: string,
    public cwd: string,
    public tracker: ToolCallTracker,
  ) {}

  /**
   * What ZCode asks now belongs to a cancelled turn: the current one was
   * cancelled, or ZCode may still be running the one cancelled before it
   * (dropStale) while our next turn waits to start.
   */
  get refusesInteractions(): boolean {
    return this.dropStale || this.turn?.isCancelled === true;
  }

  /** True while a prompt or command holds the session's queue. */
  get busy(): boolean {
    return this.running > 0;
  }

  /**
   * Runs `fn` after every earlier queued prompt of this session finished, so
   * prompts never overlap and none is lost.
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    this.running++;
    const run = this.tail.then(fn, fn);
    this.tail = run.catch(() => undefined).finally(() => this.running--);
    return run;
  }

  /**
   * The child this session was active in is gone or evicted it: resume on
   * next use. The resumed session numbers its events from scratch.
   */
  markInactive(): void {
    this.generation = 0;
    this.seqKnown = false;
    this.order.clear();
  }
}

export class SessionRegistry {
  private readonly sessions = new Map<string, SessionState>();

  get(id: string): SessionState | undefined {
    return this.sessions.get(id);
  }

  add(s: SessionState): void {
    const old = this.sessions.get(s.id);
    if (old && old !== s) old.closed = true;
    this.sessions.set(s.id, s);
  }

  delete(id: string): void {
    const s = this.sessions.get(id);
    if (s) s.closed = true;
    this.sessions.delete(id);
    logger.debug("forgot session", id);
  }

  all(): IterableIterator<SessionState> {
    return this.sessions.values();
  }

  get size(): number {
    return this.sessions.size;
  }
}
