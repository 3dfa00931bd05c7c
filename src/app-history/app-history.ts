import { Database } from "bun:sqlite";
import { statSync, type Stats } from "node:fs";
import { log as rootLog } from "../log.ts";
import type { Env } from "../zcode/host.ts";
import { withBusyRetry, isBusy } from "./busy-retry.ts";
import { appTitle, taskRow, type SessionCreatedInfo } from "./task-row.ts";
import { deletedAmong, insertTask, layoutProblem, markDeleted, tasksIndexPath, updateTitle } from "./tasks-index.ts";

export type { SessionCreatedInfo, ModelRef } from "./task-row.ts";

// Shared history with the ZCode app: sessions created through the bridge are
// added to the app's task index so they appear in its history and search.
//
// Strictly best effort and strictly a guest in the app's database. Nothing
// here throws or rejects: a failure is logged and the turn goes on. The file
// is never created (no app, no history), its schema never touched, an
// existing row never replaced, a renamed title never overwritten (see
// tasks-index.ts for the app's rules this follows). The handle is closed when
// idle so the app's WAL checkpoints are not held back and, on Windows, the
// file is not kept open while the app wants it.

/** Where failures go: the bridge's logger (stderr, never stdout) unless a test passes its own. */
export interface Logger {
  warn(...args: unknown[]): void;
  debug(...args: unknown[]): void;
}

export interface AppHistoryOptions {
  /** false with --no-app-history / ZCODE_ACP_APP_HISTORY=0: nothing is ever opened. */
  enabled: boolean;
  /** The database file (default: ~/.zcode/v2/tasks-index.sqlite for env's home). */
  file?: string;
  /**
   * SQLite's own wait for a lock, per attempt. bun:sqlite blocks the event
   * loop for that long, so it is short; the retries below wait asleep.
   */
  busyTimeoutMs?: number;
  /** Sleeps between attempts on a busy database: 3 attempts in about a second by default. */
  retryDelaysMs?: readonly number[];
  /** Idle time after which the handle is closed. */
  idleCloseMs?: number;
  now?: () => number;
  logger?: Logger;
}

const DEFAULT_BUSY_TIMEOUT_MS = 100;
const DEFAULT_RETRY_DELAYS_MS = [200, 500] as const;
const DEFAULT_IDLE_CLOSE_MS = 2_000;
/** Sessions remembered for their title; a bridge that lives for months must not grow without bound. */
const MAX_SESSIONS = 1_000;

interface Tracked {
  info: SessionCreatedInfo;
  /** The row is ours: added by this process. */
  recorded: boolean;
  /** The row was there before us (the app's own, or a purge tombstone): never touched. */
  foreign: boolean;
}

export class AppHistory {
  private readonly file: string | undefined;
  private readonly busyTimeoutMs: number;
  private readonly retryDelaysMs: readonly number[];
  private readonly idleCloseMs: number;
  private readonly now: () => number;
  private readonly log: Logger;

  private db: Database | undefined;
  private chain: Promise<void> = Promise.resolve();
  private pending = 0;
  private idleTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  /** The table is not one we know: stay away for the rest of the process. */
  private unusable = false;
  private saidMissing = false;
  private readonly sessions = new Map<string, Tracked>();

  private constructor(file: string | undefined, opts: AppHistoryOptions) {
    this.file = file;
    this.busyTimeoutMs = opts.busyTimeoutMs ?? DEFAULT_BUSY_TIMEOUT_MS;
    this.retryDelaysMs = opts.retryDelaysMs ?? DEFAULT_RETRY_DELAYS_MS;
    this.idleCloseMs = opts.idleCloseMs ?? DEFAULT_IDLE_CLOSE_MS;
    this.now = opts.now ?? Date.now;
    this.log = opts.logger ?? rootLog.withTag("app-history");
  }

