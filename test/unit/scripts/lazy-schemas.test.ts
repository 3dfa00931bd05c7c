// The build plugin that makes the ACP SDK's zod schemas lazy
// (scripts/lazy-schemas.ts): every schema of the installed SDK is wrapped,
// an unexpected layout fails the build, and the lazy module parses exactly
// as the SDK's own does: for every exported schema of the protocol the
// bridge speaks, over a corpus of real messages and odd values, the same
// success, the same output, the same issues.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { lazifySchemas, lazySdkSchemas, SDK_SCHEMA_FILE } from "../../../scripts/lazy-schemas.ts";

const ROOT = resolve(import.meta.dir, "../../..");
const SDK_ENTRY = Bun.resolveSync("@agentclientprotocol/sdk/unstable", ROOT);
/** The schemas of the protocol version the bridge imports (sdk/unstable). */
const SCHEMAS = join(dirname(SDK_ENTRY), "schema", "zod.gen.js");

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "lazy-schemas-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("the transform", () => {
  test("matches the SDK's schema files, and wraps every top-level schema of each", async () => {
    expect(SDK_SCHEMA_FILE.test(SCHEMAS)).toBe(true);
    const text = await Bun.file(SCHEMAS).text();
    const { code, wrapped, eager } = lazifySchemas(text);
    // The few the SDK reads at import (EAGER_SCHEMAS) stay as they are.
    expect(eager).toBe(1);
    expect(wrapped + eager).toBe(text.match(/^export const z\w+ = /gm)?.length ?? -1);
    expect(wrapped).toBeGreaterThan(100);
    expect(code.match(/^export const z\w+ = \/\* @__PURE__ \*\/ z\.lazy\(\(\) => /gm)?.length).toBe(wrapped);
    // Imports and comments are kept as they were.
    expect(code).toContain('import * as z from "zod/v4";');
  });

  test("a layout it does not know fails loudly instead of shipping a half-lazy module", () => {
    const ok = 'import * as z from "zod/v4";\nexport const zA = z.string();\n';
    expect(lazifySchemas(ok).wrapped).toBe(1);
    expect(() => lazifySchemas('import * as z from "zod/v4";\nexport const zA = z.string()\nexport function f() {}\n')).toThrow(
      /update scripts\/lazy-schemas.ts/,
    );
    expect(() => lazifySchemas('import { z } from "zod";\nexport const zA = z.string();\n')).toThrow(/update scripts\/lazy-schemas.ts/);
    expect(() => lazifySchemas('import * as z from "zod/v4";\nconst zA = z.string();\n')).toThrow(/update scripts\/lazy-schemas.ts/);
  });
});

/** The schema module bundled as the bridge is built, with or without the plugin. */
async function bundled(name: string, plugins: Bun.BunPlugin[]): Promise<Record<string, { safeParse(v: unknown): any }>> {
  const entry = join(tmp, `${name}-entry.ts`);
  writeFileSync(entry, `export * from ${JSON.stringify(SCHEMAS)};\n`);
  const r = await Bun.build({ entrypoints: [entry], outdir: join(tmp, name), target: "bun", format: "esm", plugins });
  if (!r.success) throw new Error(r.logs.join("\n"));
  return import(join(tmp, name, `${name}-entry.js`));
}

