// ZCode payloads in the shapes a real CLI sends (ZCODE-REAL-WIRE.md,
// notes/zcode-tool-facts.md) for the bridge unit tests. Each goes through the
// bridge's own tolerant schemas, and a fixture that loses anything on the way
// (a field the schema reads as absent, a list entry it drops) fails loudly
// instead of silently testing less than it says.
import * as v from "valibot";
import { expect } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import {
  ModelStreamingSchema,
  ToolUpdatedSchema,
  type ModelStreaming,
  type ToolResult,
  type ToolUpdated,
} from "../../../src/zcode/event-schemas.ts";
import { MessageSchema, SettingsSchema, type Message, type Settings } from "../../../src/zcode/schemas.ts";
import { checkSessionUpdate } from "../../support/schema.ts";

export const CWD = "/home/dev/project";

/** Parses `value` and insists the tolerant schema kept every part of it. */
export function faithful<S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> {
  const out = v.parse(schema, value);
  if (!Bun.deepEquals(out, value)) {
    throw new Error(
      `fixture drifted from the wire shape: ${JSON.stringify(value).slice(0, 300)} read as ${JSON.stringify(out).slice(0, 300)}`,
    );
  }
  return out;
}

/** A `tool.updated` payload. */
export function tu(p: unknown): ToolUpdated {
  return faithful(ToolUpdatedSchema, p);
}

/** A `model.streaming` payload. */
export function ms(p: unknown): ModelStreaming {
  return faithful(ModelStreamingSchema, p);
}

const SHOWN_PARTS = new Set(["text", "reasoning", "tool", "compaction"]);

/**
 * A `session/messages` message. Parts of types the bridge does not show
 * (step-start, step-finish, …) are dropped by design; every other part must
 * come through whole.
 */
export function msg(p: { info: unknown; parts: Array<Record<string, unknown>> }): Message {
  const out = v.parse(MessageSchema, p);
  const expected = { info: p.info, parts: p.parts.filter((x) => SHOWN_PARTS.has(String(x.type))) };
  if (!Bun.deepEquals(out, expected)) {
    throw new Error(`fixture drifted from the wire shape: ${JSON.stringify(p).slice(0, 300)} read as ${JSON.stringify(out).slice(0, 300)}`);
  }
  return out;
}

export function settings(p: unknown): Settings {
  return faithful(SettingsSchema, p);
}

/** Every update must be valid ACP (an editor silently drops an invalid one). */
export function expectValid(updates: readonly SessionUpdate[]): void {
  for (const u of updates) {
    const problems = checkSessionUpdate(u);
    if (problems.length > 0) throw new Error(`invalid session/update ${JSON.stringify(u).slice(0, 400)}: ${problems.join("; ")}`);
  }
  expect(true).toBe(true);
}

export const ORIGINAL_TS = "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n";
export const EDITED_TS = "export const a = 1;\nexport const b = 42;\nexport const c = 3;\n";

/** jsdiff hunk of ORIGINAL_TS → EDITED_TS (context 3, as ZCode's file_diff view carries it). */
export const HUNK = {
  oldStart: 1,
  oldLines: 3,
  newStart: 1,
  newLines: 3,
  lines: [" export const a = 1;", "-export const b = 2;", "+export const b = 42;", " export const c = 3;"],
};

const FILE_STATE = "(file state is current in your context — no need to Read it back)";

function commandPerf(exitCode: number, status: string) {
  return {
    totalMs: 48,
    permissionWaitMs: 0,
    detail: {
      kind: "command",
      command: { runMs: 31, firstOutputMs: 29, exitCode, timedOut: false, outputBytes: 14, status, hash: "3f2a9c0d11b2e4f5" },
    },
  };
}

function budget(bytes: number, strategy = "truncate") {
  return { truncated: false, originalBytes: bytes, returnedBytes: bytes, budgetStrategy: strategy };
}

export interface ToolFixture {
  name: string;
  input: Record<string, unknown>;
  /** `tool.updated` kind "result" `result`, as the CLI sends it. */
  result: ToolResult;
}

function fixture(name: string, input: Record<string, unknown>, result: Record<string, unknown>): ToolFixture {
  return { name, input, result: tu({ kind: "result", toolCallId: "x", result }).result! };
}

