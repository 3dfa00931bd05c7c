import type { ZCodeProtocolSetting } from "../config.ts";
import {
  type GoalAction,
  type HistoryTarget,
  type ModelChoice,
  type WorkspaceArg,
  workspaceOf,
  type ZCodeAttachment,
  type ZCodeMcpServer,
} from "./api-types.ts";
import { ZCodeApiCore, type Timeouts } from "./api-core.ts";
import type { ZCodeConnection } from "./connection.ts";
import { LOCAL_ERR, ZCODE_ERR, ZCodeError } from "./errors.ts";
import {
  CompactResultSchema,
  EmptyResultSchema,
  ForkResultSchema,
  GoalResultSchema,
  ListResultSchema,
  MessagesResultSchema,
  SendResultSchema,
  SettingsResultSchema,
  SnapshotSchema,
  SubscribeResultSchema,
  type CompactResult,
  type ForkResult,
  type GoalResult,
  type ListResult,
  type MessagesResult,
  type SendResult,
  type SettingsResult,
  type Snapshot,
  type SubscribeResult,
} from "./result-schemas.ts";
import { V4Feed, ProjectedStateSchema } from "./v4/feed.ts";
import { legacyRequestOf, resolveAnswerOf } from "./v4/interactions.ts";
import { ProtocolChoice, type Protocol } from "./v4/only-choice.ts";
import { V4OnlyCommands } from "./v4/only-commands.ts";
import { listSessions } from "./v4/only-list.ts";
import { goalShown } from "./v4/goal-show.ts";
import { historyPage, messagesOf, snapshotOf, type HistoryPage } from "./v4/only-reads.ts";
import { ConversationProjector } from "./v4/row-events.ts";
import { FrameAssembler } from "./v4/wire-frames.ts";
import * as v from "valibot";
import { log } from "../log.ts";

const logger = log.withTag("zcode");

// The typed ZCode API: one method per wire method, params shaped as the CLI
// wants them, results validated, per-method timeouts in one table. Errors are
// ZCodeError subclasses; a -32601 answer marks the method unsupported in the
// child's CliCapabilities (done by the connection).
//
// Each session operation runs on the protocol ProtocolChoice picks
// (v4/only-choice.ts): legacy session/* as ever, or, on a child that speaks
// v4 alone, the v4 form of it (v4/only-*.ts, v4/feed.ts) with the same
// result type. The operations v4 serves either way are in api-core.ts.

/** How many sessions session/list asks ZCode for (newest first). */
const LIST_LIMIT = 1000;

export { DEFAULT_TIMEOUTS, type Timeouts } from "./api-core.ts";
export type { HistoryPage } from "./v4/only-reads.ts";
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

export class ZCodeApi extends ZCodeApiCore {
  readonly choice: ProtocolChoice;
  private readonly only: V4OnlyCommands;
  private feedOnce: V4Feed | undefined;

  constructor(conn: ZCodeConnection, opts: { timeouts?: Timeouts; protocol?: ZCodeProtocolSetting } = {}) {
    super(conn, opts);
    this.choice = new ProtocolChoice(
      opts.protocol ?? "auto",
      () => this.hasV4(),
      () => this.conn.capabilities,
    );
    this.only = new V4OnlyCommands(conn, this.v4, (id) => {
      const r = v.safeParse(ProjectedStateSchema, this.feedOnce?.state(id));
      return r.success ? r.output.config : undefined;
    });
  }

  /** Which protocol carries the sessions now (for doctor and logs). */
  protocol(): Promise<Protocol> {
    return this.choice.current();
  }

  /** The conversation feed, made on first use (a legacy child never needs one). */
  private get feed(): V4Feed {
    this.feedOnce ??= new V4Feed(this.conn, this.v4, {
      assembler: () => new FrameAssembler(),
      projector: (id, sink) => new ConversationProjector(id, sink),
      legacyRequestOf: (i) => legacyRequestOf(i as never),
      resolveAnswerOf: (i, a) => ({ ...resolveAnswerOf(i as never, a) }),
    });
    return this.feedOnce;
  }

  /** The operation on the protocol in use; a legacy one that finds legacy gone runs again, once, in v4. */
  private async either<T>(legacy: () => Promise<T>, v4: () => Promise<T>): Promise<T> {
    if ((await this.choice.current()) === "v4") return v4();
    try {
      return await legacy();
    } catch (err) {
      if (await this.choice.switchAfter(err)) return v4();
      throw err;
    }
  }

  /** The session followed, and its legacy snapshot (v4: subscribe is an implicit cold resume). */
  private async v4Snapshot(sessionId: string, workspace?: WorkspaceArg): Promise<Snapshot> {
    await this.feed.open(sessionId, workspace);
    return snapshotOf(sessionId, this.feed.state(sessionId), workspace);
  }

