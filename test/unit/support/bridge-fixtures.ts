// Recorded-shape ZCode payloads (per /work/shared/spec/ZCODE-SHAPES.md) for the
// bridge unit tests, validated through A's schemas so a fixture that drifts
// from the wire shape fails loudly instead of testing nothing.
import * as v from "valibot";
import { expect } from "bun:test";
import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { ModelToolCallSchema, ToolUpdatedSchema, MessageSchema, type Message, type ModelToolCall, type ToolUpdated } from "../../../src/zcode/schemas.ts";
import { checkSessionUpdate } from "../../support/schema.ts";

export const CWD = "/home/dev/project";

export function tu(p: unknown): ToolUpdated {
  return v.parse(ToolUpdatedSchema, p);
}

export function mtc(p: unknown): ModelToolCall {
  return v.parse(ModelToolCallSchema, { kind: "tool_call", ...(p as object) });
}

export function msg(p: unknown): Message {
  return v.parse(MessageSchema, p);
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

export const RESULTS = {
  bash: {
    input: { command: "ls -la", description: "List files" },
    result: { stdout: "total 0\nfile.txt\n", stderr: "", exitCode: 0 },
    output: "total 0\nfile.txt\n",
  },
  read: {
    input: { file_path: `${CWD}/src/x.ts`, offset: 10, limit: 20 },
    result: { type: "text", file: { filePath: `${CWD}/src/x.ts`, content: "const x = 1;\n", numLines: 1, startLine: 10, totalLines: 40 } },
    output: "    10\tconst x = 1;",
  },
  edit: {
    input: { file_path: `${CWD}/src/x.ts`, old_string: "export const b = 2;", new_string: "export const b = 42;" },
    result: {
      filePath: `${CWD}/src/x.ts`,
      oldString: "export const b = 2;",
      newString: "export const b = 42;",
      originalFile: ORIGINAL_TS,
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" export const a = 1;", "-export const b = 2;", "+export const b = 42;", " export const c = 3;"] },
      ],
    },
    output: "The file src/x.ts has been updated.",
  },
  writeCreate: {
    input: { file_path: "src/new.ts", content: "hello\n" },
    result: { type: "create", filePath: `${CWD}/src/new.ts`, content: "hello\n", structuredPatch: [] },
    output: "File created successfully at: src/new.ts",
  },
  writeUpdate: {
    input: { file_path: `${CWD}/src/x.ts`, content: EDITED_TS },
    result: {
      type: "update",
      filePath: `${CWD}/src/x.ts`,
      content: EDITED_TS,
      structuredPatch: [
        { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" export const a = 1;", "-export const b = 2;", "+export const b = 42;", " export const c = 3;"] },
      ],
    },
    output: "The file src/x.ts has been updated.",
  },
  grep: {
    input: { pattern: "TODO", path: "src", output_mode: "files_with_matches" },
    result: { mode: "files_with_matches", numFiles: 2, filenames: [`${CWD}/src/a.ts`, `${CWD}/src/b.ts`] },
    output: "Found 2 files",
  },
  glob: {
    input: { pattern: "**/*.ts" },
    result: { filenames: [`${CWD}/src/a.ts`], numFiles: 1, truncated: false },
    output: `${CWD}/src/a.ts`,
  },
  webfetch: {
    input: { url: "https://example.com/docs", prompt: "Summarize" },
    result: { code: 200, bytes: 1234, url: "https://example.com/docs", result: "The page explains things." },
    output: "The page explains things.",
  },
  task: {
    input: { description: "Find the bug", prompt: "Look for the bug in src", subagent_type: "general-purpose" },
    result: { content: "Found it in src/x.ts" },
    output: "Found it in src/x.ts",
  },
} as const;
