// Shapes the simulator stores and sends (ZCODE-SHAPES.md).
export interface Workspace {
  workspacePath: string;
  workspaceKey: string;
}

export interface Todo {
  id?: string;
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "high" | "medium" | "low";
  activeForm?: string;
}

export type ToolStatus = "pending" | "running" | "completed" | "error";

export type MessagePart =
  | { type: "text"; text: string }
  | { type: "reasoning"; text: string }
  | {
      type: "tool";
      toolCallId: string;
      toolName: string;
      input: unknown;
      state: { status: ToolStatus; output?: string; result?: unknown; error?: string };
    };

export interface Message {
  info: { id: string; role: "user" | "assistant"; createdAt: number; finish?: string };
  parts: MessagePart[];
  semantics?: { kind: "compact_summary" };
}

export interface EventEnvelope {
  sessionId: string;
  seq: number;
  type: string;
  payload: Record<string, unknown>;
  turnId?: string;
}

export interface Checkpoint {
  checkpointId: string;
  turnId: string;
  /** Messages before the turn's user message: rewinding here undoes the turn. */
  messagesBefore: number;
  /** Messages after the turn: forking here copies the whole turn. */
  messagesAfter: number;
  todosBefore: Todo[];
  todosAfter: Todo[];
  createdAt: number;
}

export interface Goal {
  objective: string;
  status: "active" | "paused";
  setAt: number;
}

export interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface SessionRecord {
  id: string;
  traceId: string;
  workspace: Workspace;
  title: string;
  mode: string;
  /** What `projection.mode` reports: refreshed only when a turn starts (it can be stale). */
  projectionMode: string;
  thoughtLevel: string;
  model: { providerId: string; modelId: string };
  todos: Todo[];
  messages: Message[];
  events: EventEnvelope[];
  seq: number;
  checkpoints: Checkpoint[];
  revision: number;
  goal: Goal | null;
  createdAt: number;
  updatedAt: number;
  status: "idle" | "running";
  turnCount: number;
  currentTurnId: string | null;
  usage: Usage;
  contextUsed: number;
  /** How many times each prompt text was sent (fail-transient, evict). */
  promptCounts: Record<string, number>;
}

export const MODES = [
  { value: "plan", label: "Plan" },
  { value: "build", label: "Build" },
  { value: "edit", label: "Edit" },
  { value: "yolo", label: "YOLO" },
  { value: "auto", label: "Auto" },
];
export const THOUGHT_LEVELS = [
  { value: "low", label: "Low" },
  { value: "medium", label: "Medium" },
  { value: "high", label: "High" },
  { value: "max", label: "Max" },
];
export const MODELS = [
  { providerId: "zhipu", modelId: "GLM-5.2", label: "GLM-5.2", defaultLevel: "high" },
  { providerId: "zhipu", modelId: "GLM-4.6-Air", label: "GLM-4.6 Air", defaultLevel: "medium" },
];
export const CONTEXT_WINDOW = 200000;
