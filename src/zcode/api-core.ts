import type * as v from "valibot";
import type { CliCapabilities } from "./capabilities.ts";
import type { ZCodeConnection } from "./connection.ts";
import { CloseResultSchema, RewindResultSchema, SteerResultSchema, type RewindResult, type SteerResult } from "./result-schemas.ts";
import type { HistoryTarget, RewindOutcome, SteerOutcome } from "./api-types.ts";
import { V4Channel, V4CommandError } from "./v4/channel.ts";
import { editOutcome, editTarget, fileRewindOutcome, fileRewindTarget, retryTarget, type EditOutcome } from "./v4/picks.ts";
import { V4Probe } from "./v4/probe.ts";
import { InputAcceptedSchema, type RowsRange } from "./v4/schemas.ts";
import * as valibot from "valibot";
import { LOCAL_ERR, ZCODE_ERR, ZCodeError } from "./errors.ts";
import { log } from "../log.ts";

const logger = log.withTag("zcode");

// The part of ZCodeApi (api.ts) every protocol shares: the child, its v4
// probe, timeouts, and the operations ZCode serves on its v4 command channel
// whichever protocol carries the sessions (/steer, /rewind, retry, the stop
// of a v4 turn, delete), with their legacy forms for a CLI without v4.

/** Per-method timeouts in ms. Everything not listed uses `default`. */
export const DEFAULT_TIMEOUTS: Readonly<Record<string, number>> = {
  default: 30_000,
  "session/create": 30_000,
  "session/resume": 30_000,
  "session/read": 30_000,
  "session/list": 30_000,
  // History grows with the session; long sessions have taken many seconds.
  "session/messages": 60_000,
  "session/subscribe": 30_000,
  "session/send": 30_000,
  "session/compact": 120_000,
  // Answers at once; a stop that hangs must not hold a cancel for long.
  "session/stop": 10_000,
  // A steer's ACK (v4 sendText guide): ZCode answers once the guide is admitted, at once; well under a turn.
  "v4/steer": 10_000,
};

export type Timeouts = Partial<Record<string, number>>;

export class ZCodeApiCore {
  readonly conn: ZCodeConnection;
  protected readonly timeouts: Timeouts;
  protected readonly v4: V4Channel;
  protected readonly v4Probe: V4Probe;

  constructor(conn: ZCodeConnection, opts: { timeouts?: Timeouts } = {}) {
    this.conn = conn;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
    this.v4 = new V4Channel(conn);
    this.v4Probe = new V4Probe(this.v4, () => this.conn.capabilities);
  }

  /**
   * Does the running CLI serve the v4 command channel? Probed per child
   * (ZCODE-V4.md §2: by asking, never by version; v4/probe.ts); the answer
   * also goes to the child's capabilities, so the slash menu follows it.
   */
  async hasV4(): Promise<boolean> {
    await this.conn.start();
    const caps = this.conn.capabilities;
    return caps ? this.v4Probe.ask(caps) : false;
  }

  protected unsupported(method: string): ZCodeError {
    return new ZCodeError((e) => e.unsupportedMethod(method, this.conn.capabilities?.version ?? "?"), {
      code: LOCAL_ERR.unsupported,
      method,
    });
  }

  /** The current child's capabilities (undefined before the first start or after a death). */
  capabilities(): CliCapabilities | undefined {
    return this.conn.capabilities;
  }

  timeoutFor(method: string): number {
    return this.timeouts[method] ?? this.timeouts.default ?? 30_000;
  }

  protected call<T>(method: string, params: unknown, schema: v.GenericSchema<unknown, T>): Promise<T> {
    return this.conn.request(method, params, { timeoutMs: this.timeoutFor(method), schema });
  }

  /**
   * The v4 probe, sent beside a session's first request so the slash menu
   * the session announces already knows what this CLI offers. Never fails
   * the request it goes with, and holds it only briefly: a late answer
   * updates the menu when it comes.
   */
  protected probeBeside(): Promise<unknown> {
    return this.v4Probe.briefly(this.hasV4());
  }

