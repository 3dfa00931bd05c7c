// Realistic tool inputs and the results ZCode's tool handlers produce for
// them (/work/notes/zcode-tool-facts.md §2–3): `content` is the text the model
// reads, Edit carries a file_diff display, Bash keeps its exit code in
// perf.detail.command.exitCode (and "Exit code N" first in content) while
// success stays true. Nothing here touches the disk.
import { createHash } from "node:crypto";
import { join } from "node:path";
import type { Approval, ToolCall, ToolExec, ToolOutcome, Turn } from "../turn.ts";
import type { Todo } from "../types.ts";

export interface ToolSpec {
  toolName: string;
  input: Record<string, unknown>;
  /** false: tool_call leaves toolName off (take it from tool_input_start). */
  nameOnCall?: boolean;
  exec: ToolExec;
}

const result = (content: string, extra: Omit<Extract<ToolOutcome, { kind: "result" }>, "kind" | "content"> = {}): ToolOutcome => ({
  kind: "result",
  content,
  ...extra,
});

const simple = (
  content: string,
  extra: Omit<Extract<ToolOutcome, { kind: "result" }>, "kind" | "content"> = {},
  approval?: Approval,
): ToolExec => ({
  ...(approval ? { approval } : {}),
  run: async (_c, _i) => result(content, extra),
});

const fsDetail = (bytes: number) => ({
  readMs: 1,
  writeMs: 2,
  fileCount: 1,
  totalBytes: bytes,
  maxFileBytes: bytes,
  workspaceKind: "local",
});

export const GREET_BEFORE = 'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n';
export const FILE_STATE_NOTE = "(file state is current in your context — no need to Read it back)";

export function readSpec(ws: string, nameOnCall = true): ToolSpec {
  const filePath = join(ws, "src", "greet.ts");
  const lines = GREET_BEFORE.split("\n").slice(0, -1);
  return {
    toolName: "Read",
    input: { file_path: filePath },
    nameOnCall,
    exec: simple(lines.map((l, i) => `${i + 1}\t${l}`).join("\n"), { budgetStrategy: "truncate" }),
  };
}

export function editSpec(ws: string, approval?: Approval): ToolSpec {
  const filePath = join(ws, "src", "greet.ts");
  const oldString = '  return "Hello, " + name;';
  const newString = "  return `Hello, ${name}!`;";
  const after = GREET_BEFORE.replace(oldString, newString);
  return {
    toolName: "Edit",
    input: { file_path: filePath, old_string: oldString, new_string: newString, replace_all: false },
    exec: simple(
      `The file ${filePath} has been updated successfully. ${FILE_STATE_NOTE}`,
      {
        display: {
          kind: "file_diff",
          filePath,
          additions: 1,
          deletions: 1,
          structuredPatch: [
            {
              oldStart: 1,
              oldLines: 3,
              newStart: 1,
              newLines: 3,
              lines: [" export function greet(name: string): string {", `-${oldString}`, `+${newString}`, " }"],
            },
          ],
          truncated: false,
        },
        detail: { kind: "patch", filesystem: fsDetail(after.length), patch: { matchMs: 0, hunkCount: 1, matchAttempts: 1 } },
        budgetStrategy: "truncate",
      },
      approval,
    ),
  };
}

/** An Edit whose old_string is not in the file: tool.updated kind "error" (EditErrorCode 8). */
export function failingEditSpec(ws: string): ToolSpec {
  const filePath = join(ws, "src", "greet.ts");
  const oldString = "  return 'Hi, ' + name;";
  return {
    toolName: "Edit",
    input: { file_path: filePath, old_string: oldString, new_string: "  return 'Hey, ' + name;", replace_all: false },
    exec: {
      run: async () => ({
        kind: "error",
        type: "tool_execution_failed",
        code: "8",
        message: `String to replace not found in file.\nString: ${oldString}`,
      }),
    },
  };
}

export function writeSpec(ws: string): ToolSpec {
  const filePath = join(ws, "src", "farewell.ts");
  const content = "export function farewell(name: string): string {\n  return `Goodbye, ${name}.`;\n}\n";
  return {
    toolName: "Write",
    input: { file_path: filePath, content },
    exec: simple(`File created successfully at: ${filePath} ${FILE_STATE_NOTE}`, {
      detail: { kind: "filesystem", filesystem: fsDetail(content.length) },
      budgetStrategy: "truncate",
    }),
  };
}

export function grepSpec(ws: string, nameOnCall = true): ToolSpec {
  const files = ["src/greet.ts", "src/index.ts"];
  return {
    toolName: "Grep",
    input: { pattern: "greet\\(", path: ws, output_mode: "files_with_matches" },
    nameOnCall,
    exec: simple(`Found ${files.length} files\n${files.join("\n")}`, { budgetStrategy: "artifact" }),
  };
}

