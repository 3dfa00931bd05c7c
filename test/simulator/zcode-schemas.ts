// ZCode's own strict protocol schemas, transcribed from
// jimpablo/ZCode packages/shared/src/zcode-protocol/index.ts and
// zcode-protocol-legacy-types.ts (@aac4755). The simulator validates the
// params it receives and the answers to its own requests with the first half;
// the tests check everything the simulator writes against the second half.
import {
  arr,
  bool,
  discriminated,
  enm,
  int,
  jsonObject,
  lit,
  nonEmpty,
  nonNegInt,
  nullable,
  num,
  obj,
  opt,
  record,
  type Schema,
  str,
  union,
  unknown,
  withDefault,
} from "./schema.ts";

export const MODES = ["plan", "build", "edit", "yolo", "guarded", "auto"] as const;
export const DELIVERY_KINDS = ["desktop-continuous", "web-remote-replayable"] as const;

const o = opt;
const ts = () => nonNegInt();

// ---- shared pieces ---------------------------------------------------------

export const workspaceRef = obj({
  workspacePath: nonEmpty(),
  workspaceIdentity: o(nonEmpty()),
  remoteSessionId: o(nonEmpty()),
  workspaceKey: nonEmpty(),
});

export const modelSelection = obj({
  providerId: nonEmpty(),
  modelId: nonEmpty(),
  options: o(obj({ reasoningLevel: o(nonEmpty()) })),
});

const mcpEntry = obj({ name: nonEmpty(), value: str() });
const mcpOAuth = union([
  obj({ type: lit("client_credentials"), clientId: nonEmpty(), clientSecret: nonEmpty(), clientName: o(nonEmpty()), scope: o(str()) }),
  obj({
    type: lit("authorization_code"),
    clientId: o(nonEmpty()),
    clientSecret: o(nonEmpty()),
    clientName: o(nonEmpty()),
    redirectPath: o(nonEmpty()),
    scope: o(str()),
  }),
]);
const mcpCommon = {
  isolation: o(enm(["session", "workspace"])),
  protocolVersion: o(enm(["legacy", "auto", "2026-07-28"])),
  timeoutMs: o(int({ positive: true })),
};
export const mcpServer = union([
  obj({ name: nonEmpty(), command: nonEmpty(), args: arr(str()), env: arr(mcpEntry), ...mcpCommon }),
  obj({ name: nonEmpty(), type: enm(["http", "sse"]), url: nonEmpty(), headers: arr(mcpEntry), oauth: o(mcpOAuth), ...mcpCommon }),
]);

const historyTarget = discriminated("kind", {
  turn: obj({ kind: lit("turn"), turnIndex: nonNegInt() }),
  message: obj({ kind: lit("message"), messageId: nonEmpty() }),
  checkpoint: obj({ kind: lit("checkpoint"), checkpointId: nonEmpty() }),
  latestCheckpoint: obj({ kind: lit("latestCheckpoint") }),
});

// ---- params of the methods the simulator answers ------------------------------

const dynamicWorkflowMode = enm(["alwaysOn", "onDemand"]); // [GUESSED] DYNAMIC_WORKFLOW_MODES values not read

