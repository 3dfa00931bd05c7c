// The v1 → v2 shapes (src/acp/v2/shapes.ts, updates.ts) and the version
// choice (route.ts): pure parts of the ACP v2 adapter, each output checked
// against the SDK's v2 schema.
import { describe, expect, test } from "bun:test";
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import { protocolChoice } from "../../../src/acp/v2/route.ts";
import {
  availableCommand,
  configOption,
  elicitationRequest,
  gitPatch,
  permissionRequest,
  toolCallUpdate,
} from "../../../src/acp/v2/shapes.ts";
import { LEGACY_PLAN_ID, V2Updates } from "../../../src/acp/v2/updates.ts";
import { checkAgentMessage, checkSessionUpdate } from "../../support/schema.ts";

const valid = (u: unknown) => expect(checkSessionUpdate(u, 2)).toEqual([]);

describe("protocolChoice", () => {
  const init = (params: unknown, id: unknown = 1) => ({ jsonrpc: "2.0", id, method: "initialize", params });
  test("v2 only for an initialize asking 2..65535 with a string or integer id", () => {
    expect(protocolChoice(init({ protocolVersion: 2 }))).toBe(2);
    expect(protocolChoice(init({ protocolVersion: 65535 }, "a"))).toBe(2);
    expect(protocolChoice(init({ protocolVersion: 1 }))).toBe(1);
    expect(protocolChoice(init({ protocolVersion: 0 }))).toBe(1);
    expect(protocolChoice(init({ protocolVersion: 70000 }))).toBe(1);
    expect(protocolChoice(init({ protocolVersion: 2.5 }))).toBe(1);
    expect(protocolChoice(init({ protocolVersion: "2" }))).toBe(1);
    expect(protocolChoice(init({ protocolVersion: 2 }, 1.5))).toBe(1);
    expect(protocolChoice({ jsonrpc: "2.0", id: 1, method: "session/new", params: { protocolVersion: 2 } })).toBe(1);
    expect(protocolChoice([init({ protocolVersion: 2 })])).toBe(1);
  });
});

describe("tool calls", () => {
  test("a v1 tool_call becomes a tool_call_update upsert; diffs become changes + a git patch; line 0 is dropped", () => {
    const u = toolCallUpdate({
      toolCallId: "t1",
      title: "Edit a.ts",
      kind: "edit",
      status: "pending",
      content: [
        { type: "diff", path: "/w/a.ts", oldText: "one\ntwo\n", newText: "one\n2\n" },
        { type: "diff", path: "/w/new.ts", newText: "x" },
        { type: "content", content: { type: "text", text: "hi" } },
      ],
      locations: [{ path: "/w/a.ts", line: 0 }, { path: "/w/a.ts", line: 3 }, { path: "relative.ts" }],
    } as v1.ToolCall);
    valid({ sessionUpdate: "tool_call_update", ...u });
    const [modify, add] = u.content as any[];
    expect(modify.changes).toEqual([{ operation: "modify", path: "/w/a.ts" }]);
    expect(modify.patch.text).toBe("diff --git /w/a.ts /w/a.ts\n--- /w/a.ts\n+++ /w/a.ts\n@@ -1,2 +1,2 @@\n-one\n-two\n+one\n+2\n");
    expect(add.changes).toEqual([{ operation: "add", path: "/w/new.ts" }]);
    expect(add.patch.text).toContain("--- /dev/null");
    expect(add.patch.text).toContain("\\ No newline at end of file");
    expect(u.locations).toEqual([{ path: "/w/a.ts" }, { path: "/w/a.ts", line: 3 }]);
    // The first schema check compiles the v2 schema (seconds on a slow machine).
  }, 20_000);

  test("gitPatch of an emptied file and of an empty new file", () => {
    expect(gitPatch("/a", "x\n", "")).toBe("diff --git /a /a\n--- /a\n+++ /a\n@@ -1,1 +0,0 @@\n-x\n");
    expect(gitPatch("/a", null, "")).toBe("diff --git /a /a\nnew file mode 100644\n--- /dev/null\n+++ /a\n");
  });
});