  /** `workspace` is the session's absolute cwd. */
  async create(p: { workspace: WorkspaceArg; mode?: string; mcpServers?: ZCodeMcpServer[] }): Promise<Snapshot> {
    const legacy = () =>
      this.call("session/create", { workspace: workspaceOf(p.workspace), mode: p.mode, mcpServers: p.mcpServers }, SnapshotSchema);
    const [snapshot] = await Promise.all([
      this.either(legacy, async () => this.v4Snapshot(await this.only.create(p), p.workspace)),
      this.probeBeside(),
    ]);
    return snapshot;
  }

  /**
   * MCP servers are per-load runtime configuration: legacy ZCode wants them
   * again on every resume. v4 has no place for them on a resume: they are
   * the ones given at create, kept in the session's record (command.ts
   * createSession.mcpServers).
   */
  async resume(p: { sessionId: string; workspace: WorkspaceArg; mcpServers?: ZCodeMcpServer[] }): Promise<Snapshot> {
    const legacy = () =>
      this.call(
        "session/resume",
        { sessionId: p.sessionId, workspace: workspaceOf(p.workspace), mcpServers: p.mcpServers },
        SnapshotSchema,
      );
    const v4 = () => {
      if (p.mcpServers?.length)
        logger.info(
          `v4 resumes ${p.sessionId} with the MCP servers it was created with; the ${p.mcpServers.length} given now are not applied`,
        );
      return this.v4Snapshot(p.sessionId, p.workspace);
    };
    const [snapshot] = await Promise.all([this.either(legacy, v4), this.probeBeside()]);
    return snapshot;
  }

  /** ZCode answers 50 sessions unless asked for more; the editor pages through what we get. v4 lists one workspace. */
  list(p: { workspace?: WorkspaceArg; limit?: number } = {}): Promise<ListResult> {
    const limit = p.limit ?? LIST_LIMIT;
    const legacy = () =>
      this.call("session/list", { ...(p.workspace ? { workspace: workspaceOf(p.workspace) } : {}), limit }, ListResultSchema);
    return this.either(legacy, async () => {
      if (!p.workspace)
        throw new ZCodeError((e) => e.v4Cannot.listEverywhere, { code: LOCAL_ERR.unsupported, method: "v4/conversation/subscribe" });
      return listSessions(this.conn, workspaceOf(p.workspace).workspacePath, limit);
    });
  }

  /**
   * Settings, projection, todos and title. Without messageLimit ZCode sends the
   * whole transcript; history is read with messages() instead.
   */
  read(sessionId: string): Promise<Snapshot> {
    return this.either(
      () => this.call("session/read", { sessionId, messageLimit: 1 }, SnapshotSchema),
      () => this.v4Snapshot(sessionId),
    );
  }

  /** The last `limit` messages only (a compaction's summary), without the whole transcript. */
  lastMessages(sessionId: string, limit: number): Promise<MessagesResult> {
    return this.either(
      () => this.call("session/read", { sessionId, messageLimit: limit }, MessagesResultSchema),
      () => messagesOf(this.v4, sessionId, limit),
    );
  }

  /** The transcript, or its last `limit` messages (ZCode counts `limit` from the end). */
  messages(sessionId: string, opts: { limit?: number } = {}): Promise<MessagesResult> {
    return this.either(
      () => this.call("session/messages", { sessionId, ...(opts.limit ? { limit: opts.limit } : {}) }, MessagesResultSchema),
      () => messagesOf(this.v4, sessionId, opts.limit),
    );
  }

  /**
   * One page of history, newest first (v4 `rowsRange`, `beforeRowId` the
   * oldest row of the page read before); undefined on a child that speaks
   * legacy, whose history is read with messages().
   */
  async historyPage(sessionId: string, beforeRowId?: number): Promise<HistoryPage | undefined> {
    if ((await this.choice.current()) !== "v4") return undefined;
    return historyPage(this.v4, sessionId, beforeRowId);
  }

  /** v4: the conversation is followed (its events come as session/event envelopes); nothing to replay by seq. */
  subscribe(p: { sessionId: string; afterSeq?: number }): Promise<SubscribeResult> {
    const legacy = () =>
      this.call(
        "session/subscribe",
        { sessionId: p.sessionId, deliveryKind: "desktop-continuous", includeSnapshot: false, afterSeq: p.afterSeq },
        SubscribeResultSchema,
      );
    return this.either(legacy, async () => {
      await this.feed.open(p.sessionId);
      return { events: [] };
    });
  }