  /** Never throws; opens nothing yet (the file is looked for at each write). */
  static open(env: Env, opts: AppHistoryOptions): AppHistory {
    let file: string | undefined;
    try {
      file = opts.enabled ? (opts.file ?? tasksIndexPath(env)) : undefined;
    } catch {
      file = undefined;
    }
    const history = new AppHistory(file, opts);
    if (!opts.enabled) history.log.debug("shared history with the ZCode app is off");
    return history;
  }

  /** Whether a database handle is open right now (it is closed when idle). */
  get isOpen(): boolean {
    return this.db !== undefined;
  }

  /**
   * A session was created through the bridge (after session/create
   * succeeded): add it to the app's history. Resolves when done or given up.
   */
  sessionCreated(info: SessionCreatedInfo): Promise<void> {
    try {
      if (!this.file || this.closed) return Promise.resolve();
      const id = typeof info?.sessionId === "string" ? info.sessionId : "";
      if (!id) return Promise.resolve();
      // Told twice about one session: the first report stands (re-recording
      // would find our own row and take it for the app's).
      if (this.sessions.has(id)) return this.chain;
      this.track(id, { info: { ...info }, recorded: false, foreign: false });
      return this.enqueue(`recording session ${id}`, (db) => this.record(db, id));
    } catch (err) {
      this.log.warn("could not record a session in the app's history:", err);
      return Promise.resolve();
    }
  }

  /**
   * ZCode named the session (the bridge sends session_info_update): the app's
   * row takes the title unless the user renamed it there. Only sessions this
   * process recorded; a session it could not record yet is recorded now, with
   * its title.
   */
  titleKnown(sessionId: string, title: string): Promise<void> {
    try {
      if (!this.file || this.closed) return Promise.resolve();
      const tracked = this.sessions.get(sessionId);
      const t = appTitle(title);
      if (!tracked || tracked.foreign || !t) return Promise.resolve();
      tracked.info.title = t;
      return this.enqueue(`titling session ${sessionId}`, (db) => {
        if (!tracked.recorded) return this.record(db, sessionId);
        const changed = updateTitle(db, {
          workspaceKey: tracked.info.cwd,
          sessionId,
          title: t,
          now: this.now(),
        });
        this.log.debug(changed ? `titled session ${sessionId} in the app's history` : `kept the app's title of ${sessionId}`);
      });
    } catch (err) {
      this.log.warn("could not title a session in the app's history:", err);
      return Promise.resolve();
    }
  }

  /**
   * The user deleted the session from the editor (ACP session/delete, after
   * ZCode deleted it): the app's row, if any, is marked deleted the way the
   * app marks one, so it leaves the app's history too.
   */
  sessionDeleted(sessionId: string): Promise<void> {
    try {
      if (!this.file || this.closed || !sessionId) return Promise.resolve();
      this.sessions.delete(sessionId);
      return this.enqueue(`deleting session ${sessionId}`, (db) => {
        const changed = markDeleted(db, { sessionId, now: this.now() });
        this.log.debug(
          changed ? `marked session ${sessionId} deleted in the app's history` : `no row of ${sessionId} in the app's history`,
        );
      });
    } catch (err) {
      this.log.warn("could not mark a session deleted in the app's history:", err);
      return Promise.resolve();
    }
  }

  /**
   * Which of `ids` the app's history marks deleted (read after every change
   * queued before). An empty set when there is no app, it is off, or the
   * read failed: then only the bridge's own tombstones hide sessions.
   */
  async deletedAmong(ids: readonly string[]): Promise<Set<string>> {
    let found = new Set<string>();
    if (!this.file || this.closed || ids.length === 0) return found;
    await this.enqueue("reading deleted sessions", (db) => {
      found = deletedAmong(db, ids);
    });
    return found;
  }

  /** Closes the handle now; later calls do nothing. Never throws. */
  close(): void {
    this.closed = true;
    this.cancelIdleClose();
    this.dropHandle();
  }

