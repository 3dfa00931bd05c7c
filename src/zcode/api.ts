import type * as v from "valibot";
import type { CliCapabilities } from "./capabilities.ts";
import type { ZCodeConnection } from "./connection.ts";
import {
  CompactResultSchema,
  CreateResultSchema,
  EmptyResultSchema,
  ForkResultSchema,
  GoalResultSchema,
  ListResultSchema,
  MessagesResultSchema,
  ReadResultSchema,
  ResumeResultSchema,
  RewindResultSchema,
  SendResultSchema,
  SetModeResultSchema,
  SetThoughtLevelResultSchema,
  SteerResultSchema,
  SubscribeResultSchema,
  type CheckpointTarget,
  type CompactResult,
  type CreateResult,
  type ForkResult,
  type GoalAction,
  type GoalResult,
  type ListResult,
  type MessagesResult,
  type ReadResult,
  type ResumeResult,
  type RewindResult,
  type SendResult,
  type SetModeResult,
  type SetThoughtLevelResult,
  type SteerResult,
  type SubscribeResult,
  type Workspace,
} from "./schemas.ts";

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
};

export type Timeouts = Partial<Record<string, number>>;

/**
 * What `workspace` is on the wire. Callers may pass the absolute cwd (sent as
 * the same path twice) or the wire object itself.
 */
export type WorkspaceArg = string | Workspace;

export function workspaceOf(w: WorkspaceArg): Workspace {
  if (typeof w === "string") return { workspacePath: w, workspaceKey: w };
  return { ...w, workspaceKey: w.workspaceKey ?? w.workspacePath };
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
  create(p: { workspace: WorkspaceArg; mode?: string; mcpServers?: unknown[] }): Promise<CreateResult> {
    return this.call(
      "session/create",
      { workspace: workspaceOf(p.workspace), mode: p.mode, mcpServers: p.mcpServers },
      CreateResultSchema,
    );
  }

  resume(p: { sessionId: string; workspace: WorkspaceArg }): Promise<ResumeResult> {
    return this.call("session/resume", { sessionId: p.sessionId, workspace: workspaceOf(p.workspace) }, ResumeResultSchema);
  }

  list(p: { workspace?: WorkspaceArg } = {}): Promise<ListResult> {
    return this.call("session/list", p.workspace ? { workspace: workspaceOf(p.workspace) } : {}, ListResultSchema);
  }

  read(sessionId: string): Promise<ReadResult> {
    return this.call("session/read", { sessionId }, ReadResultSchema);
  }

  messages(sessionId: string): Promise<MessagesResult> {
    return this.call("session/messages", { sessionId }, MessagesResultSchema);
  }

  subscribe(p: { sessionId: string; afterSeq?: number; includeSnapshot?: boolean }): Promise<SubscribeResult> {
    return this.call(
      "session/subscribe",
      {
        sessionId: p.sessionId,
        deliveryKind: "desktop-continuous",
        includeSnapshot: p.includeSnapshot ?? false,
        afterSeq: p.afterSeq,
      },
      SubscribeResultSchema,
    );
  }

  send(p: { sessionId: string; content: string }): Promise<SendResult> {
    return this.call("session/send", { sessionId: p.sessionId, content: p.content }, SendResultSchema);
  }

  /** Fire-and-forget, as the CLI defines it. */
  stop(sessionId: string): void {
    this.conn.notify("session/stop", { sessionId });
  }

  async close(sessionId: string): Promise<void> {
    await this.call("session/close", { sessionId }, EmptyResultSchema);
  }

  fork(p: { sessionId: string; target: CheckpointTarget }): Promise<ForkResult> {
    return this.call("session/fork", { sessionId: p.sessionId, target: p.target }, ForkResultSchema);
  }

  rewind(p: { sessionId: string; target: CheckpointTarget; expectedRevision?: number }): Promise<RewindResult> {
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

  setMode(p: { sessionId: string; mode: string }): Promise<SetModeResult> {
    return this.call("session/setMode", { sessionId: p.sessionId, mode: p.mode }, SetModeResultSchema);
  }

  setThoughtLevel(p: { sessionId: string; thoughtLevel: string }): Promise<SetThoughtLevelResult> {
    return this.call(
      "session/setThoughtLevel",
      { sessionId: p.sessionId, thoughtLevel: p.thoughtLevel },
      SetThoughtLevelResultSchema,
    );
  }
}
