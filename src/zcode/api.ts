import type { CliCapabilities } from "./capabilities.ts";
import type { ZCodeConnection } from "./connection.ts";
import {
  CloseResultSchema,
  CompactResultSchema,
  EmptyResultSchema,
  ForkResultSchema,
  GoalResultSchema,
  ListResultSchema,
  MessagesResultSchema,
  RewindResultSchema,
  SendResultSchema,
  SettingsResultSchema,
  SnapshotSchema,
  SteerResultSchema,
  SubscribeResultSchema,
  type CompactResult,
  type ForkResult,
  type GoalResult,
  type ListResult,
  type MessagesResult,
  type RewindResult,
  type SendResult,
  type SettingsResult,
  type Snapshot,
  type SteerResult,
  type SubscribeResult,
} from "./result-schemas.ts";
import {
  type GoalAction,
  type HistoryTarget,
  type ModelChoice,
  type RewindOutcome,
  type SteerOutcome,
  type WorkspaceArg,
  workspaceOf,
  type ZCodeAttachment,
  type ZCodeMcpServer,
} from "./api-types.ts";
import { V4Channel, V4CommandError } from "./v4/channel.ts";
import { editOutcome, editTarget, fileRewindOutcome, fileRewindTarget, retryTarget, type EditOutcome } from "./v4/picks.ts";
import { V4Probe } from "./v4/probe.ts";
import { InputAcceptedSchema, type RowsRange } from "./v4/schemas.ts";
import * as v from "valibot";
import { LOCAL_ERR, ZCODE_ERR, ZCodeError } from "./errors.ts";
import { log } from "../log.ts";

const logger = log.withTag("zcode");

// The typed ZCode API: one method per wire method, params shaped as the CLI
// wants them, results validated, per-method timeouts in one table. Errors are
// ZCodeError subclasses; a -32601 answer marks the method unsupported in the
// child's CliCapabilities (done by the connection).

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

/** How many sessions session/list asks ZCode for (newest first). */
const LIST_LIMIT = 1000;

export {
  type GoalAction,
  type HistoryTarget,
  type ModelChoice,
  type RewindOutcome,
  type SteerOutcome,
  type WorkspaceArg,
  workspaceOf,
  type ZCodeAttachment,
  type ZCodeMcpServer,
} from "./api-types.ts";

export class ZCodeApi {
  readonly conn: ZCodeConnection;
  private readonly timeouts: Timeouts;
  private readonly v4: V4Channel;
  private readonly v4Probe: V4Probe;

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

