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
//   (turn, model.streaming, tool.updated, session.updated usage, turn.completed);
//   here they are stored in the child's seq space and pushed once the child is
//   subscribed (session/subscribe on the child id, like any session).
// - subagent/tool-event-mirror.ts: each tool event of the child is also sent
//   on the parent, as tool.updated with toolCallId
//   `tool_subagent_<agentId>_<childToolCallId>`, source "subagent",
//   childSessionId, childToolCallId, parentToolCallId, agentId, agentType,
//   description.
// - The Agent tool's result is the child's answer, then the agentId line and
//   the usage block.
import { Stopped, type ToolCall, type Turn } from "../turn.ts";
import { uuid } from "../store.ts";
import type { SessionRecord } from "../types.ts";
import { useTools } from "./tools.ts";

export const SUBAGENT_DESCRIPTION = "Find callers of greet";
export const SUBAGENT_PROMPT = "Search the codebase for every call of greet() and report whether any passes an empty name.";
export const SUBAGENT_ANSWER = "Found 2 callers of greet(): src/index.ts:3 and src/cli.ts:12. Neither passes an empty name.";
export const SUBAGENT_SUMMARY = "Scanned src/ for greet() calls.";
/** guardSubagentPromiseWithAbort's error when the parent's turn is stopped under a foreground subagent. */
export const SUBAGENT_CANCELLED = "Agent was cancelled before the subagent returned findings or background launch completed";

/** The child session's runtime: its own events, its own seq. */
function childEmitter(t: Turn, child: SessionRecord, turnId: string) {
  return (type: string, payload: Record<string, unknown>) => {
    t.check();
    t.sim.emit(child, type, payload, { turnId });
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
  t.sim.activate(child);
  const mirrorBase = { agentId, agentType, childSessionId: child.id, description, parentToolCallId: call.toolCallId, source: "subagent" };
  const childTurn = `turn_${uuid()}`;
  /** What a stop finds running: the child's tool (and its mirror), once the spawn was announced. */
  const open: { spawned?: boolean; child?: string; mirrored?: string } = {};
  try {
    return await childWork(t, call, { agentId, agentType, description, prompt, startedAt, child, childTurn, mirrorBase, open });
  } catch (err) {
    if (err instanceof Stopped && open.spawned && child.subagent) {
      // The parent's stop aborts the child (runner.ts): its tool and turn end cancelled, then SubagentStopped "failed".
      const now = Date.now();
      child.subagent = { ...child.subagent, status: "cancelled", endedAt: now, summary: SUBAGENT_CANCELLED };
      const cancelled = { error: { type: "tool_cancelled", message: "Tool execution cancelled" }, kind: "error" };
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
  open: { spawned?: boolean; child?: string; mirrored?: string };
}

async function childWork(t: Turn, call: ToolCall, c: ChildRun): Promise<string> {
  const { agentId, agentType, description, prompt, startedAt, child, childTurn, mirrorBase, open } = c;

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
  emit("turn.started", { turnNumber: 1, input: prompt, inputSource: "subagent" });
  emit("model.streaming", { assistantMessageId: amid, delta: "I will search for greet( calls. ", done: false, kind: "reasoning_delta" });
  await t.pace();
  emit("model.streaming", { assistantMessageId: amid, delta: "Searching the sources. ", done: false, kind: "text_delta" });
  const childToolCallId = `call_${uuid().replaceAll("-", "").slice(0, 24)}`;
  const input = { pattern: "greet\\(", path: t.ws, output_mode: "content" };
  emit("model.streaming", { assistantMessageId: amid, kind: "tool_input_start", toolCallId: childToolCallId, toolName: "Grep" });
  emit("model.streaming", { assistantMessageId: amid, kind: "tool_input_end", toolCallId: childToolCallId });
  emit("model.streaming", { assistantMessageId: amid, input, kind: "tool_call", toolCallId: childToolCallId, toolName: "Grep" });
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
  emit("tool.updated", { errorCount: 0, kind: "batch", successCount: 1, toolCallIds: [childToolCallId] });
  const amid2 = `msg_${uuid().replaceAll("-", "").slice(0, 24)}`;
  emit("model.streaming", { assistantMessageId: amid2, delta: SUBAGENT_ANSWER, done: false, kind: "text_delta" });
  emit("session.updated", {
    stopReason: "stop",
    usage: { inputTokens: 1000, outputTokens: 60, totalTokens: 1060 },
    contextWindow: 200_000,
  });
  const totalDurationMs = Date.now() - startedAt;
  emit("turn.completed", {
    response: SUBAGENT_ANSWER,
    tokenCount: 2000,
    toolCallCount: 1,
    duration: totalDurationMs,
    resultType: "success",
  });

  if (child.subagent) child.subagent = { ...child.subagent, status: "success", endedAt: Date.now(), summary: SUBAGENT_ANSWER };
  await t.emit("session.updated", { agentId, childSessionId: child.id, summaryText: SUBAGENT_SUMMARY });
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
