import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import { ChildRows } from "../translate/child-rows.ts";
import { historyUpdates } from "../translate/history.ts";
import { ToolCallTracker } from "../translate/tools/tracker.ts";
import type { ToolUpdated } from "../zcode/event-schemas.ts";
import type { Message } from "../zcode/schemas.ts";
import type { RowsRange } from "../zcode/v4/schemas.ts";

const logger = log.withTag("subagents");

// What the editor sees of one subagent's own session, from what ZCode gives
// of a child (it gives no legacy stream: a running child has no record, and
// its events go to the v4 gateway only, server-operations.ts onSessionEvent):
// - while it runs, its v4 rows, read again and again (a read soon after any
//   sign of life on the parent, else less and less often);
// - when it stopped, the rows once more until nothing is left growing;
// - on a CLI without v4 (or whose rows never answered), the ended child's
//   transcript (session/resume + session/messages), once it stopped;
// - its tools as ZCode mirrors them into the parent (live-only events: never
//   lost). While rows are read, a mirrored event waits for the next read (at
//   most holdMs), so the child's words before the tool come before it; the
//   rows' copy of the same tool id only adds to it.

/** Poll pacing: soon after a sign of life, then slower up to maxMs; ending reads wait for the projection to catch up. */
export const CHILD_POLL = {
  firstMs: 250,
  minMs: 100,
  maxMs: 2000,
  /** Consecutive failed reads after which the rows are given up (the transcript is read at the end instead). */
  maxFailures: 5,
  /** Reads after the child stopped, until its rows are settled. */
  endReads: 8,
  /** Pages read back when more rows came since the last read than one window holds. */
  maxPages: 5,
  /** Reads in a row that found nothing new, after which the reads pause until the next sign of life (~10 min at maxMs). */
  maxIdleReads: 300,
  /** The longest a mirrored tool event waits for the read it prompted. */
  holdMs: 1000,
  /** Mirrored events held at most (past it they are shown at once). */
  maxHeld: 256,
} as const;

/** What a child's view needs of ZCode and the editor. */
export interface ChildViewPort {
  readonly childId: string;
  readonly cwd: string;
  /** Rows of the child (undefined: this CLI has no v4). */
  rows(beforeRowId?: number): Promise<RowsRange | undefined>;
  /** The ended child's transcript (resumed in ZCode first). */
  transcript(): Promise<readonly Message[]>;
  emit(u: SessionUpdate): void;
  terminalOutput(): boolean;
  compaction(): boolean;
  plans(): boolean;
}

type Phase = "running" | "ending" | "ended";

export class ChildView {
  private readonly tracker: ToolCallTracker;
  private readonly view: ChildRows;
  private phase: Phase = "running";
  /** rows: the child is shown from v4 rows; transcript: from its transcript at the end (no v4, or the rows failed). */
  private source: "rows" | "transcript" | undefined;
  private loop: Promise<void> | undefined;
  /** Ends the current sleep now (close), or soon (nudge). */
  private wake: (() => void) | undefined;
  private hurry: (() => void) | undefined;
  /** A nudge came while reading: the next sleep is short. */
  private kicked = false;
  /** running() or stopped() came while the loop was finishing: it runs again. */
  private rerun = false;
  private gone = false;
  /** Transcript messages already shown (a child resumed by SendMessage shows only what is new). */
  private readonly shownMessages = new Set<string>();
  /** Mirrored tool events waiting for the read they prompted (see holdMs). */
  private held: ToolUpdated[] = [];
  private heldTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(private readonly port: ChildViewPort) {
    this.tracker = new ToolCallTracker({ cwd: port.cwd, terminalOutput: port.terminalOutput() });
    this.view = new ChildRows(this.tracker);
  }

  get closed(): boolean {
    return this.gone;
  }

  /** The child works (spawned, or resumed by a SendMessage): follow its rows. */
  running(): void {
    if (this.gone) return;
    this.phase = "running";
    this.start();
  }

  /** A sign of life on the parent (a mirrored tool, a message): read soon (again, if the reads had paused). */
  nudge(): void {
    if (this.hurry) this.hurry();
    else this.kicked = true;
    if (!this.loop && this.phase === "running" && !this.gone) this.start();
  }

  /** The child stopped: read what is left, then rest until it works again. */
  stopped(): Promise<void> {
    if (this.gone || this.phase === "ended") return Promise.resolve();
    this.phase = "ending";
    this.start();
    this.nudge();
    return this.loop ?? Promise.resolve();
  }

  /**
   * A tool of the child that ZCode mirrored into the parent, shown on the
   * child under its own id: after the read it prompts (the child's words
   * before it first), or at once when no read is coming.
   */
  mirrored(p: ToolUpdated): void {
    if (this.gone) return;
    const childToolCallId = (p as { childToolCallId?: unknown }).childToolCallId;
    const id = typeof childToolCallId === "string" && childToolCallId ? childToolCallId : p.toolCallId;
    this.held.push({ ...p, toolCallId: id });
    this.nudge();
    if (!this.loop || this.source === "transcript" || this.held.length > CHILD_POLL.maxHeld) this.release();
    else this.heldTimer ??= setTimeout(() => this.release(), CHILD_POLL.holdMs);
  }

  close(): void {
    this.gone = true;
    this.wake?.();
    clearTimeout(this.heldTimer);
    this.held = [];
  }