export const params: Record<string, Schema> = {
  "session/create": obj({
    sessionId: o(nonEmpty()),
    workspace: workspaceRef,
    parentSessionId: o(nonEmpty()),
    mode: o(enm(MODES)),
    model: o(modelSelection),
    persistence: o(enm(["immediate", "deferred"])),
    thoughtLevel: o(nonEmpty()),
    titleGenerationEnabled: o(bool()),
    mcpServers: o(arr(mcpServer)),
    toolAllowlist: o(arr(nonEmpty())),
    toolDenylist: o(arr(nonEmpty())),
    importedHistory: o(jsonObject()),
    offPeakToolEnabled: o(bool()),
    dynamicWorkflowEnabled: o(bool()),
    dynamicWorkflowMode: o(dynamicWorkflowMode),
  }),
  "session/resume": obj({
    sessionId: nonEmpty(),
    workspace: o(workspaceRef),
    thoughtLevel: o(nonEmpty()),
    mcpServers: o(arr(mcpServer)),
    toolAllowlist: o(arr(nonEmpty())),
    toolDenylist: o(arr(nonEmpty())),
    offPeakToolEnabled: o(bool()),
    dynamicWorkflowEnabled: o(bool()),
    dynamicWorkflowMode: o(dynamicWorkflowMode),
  }),
  "session/list": obj({
    workspace: o(workspaceRef),
    sessionIds: o(arr(nonEmpty(), { min: 1, max: 64 })),
    includeArchived: withDefault(bool(), false),
    limit: o(int({ positive: true })),
  }),
  "session/read": obj({
    sessionId: nonEmpty(),
    deliveryKind: o(enm(DELIVERY_KINDS)),
    messageLimit: o(int({ positive: true })),
    afterSeq: o(nonNegInt()),
    contentProfile: o(enm(["full", "index"])),
  }),
  "session/messages": obj({ sessionId: nonEmpty(), afterMessageId: o(nonEmpty()), limit: o(int({ positive: true })) }),
  "session/subagents": obj({
    sessionId: nonEmpty(),
    endedCursor: o(nonEmpty()),
    endedLimit: withDefault(int({ positive: true, max: 100 }), 20),
  }),
  "session/events": obj({ sessionId: nonEmpty(), afterSeq: o(nonNegInt()), limit: o(int({ positive: true })) }),
  "session/subscribe": obj({
    sessionId: nonEmpty(),
    deliveryKind: enm(DELIVERY_KINDS),
    afterSeq: o(nonNegInt()),
    includeSnapshot: withDefault(bool(), false),
  }),
  "session/send": obj(
    {
      sessionId: nonEmpty(),
      modelSelection: o(modelSelection),
      modelExecution: o(jsonObject()),
      inputId: o(nonEmpty()),
      queryId: o(nonEmpty()),
      content: str(),
      attachments: o(arr(jsonObject())),
      browserAmbientContext: o(obj({ tabCount: int({ positive: true, max: 100 }), currentUrl: o(str({ trim: true, min: 1, max: 4096 })) })),
      expectedRevision: o(nonNegInt()),
      expectedProviderRevision: o(nonEmpty()),
      automationId: o(nonEmpty()),
      offPeakTaskId: o(nonEmpty()),
      offPeakRunType: o(enm(["init", "resume"])),
      botDeliveryTarget: o(jsonObject()),
      toolDenylist: o(arr(nonEmpty())),
    },
    {
      refine(v, issues, path) {
        if (v.automationId && v.offPeakTaskId) issues.push({ path, message: "automationId and offPeakTaskId are mutually exclusive" });
        if (v.offPeakRunType && !v.offPeakTaskId)
          issues.push({ path: [...path, "offPeakRunType"], message: "offPeakRunType requires offPeakTaskId" });
        if (v.modelExecution && !v.modelSelection)
          issues.push({ path: [...path, "modelExecution"], message: "modelExecution requires modelSelection" });
      },
    },
  ),
  "session/stop": obj({ sessionId: nonEmpty() }),
  "session/close": obj({ sessionId: nonEmpty(), expectedPersistence: o(enm(["immediate", "deferred"])) }),
  "session/fork": obj({
    sessionId: nonEmpty(),
    target: withDefault(historyTarget, { kind: "latestCheckpoint" }),
    expectedRevision: o(nonNegInt()),
  }),
  "session/compact": obj({ sessionId: nonEmpty(), inputId: o(nonEmpty()), instructions: o(str()), expectedRevision: o(nonNegInt()) }),
  "session/goal": obj({
    sessionId: nonEmpty(),
    inputId: o(nonEmpty()),
    action: enm(["show", "set", "replace", "pause", "resume", "clear"]),
    objective: o(str()),
    expectedRevision: o(nonNegInt()),
  }),
  "session/setModel": obj({
    sessionId: nonEmpty(),
    model: modelSelection,
    expectedRevision: o(nonNegInt()),
    persistAsWorkspaceLastUsed: withDefault(bool(), true),
  }),
  "session/setThoughtLevel": obj({
    sessionId: nonEmpty(),
    thoughtLevel: o(nonEmpty()),
    expectedRevision: o(nonNegInt()),
    persistAsWorkspaceLastUsed: withDefault(bool(), true),
  }),
  "session/setMode": obj({ sessionId: nonEmpty(), mode: enm(MODES), expectedRevision: o(nonNegInt()) }),
  "workspace/readPresentation": obj({ workspace: workspaceRef }),
  "runtime/capabilities": obj({}, { strict: false }),
  // 0.15.x only (removed from 0.16); shapes as the 0.15 simulator had them [GUESSED].
  "session/steer": obj({ sessionId: nonEmpty(), content: str(), inputId: o(nonEmpty()) }),
  "session/rewind": obj({
    sessionId: nonEmpty(),
    target: withDefault(historyTarget, { kind: "latestCheckpoint" }),
    expectedRevision: o(nonNegInt()),
  }),
};

// ---- answers to the simulator's own requests ----------------------------------

export const runtimePreferencesResult = obj({
  nativeSearchEnhancementsEnabled: bool(),
  subagentRuntimeConfigEnabled: o(bool()),
  memoryEnabled: withDefault(bool(), false),
  askUserQuestionAutoResolutionEnabled: withDefault(bool(), true),
  // integratedTerminalShellSelectionSchema was not read: any object [GUESSED].
  integratedTerminalShell: o(jsonObject()),
  modelContextBudgetStrategy: withDefault(enm(["legacy", "preflight-v1"]), "preflight-v1"),
});

export const permissionUpdate = obj({
  type: lit("addRules"),
  behavior: enm(["allow", "deny", "ask"]),
  rules: arr(obj({ toolName: nonEmpty(), ruleContent: o(str()) }), { min: 1 }),
});

export const permissionResponse = obj({
  decision: enm(["allow", "deny", "escalate", "modify"]),
  reason: o(str()),
  modifiedInput: o(unknown()),
  permissionUpdates: o(arr(permissionUpdate)),
});

export const userInputResponse = obj({
  action: enm(["accept", "decline", "cancel"]),
  content: o(jsonObject()),
  reason: o(str()),
});

export const providerHeadersResponse = discriminated("headersApplied", {
  true: obj({
    headersApplied: lit(true),
    requestAuth: obj({
      apiKey: o(nonEmpty()),
      apiKeyId: o(str({ trim: true, min: 1 })),
      accountScope: o(str({ regex: /^[a-f0-9]{64}$/ })),
      headers: o(record(nonEmpty())),
    }),
    errorMessage: o(nonEmpty()),
  }),
  false: obj({ headersApplied: lit(false), errorMessage: o(nonEmpty()) }),
});

/** zcodeOfficialMcpAuthHeadersResponseSchema (shared/official-mcp-auth.ts reasons). */
export const officialMcpAuthResponse = discriminated("ok", {
  true: obj({ ok: lit(true), headers: record(str()) }),
  false: obj({
    ok: lit(false),
    reason: enm(["official_auth_unavailable", "official_auth_plan_required", "official_mcp_origin_untrusted"]),
  }),
});

/** browser-use backend.ts browserBackendListResultSchema (descriptors unread here). */
export const browserListResult = obj({ browsers: arr(record()) });

/** browser-use result.ts browserCommandResultSchema, the parts a refusal uses. */
export const browserCommandResult = obj(
  {
    ok: bool(),
    error: o(
      obj({
        code: enm([
          "backend_unavailable",
          "capability_unsupported",
          "duplicate_request_id",
          "ref_not_found",
          "navigation_blocked",
          "timeout",
          "renderer_unreachable",
          "cancelled",
          "execution_error",
        ]),
        message: str(),
        sideEffect: o(enm(["none", "uncertain"])),
      }),
    ),
    elapsedMs: num({ min: 0 }),
  },
  { strict: false },
);