  /**
   * A subagent's session as ZCode's v4 projection has it (its newest rows),
   * or undefined on a CLI without v4. A running child has no legacy record
   * (legacy reads of it fail -32004), only a v4 publisher.
   */
  async childRows(sessionId: string, beforeRowId?: number): Promise<RowsRange | undefined> {
    if (!(await this.hasV4())) return undefined;
    return this.v4.liveRows(sessionId, beforeRowId);
  }

  /**
   * ZCode's "delete". Only ACP session/delete may call this. v4
   * `deleteSession` is a close of the live session, as legacy
   * `session/close` is (session-mgmt.ts:164-181, "非真删 record"): the
   * conversation stays in ZCode's store and `session/list`, so the bridge
   * hides it itself (src/session/tombstones.ts). A CLI without v4 gets
   * `session/close`. The session must be open in the child (resume it
   * first): v4 answers `rejected proto.sessionNotFound` otherwise. False
   * when ZCode did nothing (a `noop` ACK, legacy `closed: false`).
   */
  async deleteSession(sessionId: string): Promise<boolean> {
    if (await this.hasV4()) {
      try {
        // accepted, or duplicate (a retry of a delete that went through); noop did nothing.
        return (await this.v4.plain(sessionId, "deleteSession", {})).status !== "noop";
      } catch (err) {
        // Not live in this child: the same as legacy's "not active", so the caller resumes it and asks again.
        if (err instanceof V4CommandError && err.reasonCode === "proto.sessionNotFound") {
          throw new ZCodeError(`Session is not active: ${sessionId}`, { code: ZCODE_ERR.notActive, method: "v4/command deleteSession" });
        }
        throw err;
      }
    }
    const r = await this.call("session/close", { sessionId }, CloseResultSchema);
    return r.closed !== false;
  }

  /**
   * Steers the running turn with `text` (ZCODE-V4.md §5.1): v4 `sendText`
   * delivered as a guide, taken in at the turn's next step; on 0.15 the
   * legacy session/steer.
   */
  async steerTurn(p: { sessionId: string; text: string }): Promise<SteerOutcome> {
    if (await this.hasV4()) {
      const ack = await this.v4.plain(p.sessionId, "sendText", { text: p.text, requestedDelivery: "guide" }, this.timeoutFor("v4/steer"));
      const r = valibot.safeParse(InputAcceptedSchema, ack.result);
      // A guide admitted into a running turn reports "queue"; "startNow" means no turn ran any more.
      const delivery = r.success && r.output.delivery === "startNow" ? "startNow" : "guide";
      return { delivery, inputId: ack.commandId };
    }
    if (this.capabilities()?.supports("session/steer") === false) throw this.unsupported("session/steer");
    await this.steer({ sessionId: p.sessionId, content: p.text });
    return { delivery: "guide" };
  }

  /**
   * Removes an input ZCode holds in its queue (a steer its turn never took
   * in: after a stop or a failure ZCode keeps it, queue paused, and would
   * run it when the queue is resumed). v4 `deleteQueueItem`, whose
   * queueItemId is the steer's pendingInputId (handlers/queue.ts); `noop`
   * when it is gone already. Nothing to do on a CLI without v4.
   */
  async deleteQueueItem(p: { sessionId: string; queueItemId: string }): Promise<void> {
    if (!(await this.hasV4())) return;
    await this.v4.cas(p.sessionId, "deleteQueueItem", { queueItemId: p.queueItemId });
  }