export function globSpec(ws: string): ToolSpec {
  const files = ["src/greet.ts", "src/index.ts", "src/farewell.ts"].map((f) => join(ws, f));
  return { toolName: "Glob", input: { pattern: "src/**/*.ts", path: ws }, exec: simple(files.join("\n"), { budgetStrategy: "artifact" }) };
}

export function webFetchSpec(): ToolSpec {
  return {
    toolName: "WebFetch",
    input: { url: "https://example.com/docs/greeting", prompt: "Summarize what the greeting API does" },
    exec: simple("The greeting API returns a friendly message for a given name.", { budgetStrategy: "artifact" }),
  };
}

export function webSearchSpec(t: Turn): ToolSpec {
  const query = "greeting api best practices";
  return {
    toolName: "WebSearch",
    input: { query },
    exec: {
      run: async () => {
        t.usage.webSearchRequests++;
        return result(
          `Web search results for query: "${query}"\n\nSummary:\nKeep greetings short and localizable.\n\nLinks:\n- [Designing friendly APIs](https://example.com/friendly-apis)\n- [Localization basics](https://example.com/l10n)\n\nREMINDER: You MUST include the sources above in your response to the user using markdown hyperlinks.`,
          { budgetStrategy: "truncate" },
        );
      },
    },
  };
}

export function agentSpec(): ToolSpec {
  const report = "Found 2 callers of greet(): src/index.ts:3 and src/cli.ts:12. Neither passes an empty name.";
  const agentId = "agent_7f3a9c";
  return {
    toolName: "Agent",
    input: {
      description: "Find callers of greet",
      prompt: "Search the codebase for every call of greet() and report whether any passes an empty name.",
      subagent_type: "general-purpose",
    },
    exec: simple(
      `${report}\nagentId: ${agentId} (use SendMessage with to: '${agentId}' to continue this agent)\n<usage>subagent_tokens: 5120\ntool_uses: 3\nduration_ms: 2310</usage>`,
      { budgetStrategy: "artifact" },
    ),
  };
}

export const PLAN_TODOS: Todo[] = [
  { content: "Read the greeting module", status: "completed", priority: "high" },
  { content: "Add an exclamation mark", status: "in_progress", priority: "medium" },
  { content: "Run the tests", status: "pending", priority: "low" },
];

export function todoSpec(t: Turn): ToolSpec {
  const oldTodos = structuredClone(t.s.todos);
  const todos = PLAN_TODOS;
  const count = (st: Todo["status"]) => todos.filter((x) => x.status === st).length;
  const summary = { total: todos.length, pending: count("pending"), inProgress: count("in_progress"), completed: count("completed") };
  return {
    toolName: "TodoWrite",
    input: { todos },
    exec: {
      run: async () => {
        t.setTodosLater(structuredClone(todos));
        return result(JSON.stringify({ oldTodos, todos, summary }), { budgetStrategy: "truncate" });
      },
    },
  };
}

// ---- Bash ---------------------------------------------------------------------

export interface BashRun {
  command: string;
  description: string;
  stdout: string[];
  stderr: string[];
  exitCode: number;
  approval?: Approval;
}

export const LS: BashRun = {
  command: "ls -la",
  description: "List files in the workspace",
  stdout: [
    "total 24\n",
    "drwxr-xr-x  5 dev dev 4096 Jan  1 12:00 .\ndrwxr-xr-x 12 dev dev 4096 Jan  1 11:00 ..\n",
    "-rw-r--r--  1 dev dev  120 Jan  1 12:00 package.json\ndrwxr-xr-x  2 dev dev 4096 Jan  1 12:00 src\n",
  ],
  stderr: ["", "", "ls: cannot access 'build': No such file or directory\n"],
  exitCode: 0,
};

export const FAILING_TESTS: BashRun = {
  command: "bun test",
  description: "Run the test suite",
  stdout: ["bun test v1.4.5\n", "\nsrc/greet.test.ts:\n(fail) greet > adds an exclamation mark\n", "\n 0 pass\n 1 fail\n"],
  stderr: ["", "", "error: expect(received).toBe(expected)\n"],
  exitCode: 1,
};

function tail(s: string, n = 4096): string {
  return s.length > n ? s.slice(s.length - n) : s;
}

/** formatBashModelContent: "Exit code N" first on failure; empty → "(Bash completed with no output)". */
export function bashContent(stdout: string, stderr: string, exitCode: number): string {
  const out = stdout.replace(/^(\s*\n)+/, "").trimEnd();
  const err = stderr.trim();
  const parts = exitCode !== 0 ? [`Exit code ${exitCode}`, out, err] : [out, err];
  return parts.filter(Boolean).join("\n") || "(Bash completed with no output)";
}