// ---- what the simulator writes (checked by test/simulator/sim-shapes.test.ts) ----------

const messageTime = obj({ created: ts(), completed: o(ts()) });
const tokenUsage = obj({
  total: o(nonNegInt()),
  input: nonNegInt(),
  output: nonNegInt(),
  reasoning: nonNegInt(),
  cache: obj({ read: nonNegInt(), write: nonNegInt() }),
});
const semantics = obj({
  origin: enm(["real_user", "agent_runtime", "system", "migration", "import"]),
  kind: enm([
    "user_prompt",
    "slash_command",
    "system_reminder",
    "background_notification",
    "subagent_notification",
    "todo_reminder",
    "rewind_notice",
    "fork_notice",
    "timeline_event",
    "compact_summary",
    "shared_context",
    "assistant_response",
  ]),
  source: o(str()),
  commandName: o(str()),
  uiVisibility: enm(["visible", "hidden", "debug"]),
  providerVisibility: enm(["visible", "hidden"]),
  transcriptVisibility: enm(["visible", "hidden"]),
});
const syntheticSource = enm([
  "agent_listing_delta",
  "background_task",
  "fork",
  "goal_state_change",
  "goal-continuation",
  "plugin_reference",
  "bot_topic_context",
  "rewind",
  "selection_side_chat",
  "subagent",
  "subagent_message",
  "todo_reminder",
  "workflow_launch",
  "shared_context",
]);
const messageInfo = discriminated("role", {
  user: obj({
    messageId: nonEmpty(),
    sessionId: nonEmpty(),
    role: lit("user"),
    time: messageTime,
    agent: nonEmpty(),
    model: o(modelSelection),
    system: o(str()),
    tools: o(record(bool())),
    synthetic: o(bool()),
    source: o(syntheticSource),
    visibility: o(enm(["user-visible", "model-only"])),
    semantics: o(semantics),
    metadata: o(jsonObject()),
  }),
  assistant: obj({
    messageId: nonEmpty(),
    sessionId: nonEmpty(),
    role: lit("assistant"),
    time: messageTime,
    parentMessageId: nonEmpty(),
    agent: nonEmpty(),
    model: o(modelSelection),
    path: obj({ cwd: nonEmpty(), root: nonEmpty() }),
    cost: num({ min: 0 }),
    tokens: tokenUsage,
    finish: o(str()),
    error: o(jsonObject()),
    semantics: o(semantics),
    structured: o(unknown()),
  }),
});
const partBase = { partId: nonEmpty(), sessionId: nonEmpty(), messageId: nonEmpty() };
export const toolState = discriminated("status", {
  pending: obj({ status: lit("pending"), input: jsonObject(), raw: str() }),
  running: obj({ status: lit("running"), input: jsonObject(), title: o(str()), metadata: o(jsonObject()), startedAt: ts() }),
  completed: obj({
    status: lit("completed"),
    input: jsonObject(),
    output: str(),
    title: str(),
    metadata: jsonObject(),
    startedAt: ts(),
    completedAt: ts(),
  }),
  error: obj({ status: lit("error"), input: jsonObject(), error: str(), metadata: o(jsonObject()), startedAt: ts(), completedAt: ts() }),
});
export const messagePart = discriminated("type", {
  text: obj({ ...partBase, type: lit("text"), text: str(), synthetic: o(bool()), ignored: o(bool()), metadata: o(jsonObject()) }),
  reasoning: obj({ ...partBase, type: lit("reasoning"), text: str(), metadata: o(jsonObject()) }),
  file: obj({ ...partBase, type: lit("file"), mime: nonEmpty(), filename: o(str()), url: nonEmpty(), metadata: o(jsonObject()) }),
  tool: obj({ ...partBase, type: lit("tool"), callId: nonEmpty(), tool: nonEmpty(), state: toolState, metadata: o(jsonObject()) }),
  "step-start": obj({ ...partBase, type: lit("step-start"), snapshot: o(str()) }),
  "step-finish": obj({
    ...partBase,
    type: lit("step-finish"),
    reason: str(),
    snapshot: o(str()),
    cost: num({ min: 0 }),
    tokens: tokenUsage,
  }),
  compaction: obj({
    ...partBase,
    type: lit("compaction"),
    auto: bool(),
    reason: o(str()),
    summaryMessageId: o(nonEmpty()),
    metadata: o(jsonObject()),
  }),
});
export const messageWithParts = obj({ info: messageInfo, parts: arr(messagePart) });

