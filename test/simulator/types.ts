// Shapes the simulator stores and sends (ZCode's zcode-protocol schemas; see
// zcode-schemas.ts for the strict versions the tests check against).
import type { ModelSel } from "./catalog.ts";

export interface Workspace {
  workspacePath: string;
  workspaceKey: string;
  workspaceIdentity?: string;
  remoteSessionId?: string;
}

export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "high" | "medium" | "low";
}

export interface TokenUsage {
  total?: number;
  input: number;
  output: number;
  reasoning: number;
  cache: { read: number; write: number };
}

export interface Semantics {
  origin: "real_user" | "agent_runtime" | "system" | "migration" | "import";
  kind: string;
  source?: string;
  commandName?: string;
  uiVisibility: "visible" | "hidden" | "debug";
  providerVisibility: "visible" | "hidden";
  transcriptVisibility: "visible" | "hidden";
}

export type ToolState =
  | { status: "pending"; input: Record<string, unknown>; raw: string }
  | { status: "running"; input: Record<string, unknown>; title?: string; metadata?: Record<string, unknown>; startedAt: number }
  | {
      status: "completed";
      input: Record<string, unknown>;
      output: string;
      title: string;
      metadata: Record<string, unknown>;
      startedAt: number;
      completedAt: number;
    }
  | {
      status: "error";
      input: Record<string, unknown>;
      error: string;
      metadata?: Record<string, unknown>;
      startedAt: number;
      completedAt: number;
    };

interface PartBase {
  partId: string;
  sessionId: string;
  messageId: string;
}

export type TextPart = PartBase & { type: "text"; text: string; synthetic?: boolean };
export type ReasoningPart = PartBase & { type: "reasoning"; text: string };
export type ToolPart = PartBase & { type: "tool"; callId: string; tool: string; state: ToolState };
export type MessagePart =
  | TextPart
  | ReasoningPart
  | ToolPart
  | (PartBase & { type: "step-start" })
  | (PartBase & { type: "step-finish"; reason: string; cost: number; tokens: TokenUsage })
  | (PartBase & { type: "compaction"; auto: boolean; reason?: string; summaryMessageId?: string });

/** rows.ts subagentRowSchema, the facts of one row (the rest is the row base of its turn). */
export interface SubagentRowFact {
  /** The row's entity: ZCode's agentId (onSubagentSpawned rowBase(event, turnId, agentId)). */
  agentId: string;
  turnId: string;
  parentToolCallId: string;
  subagentType: string;
  status: "running" | "success" | "failed" | "cancelled";
  summaryText: string;
  childSessionId: string;
  startedAt: number;
  endedAt?: number;
}

export interface UserInfo {
  messageId: string;
  sessionId: string;
  role: "user";
  time: { created: number; completed?: number };
  agent: string;
  model?: ModelSel;
  synthetic?: boolean;
  source?: string;
  visibility?: "user-visible" | "model-only";
  semantics?: Semantics;
}

export interface AssistantInfo {
  messageId: string;
  sessionId: string;
  role: "assistant";
  time: { created: number; completed?: number };
  parentMessageId: string;
  agent: string;
  model?: ModelSel;
  path: { cwd: string; root: string };
  cost: number;
  tokens: TokenUsage;
  finish?: string;
  error?: Record<string, unknown>;
  semantics?: Semantics;
}

export interface Message {
  info: UserInfo | AssistantInfo;
  parts: MessagePart[];
}

/** A session event as stored: the envelope without deliveryKind (added when mapped). */
export interface StoredEvent {
  eventId: string;
  payload: Record<string, unknown>;
  seq: number;
  sessionId: string;
  timestamp: number;
  traceId: string;
  turnId?: string;
  type: string;
}

export interface Checkpoint {
  checkpointId: string;
  turnId: string;
  /** Messages after the turn: forking here copies the whole turn. */
  messagesAfter: number;
  /** Messages before the turn: rewinding here undoes it (0.15 session/rewind). */
  messagesBefore: number;
  todosBefore: Todo[];
  todosAfter: Todo[];
  targetMessageId: string;
  createdAt: number;
}

export interface Goal {
  targetId: string;
  objective: string;
  status: "active" | "paused" | "budget_limited" | "complete";
  tokensUsed: number;
  createdAt: number;
  updatedAt: number;
}

export interface PermissionRule {
  toolName: string;
  ruleContent?: string;
  behavior: "allow" | "deny" | "ask";
}

/** A file a turn changed, as ZCode's file rewind sees it (v4 fileRewindPreview). */
export interface FileChange {
  path: string;
  /** restore: an existing file edited; delete: a file the turn created. */
  action: "restore" | "delete";
  toolNames: string[];
  operationCount: number;
  /** Set when the checkpoint cannot restore it (scenario param unsafe=<reason>). */
  unsafeReason?: string;
}

/** One product turn as the v4 rows project it (turnHeader + its messages). */
export interface TurnLog {
  turnId: string;
  origin: "userInput" | "editRerun" | "goalContinuation";
  state: "running" | "completedSuccess" | "completedInterrupted" | "failed";
  startedAt: number;
  endedAt?: number;
  /** Every message of the turn, in order (the prompt, guided prompts, replies). */
  messageIds: string[];
  /** Prompts a steer put into the turn (userInput rows with guided:true). */
  guidedIds: string[];
  files: FileChange[];
  fileState: "active" | "reverted";
  sourceCommandId?: string;
}

/** A conversation as the CLI persists it (one JSON file per session). */
export interface SessionRecord {
  id: string;
  traceId: string;
  workspace: Workspace;
  title: string;
  titleSource?: "default" | "first_input" | "generated" | "custom";
  mode: string;
  model: ModelSel;
  lastUsed?: { providerId: string; modelId: string };
  todos: Todo[];
  messages: Message[];
  checkpoints: Checkpoint[];
  goal: Goal | null;
  createdAt: number;
  updatedAt: number;
  turnCount: number;
  totalTokens: number;
  contextUsed: number;
  /** How many times each prompt text was sent (fail-transient, evict). */
  promptCounts: Record<string, number>;
  persistence: "immediate" | "deferred";
  parentSessionId?: string;
  /** The CLI's task type: a subagent's session is "subagent_child" (read-only, never listed); absent is "interactive". */
  taskType?: "subagent_child";
  /**
   * v4: the subagent rows of this (parent) conversation, as ZCode's projection builds them from the
   * SubagentSpawned / SubagentMessage / SubagentStopped events of its log (product-projection.ts
   * onSubagentSpawned / onSubagentMessage / onSubagentStopped; rows.ts subagentRowSchema).
   */
  subagentRows?: SubagentRowFact[];
  /** A subagent's session: what session/subagents reports of it (from the parent's Agent tool and its end). */
  subagent?: {
    agentId: string;
    toolCallId: string;
    subagentType: string;
    startedAt: number;
    endedAt?: number;
    status?: "success" | "failed" | "cancelled";
    summary?: string;
  };
  mcpServerNames: string[];
  /** "Always allow" rules the user granted (permissionUpdates of an allow answer). */
  permissionRules: PermissionRule[];
  /** The v4 projection's turns (absent in files written before it). */
  turnLog?: TurnLog[];
  /** The next cold resume puts the default model back (scenario forget-model). */
  forgetModelOnResume?: boolean;
}