/** One finished call per built-in tool, real result shapes. */
export const TOOLS = {
  bash: fixture(
    "Bash",
    { command: "ls -la", description: "List files" },
    {
      success: true,
      content: "total 0\nfile.txt",
      perf: commandPerf(0, "completed"),
      ...budget(16, "artifact"),
    },
  ),
  /** A command that exited non-zero: still `success:true`; the content starts `Exit code N`. */
  bashFailed: fixture(
    "Bash",
    { command: "make test" },
    {
      success: true,
      content: "Exit code 2\nmake: *** [test] Error 2",
      perf: commandPerf(2, "failed"),
      ...budget(38, "artifact"),
    },
  ),
  /** grep found nothing: exit 1, which ZCode does not count as an error (no `Exit code` line). */
  bashGrepNothing: fixture(
    "Bash",
    { command: "grep -r nope ." },
    {
      success: true,
      content: "(Bash completed with no output)",
      perf: commandPerf(1, "completed"),
      ...budget(31, "artifact"),
    },
  ),
  bashSilent: fixture(
    "Bash",
    { command: "true" },
    {
      success: true,
      content: "(Bash completed with no output)",
      perf: commandPerf(0, "completed"),
      ...budget(31, "artifact"),
    },
  ),
  /** Output over budget: the content is a persisted-output notice; the display has the (bounded) output itself. */
  bashLarge: fixture(
    "Bash",
    { command: "make build" },
    {
      success: true,
      content:
        "<persisted-output>\nOutput too large (45.2KB). Full output saved to: /tmp/zcode/tool-results/call_9.txt\n\nPreview (first 2KB):\nline 1\n...\n</persisted-output>",
      display: { kind: "bash_output", output: "line 1\nline 2\nline 3", truncated: true, outputPath: "/tmp/zcode/tool-results/call_9.txt" },
      perf: commandPerf(0, "completed"),
      truncated: true,
      originalBytes: 46285,
      returnedBytes: 2100,
      budgetStrategy: "artifact",
      artifactPath: "/tmp/zcode/tool-results/call_9.txt",
    },
  ),
  read: fixture(
    "Read",
    { file_path: `${CWD}/src/x.ts`, offset: 10, limit: 20 },
    {
      success: true,
      content: "10\tconst x = 1;\n11\tconst y = 2;",
      perf: { totalMs: 4, permissionWaitMs: 0 },
      ...budget(30),
    },
  ),
  /** A partial read: ZCode prefixes a reminder for the model. */
  readWithReminder: fixture(
    "Read",
    { file_path: "README.md" },
    {
      success: true,
      content: "<system-reminder>The file is longer than what was read.</system-reminder>\n\n1\t# Title\n2\t\n3\tText",
      perf: { totalMs: 4, permissionWaitMs: 0 },
      ...budget(90),
    },
  ),
  edit: fixture(
    "Edit",
    { file_path: `${CWD}/src/x.ts`, old_string: "export const b = 2;", new_string: "export const b = 42;" },
    {
      success: true,
      content: `The file ${CWD}/src/x.ts has been updated successfully. ${FILE_STATE}`,
      display: { kind: "file_diff", filePath: `${CWD}/src/x.ts`, additions: 1, deletions: 1, structuredPatch: [HUNK], truncated: false },
      perf: {
        totalMs: 912,
        permissionWaitMs: 850,
        detail: { kind: "patch", filesystem: { readMs: 1, writeMs: 2, fileCount: 1 }, patch: { hunkCount: 1 } },
      },
      ...budget(120),
    },
  ),
  writeCreate: fixture(
    "Write",
    { file_path: "src/new.ts", content: "hello\n" },
    {
      success: true,
      content: `File created successfully at: src/new.ts ${FILE_STATE}`,
      perf: { totalMs: 3, permissionWaitMs: 0, detail: { kind: "filesystem", filesystem: { writeMs: 1, fileCount: 1 } } },
      ...budget(100),
    },
  ),
  writeUpdate: fixture(
    "Write",
    { file_path: `${CWD}/src/x.ts`, content: EDITED_TS },
    {
      success: true,
      content: `The file ${CWD}/src/x.ts has been updated successfully. ${FILE_STATE}`,
      display: { kind: "file_diff", filePath: `${CWD}/src/x.ts`, additions: 1, deletions: 1, structuredPatch: [HUNK], truncated: false },
      perf: { totalMs: 3, permissionWaitMs: 0, detail: { kind: "filesystem", filesystem: { writeMs: 1, fileCount: 1 } } },
      ...budget(110),
    },
  ),
  grep: fixture(
    "Grep",
    { pattern: "TODO", path: "src", output_mode: "files_with_matches" },
    {
      success: true,
      content: "Found 2 files\nsrc/a.ts\nsrc/b.ts",
      perf: { totalMs: 20, permissionWaitMs: 0 },
      ...budget(31, "artifact"),
    },
  ),
  grepContent: fixture(
    "Grep",
    { pattern: "TODO", output_mode: "content" },
    {
      success: true,
      content: "src/a.ts:3:// TODO fix\nsrc/b.ts:9:// TODO test",
      perf: { totalMs: 20, permissionWaitMs: 0 },
      ...budget(44, "artifact"),
    },
  ),
  grepCount: fixture(
    "Grep",
    { pattern: "TODO", output_mode: "count" },
    {
      success: true,
      content: "src/a.ts:2\nsrc/b.ts:1\n\nFound 3 total occurrences across 2 files.",
      perf: { totalMs: 20, permissionWaitMs: 0 },
      ...budget(60, "artifact"),
    },
  ),
  glob: fixture(
    "Glob",
    { pattern: "**/*.ts" },
    {
      success: true,
      content: `${CWD}/src/a.ts\n${CWD}/src/b.ts`,
      perf: { totalMs: 5, permissionWaitMs: 0 },
      ...budget(40, "artifact"),
    },
  ),
  globTruncated: fixture(
    "Glob",
    { pattern: "**/*" },
    {
      success: true,
      content: `${CWD}/a.ts\n(Results are truncated. Consider using a more specific path or pattern.)`,
      perf: { totalMs: 5, permissionWaitMs: 0 },
      ...budget(90, "artifact"),
    },
  ),
  webfetch: fixture(
    "WebFetch",
    { url: "https://example.com/docs", prompt: "Summarize" },
    {
      success: true,
      content: "The page explains things.",
      perf: { totalMs: 700, permissionWaitMs: 0 },
      ...budget(25, "artifact"),
    },
  ),
  agent: fixture(
    "Agent",
    { description: "Find the bug", prompt: "Look for the bug in src", subagent_type: "general-purpose" },
    {
      success: true,
      content:
        "Found it in src/x.ts\nagentId: agent_7 (use SendMessage with to: 'agent_7' to continue this agent)\n<usage>subagent_tokens: 1200\ntool_uses: 3\nduration_ms: 4000</usage>",
      perf: { totalMs: 4000, permissionWaitMs: 0 },
      ...budget(150, "artifact"),
    },
  ),
  todo: fixture(
    "TodoWrite",
    {
      todos: [
        { content: "Read the code", status: "completed", priority: "high" },
        { content: "Fix the bug", status: "in_progress", priority: "high" },
        { content: "Add a test", status: "pending", priority: "medium" },
      ],
    },
    {
      success: true,
      content: JSON.stringify({ oldTodos: [], todos: [], summary: { total: 3, pending: 1, inProgress: 1, completed: 1 } }),
      perf: { totalMs: 1, permissionWaitMs: 0 },
      ...budget(90),
    },
  ),
} satisfies Record<string, ToolFixture>;