  private track(id: string, t: Tracked): void {
    this.sessions.delete(id);
    this.sessions.set(id, t);
    if (this.sessions.size > MAX_SESSIONS) {
      const oldest = this.sessions.keys().next().value;
      if (oldest !== undefined) this.sessions.delete(oldest);
    }
  }

  private record(db: Database, id: string): void {
    const tracked = this.sessions.get(id);
    if (!tracked || tracked.recorded || tracked.foreign) return;
    const row = taskRow(tracked.info, this.now());
    if (!row) {
      this.log.debug(`session ${id} has no workspace path: not recorded in the app's history`);
      this.sessions.delete(id);
      return;
    }
    if (insertTask(db, row)) {
      tracked.recorded = true;
      this.log.debug(`recorded session ${id} in the app's history`);
    } else {
      tracked.foreign = true;
      this.log.debug(`the app already has a row for session ${id} (or purged it): left as it is`);
    }
  }

  /** Runs `work` after everything queued before it, with retries on a busy database. */
  private enqueue(label: string, work: (db: Database) => void): Promise<void> {
    this.pending++;
    this.cancelIdleClose();
    const run = this.chain.then(async () => {
      try {
        await withBusyRetry(
          () => {
            const db = this.handle();
            if (db) work(db);
          },
          this.retryDelaysMs,
          () => this.closed,
        );
      } catch (err) {
        if (this.closed) this.log.debug(`${label}: closed before it could be written`);
        else if (isBusy(err)) this.log.warn(`${label}: the app's database stayed busy, gave up (the app's history misses this change)`);
        else this.log.warn(`${label} failed (the app's history misses this change):`, err);
        // A fresh handle next time: this one may be in a state we do not know.
        this.dropHandle();
      } finally {
        this.pending--;
        if (this.pending === 0) this.scheduleIdleClose();
      }
    });
    this.chain = run;
    return run;
  }

  /** The open handle, opening the existing file if needed; undefined when there is nothing to write to. */
  private handle(): Database | undefined {
    if (this.closed || this.unusable || !this.file) return undefined;
    if (this.db) return this.db;
    let st: Stats;
    try {
      st = statSync(this.file);
    } catch {
      if (!this.saidMissing) this.log.debug(`no ${this.file} (ZCode app not installed or not run yet): history not shared`);
      this.saidMissing = true;
      return undefined;
    }
    this.saidMissing = false;
    // A FIFO or a device there would block SQLite's first read for good.
    if (!st.isFile()) {
      this.unusable = true;
      this.log.warn(`${this.file} is not a regular file; not writing to the ZCode app's history`);
      return undefined;
    }
    // create: false as well as the check above: a file removed in between
    // must fail to open, not come back empty.
    const db = new Database(this.file, { readwrite: true, create: false });
    try {
      db.exec(`PRAGMA busy_timeout = ${Math.max(0, Math.floor(this.busyTimeoutMs))}`);
      const problem = layoutProblem(db);
      if (problem) {
        this.unusable = true;
        this.log.warn(`${this.file}: ${problem}; not writing to the ZCode app's history (a newer app?)`);
        db.close();
        return undefined;
      }
    } catch (err) {
      db.close();
      throw err;
    }
    this.db = db;
    return db;
  }

  private dropHandle(): void {
    const db = this.db;
    this.db = undefined;
    try {
      db?.close();
    } catch (err) {
      this.log.debug("closing the app's database:", err);
    }
  }

  private scheduleIdleClose(): void {
    this.cancelIdleClose();
    if (!this.db) return;
    this.idleTimer = setTimeout(() => {
      this.idleTimer = undefined;
      if (this.pending === 0) this.dropHandle();
    }, this.idleCloseMs);
    // An idle handle must not keep the bridge alive at exit.
    this.idleTimer.unref?.();
  }

  private cancelIdleClose(): void {
    if (this.idleTimer) clearTimeout(this.idleTimer);
    this.idleTimer = undefined;
  }
}