  private unsupported(method: string): ZCodeError {
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

  private call<T>(method: string, params: unknown, schema: v.GenericSchema<unknown, T>): Promise<T> {
    return this.conn.request(method, params, { timeoutMs: this.timeoutFor(method), schema });
  }

  /** `workspace` is the session's absolute cwd. */
  async create(p: { workspace: WorkspaceArg; mode?: string; mcpServers?: ZCodeMcpServer[] }): Promise<Snapshot> {
    const [snapshot] = await Promise.all([
      this.call("session/create", { workspace: workspaceOf(p.workspace), mode: p.mode, mcpServers: p.mcpServers }, SnapshotSchema),
      this.probeBeside(),
    ]);
    return snapshot;
  }

  /**
   * The v4 probe, sent beside a session's first request so the slash menu
   * the session announces already knows what this CLI offers. Never fails
   * the request it goes with, and holds it only briefly: a late answer
   * updates the menu when it comes.
   */
  private probeBeside(): Promise<unknown> {
    return this.v4Probe.briefly(this.hasV4());
  }

  /** MCP servers are per-load runtime configuration: ZCode wants them again on every resume. */
  async resume(p: { sessionId: string; workspace: WorkspaceArg; mcpServers?: ZCodeMcpServer[] }): Promise<Snapshot> {
    const [snapshot] = await Promise.all([
      this.call(
        "session/resume",
        { sessionId: p.sessionId, workspace: workspaceOf(p.workspace), mcpServers: p.mcpServers },
        SnapshotSchema,
      ),
      this.probeBeside(),
    ]);
    return snapshot;
  }

  /** ZCode answers 50 sessions unless asked for more; the editor pages through what we get. */
  list(p: { workspace?: WorkspaceArg; limit?: number } = {}): Promise<ListResult> {
    return this.call(
      "session/list",
      { ...(p.workspace ? { workspace: workspaceOf(p.workspace) } : {}), limit: p.limit ?? LIST_LIMIT },
      ListResultSchema,
    );
  }

  /**
   * Settings, projection, todos and title. Without messageLimit ZCode sends the
   * whole transcript; history is read with messages() instead.
   */
  read(sessionId: string): Promise<Snapshot> {
    return this.call("session/read", { sessionId, messageLimit: 1 }, SnapshotSchema);
  }

  /** The last `limit` messages only (a compaction's summary), without the whole transcript. */
  lastMessages(sessionId: string, limit: number): Promise<MessagesResult> {
    return this.call("session/read", { sessionId, messageLimit: limit }, MessagesResultSchema);
  }

  /** The transcript, or its last `limit` messages (ZCode counts `limit` from the end). */
  messages(sessionId: string, opts: { limit?: number } = {}): Promise<MessagesResult> {
    return this.call("session/messages", { sessionId, ...(opts.limit ? { limit: opts.limit } : {}) }, MessagesResultSchema);
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

  subscribe(p: { sessionId: string; afterSeq?: number }): Promise<SubscribeResult> {
    return this.call(
      "session/subscribe",
      { sessionId: p.sessionId, deliveryKind: "desktop-continuous", includeSnapshot: false, afterSeq: p.afterSeq },
      SubscribeResultSchema,
    );
  }

  send(p: { sessionId: string; content: string; attachments?: ZCodeAttachment[] }): Promise<SendResult> {
    return this.call(
      "session/send",
      { sessionId: p.sessionId, content: p.content, ...(p.attachments?.length ? { attachments: p.attachments } : {}) },
      SendResultSchema,
    );
  }

  /** A request, not a notification: the CLI ignores frames without an id. The turn then ends `cancelled`. */
  async stop(sessionId: string): Promise<void> {
    await this.call("session/stop", { sessionId }, EmptyResultSchema);
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
      const r = v.safeParse(InputAcceptedSchema, ack.result);
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

  fork(p: { sessionId: string; target: HistoryTarget }): Promise<ForkResult> {
    return this.call("session/fork", { sessionId: p.sessionId, target: p.target }, ForkResultSchema);
  }

  rewind(p: { sessionId: string; target: HistoryTarget; expectedRevision?: number }): Promise<RewindResult> {
    return this.call(
      "session/rewind",
      { sessionId: p.sessionId, target: p.target, expectedRevision: p.expectedRevision },
      RewindResultSchema,
    );
  }

  goal(p: { sessionId: string; action: GoalAction; objective?: string }): Promise<GoalResult> {
    return this.call("session/goal", { sessionId: p.sessionId, action: p.action, objective: p.objective }, GoalResultSchema);
  }

  compact(p: { sessionId: string; instructions?: string }): Promise<CompactResult> {
    return this.call("session/compact", { sessionId: p.sessionId, instructions: p.instructions }, CompactResultSchema);
  }

  steer(p: { sessionId: string; content: string }): Promise<SteerResult> {
    return this.call("session/steer", { sessionId: p.sessionId, content: p.content }, SteerResultSchema);
  }

  setMode(p: { sessionId: string; mode: string }): Promise<SettingsResult> {
    return this.call("session/setMode", { sessionId: p.sessionId, mode: p.mode }, SettingsResultSchema);
  }

  setThoughtLevel(p: { sessionId: string; thoughtLevel: string }): Promise<SettingsResult> {
    return this.call("session/setThoughtLevel", { sessionId: p.sessionId, thoughtLevel: p.thoughtLevel }, SettingsResultSchema);
  }

  /** For this session only: the editor's choice must not change the workspace's default in the app. */
  setModel(p: { sessionId: string; model: ModelChoice }): Promise<SettingsResult> {
    return this.call(
      "session/setModel",
      { sessionId: p.sessionId, model: p.model, persistAsWorkspaceLastUsed: false },
      SettingsResultSchema,
    );
  }
}