  /** Shows the held mirrored events, in their order. */
  private release(): void {
    clearTimeout(this.heldTimer);
    this.heldTimer = undefined;
    const held = this.held;
    this.held = [];
    if (this.gone) return;
    for (const p of held) for (const u of this.tracker.onToolUpdated(p)) this.port.emit(u);
  }

  private start(): void {
    if (this.loop) {
      this.rerun = true;
      return;
    }
    this.rerun = false;
    this.loop = this.follow().finally(() => {
      this.loop = undefined;
      if (this.rerun && !this.gone && this.phase !== "ended") this.start();
    });
  }

  private async follow(): Promise<void> {
    let delay: number = CHILD_POLL.minMs;
    let failures = 0;
    let endReads = 0;
    let idleReads = 0;
    // A child announced a moment ago: its first events reach ZCode's v4 gateway first (a read of a
    // child it has no publisher for would cold-resume it, v4-gateway.ts rowsRange).
    if (this.phase === "running" && !this.source) await this.sleep(CHILD_POLL.firstMs);
    while (!this.gone && this.source !== "transcript") {
      const ending = this.phase === "ending";
      const read = await this.readRows();
      if (this.gone) return;
      if (read === "none") {
        this.source ??= "transcript";
        break;
      }
      if (read === "failed") {
        if (++failures >= CHILD_POLL.maxFailures) break;
        delay = Math.min(delay * 2, CHILD_POLL.maxMs);
      } else {
        failures = 0;
        this.source = "rows";
        delay = read.changed ? CHILD_POLL.minMs : Math.min(delay * 2, CHILD_POLL.maxMs);
        idleReads = read.changed ? 0 : idleReads + 1;
        if (ending && read.settled) break;
        // A child whose stop never comes (its CLI died under it): the reads pause until a sign of life.
        if (!ending && idleReads >= CHILD_POLL.maxIdleReads) break;
      }
      if (ending && ++endReads >= CHILD_POLL.endReads) break;
      await this.sleep(ending ? Math.min(delay, 500) : delay);
    }
    if (this.gone || this.phase !== "ending") return;
    // Rows that answered showed it (or there was nothing): the transcript would only repeat them.
    if (this.source !== "rows") await this.showTranscript();
    // A SendMessage may have set the child working again meanwhile.
    if (this.phase === "ending") this.phase = "ended";
  }

  /** One read of the newest rows (and pages back while they are all new): what it changed. */
  private async readRows(): Promise<{ changed: boolean; settled: boolean } | "none" | "failed"> {
    try {
      let range = await this.port.rows();
      if (!range) return "none";
      const pages: RowsRange[] = [range];
      while (range.hasMore && range.rows[0] && !this.view.knows(range.rows[0]) && pages.length < CHILD_POLL.maxPages) {
        range = (await this.port.rows(range.rows[0].rowId)) ?? { ...range, rows: [], hasMore: false };
        pages.unshift(range);
      }
      if (this.gone) return { changed: false, settled: true };
      const updates = this.view.apply(pages.flatMap((p) => p.rows));
      for (const u of updates) this.port.emit(u);
      return { changed: updates.length > 0, settled: this.view.settled };
    } catch (err) {
      logger.debug(`reading the rows of subagent session ${this.port.childId} failed:`, err);
      return "failed";
    } finally {
      // Whatever the read gave, what was mirrored meanwhile goes after it.
      this.release();
    }
  }

  /** The ended child's transcript, what of it was not shown yet (its tools may have come mirrored: not again). */
  private async showTranscript(): Promise<void> {
    this.source = "transcript";
    let messages: readonly Message[];
    try {
      messages = await this.port.transcript();
    } catch (err) {
      logger.warn(`could not read the transcript of subagent session ${this.port.childId}; its tools stay as shown:`, err);
      return;
    }
    if (this.gone) return;
    const fresh = messages.filter((m) => !m.info.messageId || !this.shownMessages.has(m.info.messageId));
    for (const m of fresh) if (m.info.messageId) this.shownMessages.add(m.info.messageId);
    // Bounded: a transcript read is at most REPLAY_MESSAGES long, so the oldest ids are never asked about again.
    for (const id of this.shownMessages) {
      if (this.shownMessages.size <= 4 * messages.length + 64) break;
      this.shownMessages.delete(id);
    }
    const opts = { cwd: this.port.cwd, compaction: this.port.compaction(), plans: this.port.plans() };
    for (const u of historyUpdates(fresh, opts)) {
      if (u.sessionUpdate === "tool_call" && this.tracker.get(u.toolCallId)) continue;
      // The parent's task is its session_message; the child's own words and tools are shown here.
      if (u.sessionUpdate === "user_message_chunk") continue;
      this.port.emit(u);
    }
  }

  /** Sleeps `ms`; a nudge meanwhile cuts it to minMs, a close to nothing. */
  private sleep(ms: number): Promise<void> {
    if (this.kicked) {
      this.kicked = false;
      ms = CHILD_POLL.minMs;
    }
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = this.hurry = undefined;
        resolve();
      };
      let timer = setTimeout(done, ms);
      this.wake = done;
      this.hurry = () => {
        this.hurry = undefined;
        clearTimeout(timer);
        timer = setTimeout(done, CHILD_POLL.minMs);
      };
    });
  }
}