/** A history tool part (`session/messages`) for a finished call, as ZCode stores it. */
export function toolPart(callId: string, t: ToolFixture): Record<string, unknown> {
  const display = t.result.display;
  return {
    partId: `prt_${callId}`,
    sessionId: "sess_1",
    messageId: "msg_a",
    type: "tool",
    callId,
    tool: t.name,
    state: {
      status: "completed",
      input: t.input,
      output: t.result.content,
      title: t.name,
      metadata: {
        schemaVersion: 1,
        ...(display ? { display } : {}),
        serialization: { truncated: false, originalBytes: 10, returnedBytes: 10, budgetStrategy: "truncate" },
      },
      startedAt: 1760000000080,
      completedAt: 1760000000123,
    },
  };
}

// ---------------------------------------------------------------- interactions

export const DENIED_BY_USER =
  "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file). STOP what you are doing and wait for the user to tell you how to proceed.";

/** ZCode's three legacy permission options, each with the response it wants back verbatim. */
export const PERMISSION_OPTIONS = [
  { kind: "allow_once", name: "Allow once", optionId: "allow_once", response: { decision: "allow", reason: "Approved once" } },
  {
    description: "Do not ask again for matching requests in this project",
    kind: "allow_always",
    name: "Always allow in this project",
    optionId: "allow_project",
    response: {
      decision: "allow",
      permissionUpdates: [{ behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "rm -rf build" }], type: "addRules" }],
      reason: "Approved for this project",
    },
  },
  { kind: "deny", name: "Deny", optionId: "deny", response: { decision: "deny", reason: DENIED_BY_USER } },
];