describe("options, commands, requests", () => {
  test("config options are named by configId; groups by groupId", () => {
    const o = configOption({
      id: "model",
      name: "Model",
      type: "select",
      currentValue: "a",
      options: [{ group: "g", name: "G", options: [{ value: "a", name: "A" }] }],
    } as v1.SessionConfigOption);
    expect(o).toMatchObject({ configId: "model", options: [{ groupId: "g" }] });
    valid({ sessionUpdate: "config_option_update", configOptions: [o] });
  });

  test("commands are typed; their input is text with a hint", () => {
    const c = availableCommand({ name: "goal", description: "Set a goal", input: { hint: "objective" } });
    expect(c).toEqual({ type: "command", name: "goal", description: "Set a goal", input: { type: "text", hint: "objective" } } as never);
    valid({
      sessionUpdate: "available_commands_update",
      availableCommands: [c, availableCommand({ name: "clear", description: "Clear" })],
    });
  });

  test("a permission request gets a title and the tool call as its subject; a form its schema type", () => {
    const r = permissionRequest({
      sessionId: "s",
      toolCall: { toolCallId: "t", title: "Run ls", kind: "execute" },
      options: [{ optionId: "allow", name: "Allow", kind: "allow_once" }],
    });
    expect(r).toMatchObject({ title: "Run ls", subject: { type: "tool_call", toolCall: { toolCallId: "t" } } });
    expect(checkAgentMessage({ jsonrpc: "2.0", id: 1, method: "session/request_permission", params: r }, () => undefined, 2)).toEqual([]);
    const f = elicitationRequest({ sessionId: "s", mode: "form", message: "ok?", requestedSchema: {} } as v1.CreateElicitationRequest);
    expect(checkAgentMessage({ jsonrpc: "2.0", id: 1, method: "elicitation/create", params: f }, () => undefined, 2)).toEqual([]);
  });
});

describe("V2Updates", () => {
  const n = (update: unknown, sessionId = "s") => ({ sessionId, update }) as v1.SessionNotification;

  test("the first chunk of a message comes after its empty whole-message upsert; ids are kept per kind", () => {
    const t = new V2Updates();
    const a = t.translate(n({ sessionUpdate: "agent_thought_chunk", messageId: "m1", content: { type: "text", text: "hm" } }));
    const b = t.translate(n({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "hi" } }));
    const c = t.translate(n({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "!" } }));
    expect(a.map((x) => x.update.sessionUpdate)).toEqual(["agent_thought", "agent_thought_chunk"]);
    expect(b.map((x) => x.update.sessionUpdate)).toEqual(["agent_message", "agent_message_chunk"]);
    expect(c.map((x) => x.update.sessionUpdate)).toEqual(["agent_message_chunk"]);
    for (const x of [...a, ...b, ...c]) valid(x.update);
    // A replay (forget) announces again.
    t.forget("s");
    expect(t.translate(n({ sessionUpdate: "agent_message_chunk", messageId: "m1", content: { type: "text", text: "x" } }))).toHaveLength(2);
  });

  test("chunks without an id get one per run; mode updates are dropped; a legacy plan is named", () => {
    const t = new V2Updates();
    const chunk = (text: string) => ({ sessionUpdate: "agent_message_chunk", content: { type: "text", text } });
    const [, first] = t.translate(n(chunk("a")));
    const [second] = t.translate(n(chunk("b")));
    expect((second!.update as any).messageId).toBe((first!.update as any).messageId);
    t.translate(n({ sessionUpdate: "usage_update", used: 1, size: 2 }));
    const [, third] = t.translate(n(chunk("c")));
    expect((third!.update as any).messageId).not.toBe((first!.update as any).messageId);
    expect(t.translate(n({ sessionUpdate: "current_mode_update", currentModeId: "plan" }))).toEqual([]);
    const [plan] = t.translate(n({ sessionUpdate: "plan", entries: [{ content: "x", priority: "high", status: "pending" }] }));
    expect((plan!.update as any).plan).toMatchObject({ type: "items", planId: LEGACY_PLAN_ID });
    valid(plan!.update);
  });
});
