// `subagent`: the model's Agent tool spawns a subagent, as ZCode's runtime
// does it (jimpablo/ZCode @aac4755, apps/zcode-cli/packages/core):
//
// - subagent/runner.ts: the child is a session of its own,
//   createSessionId(`subagent_${agentId}`) with agentId `agent_<uuid>`,
//   taskType "subagent_child" and the parent as parentSessionId
//   (runtime/methods/subagent.ts). Once it is persisted, the parent gets
//   SubagentSpawned {agentId, agentType, childSessionId, description, prompt,
//   parentToolCallId, status:"running", allowedTools}; when it is done,
//   SubagentStopped {agentId, agentType, childSessionId, parentToolCallId,
//   status:"completed", totalDurationMs, totalToolUseCount, totalTokens}.
//   bootstrap's session-mapper.ts sends both as `session.updated` (every event
//   type it does not name) with the payload as is.
// - SubagentMessage has no emitter in that snapshot; ZCode's own projection
//   tests give it as {agentId, childSessionId, summaryText}, sent here the same way.
// - The child's runtime emits its own events under the child's session id
//   (turn, model.streaming, tool.updated, session.updated usage, turn.completed).
//   They never reach the legacy stream: bootstrap's onSessionEvent
//   (server-operations.ts) routes an event by its own sessionId and hands a
//   child's only to v4Gateway.ingestDetachedLiveSession. The running child has
//   an event log but no bootstrap record (v4-bridge.ts
//   resolveConversationBackingRecord), so session/subscribe, session/read or
//   session/messages on it fail -32004 "Session is not active" (server-types.ts
//   requireSession); v4 rowsRange {sessionId: child} reads it (v4-gateway.ts
//   hasLiveConversation counts detachedLiveSessions). Here: a detached runtime
//   (sim.ts) plus the child's transcript, kept as its runtime persists it, so
//   the rows and, once the child ended and was resumed, session/messages serve it.
//   session/send on a resumed child answers -32010 "Subagent sessions are
//   read-only" (server-operations.ts sendPrompt).
// - subagent/tool-event-mirror.ts: each tool event of the child is also sent
//   on the parent, as tool.updated with toolCallId
//   `tool_subagent_<agentId>_<childToolCallId>`, source "subagent",
//   childSessionId, childToolCallId, parentToolCallId, agentId, agentType,
//   description.
// - The Agent tool's result is the child's answer, then the agentId line and
//   the usage block.
import { Stopped, type ToolCall, type Turn } from "../turn.ts";
import { newId, uuid } from "../store.ts";
import type { AssistantInfo, Message, SessionRecord, SubagentRowFact, ToolPart, TurnLog } from "../types.ts";
import { useTools } from "./tools.ts";

export const SUBAGENT_DESCRIPTION = "Find callers of greet";
export const SUBAGENT_PROMPT = "Search the codebase for every call of greet() and report whether any passes an empty name.";
export const SUBAGENT_ANSWER = "Found 2 callers of greet(): src/index.ts:3 and src/cli.ts:12. Neither passes an empty name.";
export const SUBAGENT_SUMMARY = "Scanned src/ for greet() calls.";
export const SUBAGENT_THOUGHT = "I will search for greet( calls. ";
export const SUBAGENT_PROGRESS = "Searching the sources. ";
/** guardSubagentPromiseWithAbort's error when the parent's turn is stopped under a foreground subagent. */
export const SUBAGENT_CANCELLED = "Agent was cancelled before the subagent returned findings or background launch completed";

const zeroTokens = () => ({ input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } });

/** The child's transcript as its runtime persists it: what the v4 rows project and session/messages returns. */
class ChildLog {
  readonly log: TurnLog;
  private readonly userId: string;

  constructor(
    private readonly child: SessionRecord,
    turnId: string,
    prompt: string,
  ) {
    const now = Date.now();
    this.userId = newId("msg");
    child.messages.push({
      info: { messageId: this.userId, sessionId: child.id, role: "user", time: { created: now }, agent: "build" },
      parts: [{ partId: newId("prt"), sessionId: child.id, messageId: this.userId, type: "text", text: prompt }],
    });
    this.log = {
      turnId,
      origin: "userInput",
      state: "running",
      startedAt: now,
      messageIds: [this.userId],
      guidedIds: [],
      files: [],
      fileState: "active",
    };
    child.turnLog = [...(child.turnLog ?? []), this.log];
  }