const goal = obj({
  sessionId: nonEmpty(),
  targetId: nonEmpty(),
  objective: nonEmpty(),
  summaryTitle: withDefault(nullable(str({ min: 1 })), null),
  status: enm(["active", "paused", "budget_limited", "complete"]),
  tokenBudget: nullable(int({ positive: true })),
  tokensUsed: nonNegInt(),
  timeUsedSeconds: nonNegInt(),
  activeInputId: o(nullable(nonEmpty())),
  activeRunStartedAtMs: o(nullable(ts())),
  activeRunLastSeenAtMs: o(nullable(ts())),
  createdAt: ts(),
  updatedAt: ts(),
});
export const sessionInfo = obj({
  sessionId: nonEmpty(),
  workspace: workspaceRef,
  parentSessionId: o(nonEmpty()),
  traceId: o(nonEmpty()),
  sessionKind: enm([
    "interactive",
    "fork",
    "selection_side_chat",
    "workflow_parent",
    "workflow_child",
    "subagent_child",
    "nested_workflow_child",
  ]),
  title: str(),
  titleSource: o(enm(["default", "first_input", "generated", "custom"])),
  mode: enm(MODES),
  status: enm(["idle", "running", "waiting", "paused", "completed", "error"]),
  model: o(modelSelection),
  target: o(nullable(goal)),
  createdAt: ts(),
  updatedAt: ts(),
  archivedAt: o(ts()),
});
const levelOption = obj({ value: nonEmpty(), label: nonEmpty(), description: o(str()) });
const modelOption = obj({
  ref: modelSelection,
  label: nonEmpty(),
  providerLabel: o(nonEmpty()),
  description: o(str()),
  contextWindow: o(int({ positive: true })),
  maxOutputTokens: o(int({ positive: true })),
  reasoning: o(obj({ levels: arr(levelOption), defaultLevel: o(nonEmpty()) })),
  // completeModelPropertiesDataSchema.pick({inputFormat, outputFormat}) was not read [GUESSED: both optional].
  properties: obj({ inputFormat: o(unknown()), outputFormat: o(unknown()) }),
  disabledReason: o(str()),
});
const permissionOption = obj({
  optionId: nonEmpty(),
  kind: nonEmpty(),
  name: nonEmpty(),
  description: o(str()),
  response: permissionResponse,
});
const settings = obj({
  model: obj({ current: o(modelSelection), available: arr(modelOption), lastUsed: o(modelSelection) }),
  thoughtLevel: obj({ enabled: bool(), current: o(nonEmpty()), defaultLevel: o(nonEmpty()), available: arr(levelOption) }),
  mode: obj({ current: enm(MODES) }),
  permission: o(obj({ mode: o(enm(MODES)), rulesRevision: o(nonNegInt()) })),
});
const projection = obj({
  sessionId: nonEmpty(),
  status: enm(["idle", "running", "waiting", "paused", "completed", "error"]),
  mode: enm(MODES),
  turnCount: nonNegInt(),
  totalTokenCount: nonNegInt(),
  contextUsed: nonNegInt(),
  contextWindow: nonNegInt(),
  currentTurnId: o(nonEmpty()),
  pendingPermissions: arr(
    obj({
      requestId: nonEmpty(),
      toolCallId: nonEmpty(),
      toolName: nonEmpty(),
      reason: str(),
      riskLevel: enm(["low", "medium", "high", "critical"]),
      input: o(unknown()),
      options: arr(permissionOption, { min: 1 }),
      requestedAt: ts(),
    }),
  ),
  activeToolCalls: arr(
    obj({
      toolCallId: nonEmpty(),
      toolName: nonEmpty(),
      status: enm(["pending", "running", "completed", "failed", "denied"]),
      startedAt: o(ts()),
    }),
  ),
  backgroundJobs: arr(jsonObject()),
  target: o(nullable(goal)),
  lastError: o(obj({ type: nonEmpty(), code: o(nonEmpty()), message: nonEmpty(), detail: o(str()), attribution: o(jsonObject()) })),
});
const runtime = obj({
  eventSeq: nonNegInt(),
  stateRevision: nonNegInt(),
  deliveryKind: o(enm(DELIVERY_KINDS)),
  activeTurnId: o(nonEmpty()),
  activeTurnKind: o(enm(["regular", "compact", "rewind"])),
  pendingRequestIds: arr(nonEmpty()),
  apiRetry: o(unknown()),
  contextUsage: o(unknown()),
  goalVerifications: o(arr(unknown())),
  goalVerificationTimeline: o(arr(unknown())),
});
const todo = obj({ content: nonEmpty(), status: enm(["pending", "in_progress", "completed"]), priority: enm(["high", "medium", "low"]) });
export const snapshot = obj({
  protocol: obj({ name: lit("ZCode Protocol"), version: lit(1) }),
  session: sessionInfo,
  settings,
  projection,
  runtime,
  messages: arr(messageWithParts),
  goalStats: o(jsonObject()),
  todos: o(arr(todo)),
  todoGroups: o(arr(jsonObject())),
  slashCommands: o(arr(obj({ name: nonEmpty(), description: str(), inputHint: o(str()), source: o(enm(["builtin", "custom"])) }))),
});