  /**
   * ZCode's "delete" (api-core.ts). On a child that speaks v4 alone a
   * session it does not hold is made live by subscribing to it (an implicit
   * cold resume, no workspace needed) and deleted then; the subscription
   * ends with it. A legacy child is left to the caller, who resumes it.
   */
  override async deleteSession(sessionId: string): Promise<boolean> {
    try {
      const done = await super.deleteSession(sessionId);
      // A session followed on v4 is followed no more.
      await this.release(sessionId);
      return done;
    } catch (err) {
      if (!(err instanceof ZCodeError && err.code === ZCODE_ERR.notActive) || (await this.choice.current()) !== "v4") throw err;
    }
    await this.feed.open(sessionId);
    try {
      return await super.deleteSession(sessionId);
    } finally {
      await this.feed.close(sessionId);
    }
  }

  /** Stops following a v4-only child's session (v4/conversation/unsubscribe); nothing on legacy. */
  async release(sessionId: string): Promise<void> {
    await this.feedOnce?.close(sessionId);
  }

  send(p: { sessionId: string; content: string; attachments?: ZCodeAttachment[] }): Promise<SendResult> {
    const params = { sessionId: p.sessionId, content: p.content, ...(p.attachments?.length ? { attachments: p.attachments } : {}) };
    return this.either(
      () => this.call("session/send", params, SendResultSchema),
      () => this.only.send(p),
    );
  }

  /** A request, not a notification: the CLI ignores frames without an id. The turn then ends `cancelled`. */
  async stop(sessionId: string): Promise<void> {
    await this.either(
      () => this.call("session/stop", { sessionId }, EmptyResultSchema),
      () => this.only.stop(sessionId),
    );
  }

  fork(p: { sessionId: string; target: HistoryTarget }): Promise<ForkResult> {
    return this.either(
      () => this.call("session/fork", { sessionId: p.sessionId, target: p.target }, ForkResultSchema),
      () => this.only.fork(p),
    );
  }

  goal(p: { sessionId: string; action: GoalAction; objective?: string }): Promise<GoalResult> {
    return this.either(
      () => this.call("session/goal", { sessionId: p.sessionId, action: p.action, objective: p.objective }, GoalResultSchema),
      () =>
        p.action === "show"
          ? this.v4GoalShown(p.sessionId)
          : this.v4Starting(
              p.sessionId,
              () => this.only.goal(p),
              (r) => r.startedTurn === true,
            ),
    );
  }

  /** `/goal` (show) on v4: the goal the conversation snapshot carries (v4 has no command that shows it). */
  private async v4GoalShown(sessionId: string): Promise<GoalResult> {
    await this.feed.open(sessionId);
    return goalShown(this.feed.state(sessionId));
  }

  /**
   * A v4 command whose accepted ACK means a turn starts (compact, a goal set): answered once that turn is seen
   * started, so that what reads the session next (waitIdle) finds it running, as legacy's answer left it.
   */
  private async v4Starting<T>(sessionId: string, command: () => Promise<T>, starts: (r: T) => boolean): Promise<T> {
    // Only a followed session has a projection to wait on (the session layer follows every open one).
    const next = this.feedOnce?.nextWork(sessionId);
    try {
      const r = await command();
      if (next && starts(r) && !(await next.started)) logger.debug(`no work of ${sessionId} was seen starting after the command`);
      return r;
    } finally {
      next?.cancel();
    }
  }

  compact(p: { sessionId: string; instructions?: string }): Promise<CompactResult> {
    return this.either(
      () => this.call("session/compact", { sessionId: p.sessionId, instructions: p.instructions }, CompactResultSchema),
      () =>
        this.v4Starting(
          p.sessionId,
          () => this.only.compact(p),
          (r) => r.compact?.state === "accepted",
        ),
    );
  }

  setMode(p: { sessionId: string; mode: string }): Promise<SettingsResult> {
    return this.either(
      () => this.call("session/setMode", { sessionId: p.sessionId, mode: p.mode }, SettingsResultSchema),
      () => this.only.setMode(p),
    );
  }

  setThoughtLevel(p: { sessionId: string; thoughtLevel: string }): Promise<SettingsResult> {
    return this.either(
      () => this.call("session/setThoughtLevel", { sessionId: p.sessionId, thoughtLevel: p.thoughtLevel }, SettingsResultSchema),
      () => this.only.setThoughtLevel(p),
    );
  }

  /** For this session only: the editor's choice must not change the workspace's default in the app. */
  setModel(p: { sessionId: string; model: ModelChoice }): Promise<SettingsResult> {
    return this.either(
      () =>
        this.call("session/setModel", { sessionId: p.sessionId, model: p.model, persistAsWorkspaceLastUsed: false }, SettingsResultSchema),
      () => this.only.setModel(p),
    );
  }
}