const CWD = "/home/user/project";
const CORPUS: unknown[] = [
  undefined,
  null,
  {},
  [],
  "text",
  0,
  -1,
  1.5,
  2 ** 40,
  true,
  {
    protocolVersion: 1,
    clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true, _meta: { terminal_output: true } },
  },
  { protocolVersion: 70000, clientCapabilities: "none" },
  { cwd: CWD, mcpServers: [] },
  { cwd: CWD, mcpServers: [{ name: "fs", command: "/bin/mcp", args: ["-v"], env: [{ name: "A", value: "1" }] }] },
  { cwd: CWD, mcpServers: [{ type: "http", name: "web", url: "https://example.com/mcp", headers: [{ name: "X", value: "y" }] }] },
  { cwd: CWD, mcpServers: [{ type: "sse", name: "s", url: "https://example.com/sse", headers: [] }, { name: 3 }] },
  { sessionId: "s1", cwd: CWD, mcpServers: [] },
  { sessionId: "s1", cwd: CWD },
  { sessionId: "s1" },
  { sessionId: 7 },
  { cursor: "abc", cwd: CWD },
  { sessionId: "s1", modeId: "plan" },
  { sessionId: "s1", configId: "thought_level", value: "high" },
  { sessionId: "s1", configId: "x", value: true },
  {
    sessionId: "s1",
    prompt: [
      { type: "text", text: "hello" },
      { type: "image", data: "aGk=", mimeType: "image/png" },
      { type: "resource_link", uri: "file:///a.ts", name: "a.ts" },
      { type: "resource", resource: { uri: "file:///b.ts", text: "b", mimeType: "text/plain" } },
      { type: "resource", resource: { uri: "file:///c.bin", blob: "AAA=" } },
      { type: "audio", data: "AAA=", mimeType: "audio/wav" },
      { type: "mystery", payload: 1 },
    ],
  },
  { sessionId: "s1", prompt: "not a list" },
  { sessionId: "s1", update: { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" }, messageId: "m1" } },
  {
    sessionId: "s1",
    update: {
      sessionUpdate: "tool_call",
      toolCallId: "t1",
      title: "Run",
      kind: "execute",
      status: "pending",
      locations: [{ path: "/a", line: 3 }],
      rawInput: { a: 1 },
    },
  },
  {
    sessionId: "s1",
    update: {
      sessionUpdate: "tool_call_update",
      toolCallId: "t1",
      status: "completed",
      content: [
        { type: "diff", path: "/a", oldText: "x", newText: "y" },
        { type: "terminal", terminalId: "term" },
        { type: "content", content: { type: "text", text: "ok" } },
      ],
    },
  },
  { sessionId: "s1", update: { sessionUpdate: "plan", entries: [{ content: "do it", priority: "high", status: "pending" }] } },
  { sessionId: "s1", update: { sessionUpdate: "usage_update", used: 10, size: 100 } },
  { sessionId: "s1", update: { sessionUpdate: "current_mode_update", currentModeId: "plan" } },
  {
    sessionId: "s1",
    update: { sessionUpdate: "available_commands_update", availableCommands: [{ name: "fork", description: "d", input: { hint: "h" } }] },
  },
  { sessionId: "s1", update: { sessionUpdate: "something_new", x: 1 } },
  {
    sessionId: "s1",
    toolCall: { toolCallId: "t1", title: "rm" },
    options: [
      { optionId: "a", name: "Allow", kind: "allow_once" },
      { optionId: "r", name: "Reject", kind: "reject_once" },
      { optionId: "z", name: "Odd", kind: "maybe" },
    ],
  },
  { outcome: { outcome: "selected", optionId: "a" } },
  { outcome: { outcome: "cancelled" } },
  {
    mode: "form",
    message: "Pick",
    requestedSchema: { type: "object", properties: { a: { type: "string" }, b: { type: "array", items: { enum: ["x"] } } } },
    sessionId: "s1",
  },
  { action: "accept", content: { a: "x", b: ["x"] } },
  { stopReason: "end_turn", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
  { stopReason: "bogus" },
  { methodId: "zcode-app" },
  { jsonrpc: "2.0", id: 1, method: "initialize", params: {} },
  { _meta: { a: 1 }, sessionId: "s1" },
  { _meta: "not an object", sessionId: "s1" },
];

/** What a parse gives, in a comparable form (zod's issue objects, output values). */
function outcome(schema: { safeParse(v: unknown): any }, input: unknown): string {
  let r: any;
  try {
    r = schema.safeParse(structuredClone(input));
  } catch (e) {
    return `threw ${(e as Error).message}`;
  }
  return JSON.stringify(r.success ? { ok: r.data } : { issues: r.error.issues }, (_k, v) => (v === undefined ? "<undefined>" : v));
}

test("the lazy schemas parse exactly as the SDK's own, for every schema over the corpus", async () => {
  const eager = await bundled("eager", []);
  const lazy = await bundled("lazy", [lazySdkSchemas]);
  const names = Object.keys(eager).filter((k) => /^z[A-Z]/.test(k));
  expect(names.length).toBeGreaterThan(100);
  expect(
    Object.keys(lazy)
      .filter((k) => /^z[A-Z]/.test(k))
      .sort(),
  ).toEqual(names.sort());
  // The plugin did apply: built on first use, not at import.
  const kind = (s: unknown) => (s as { _zod: { def: { type: string } } })._zod.def.type;
  expect(kind(lazy.zNewSessionRequest)).toBe("lazy");
  expect(kind(eager.zNewSessionRequest)).toBe("object");
  let compared = 0;
  let accepted = 0;
  for (const name of names) {
    for (const input of CORPUS) {
      const want = outcome(eager[name]!, input);
      const got = outcome(lazy[name]!, input);
      if (got !== want) expect({ name, input, got }).toEqual({ name, input, got: want });
      compared++;
      if (want.startsWith('{"ok"')) accepted++;
    }
  }
  // The corpus reaches both sides of many schemas, not only their refusals.
  expect(accepted).toBeGreaterThan(200);
  expect(compared).toBe(names.length * CORPUS.length);
});