const errorDetail = obj({
  type: nonEmpty(),
  message: nonEmpty(),
  stack: o(str()),
  code: o(str()),
  detail: o(str()),
  underlyingErrorMessage: o(str()),
  underlyingErrorDetail: o(str()),
  attribution: o(
    obj({
      source: o(enm(["provider", "runtime", "tool", "network"])),
      reason: o(str({ min: 1, max: 160 })),
      errorPhase: o(enm(["prepare", "configuration", "connect", "response", "stream", "parse", "validation", "unhandled"])),
      exceptionKind: o(enm(["api_call", "generic", "protocol", "provider_business", "transport", "type_error", "validation"])),
      providerId: o(str({ min: 1, max: 160 })),
      modelId: o(str({ min: 1, max: 160 })),
      providerKind: o(str({ min: 1, max: 160 })),
      transport: o(enm(["http", "sse", "websocket"])),
      statusCode: o(int({ min: 100, max: 599 })),
      providerErrorCode: o(str({ min: 1, max: 160 })),
      retryable: o(bool()),
    }),
  ),
  retryable: o(bool()),
  data: o(unknown()),
});
const toolBase = {
  toolCallId: nonEmpty(),
  toolName: o(str()),
  parentToolCallId: o(nonEmpty()),
  source: o(enm(["subagent"])),
  agentId: o(nonEmpty()),
  agentType: o(nonEmpty()),
  background: o(bool()),
  childSessionId: o(nonEmpty()),
  childToolCallId: o(nonEmpty()),
  description: o(str()),
};
const displaySchemas: Record<string, Schema> = {
  bash_output: obj({ kind: lit("bash_output"), output: str({ max: 150_000 }), truncated: bool(), outputPath: o(str({ min: 1 })) }),
};
const toolResultObject: Schema = {
  check(v, path, issues) {
    const r = jsonObject().check(v, path, issues);
    const d = r.display as Record<string, unknown> | undefined;
    const s = d && typeof d === "object" ? displaySchemas[String(d.kind)] : undefined;
    if (s) s.check(d, [...path, "display"], issues);
    return r;
  },
};
const toolUpdated = discriminated("kind", {
  scheduled: obj({
    ...toolBase,
    kind: lit("scheduled"),
    assistantMessageId: o(nonEmpty()),
    toolName: nonEmpty(),
    input: o(unknown()),
    inputByteLength: o(nonNegInt()),
    inputOmitted: o(bool()),
    inputRef: o(lit("model_stream")),
    dependencies: o(arr(nonEmpty())),
    parallelGroupIndex: o(nonNegInt()),
    canRunParallel: o(bool()),
    schedule: o(jsonObject()),
  }),
  started: obj({ ...toolBase, kind: lit("started"), startedAt: union([ts(), nonEmpty()]) }),
  progress: obj({
    ...toolBase,
    kind: lit("progress"),
    elapsedMs: o(num({ min: 0 })),
    pid: o(int()),
    stdoutBytes: o(nonNegInt()),
    stderrBytes: o(nonNegInt()),
    outputBytes: o(nonNegInt()),
    outputPreview: o(
      obj({ text: str({ max: 4096 }), fullText: str({ max: 4096 }), totalLines: int(), totalBytes: int(), linesEstimated: bool() }),
    ),
    stdoutTail: o(str()),
    stderrTail: o(str()),
  }),
  result: obj({ ...toolBase, kind: lit("result"), result: toolResultObject, duration: num({ min: 0 }) }),
  error: obj({ ...toolBase, kind: lit("error"), error: errorDetail }),
  batch: obj({ kind: lit("batch"), toolCallIds: arr(nonEmpty()), successCount: nonNegInt(), errorCount: nonNegInt() }),
  raw: obj({ ...toolBase, kind: lit("raw"), payload: jsonObject() }),
});
const streamingKinds = [
  "start",
  "finish",
  "error",
  "text_start",
  "text_delta",
  "text_end",
  "reasoning_start",
  "reasoning_delta",
  "reasoning_end",
  "tool_input_start",
  "tool_input_delta",
  "tool_input_end",
  "tool_call",
] as const;
const steerDelivery = enm(["queue", "guide"]);
export const eventPayloads: Record<string, Schema> = {
  "session.created": obj({ mode: enm(MODES), contextWindow: nonNegInt() }),
  "session.resumed": obj({
    directory: nonEmpty(),
    interruptedToolCount: nonNegInt(),
    messageCount: nonNegInt(),
    partCount: nonNegInt(),
    recoveredCompactTimelineCount: o(nonNegInt()),
    recoveredSteerInputCount: o(nonNegInt()),
    resumedTodoCount: o(nonNegInt()),
  }),
  "session.updated": jsonObject(),
  "session.titleUpdated": obj({
    messageID: o(nonEmpty()),
    previousTitle: str(),
    source: enm(["default", "first_input", "generated", "custom"]),
    title: str(),
  }),
  "session.closed": obj({ reason: o(str()) }),
  "turn.started": obj({
    executionStartedAt: o(num({ min: 0 })),
    turnNumber: nonNegInt(),
    input: str(),
    inputId: o(nonEmpty()),
    queryId: o(nonEmpty()),
    inputSource: o(syntheticSource),
    inputVisibility: o(enm(["user-visible", "model-only"])),
    executionKind: o(enm(["agent", "controlOnly"])),
    targetId: o(nonEmpty()),
    messageId: o(nonEmpty()),
    foregroundExecutionId: o(nonEmpty()),
    intent: o(jsonObject()),
    originMeta: o(jsonObject()),
    backgroundSource: o(enm(["bash", "subagent"])),
    attachments: o(arr(jsonObject())),
  }),
  "turn.steerQueued": obj({
    pendingInputId: nonEmpty(),
    inputId: o(nonEmpty()),
    queryId: o(nonEmpty()),
    input: str(),
    inputPreview: str(),
    inputSize: nonNegInt(),
    commandKind: o(enm(["sendText", "sendGoalCommand", "compact"])),
    source: o(enm(["plan_approval_feedback", "workflow_refine_feedback"])),
    toolDisallowlist: o(arr(nonEmpty())),
    delivery: o(steerDelivery),
    targetTurnId: nonEmpty(),
    queueLength: nonNegInt(),
    intent: o(jsonObject()),
  }),
  "turn.steerDrained": obj({
    pendingInputIds: arr(nonEmpty()),
    queryIds: o(arr(nonEmpty())),
    targetTurnId: nonEmpty(),
    injectedMessageIds: arr(nonEmpty()),
    drainedInputs: o(arr(jsonObject())),
  }),
  "turn.completed": obj({
    response: str(),
    tokenCount: nonNegInt(),
    usage: o(unknown()),
    toolCallCount: nonNegInt(),
    historyRoundCount: o(nonNegInt()),
    duration: num({ min: 0 }),
    cacheStats: o(obj({ totalMessages: nonNegInt(), cachedMessages: nonNegInt(), lastCacheHit: bool(), cacheReadTokens: o(nonNegInt()) })),
    inputId: o(nonEmpty()),
    resultType: enm(["success", "cancelled", "error_max_turns", "error_max_budget", "error_during_execution", "error_max_tool_calls"]),
    backgroundSubagentResultConsumed: o(bool()),
  }),
  "turn.failed": obj({ error: errorDetail, turnPhase: str(), inputId: o(nonEmpty()), backgroundSubagentResultConsumed: o(bool()) }),
  "message.upserted": obj({
    content: str(),
    attachments: o(arr(unknown())),
    toolCalls: o(arr(unknown())),
    type: o(str()),
    compactBoundary: o(unknown()),
  }),
  "message.removed": obj({ messageId: nonEmpty(), reason: o(str()) }),
  "part.started": obj({ part: messagePart }),
  "part.delta": obj({ messageId: nonEmpty(), partId: nonEmpty(), field: o(enm(["text", "reasoning", "input", "output"])), delta: str() }),
  "part.upserted": obj({ part: messagePart }),
  "part.removed": obj({ messageId: nonEmpty(), partId: nonEmpty(), reason: o(str()) }),
  "model.streaming": obj({
    assistantMessageId: o(str()),
    delta: o(str()),
    done: o(bool()),
    input: o(unknown()),
    kind: enm(streamingKinds),
    partId: o(str()),
    providerExecuted: o(bool()),
    toolCallId: o(str()),
    toolName: o(str()),
  }),
  "tool.updated": toolUpdated,
  "permission.requested": obj({
    requestId: o(nonEmpty()),
    toolCallId: nonEmpty(),
    toolName: nonEmpty(),
    riskLevel: enm(["low", "medium", "high", "critical"]),
    reason: str(),
    input: unknown(),
    suggestedPermissionUpdates: o(arr(permissionUpdate)),
    approvalMode: o(lit("user-once")),
    origin: o(jsonObject()),
    options: arr(permissionOption, { min: 1 }),
    childSessionId: o(nonEmpty()),
    background: o(bool()),
  }),
  "permission.resolved": obj({
    requestId: o(nonEmpty()),
    toolCallId: nonEmpty(),
    toolName: o(nonEmpty()),
    decision: o(enm(["allow", "deny", "escalate", "modify"])),
    reason: o(str()),
    modifiedInput: o(unknown()),
    inputSummary: o(unknown()),
    childSessionId: o(nonEmpty()),
    background: o(bool()),
  }),
  "userInput.requested": obj({
    requestId: nonEmpty(),
    prompt: str(),
    inputType: o(enm(["text", "choice", "confirm"])),
    choices: o(arr(str())),
  }),
  "userInput.resolved": obj({ requestId: nonEmpty(), value: o(unknown()), cancelled: o(bool()) }),
  "checkpoint.created": jsonObject(),
  "rewind.triggered": jsonObject(),
  "streamRecovery.updated": jsonObject(),
};