  assistant(messageId: string): Message {
    const ws = this.child.workspace.workspacePath;
    const info: AssistantInfo = {
      messageId,
      sessionId: this.child.id,
      role: "assistant",
      time: { created: Date.now() },
      parentMessageId: this.userId,
      agent: "build",
      path: { cwd: ws, root: ws },
      cost: 0,
      tokens: zeroTokens(),
    };
    const m: Message = { info, parts: [] };
    this.child.messages.push(m);
    this.log.messageIds.push(messageId);
    return m;
  }

  add(m: Message, type: "text" | "reasoning", text: string): void {
    const last = m.parts.at(-1);
    if (last?.type === type) last.text += text;
    else m.parts.push({ partId: newId("prt"), sessionId: this.child.id, messageId: m.info.messageId, type, text });
  }

  tool(m: Message, callId: string, tool: string, input: Record<string, unknown>): ToolPart {
    const part: ToolPart = {
      partId: newId("prt"),
      sessionId: this.child.id,
      messageId: m.info.messageId,
      type: "tool",
      callId,
      tool,
      state: { status: "pending", input, raw: JSON.stringify(input) },
    };
    m.parts.push(part);
    return part;
  }

  complete(m: Message, finish: string): void {
    m.info.time.completed = Date.now();
    (m.info as AssistantInfo).finish = finish;
  }

  end(state: TurnLog["state"]): void {
    this.log.state = state;
    this.log.endedAt = Date.now();
  }
}

/** The child session's runtime: its own events, its own seq. */
function childEmitter(t: Turn, child: SessionRecord, turnId: string) {
  return (type: string, payload: Record<string, unknown>) => {
    t.check();
    t.sim.emit(child, type, payload, { turnId });
    // The child's runtime persists its transcript as it goes (a cold resume of it reads the store).
    t.sim.store.markDirty(child);
  };
}

async function runSubagent(t: Turn, call: ToolCall): Promise<string> {
  const agentId = `agent_${uuid().replaceAll("-", "")}`;
  const agentType = String(call.input.subagent_type ?? "general-purpose");
  const description = String(call.input.description ?? "");
  const prompt = String(call.input.prompt ?? "");
  const startedAt = Date.now();
  const child = t.sim.store.create(t.s.workspace, t.s.mode, { id: `sess_subagent_${agentId}` });
  child.taskType = "subagent_child";
  child.parentSessionId = t.s.id;
  child.title = description;
  child.subagent = { agentId, toolCallId: call.toolCallId, subagentType: agentType, startedAt };
  t.sim.activate(child, { detached: true });
  t.sim.store.markDirty(child);
  const mirrorBase = { agentId, agentType, childSessionId: child.id, description, parentToolCallId: call.toolCallId, source: "subagent" };
  const childTurn = `turn_${uuid()}`;
  /** What a stop finds running: the child's tool (and its mirror), once the spawn was announced. */
  const open: { spawned?: boolean; child?: string; mirrored?: string; part?: ToolPart; message?: Message } = {};
  const transcript = new ChildLog(child, childTurn, prompt);
  const run: ChildRun = { agentId, agentType, description, prompt, startedAt, child, childTurn, mirrorBase, open, transcript };
  try {
    return await childWork(t, call, run);
  } catch (err) {
    if (err instanceof Stopped && open.spawned && child.subagent) {
      // The parent's stop aborts the child (runner.ts): its tool and turn end cancelled, then SubagentStopped "failed".
      const now = Date.now();
      child.subagent = { ...child.subagent, status: "cancelled", endedAt: now, summary: SUBAGENT_CANCELLED };
      const cancelled = { error: { type: "tool_cancelled", message: "Tool execution cancelled" }, kind: "error" };
      if (open.part)
        open.part.state = {
          status: "error",
          input: open.part.state.input,
          error: "Tool execution cancelled",
          startedAt: now,
          completedAt: now,
        };
      if (open.message) transcript.complete(open.message, "cancelled");
      transcript.end("completedInterrupted");
      t.sim.store.markDirty(child);
      if (open.child) t.sim.emit(child, "tool.updated", { ...cancelled, toolCallId: open.child }, { turnId: childTurn });
      if (open.mirrored)
        t.sim.emit(
          t.s,
          "tool.updated",
          { ...mirrorBase, ...cancelled, childToolCallId: open.child, toolCallId: open.mirrored, toolName: "Grep" },
          { turnId: t.id },
        );
      t.sim.emit(
        child,
        "turn.completed",
        { response: "", tokenCount: 0, toolCallCount: 1, duration: now - startedAt, resultType: "cancelled" },
        { turnId: childTurn },
      );
      // onSubagentStopped: status failed; summaryText the payload's error (no summaryText or result in it).
      if (run.row) Object.assign(run.row, { status: "failed", summaryText: SUBAGENT_CANCELLED, endedAt: now });
      t.sim.emit(
        t.s,
        "session.updated",
        {
          agentId,
          agentType,
          childSessionId: child.id,
          parentToolCallId: call.toolCallId,
          status: "failed",
          totalDurationMs: now - startedAt,
          error: SUBAGENT_CANCELLED,
        },
        { turnId: t.id },
      );
    }
    throw err;
  }
}

