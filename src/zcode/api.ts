import type * as v from "valibot";
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
import type { Workspace } from "./schemas.ts";

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
};

export type Timeouts = Partial<Record<string, number>>;

/** How many sessions session/list asks ZCode for (newest first). */
const LIST_LIMIT = 1000;

/** An MCP server as session/create and session/resume take it (ZCode's schema is strict: nothing else). */
export type ZCodeMcpServer =
  | { name: string; command: string; args: string[]; env: Array<{ name: string; value: string }> }
  | { name: string; type: "http" | "sse"; url: string; headers: Array<{ name: string; value: string }> };

/** A point of the history to fork or rewind at. */
export type HistoryTarget = { kind: "latestCheckpoint" } | { kind: "checkpoint"; checkpointId: string };

export type GoalAction = "show" | "set" | "replace" | "clear" | "pause" | "resume";

/** What a file or image of a prompt is on the wire (`session/send.attachments`). */
export interface ZCodeAttachment {
  kind: "image" | "pdf" | "file";
  filename: string;
  mimeType: string;
  sizeBytes: number;
  dataBase64?: string;
  localPath?: string;
}

/** `session/setModel`'s model: a level-bearing model needs `options.reasoningLevel`. */
export interface ModelChoice {
  providerId: string;
  modelId: string;
  options?: { reasoningLevel: string };
}

/**
 * What `workspace` is on the wire. Callers may pass the absolute cwd (sent as
 * the same path twice) or a workspace object.
 */
export type WorkspaceArg = string | Workspace;

/** Exactly the two keys ZCode's strict schema requires, whatever the argument carried. */
export function workspaceOf(w: WorkspaceArg): { workspacePath: string; workspaceKey: string } {
  if (typeof w === "string") return { workspacePath: w, workspaceKey: w };
  return { workspacePath: w.workspacePath, workspaceKey: w.workspaceKey ?? w.workspacePath };
}

export class ZCodeApi {
  readonly conn: ZCodeConnection;
  private readonly timeouts: Timeouts;

  constructor(conn: ZCodeConnection, opts: { timeouts?: Timeouts } = {}) {
    this.conn = conn;
    this.timeouts = { ...DEFAULT_TIMEOUTS, ...opts.timeouts };
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
  create(p: { workspace: WorkspaceArg; mode?: string; mcpServers?: ZCodeMcpServer[] }): Promise<Snapshot> {
    return this.call(
      "session/create",
      { workspace: workspaceOf(p.workspace), mode: p.mode, mcpServers: p.mcpServers },
      SnapshotSchema,
    );
  }

  /** MCP servers are per-load runtime configuration: ZCode wants them again on every resume. */
  resume(p: { sessionId: string; workspace: WorkspaceArg; mcpServers?: ZCodeMcpServer[] }): Promise<Snapshot> {
    return this.call(
      "session/resume",
      { sessionId: p.sessionId, workspace: workspaceOf(p.workspace), mcpServers: p.mcpServers },
      SnapshotSchema,
    );
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
   * Deletes the user's conversation: ZCode's own `session/close` removes it
   * (it publishes session.removed; 0.16.9). The session must be live in the
   * child. Only ACP session/delete may call this; ACP session/close never does.
   */
  async deleteSession(sessionId: string): Promise<boolean> {
    const r = await this.call("session/close", { sessionId }, CloseResultSchema);
    return r.closed !== false;
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
    return this.call(
      "session/setThoughtLevel",
      { sessionId: p.sessionId, thoughtLevel: p.thoughtLevel },
      SettingsResultSchema,
    );
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