/** `zcodeSessionEventSchema`: the strict envelope plus the payload schema of its type. */
export const sessionEvent: Schema = {
  check(v, path, issues) {
    const env = obj({
      eventId: nonEmpty(),
      sessionId: nonEmpty(),
      turnId: o(nonEmpty()),
      seq: nonNegInt(),
      traceId: o(nonEmpty()),
      timestamp: ts(),
      deliveryKind: o(enm(DELIVERY_KINDS)),
      type: enm(Object.keys(eventPayloads)),
      payload: o(unknown()),
    }).check(v, path, issues);
    const s = eventPayloads[String(env.type)];
    if (s && env.payload !== undefined) s.check(env.payload, [...path, "payload"], issues);
    return env;
  },
};

export const stateUpdated = obj({
  type: lit("state.updated"),
  scope: enm(["server", "workspace", "session"]),
  workspace: o(workspaceRef),
  sessionId: o(nonEmpty()),
  revision: nonNegInt(),
  reason: o(str()),
  patch: unknown(),
});

/** zcodeSessionRunningSubagentSchema / zcodeSessionEndedSubagentSchema. */
function subagentItem(statuses: readonly string[]): Schema {
  return obj({
    childSessionId: nonEmpty(),
    agentId: o(nonEmpty()),
    toolCallId: o(nonEmpty()),
    subagentType: nonEmpty(),
    title: nonEmpty(),
    summary: o(str()),
    startedAt: o(nonNegInt()),
    endedAt: o(nonNegInt()),
    status: enm(statuses),
  });
}

export const results: Record<string, Schema> = {
  "session/create": snapshot,
  "session/resume": snapshot,
  "session/read": snapshot,
  "session/list": obj({ sessions: arr(sessionInfo) }),
  "session/messages": obj({ messages: arr(messageWithParts) }),
  "session/events": obj({ events: arr(sessionEvent) }),
  "session/subscribe": obj({ sessionId: nonEmpty(), eventSeq: nonNegInt(), events: arr(sessionEvent), snapshot: o(snapshot) }),
  "session/subagents": obj({
    revision: nonNegInt(),
    childSessionIds: arr(nonEmpty()),
    running: arr(subagentItem(["running", "waiting", "blocked"])),
    ended: obj({ total: nonNegInt(), items: arr(subagentItem(["success", "failed", "cancelled", "lost"])), nextCursor: o(nonEmpty()) }),
  }),
  "session/send": obj({ sessionId: nonEmpty(), accepted: lit(true), stateRevision: nonNegInt() }),
  "session/stop": obj({}),
  "session/close": obj({ closed: o(bool()) }),
  "session/fork": obj({
    forkedSessionId: nonEmpty(),
    parentSessionId: o(nonEmpty()),
    targetMessageId: o(nonEmpty()),
    targetCheckpointId: o(nonEmpty()),
    response: str(),
    snapshot,
  }),
  "session/compact": obj({
    response: str(),
    snapshot,
    compact: o(obj({ state: enm(["accepted", "already_running"]), inputId: o(nonEmpty()), operationId: o(nonEmpty()) })),
  }),
  "session/goal": obj({ response: str(), snapshot, startedTurn: o(bool()) }),
  "session/setModel": snapshot,
  "session/setThoughtLevel": snapshot,
  "session/setMode": snapshot,
};

