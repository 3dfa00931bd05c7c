// Realistic tool inputs and structured results (ZCODE-SHAPES.md table),
// relative to the session's workspace. Nothing here touches the disk.
import { join } from "node:path";
import type { Todo } from "../types.ts";

export interface ToolFixture {
  toolName: string;
  input: Record<string, unknown>;
  output: string;
  result: unknown;
}

const GREET_BEFORE = 'export function greet(name: string): string {\n  return "Hello, " + name;\n}\n';

export function readFixture(ws: string): ToolFixture {
  const filePath = join(ws, "src", "greet.ts");
  const lines = GREET_BEFORE.split("\n").slice(0, -1);
  return {
    toolName: "Read",
    input: { file_path: filePath, offset: 1, limit: 200 },
    output: lines.map((l, i) => `${String(i + 1).padStart(6)}\t${l}`).join("\n"),
    result: { type: "text", file: { filePath, content: GREET_BEFORE, numLines: lines.length, startLine: 1, totalLines: lines.length } },
  };
}

export function editFixture(ws: string): ToolFixture {
  const filePath = join(ws, "src", "greet.ts");
  const oldString = '  return "Hello, " + name;';
  const newString = "  return `Hello, ${name}!`;";
  return {
    toolName: "Edit",
    input: { file_path: filePath, old_string: oldString, new_string: newString, replace_all: false },
    output: `The file ${filePath} has been updated. Here's the result of running \`cat -n\` on a snippet of the edited file:\n     1\texport function greet(name: string): string {\n     2\t${newString}\n     3\t}`,
    result: {
      filePath,
      oldString,
      newString,
      originalFile: GREET_BEFORE,
      replaceAll: false,
      userModified: false,
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" export function greet(name: string): string {", `-${oldString}`, `+${newString}`, " }"] },
      ],
    },
  };
}

export function writeFixture(ws: string): ToolFixture {
  const filePath = join(ws, "src", "farewell.ts");
  const content = 'export function farewell(name: string): string {\n  return `Goodbye, ${name}.`;\n}\n';
  return {
    toolName: "Write",
    input: { file_path: filePath, content },
    output: `File created successfully at: ${filePath}`,
    result: { type: "create", filePath, content, structuredPatch: [] },
  };
}

export function grepFixture(ws: string): ToolFixture {
  const filenames = [join(ws, "src", "greet.ts"), join(ws, "src", "index.ts")];
  return {
    toolName: "Grep",
    input: { pattern: "greet\\(", path: ws, output_mode: "files_with_matches" },
    output: `Found ${filenames.length} files\n${filenames.join("\n")}`,
    result: { mode: "files_with_matches", numFiles: filenames.length, filenames },
  };
}

export function globFixture(ws: string): ToolFixture {
  const filenames = ["src/greet.ts", "src/index.ts", "src/farewell.ts"].map((f) => join(ws, f));
  return {
    toolName: "Glob",
    input: { pattern: "src/**/*.ts", path: ws },
    output: filenames.join("\n"),
    result: { filenames, numFiles: filenames.length, truncated: false, durationMs: 3 },
  };
}

export function webFetchFixture(): ToolFixture {
  const url = "https://example.com/docs/greeting";
  const text = "The greeting API returns a friendly message for a given name.";
  return {
    toolName: "WebFetch",
    input: { url, prompt: "Summarize what the greeting API does" },
    output: text,
    result: { code: 200, codeText: "OK", bytes: 1256, url, result: text, durationMs: 84 },
  };
}

export function taskFixture(): ToolFixture {
  const report = "Found 2 callers of greet(): src/index.ts:3 and src/cli.ts:12. Neither passes an empty name.";
  return {
    toolName: "Task",
    input: { description: "Find callers of greet", prompt: "Search the codebase for every call of greet() and report whether any passes an empty name.", subagent_type: "general-purpose" },
    output: report,
    result: { status: "completed", content: [{ type: "text", text: report }], totalDurationMs: 2310, totalTokens: 5120, totalToolUseCount: 3 },
  };
}

export const PLAN_TODOS: Todo[] = [
  { id: "1", content: "Read the greeting module", status: "completed", priority: "high", activeForm: "Reading the greeting module" },
  { id: "2", content: "Add an exclamation mark", status: "in_progress", priority: "medium", activeForm: "Adding an exclamation mark" },
  { id: "3", content: "Run the tests", status: "pending", priority: "low", activeForm: "Running the tests" },
];

export function todoFixture(oldTodos: Todo[]): ToolFixture {
  return {
    toolName: "TodoWrite",
    input: { todos: PLAN_TODOS },
    output: "Todos have been modified successfully. Ensure that you continue to use the todo list to track your progress.",
    result: { oldTodos, newTodos: PLAN_TODOS },
  };
}

export const BASH_INPUT = { command: "ls -la", description: "List files in the workspace" };
export const BASH_STDOUT = [
  "total 24\n",
  "drwxr-xr-x  5 dev dev 4096 Jan  1 12:00 .\ndrwxr-xr-x 12 dev dev 4096 Jan  1 11:00 ..\n",
  "-rw-r--r--  1 dev dev  120 Jan  1 12:00 package.json\ndrwxr-xr-x  2 dev dev 4096 Jan  1 12:00 src\n",
];
export const BASH_STDERR = ["", "", "ls: warning: cannot access 'build': No such file or directory\n"];