/** interaction/requestPermission params as ZCode's broker sends them. */
export function permissionParams(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    input: { command: "rm -rf build" },
    reason: "Tool Bash requires approval",
    requestId: "perm_1",
    riskLevel: "high",
    sessionId: "s1",
    options: PERMISSION_OPTIONS,
    toolCallId: "call_1",
    toolName: "Bash",
    turnId: "turn_1",
    ...extra,
  };
}

export const PLAN_QUESTION = {
  header: "Plan",
  question: "Review this implementation plan.",
  options: [{ label: "Approve", value: "approve", description: "Exit plan mode and start implementation." }],
};

/** interaction/requestUserInput for ExitPlanMode's plan approval. */
export const PLAN_REQUEST = {
  input: { plan: "1. a\n2. b" },
  prompt: "Tool ExitPlanMode requires approval",
  questions: [PLAN_QUESTION],
  requestId: "req_p",
  schema: { interaction: "plan_approval", toolName: "ExitPlanMode" },
  sessionId: "s1",
  toolCallId: "call_p",
  toolName: "ExitPlanMode",
  turnId: "turn_1",
};

/** AskUserQuestion's questions as the broker sends them (`value` equals `label`). */
export const QUESTIONS = [
  {
    question: "Which files?",
    header: "Files",
    multiSelect: true,
    options: [
      { label: "auth.test.ts", value: "auth.test.ts", description: "" },
      { label: "user.test.ts", value: "user.test.ts", description: "" },
    ],
  },
  {
    question: "Framework?",
    header: "Framework",
    multiSelect: false,
    options: [
      { label: "Bun", value: "Bun", description: "fast" },
      { label: "Jest", value: "Jest", description: "" },
    ],
  },
];

export function questionRequest(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    input: {
      questions: QUESTIONS.map(({ question, header, multiSelect, options }) => ({
        question,
        header,
        multiSelect,
        options: options.map(({ label, description }) => ({ label, description })),
      })),
    },
    prompt: "Tool AskUserQuestion requires approval",
    questions: QUESTIONS,
    requestId: "req_q",
    schema: { toolName: "AskUserQuestion" },
    sessionId: "s1",
    toolCallId: "call_q",
    toolName: "AskUserQuestion",
    turnId: "turn_1",
    ...extra,
  };
}

// ---------------------------------------------------------------- settings

export const GLM = {
  ref: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" },
  label: "GLM-5.3",
  providerLabel: "Z.ai Coding Plan",
  contextWindow: 200000,
  maxOutputTokens: 128000,
  reasoning: {
    levels: [
      { value: "low", label: "Low" },
      { value: "high", label: "High" },
      { value: "max", label: "Max" },
    ],
    defaultLevel: "max",
  },
  properties: {},
};

/** settings of a create answer (one model, three levels, yolo). */
export const CREATE_SETTINGS = {
  model: {
    current: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } },
    available: [GLM],
    lastUsed: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" },
  },
  thoughtLevel: {
    enabled: true,
    current: "max",
    available: [
      { value: "low", label: "Low" },
      { value: "high", label: "High" },
      { value: "max", label: "Max" },
    ],
  },
  mode: { current: "yolo" },
  permission: { mode: "yolo" },
};