export const requestParams: Record<string, Schema> = {
  "session/requestRuntimePreferences": obj({ sessionId: nonEmpty(), scope: enm(["runtime-materialization", "user-execution"]) }),
  "interaction/requestPermission": obj({
    requestId: nonEmpty(),
    sessionId: nonEmpty(),
    turnId: o(nonEmpty()),
    toolCallId: nonEmpty(),
    toolName: nonEmpty(),
    reason: str(),
    riskLevel: enm(["low", "medium", "high", "critical"]),
    input: unknown(),
    origin: o(jsonObject()),
    options: arr(permissionOption, { min: 1 }),
  }),
  "interaction/requestUserInput": obj({
    requestId: nonEmpty(),
    sessionId: nonEmpty(),
    turnId: o(nonEmpty()),
    toolCallId: o(nonEmpty()),
    toolName: o(nonEmpty()),
    prompt: o(str()),
    questions: o(
      arr(
        obj({
          question: nonEmpty(),
          header: nonEmpty(),
          options: arr(obj({ value: nonEmpty(), label: nonEmpty(), description: o(str()), preview: o(str()) }), { min: 1 }),
          multiSelect: o(bool()),
        }),
        { min: 1 },
      ),
    ),
    input: o(unknown()),
    origin: o(jsonObject()),
    schema: o(unknown()),
  }),
  "interaction/requestProviderRuntimeHeaders": obj({
    requestId: nonEmpty(),
    sessionId: nonEmpty(),
    turnId: o(nonEmpty()),
    workspace: workspaceRef,
    modelSelection,
    providerId: nonEmpty(),
    accountAccess: o(jsonObject()),
    expectedAccountScope: o(str({ regex: /^[a-f0-9]{64}$/ })),
    rejectedProjectTokenFingerprint: o(str({ regex: /^[a-f0-9]{64}$/ })),
    reason: enm(["model-request"]),
  }),
};

// ---- v4 transport (ZCODE_SIM_PROTOCOL=v4-only) ---------------------------------
// Transcribed from jimpablo/ZCode@aac4755 packages/shared/src/zcode-protocol-v4/
// transport.ts, snapshot.ts, delta.ts and core.ts (rayn1314/ZCode). zod's
// `.extend()` keeps `.strict()`, so the subscribe params are strict.

const CLIENT_MODES = ["desktop-continuous", "web-remote-replayable"] as const;
const v4WorkspaceRef = obj(
  { workspacePath: str(), workspaceKey: opt(str()), workspaceIdentity: opt(str()), remoteSessionId: opt(str()) },
  { strict: false },
);

/** transport.ts subscribeParamsSchema.extend(v4ConversationSubscribeParamsSchema): strict. */
export const v4SubscribeParams = obj({
  topic: str(),
  base: opt(obj({ logEpoch: str(), seq: num() }, { strict: false })),
  visibility: opt(enm(["foreground", "background"])),
  connectionId: str(),
  clientMode: enm(CLIENT_MODES),
  workspace: opt(v4WorkspaceRef),
  legacyTaskIds: opt(arr(str({ min: 1 }), { max: 200 })),
  resumeThoughtLevel: opt(str({ trim: true, min: 1 })),
  workflowRunDeltas: opt(bool()),
});

/** transport.ts v4ConversationResyncParamsSchema (conversationResyncParamsSchema + topic, connectionId): strict. */
export const v4ResyncParams = obj({
  subscriptionId: str({ trim: true, min: 1, max: 1024 }),
  base: nullable(obj({ logEpoch: str({ trim: true, min: 1, max: 1024 }), seq: nonNegInt() })),
  forceSnapshot: opt(bool()),
  topic: str({ trim: true, min: 1, max: 2048 }),
  connectionId: str({ trim: true, min: 1, max: 1024 }),
});

/** transport.ts v4ConversationUnsubscribeParamsSchema: strict. */
export const v4UnsubscribeParams = obj({
  topic: str({ trim: true, min: 1, max: 2048 }),
  subscriptionId: str({ trim: true, min: 1, max: 1024 }),
  connectionId: str({ trim: true, min: 1, max: 1024 }),
});

const uploadId = str({ min: 1, max: 128, regex: /^[A-Za-z0-9][A-Za-z0-9._:-]*$/ });
/** core.ts attachmentMaxBytes 20 MiB, attachmentUploadMaxChunks 64, attachmentChunkMaxBytes 512 KiB. */
export const ATTACHMENT_LIMITS = { maxBytes: 20 * 1024 * 1024, maxChunks: 64, chunkMaxBytes: 512 * 1024 } as const;

/** transport.ts v4AttachmentBeginParamsSchema: strict, zero bytes ⇔ zero chunks. */
export const v4AttachmentBeginParams = obj(
  {
    connectionId: str({ min: 1 }),
    uploadId,
    sessionId: str({ min: 1 }),
    fileName: str({ min: 1, max: 255, regex: /^[^\0\r\n]+$/ }),
    mime: str({ min: 3, max: 255, regex: /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*$/ }),
    totalBytes: int({ min: 0, max: ATTACHMENT_LIMITS.maxBytes }),
    totalChunks: int({ min: 0, max: ATTACHMENT_LIMITS.maxChunks }),
    checksum: str({ regex: /^sha256:[0-9a-f]{64}$/ }),
  },
  {
    refine(v, issues, path) {
      if ((v.totalBytes === 0) !== (v.totalChunks === 0))
        issues.push({ path: [...path, "totalChunks"], message: "zero-byte upload must declare zero chunks" });
    },
  },
);

/** transport.ts decodedBase64ByteLength: null when not canonical base64. */
export function decodedBase64Bytes(value: string): number | null {
  if (value.length === 0) return 0;
  if (value.length % 4 !== 0) return null;
  const padding = value.endsWith("==") ? 2 : value.endsWith("=") ? 1 : 0;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(value)) return null;
  return (value.length / 4) * 3 - padding;
}

/** transport.ts v4AttachmentChunkParamsSchema: strict, canonical base64 of at most 512 KiB decoded. */
export const v4AttachmentChunkParams = obj(
  { connectionId: str({ min: 1 }), uploadId, sessionId: str({ min: 1 }), chunkIndex: nonNegInt(), dataBase64: str() },
  {
    refine(v, issues, path) {
      const n = decodedBase64Bytes(v.dataBase64 as string);
      if (n === null) issues.push({ path: [...path, "dataBase64"], message: "invalid base64" });
      else if (n > ATTACHMENT_LIMITS.chunkMaxBytes)
        issues.push({ path: [...path, "dataBase64"], message: "attachment chunk exceeds decoded byte limit" });
    },
  },
);