  /**
   * /rewind alone: v4 undoes the last turn's file changes and keeps the chat
   * (`applyFileRewind`); unsafe files leave everything as it was. A CLI
   * without v4 rewinds the conversation to its latest checkpoint.
   */
  async rewindLastTurn(p: { sessionId: string; expectedRevision?: number }): Promise<RewindOutcome> {
    if (await this.hasV4()) {
      const sent = await this.v4.targeted(p.sessionId, fileRewindTarget);
      return sent ? fileRewindOutcome(sent.ack.result) : { kind: "nothing" };
    }
    if (this.capabilities()?.supports("session/rewind") === false) throw this.unsupported("session/rewind");
    const result = await this.rewind({
      sessionId: p.sessionId,
      target: { kind: "latestCheckpoint" },
      expectedRevision: p.expectedRevision,
    });
    return { kind: "conversation", result };
  }

  /**
   * /rewind <new prompt>: the last prompt is replaced by `text` and run again,
   * the files of its turn restored first when it changed any (`editUserQuery`,
   * workspaceMode "rewind", else "preserve": picks.ts). v4 only: undefined on
   * a CLI without it.
   */
  async rewritePrompt(p: { sessionId: string; text: string }): Promise<EditOutcome | undefined> {
    if (!(await this.hasV4())) return undefined;
    const sent = await this.v4.targeted(p.sessionId, editTarget(p.text));
    if (!sent) return { kind: "nothing" };
    return editOutcome(sent.ack.result, sent.commandId, sent.payload.workspaceMode === "rewind" ? "rewind" : "preserve");
  }

  /**
   * Runs a failed turn again without a second copy of its prompt in ZCode's
   * history (ZCODE-V4.md §5.4). Resolves with the command id (the new turn's
   * queryId), or undefined when this CLI cannot (no v4, nothing ZCode offers
   * to retry, or ZCode refused the retry: rejected, stale twice, failed):
   * the caller then sends the prompt again. `failed activePrompt` (Core
   * still settles the failed turn) is thrown as busy: the caller waits for
   * idle and sends again. ZCode cut the failed turn before it refused
   * (fork-edit-retry.ts retryTurn rewinds, then prompt-turn.ts admission
   * answers activePrompt), so that send leaves one copy too. An error that
   * is not an ACK (a timeout, a garbled answer) is thrown as it is: ZCode
   * may have started the retry, and a second prompt would run it twice.
   */
  async retryTurn(p: { sessionId: string; turnId: string }): Promise<{ commandId: string } | undefined> {
    if (!(await this.hasV4())) return undefined;
    try {
      const sent = await this.v4.targeted(p.sessionId, retryTarget(p.turnId));
      return sent ? { commandId: sent.commandId } : undefined;
    } catch (err) {
      if (!(err instanceof V4CommandError)) throw err;
      if (err.reasonCode === "activePrompt") throw new ZCodeError(err.message, { code: ZCODE_ERR.promptRunning, method: err.method });
      logger.info(`ZCode refused the retry (${err.status} ${err.reasonCode ?? "without a reason"}); sending the prompt again`);
      return undefined;
    }
  }

  /**
   * Stops a turn the bridge started with a v4 command: legacy session/stop
   * does not reach those (ZCODE-V4.md §5.2). With the turn's
   * foregroundExecutionId a late stop never stops the next turn (ZCode
   * answers `noop`).
   */
  async stopV4Turn(p: { sessionId: string; foregroundExecutionId?: string }): Promise<void> {
    await this.v4.plain(p.sessionId, "stop", p.foregroundExecutionId ? { expectedForegroundExecutionId: p.foregroundExecutionId } : {});
  }

  rewind(p: { sessionId: string; target: HistoryTarget; expectedRevision?: number }): Promise<RewindResult> {
    return this.call(
      "session/rewind",
      { sessionId: p.sessionId, target: p.target, expectedRevision: p.expectedRevision },
      RewindResultSchema,
    );
  }

  steer(p: { sessionId: string; content: string }): Promise<SteerResult> {
    return this.call("session/steer", { sessionId: p.sessionId, content: p.content }, SteerResultSchema);
  }
}