export function bashDetail(command: string, exitCode: number, outputBytes: number, runMs: number): Record<string, unknown> {
  return {
    kind: "command",
    command: {
      runMs,
      firstOutputMs: Math.max(1, Math.floor(runMs / 3)),
      noOutputMs: Math.max(1, Math.floor(runMs / 3)),
      exitCode,
      timedOut: false,
      outputBytes,
      category: "shell",
      name: command.split(/\s+/)[0],
      count: 1,
      status: exitCode === 0 ? "completed" : "failed",
      hash: createHash("sha256").update(command).digest("hex").slice(0, 16),
    },
  };
}

/** A Bash run with cumulative progress (outputPreview, tails) per chunk. */
export function bashSpec(t: Turn, b: BashRun): ToolSpec {
  return {
    toolName: "Bash",
    input: { command: b.command, description: b.description },
    exec: {
      ...(b.approval ? { approval: b.approval } : {}),
      run: async (c: ToolCall) => {
        const t0 = Date.now();
        let out = "";
        let err = "";
        for (let i = 0; i < b.stdout.length; i++) {
          out += b.stdout[i] ?? "";
          err += b.stderr[i] ?? "";
          await t.pace();
          await bashProgress(t, c, out, err, Date.now() - t0);
        }
        await t.pace();
        const bytes = Buffer.byteLength(out + err, "utf8");
        return result(bashContent(out, err, b.exitCode), {
          detail: bashDetail(b.command, b.exitCode, bytes, Math.max(1, Date.now() - t0)),
          budgetStrategy: "artifact",
        });
      },
    },
  };
}

export function bashProgress(t: Turn, c: ToolCall, out: string, err: string, elapsedMs: number, tailCap = 4096): Promise<void> {
  const all = out + err;
  const preview = tail(all);
  const bytes = Buffer.byteLength(all, "utf8");
  return t.emit("tool.updated", {
    elapsedMs,
    kind: "progress",
    outputBytes: bytes,
    outputPreview: {
      text: preview,
      fullText: preview,
      totalLines: all.split("\n").length - (all.endsWith("\n") ? 1 : 0),
      totalBytes: bytes,
      linesEstimated: false,
    },
    pid: 40000 + (c.toolCallId.charCodeAt(5) % 1000),
    stderrBytes: Buffer.byteLength(err, "utf8"),
    stderrTail: tail(err, tailCap),
    stdoutBytes: Buffer.byteLength(out, "utf8"),
    stdoutTail: tail(out, tailCap),
    toolCallId: c.toolCallId,
    toolName: "Bash",
  });
}

// ---- interaction tools ----------------------------------------------------------

export const PLAN = "1. Read src/greet.ts\n2. Add an exclamation mark to the greeting\n3. Run the tests";

export function exitPlanSpec(): ToolSpec {
  return {
    toolName: "ExitPlanMode",
    input: { plan: PLAN },
    exec: {
      approval: { kind: "plan" },
      run: async () =>
        result(
          `User has approved your plan. You can now start coding. Start with updating your todo list if applicable.\n\n## Approved Plan:\n${PLAN}`,
          { budgetStrategy: "truncate" },
        ),
    },
  };
}

export interface Question {
  question: string;
  header: string;
  multiSelect: boolean;
  options: { label: string; description: string }[];
}

export const SINGLE: Question = {
  question: "Which package manager should I use?",
  header: "Package",
  multiSelect: false,
  options: [
    { label: "Bun", description: "Fast, all-in-one" },
    { label: "npm", description: "The Node default" },
  ],
};

export const MULTI: Question = {
  question: "Select the files to test",
  header: "Tests",
  multiSelect: true,
  options: [
    { label: "auth.test.ts", description: "Login and tokens" },
    { label: "user.test.ts", description: "Profiles" },
    { label: "api.test.ts", description: "HTTP handlers" },
  ],
};

/** formatAskUserQuestionModelContent. */
export function questionContent(questions: Question[], answers: Record<string, string> | undefined): string {
  const entries = Object.entries(answers ?? {});
  if (entries.length === 0) {
    return "The user did not provide answers to these questions. Continue using your best judgment; do not treat this as a rejection or invent a user preference.";
  }
  const text = entries.map(([q, a]) => `"${q}"="${a}"`).join(", ");
  const skipped = questions.filter((q) => !(q.question in (answers ?? {}))).length;
  if (skipped > 0) {
    return `The user answered some questions and skipped ${skipped}. Provided answers: ${text}. Continue with the provided answers and use your best judgment for the unanswered questions; do not invent user preferences.`;
  }
  return `User has answered your questions: ${text}. You can now continue with the user's answers in mind.`;
}

export function questionSpec(questions: Question[]): ToolSpec {
  return {
    toolName: "AskUserQuestion",
    input: { questions },
    exec: {
      approval: { kind: "question" },
      run: async (_c, input) =>
        result(questionContent(questions, input.answers as Record<string, string> | undefined), { budgetStrategy: "truncate" }),
    },
  };
}