/** transport.ts v4AttachmentCommitParamsSchema = v4AttachmentAbortParamsSchema: strict. */
export const v4AttachmentTerminalParams = obj({ connectionId: str({ min: 1 }), uploadId, sessionId: str({ min: 1 }) });

/** delta.ts conversationDeltaSchema, the ops the simulator writes (rows are checked by projectRows' own shapes). */
export const v4ConversationDelta = discriminated("op", {
  "row.appended": obj({ op: lit("row.appended"), row: jsonObject() }, { strict: false }),
  "row.upserted": obj({ op: lit("row.upserted"), row: jsonObject() }, { strict: false }),
  "row.removed": obj({ op: lit("row.removed"), fromRowId: num() }, { strict: false }),
  "row.delta": obj(
    { op: lit("row.delta"), rowId: num(), path: enm(["text", "inputText", "output.text", "summaryText"]), append: str() },
    { strict: false },
  ),
  "state.updated": obj({ op: lit("state.updated"), patch: jsonObject() }, { strict: false }),
});

/** transport.ts createTopicFrameSchema (the conversation topic's shell). */
export const v4ConversationTopicFrame = obj(
  {
    topic: str({ regex: /^conversation\/.+/ }),
    subscriptionId: str(),
    fromSeq: num(),
    toSeq: num(),
    sentAt: num(),
    payload: discriminated("kind", {
      snapshot: obj({ kind: lit("snapshot"), snapshot: jsonObject() }, { strict: false }),
      deltas: obj({ kind: lit("deltas"), deltas: arr(v4ConversationDelta) }, { strict: false }),
    }),
  },
  { strict: false },
);

const phaseEnum = enm(["draft", "prewarming", "running", "completedSuccess", "completedInterrupted", "error"]);
const availabilityItem = discriminated("allowed", {
  true: obj({ allowed: lit(true) }, { strict: false }),
  false: obj({ allowed: lit(false), reasonCode: str() }, { strict: false }),
});
const plain = (shape: Record<string, Schema>) => obj(shape, { strict: false });

/** snapshot.ts pendingInteractionSchema (permission and userInput payloads). */
export const v4PendingInteraction = plain({
  interactionId: str(),
  kind: enm(["permission", "userInput", "workspaceHookReview"]),
  anchorRowId: nullable(num()),
  createdAt: num(),
  payload: discriminated("kind", {
    permission: plain({
      kind: lit("permission"),
      toolCallId: str(),
      toolName: str(),
      summary: str(),
      detail: unknown(),
      options: arr(
        plain({ optionId: str(), label: str(), kind: enm(["allowOnce", "allowAlways", "deny", "custom"]), response: opt(jsonObject()) }),
      ),
    }),
    userInput: plain({
      kind: lit("userInput"),
      prompt: str(),
      freeText: bool(),
      toolName: opt(str()),
      toolCallId: opt(str()),
      questions: opt(arr(jsonObject())),
    }),
  }),
});

/** snapshot.ts conversationSnapshotSchema: the A zone and the rows window. */
export const v4ConversationSnapshot = plain({
  protocolVersion: lit(1),
  sessionId: str(),
  logEpoch: str(),
  seq: num(),
  revision: num(),
  control: plain({
    phase: phaseEnum,
    sessionEnded: bool(),
    canStop: bool(),
    stopState: enm(["idle", "stoppable", "stopping"]),
    stopTargetKind: enm(["assistant", "tool", "subagent", "compact", "goalVerifier", "goalContinuation", "turnSteer", "mixed", "unknown"]),
    activeWorks: arr(
      plain({ kind: str(), foregroundExecutionId: opt(str({ min: 1 })), sourceCommandId: opt(str({ min: 1 })), startedAt: num() }),
    ),
    lastError: nullable(jsonObject()),
    apiRetry: nullable(jsonObject()),
  }),
  availability: plain(
    Object.fromEntries(
      ["fork", "compact", "switchModelConfig", "setFollowupMode", "queueEdit", "sendQueuedNow", "pauseGoal", "resumeGoal"].map((k) => [
        k,
        availabilityItem,
      ]),
    ),
  ),
  inputRouting: plain({ mode: enm(["startNow", "enqueue", "guide", "reject", "choice"]), reasonCode: opt(str()) }),
  meta: plain({ title: str(), titleSource: enm(["default", "generated", "custom"]) }),
  config: jsonObject(),
  usage: plain({
    contextWindow: nullable(jsonObject()),
    cumulative: plain({ inputTokens: num(), outputTokens: num(), cacheReadTokens: num(), cacheWriteTokens: num() }),
  }),
  queue: plain({ items: arr(jsonObject()), autoDrain: bool(), pauseReason: opt(enm(["stopped", "manual", "error"])) }),
  pendingInteractions: arr(v4PendingInteraction),
  pendingCommands: arr(jsonObject()),
  backgroundWorks: arr(jsonObject()),
  subagents: opt(plain({ revision: nonNegInt(), childSessionIds: arr(str()), running: arr(jsonObject()), endedTotal: nonNegInt() })),
  goal: nullable(
    plain({
      objective: str(),
      status: enm(["active", "paused", "verifying", "verified", "notSatisfied", "failed"]),
      iteration: num(),
      verifications: arr(jsonObject()),
    }),
  ),
  plan: nullable(
    plain({ items: arr(plain({ id: str(), content: str(), status: enm(["pending", "inProgress", "completed"]) })), updatedAt: num() }),
  ),
  rows: plain({ window: arr(jsonObject()), totalCount: num(), firstRowId: nullable(num()) }),
});