interface ChildRun {
  agentId: string;
  agentType: string;
  description: string;
  prompt: string;
  startedAt: number;
  child: SessionRecord;
  childTurn: string;
  mirrorBase: Record<string, string>;
  open: { spawned?: boolean; child?: string; mirrored?: string; part?: ToolPart; message?: Message };
  transcript: ChildLog;
  /** The parent's subagent row, once spawned. */
  row?: SubagentRowFact;
}

/**
 * The parent's subagent row (v4 rows), as product-projection.ts projects SubagentSpawned: entity agentId,
 * subagentType agentType ?? "subagent", status running, summaryText description ?? summaryText ?? prompt ?? "".
 */
function spawnRow(t: Turn, call: ToolCall, c: ChildRun): SubagentRowFact {
  const row: SubagentRowFact = {
    agentId: c.agentId,
    turnId: t.id,
    parentToolCallId: call.toolCallId,
    subagentType: c.agentType || "subagent",
    status: "running",
    summaryText: c.description || c.prompt || "",
    childSessionId: c.child.id,
    startedAt: c.startedAt,
  };
  t.s.subagentRows = [...(t.s.subagentRows ?? []), row];
  return row;
}

async function childWork(t: Turn, call: ToolCall, c: ChildRun): Promise<string> {
  const { agentId, agentType, description, prompt, startedAt, child, childTurn, mirrorBase, open, transcript } = c;

  c.row = spawnRow(t, call, c);
  await t.emit("session.updated", {
    agentId,
    agentType,
    childSessionId: child.id,
    description,
    prompt,
    parentToolCallId: call.toolCallId,
    status: "running",
    allowedTools: ["Read", "Grep", "Glob", "Bash"],
  });
  open.spawned = true;

  const emit = childEmitter(t, child, childTurn);
  const amid = `msg_${uuid().replaceAll("-", "").slice(0, 24)}`;
  const first = transcript.assistant(amid);
  open.message = first;
  emit("turn.started", { turnNumber: 1, input: prompt, inputSource: "subagent" });
  transcript.add(first, "reasoning", SUBAGENT_THOUGHT);
  emit("model.streaming", { assistantMessageId: amid, delta: SUBAGENT_THOUGHT, done: false, kind: "reasoning_delta" });
  await t.pace();
  transcript.add(first, "text", SUBAGENT_PROGRESS);
  emit("model.streaming", { assistantMessageId: amid, delta: SUBAGENT_PROGRESS, done: false, kind: "text_delta" });
  const childToolCallId = `call_${uuid().replaceAll("-", "").slice(0, 24)}`;
  const input = { pattern: "greet\\(", path: t.ws, output_mode: "content" };
  emit("model.streaming", { assistantMessageId: amid, kind: "tool_input_start", toolCallId: childToolCallId, toolName: "Grep" });
  emit("model.streaming", { assistantMessageId: amid, kind: "tool_input_end", toolCallId: childToolCallId });
  emit("model.streaming", { assistantMessageId: amid, input, kind: "tool_call", toolCallId: childToolCallId, toolName: "Grep" });
  const grep = transcript.tool(first, childToolCallId, "Grep", input);
  open.part = grep;
  emit("session.updated", {
    stopReason: "tool-calls",
    usage: { inputTokens: 900, outputTokens: 40, totalTokens: 940 },
    contextWindow: 200_000,
  });
  const mirroredId = `tool_subagent_${agentId}_${childToolCallId}`;
  const schedule = { executionOrder: [childToolCallId], parallelGroups: [[childToolCallId]] };
  emit("tool.updated", {
    assistantMessageId: amid,
    inputOmitted: true,
    inputRef: "model_stream",
    kind: "scheduled",
    schedule,
    toolCallId: childToolCallId,
    toolName: "Grep",
  });
  await t.emit("tool.updated", {
    ...mirrorBase,
    assistantMessageId: amid,
    childToolCallId,
    input,
    kind: "scheduled",
    schedule: { executionOrder: [mirroredId], parallelGroups: [[mirroredId]] },
    toolCallId: mirroredId,
    toolName: "Grep",
  });
  const toolStart = Date.now();
  grep.state = { status: "running", input, startedAt: toolStart };
  emit("tool.updated", { kind: "started", startedAt: toolStart, toolCallId: childToolCallId, toolName: "Grep" });
  await t.emit("tool.updated", {
    ...mirrorBase,
    childToolCallId,
    kind: "started",
    startedAt: toolStart,
    toolCallId: mirroredId,
    toolName: "Grep",
  });
  open.child = childToolCallId;
  open.mirrored = mirroredId;
  // `hold=<ms>`: the child's tool runs that long (a stop meanwhile cancels it).
  const hold = t.num("hold", 0);
  if (hold > 0) await t.sleep(hold);
  await t.pace();
  const content = 'src/index.ts:3:greet(user.name)\nsrc/cli.ts:12:greet(argv[2] ?? "world")';
  const result = { success: true, content, truncated: false, budgetStrategy: "truncate" };
  grep.state = { status: "completed", input, output: content, title: "Grep", metadata: {}, startedAt: toolStart, completedAt: Date.now() };
  transcript.complete(first, "tool-calls");
  emit("tool.updated", { duration: 12, kind: "result", result, toolCallId: childToolCallId });
  await t.emit("tool.updated", {
    ...mirrorBase,
    childToolCallId,
    duration: 12,
    kind: "result",
    result,
    toolCallId: mirroredId,
    toolName: "Grep",
  });
  open.child = undefined;
  open.mirrored = undefined;
  open.part = undefined;
  emit("tool.updated", { errorCount: 0, kind: "batch", successCount: 1, toolCallIds: [childToolCallId] });
  const amid2 = `msg_${uuid().replaceAll("-", "").slice(0, 24)}`;
  const second = transcript.assistant(amid2);
  open.message = second;
  transcript.add(second, "text", SUBAGENT_ANSWER);
  emit("model.streaming", { assistantMessageId: amid2, delta: SUBAGENT_ANSWER, done: false, kind: "text_delta" });
  emit("session.updated", {
    stopReason: "stop",
    usage: { inputTokens: 1000, outputTokens: 60, totalTokens: 1060 },
    contextWindow: 200_000,
  });
  const totalDurationMs = Date.now() - startedAt;
  transcript.complete(second, "stop");
  transcript.end("completedSuccess");
  emit("turn.completed", {
    response: SUBAGENT_ANSWER,
    tokenCount: 2000,
    toolCallCount: 1,
    duration: totalDurationMs,
    resultType: "success",
  });

  if (child.subagent) child.subagent = { ...child.subagent, status: "success", endedAt: Date.now(), summary: SUBAGENT_ANSWER };
  t.sim.store.markDirty(child);
  // product-projection.ts onSubagentMessage: the message's summaryText appended to the row's (a row.delta).
  if (c.row) c.row.summaryText += SUBAGENT_SUMMARY;
  await t.emit("session.updated", { agentId, childSessionId: child.id, summaryText: SUBAGENT_SUMMARY });
  // onSubagentStopped: status mapped (completed → success); no summaryText, result, error or description in the
  // payload, so the row keeps its own words.
  if (c.row) Object.assign(c.row, { status: "success", endedAt: Date.now() });
  await t.emit("session.updated", {
    agentId,
    agentType,
    childSessionId: child.id,
    parentToolCallId: call.toolCallId,
    status: "completed",
    totalDurationMs,
    totalToolUseCount: 1,
    totalTokens: 2000,
  });
  return `${SUBAGENT_ANSWER}\nagentId: ${agentId} (use SendMessage with to: '${agentId}' to continue this agent)\n<usage>subagent_tokens: 2000\ntool_uses: 1\nduration_ms: ${totalDurationMs}</usage>`;
}

export async function subagent(t: Turn): Promise<void> {
  await t.say("Delegating to a subagent. ");
  await useTools(t, [
    {
      toolName: "Agent",
      input: { description: SUBAGENT_DESCRIPTION, prompt: SUBAGENT_PROMPT, subagent_type: "general-purpose" },
      exec: { run: async (call) => ({ kind: "result", content: await runSubagent(t, call), budgetStrategy: "artifact" }) },
    },
  ]);
  await t.sayChunked("The subagent found two callers.", "text", 2);
}

export const subagentScenarios = { subagent };
