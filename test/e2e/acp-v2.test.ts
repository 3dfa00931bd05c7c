// ACP v2 (issue 29, point 1): a client that asks for protocol version 2 in
// initialize gets v2, and every feature that works on v1 works on v2.
// Driven by the SDK's own v2 client; every message the bridge writes is
// checked against the SDK's v2 schema (test/support/acp-harness-v2.ts).
// Test names carry the acp-tck v2 requirement ids they show
// (agentclientprotocol/acp-tck src/tck/v2/requirements.py); the verdicts
// are in docs/acp-conformance.md.
import { describe, expect, test } from "bun:test";
import * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HarnessV2, sharedBridgeV2, withBridgeV2 } from "../support/acp-harness-v2.ts";

const m = acp2.methods.agent;
const STOP_REASONS = ["end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"];
const MESSAGE_KINDS = [
  "user_message_chunk",
  "user_message",
  "agent_message_chunk",
  "agent_message",
  "agent_thought_chunk",
  "agent_thought",
];

/** Index in the raw transcript of the response to `id`. */
const responseAt = (h: HarnessV2, id: string | number) => h.messages.findIndex((x) => x.id === id && !("method" in x));
/** Indexes in the raw transcript of the session's session/update notifications. */
const updatesAt = (h: HarnessV2, sessionId: string, pred: (u: any) => boolean = () => true) =>
  h.messages.flatMap((x, i) =>
    x.method === "session/update" && (x.params as any)?.sessionId === sessionId && pred((x.params as any).update) ? [i] : [],
  );

describe("initialize", () => {
  test("ACP-INIT-001, ACP-INIT-201, ACP-INIT-203, ACP-INIT-204, ACP-SCHEMA-001, ACP-AUTH-202, ACP-AUTH-206, ACP-AUTH-201, ACP-EXT-202, ACP-AUTH-204: v2 asked, v2 answered", async () => {
    await withBridgeV2({}, async (h) => {
      const r = h.initializeResponse!;
      expect(r.protocolVersion).toBe(2);
      expect(r.info.name).toBe("zcode-acp-server");
      expect(r.info.version.length).toBeGreaterThan(0);
      // Every capability is an object marker, never a boolean.
      const session = r.capabilities?.session as Record<string, unknown>;
      for (const v of Object.values(session)) expect(typeof v).toBe("object");
      expect(session.delete).toEqual({});
      // ACP-EXT-202: vendor extensions under capabilities._meta, not at the result's root.
      expect(r.capabilities?._meta?.goal).toMatchObject({ controlMethod: "_session/goal" });
      expect(r._meta).toBeUndefined();
      // No terminal auth for a client that did not offer it; every type known; ids unique.
      expect(r.authMethods?.map((a) => a.type)).toEqual(["agent"]);
      const ids = r.authMethods!.map((a) => (a as { methodId: string }).methodId);
      expect(new Set(ids).size).toBe(ids.length);
      // auth/login with the one method offered; a session opens after it (no -32000).
      expect(await h.agent.request(m.auth.login, { methodId: ids[0]! })).toEqual({});
      expect((await h.newSession()).sessionId.length).toBeGreaterThan(0);
    });
  }, 30_000);

  test("ACP-INIT-003: a newer version (65535) is answered with 2; the CLI's v1 fast path leaves it to the agent", async () => {
    await withBridgeV2({ skipInitialize: true }, async (h) => {
      await h.sendRaw({
        jsonrpc: "2.0",
        id: "i",
        method: "initialize",
        params: { protocolVersion: 65535, info: { name: "t", version: "1" } },
      });
      expect((await h.responseTo("i")).result.protocolVersion).toBe(2);
    });
  }, 30_000);

  test("ACP-AUTH-203: auth/logout runs `zcode logout`, as v1's logout does", async () => {
    const dir = mkdtempSync(join(tmpdir(), "acp-v2-logout-"));
    const bin = join(dir, "zcode");
    writeFileSync(bin, `#!/bin/sh\necho "$@" >> "${join(dir, "args")}"\nexit 0\n`);
    chmodSync(bin, 0o755);
    await withBridgeV2({ env: { ZCODE_BIN: bin, ZCODE_ACP_PREWARM: "0" } }, async (h) => {
      expect(await h.agent.request(m.auth.logout, {})).toEqual({});
      expect(readFileSync(join(dir, "args"), "utf8")).toBe("logout\n");
    });
  }, 30_000);
});

describe("a turn", () => {
  // Every test starts sessions of its own: one bridge for them all.
  const bridge = sharedBridgeV2({});

  test("ACP-SESSION-001, ACP-SESSION-002, ACP-SESSION-203, ACP-PROMPT-201, ACP-PROMPT-203, ACP-PROMPT-205, ACP-STATE-201, ACP-STATE-202, ACP-STATE-203, ACP-PATCH-201, ACP-PATCH-203, ACP-PATCH-204, ACP-PATCH-205, ACP-ENUM-201", async () => {
    await bridge.run(async (h) => {
      // mcpServers omitted or empty: the same; a transport not advertised (v1's SSE) is refused.
      await h.sendRaw({
        jsonrpc: "2.0",
        id: "sse",
        method: "session/new",
        params: { cwd: h.stateDir, mcpServers: [{ type: "sse", name: "s", url: "https://example.com/sse", headers: [] }] },
      });
      expect((await h.responseTo("sse")).error.code).toBe(-32602);
      const a = await h.agent.request(m.session.new, { cwd: h.stateDir });
      const b = await h.newSession();
      expect(a.sessionId).not.toBe(b.sessionId);
      const sid = a.sessionId;
      const first = await h.prompt(sid, "#scenario:tools");
      expect(first.messageId.length).toBeGreaterThan(0);
      const idle = await h.idle(sid);
      expect(idle.stopReason).toBe("end_turn");
      const states = h.states(sid).map((s) => s.state);
      expect(states.indexOf("running")).toBeGreaterThanOrEqual(0);
      expect(states.indexOf("running")).toBeLessThan(states.indexOf("idle"));
      // The inserted message, echoed with the id the response gave.
      expect(h.updatesOfKind(sid, "user_message").some((u) => u.messageId === first.messageId)).toBe(true);
      // Every message update carries its id; tools are upserts with ids; plans are named.
      for (const u of h.updates(sid)) {
        if (MESSAGE_KINDS.includes(u.sessionUpdate)) expect((u as any).messageId.length).toBeGreaterThan(0);
      }
      const tools = h.updatesOfKind(sid, "tool_call_update");
      expect(tools.length).toBeGreaterThan(5);
      for (const t of tools) {
        expect(t.toolCallId.length).toBeGreaterThan(0);
        if (t.kind)
          expect(["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]).toContain(t.kind);
        if (t.status) expect(["pending", "in_progress", "completed", "failed", "cancelled"]).toContain(t.status);
      }
      expect(h.updates(sid).some((u) => u.sessionUpdate === "tool_call")).toBe(false);
      // A diff is changes + a git patch with absolute paths.
      const diff = tools.flatMap((t) => t.content ?? []).find((c: any) => c.type === "diff") as any;
      expect(diff.changes[0].path.startsWith("/")).toBe(true);
      expect(diff.patch.format).toBe("git_patch");
      const plans = h.updatesOfKind(sid, "plan_update");
      expect(plans.length).toBeGreaterThan(0);
      for (const p of plans) expect(p.plan.planId.length).toBeGreaterThan(0);
      // Each chunked message was announced by its whole-message upsert first.
      const chunk = h.updatesOfKind(sid, "agent_message_chunk")[0]!;
      const updates = h.updates(sid);
      const wholeAt = updates.findIndex((u: any) => u.sessionUpdate === "agent_message" && u.messageId === chunk.messageId);
      expect(wholeAt).toBeGreaterThanOrEqual(0);
      expect(wholeAt).toBeLessThan(updates.indexOf(chunk));
      // A second prompt: another message id, another running → idle.
      const second = await h.prompt(sid, "again");
      expect(second.messageId).not.toBe(first.messageId);
      expect(STOP_REASONS).toContain((await h.idle(sid, 2)).stopReason!);
    });
  }, 60_000);

  test("ACP-PROMPTCAP-001, ACP-PROMPTCAP-003, ACP-PROMPT-003, ACP-META-001: image, embedded resource and resource link prompts with _meta", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      const png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
      await h.agent.request(m.session.prompt, {
        sessionId,
        prompt: [
          { type: "text", text: "look" },
          { type: "image", data: png, mimeType: "image/png" },
          { type: "resource", resource: { uri: "file:///tmp/a.txt", text: "hello", mimeType: "text/plain" } },
          { type: "resource_link", name: "b.txt", uri: "file:///tmp/b.txt" },
        ],
        _meta: { traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
      });
      expect((await h.idle(sessionId)).stopReason).toBe("end_turn");
    });
  }, 30_000);

  test("slash commands, config options, usage and session info arrive in v2 shapes", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.waitFor(() => h.updatesOfKind(sessionId, "available_commands_update").length > 0, "the slash menu");
      const cmds = h.updatesOfKind(sessionId, "available_commands_update")[0]!.availableCommands;
      for (const c of cmds) expect(c.type).toBe("command");
      await h.prompt(sessionId, "#scenario:usage count my tokens");
      await h.idle(sessionId);
      expect(h.updatesOfKind(sessionId, "usage_update").length).toBeGreaterThan(0);
      expect(h.updatesOfKind(sessionId, "session_info_update").length).toBeGreaterThan(0);
      // v2 has no modes: no current_mode_update ever.
      expect(h.updates(sessionId).some((u) => (u.sessionUpdate as string) === "current_mode_update")).toBe(false);
    });
  }, 30_000);
});

describe("cancel and close", () => {
  // Every test starts sessions of its own: one bridge for them all.
  const bridge = sharedBridgeV2({});

  test("ACP-CANCEL-201, ACP-CANCEL-202, ACP-CANCEL-203, ACP-CANCEL-205, ACP-CANCEL-206, ACP-CANCEL-207: cancel ends the turn idle/cancelled, unanswered", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:slow n=400");
      await h.waitFor(() => h.updatesOfKind(sessionId, "agent_message_chunk").length > 0, "the turn's first words");
      // A cancel with _meta, as the schema allows.
      await h.sendRaw({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId, _meta: { reason: "user" } } });
      expect((await h.idle(sessionId)).stopReason).toBe("cancelled");
      // A fence: whatever the turn still had to say came before its idle.
      await h.agent.request(m.session.list, {});
      const idleAt = updatesAt(h, sessionId, (u) => u.sessionUpdate === "state_update" && u.state === "idle")[0]!;
      expect(updatesAt(h, sessionId).filter((i) => i > idleAt)).toEqual([]);
      // session/cancel is a notification: nothing answers it.
      expect(h.messages.some((x) => !("method" in x) && (x.id === null || x.id === undefined))).toBe(false);
      // The session takes a new prompt after the cancel.
      await h.prompt(sessionId, "after");
      expect((await h.idle(sessionId, 2)).stopReason).toBe("end_turn");
    });
  }, 60_000);

  test("ACP-CLOSE-201, ACP-CLOSE-202, ACP-CANCEL-208: close of a running turn: its idle/cancelled before the answer, nothing after", async () => {
    await bridge.run(async (h) => {
      const idle = await h.newSession();
      expect(await h.agent.request(m.session.close, { sessionId: idle.sessionId })).toEqual({});
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:slow n=400");
      await h.waitFor(() => h.updatesOfKind(sessionId, "agent_message_chunk").length > 0, "the turn's first words");
      await h.sendRaw({ jsonrpc: "2.0", id: "close-1", method: "session/close", params: { sessionId } });
      const closeAt = h.messages.indexOf(await h.responseTo("close-1"));
      const idles = updatesAt(h, sessionId, (u) => u.sessionUpdate === "state_update" && u.state === "idle");
      expect(idles.length).toBe(1);
      expect(idles[0]!).toBeLessThan(closeAt);
      expect(h.states(sessionId).at(-1)!.stopReason).toBe("cancelled");
      await h.agent.request(m.session.list, {});
      expect(updatesAt(h, sessionId).filter((i) => i > closeAt)).toEqual([]);
    });
  }, 60_000);
});

describe("resume, list, delete", () => {
  // Every test starts sessions of its own: one bridge for them all.
  const bridge = sharedBridgeV2({});

  test("ACP-RESUME-201, ACP-RESUME-202, ACP-RESUME-203, ACP-RESUME-205, ACP-CONFIG-203: resume without and with replay", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:text");
      await h.idle(sessionId);
      await h.agent.request(m.session.close, { sessionId });
      // Without replay: no history before the answer; the state snapshot before it.
      const before = h.messages.length;
      await h.sendRaw({ jsonrpc: "2.0", id: "r1", method: "session/resume", params: { sessionId, cwd: h.stateDir } });
      const r1 = await h.responseTo("r1");
      const r1At = h.messages.indexOf(r1);
      expect(r1.result.configOptions.length).toBeGreaterThan(0);
      const window = updatesAt(h, sessionId).filter((i) => i >= before && i < r1At);
      expect(window.map((i) => (h.messages[i]!.params as any).update.sessionUpdate)).toEqual(["state_update"]);
      expect((h.messages[window[0]!]!.params as any).update.state).toBe("idle");
      // With replay from the start: the history, then the state, then the answer; nothing of it after.
      await h.agent.request(m.session.close, { sessionId });
      const start = h.messages.length;
      await h.sendRaw({
        jsonrpc: "2.0",
        id: "r2",
        method: "session/resume",
        params: { sessionId, cwd: h.stateDir, replayFrom: { type: "start" } },
      });
      const r2At = h.messages.indexOf(await h.responseTo("r2"));
      const replay = updatesAt(h, sessionId)
        .filter((i) => i >= start && i < r2At)
        .map((i) => (h.messages[i]!.params as any).update);
      expect(replay.some((u) => u.sessionUpdate === "user_message_chunk")).toBe(true);
      expect(replay.some((u) => u.sessionUpdate === "agent_message_chunk")).toBe(true);
      expect(replay.at(-1).sessionUpdate).toBe("state_update");
      const announced = new Set<string>();
      for (const u of replay) {
        if (["user_message", "agent_message", "agent_thought"].includes(u.sessionUpdate))
          announced.add(`${u.sessionUpdate}:${u.messageId}`);
        if (u.sessionUpdate.endsWith("_chunk") && u.messageId)
          expect(announced.has(`${u.sessionUpdate.replace("_chunk", "")}:${u.messageId}`)).toBe(true);
      }
      await h.agent.request(m.session.list, {});
      const after = updatesAt(h, sessionId, (u) => u.sessionUpdate !== "available_commands_update").filter((i) => i > r2At);
      expect(after).toEqual([]);
      // A cursor v2 defines but the bridge cannot serve: -32602, nothing resumed.
      await h.sendRaw({
        jsonrpc: "2.0",
        id: "r3",
        method: "session/resume",
        params: { sessionId, cwd: h.stateDir, replayFrom: { type: "_after", messageId: "x" } },
      });
      expect((await h.responseTo("r3")).error.code).toBe(-32602);
    });
  }, 60_000);

  test("fork (unstable, advertised as session.fork): a new session with the history, its own config options", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "hello");
      await h.idle(sessionId);
      const f = await h.agent.request(m.session.fork, { sessionId, cwd: h.stateDir });
      expect(f.sessionId).not.toBe(sessionId);
      expect(f.configOptions!.length).toBeGreaterThan(0);
      await h.prompt(f.sessionId, "and then");
      expect((await h.idle(f.sessionId)).stopReason).toBe("end_turn");
    });
  }, 60_000);

  test("a session never prompted: resume (with and without replay), close and delete all succeed", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect(await h.agent.request(m.session.resume, { sessionId, cwd: h.stateDir })).toMatchObject({});
      await h.agent.request(m.session.close, { sessionId });
      expect(await h.agent.request(m.session.resume, { sessionId, cwd: h.stateDir, replayFrom: { type: "start" } })).toMatchObject({});
      expect(await h.agent.request(m.session.close, { sessionId })).toEqual({});
      await h.sendRaw({ jsonrpc: "2.0", id: "d", method: "session/delete", params: { sessionId } });
      expect((await h.responseTo("d")).result).toEqual({});
    });
  }, 60_000);

  test("ACP-LIST-201, ACP-LIST-202, ACP-LIST-203, ACP-LIST-204, ACP-DELETE-201, ACP-DELETE-202, ACP-DELETE-203", async () => {
    const other = mkdtempSync(join(tmpdir(), "acp-v2-unused-"));
    try {
      await bridge.run(async (h) => {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, "hello");
        await h.idle(sessionId);
        const all = await h.agent.request(m.session.list, {});
        expect(Array.isArray(all.sessions)).toBe(true);
        for (const s of all.sessions) expect(s.cwd.startsWith("/")).toBe(true);
        expect((await h.agent.request(m.session.list, { cwd: other })).sessions).toEqual([]);
        const mine = await h.agent.request(m.session.list, { cwd: h.stateDir });
        expect(mine.sessions.map((s) => s.sessionId)).toContain(sessionId);
        for (const s of mine.sessions) expect(s.cwd).toBe(h.stateDir);
        expect(await h.agent.request(m.session.delete, { sessionId })).toEqual({});
        expect((await h.agent.request(m.session.list, {})).sessions.map((s) => s.sessionId)).not.toContain(sessionId);
        // An unknown id: -32002 on the wire, which the v2 client reads as "already gone" (see the doc's verdict).
        await h.sendRaw({ jsonrpc: "2.0", id: "d2", method: "session/delete", params: { sessionId: "sess_unknown" } });
        expect((await h.responseTo("d2")).error.code).toBe(-32002);
      });
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  }, 60_000);
});

describe("options, permissions, forms, subagents, extensions", () => {
  // One bridge for the tests with no options of their own; the others (a
  // capability, args, env, the bridge's exit) keep a bridge of their own.
  const bridge = sharedBridgeV2({});

  test("ACP-CONFIG-201, ACP-CONFIG-202, ACP-CONFIG-204, ACP-CONFIG-206: config options by configId, set returns the complete list", async () => {
    await bridge.run(async (h) => {
      const s = await h.newSession();
      const opts = s.configOptions!;
      expect(opts.length).toBeGreaterThan(0);
      for (const o of opts as any[]) {
        expect(o.configId.length).toBeGreaterThan(0);
        if (o.type === "select") {
          const values = o.options.flatMap((x: any) => (x.groupId ? x.options : [x])).map((x: any) => x.value);
          expect(values).toContain(o.currentValue);
        }
      }
      const mode = opts.find((o) => o.category === "mode") as any;
      const next = mode.options.find((x: any) => x.value !== mode.currentValue).value;
      const r = await h.agent.request(m.session.setConfigOption, {
        sessionId: s.sessionId,
        configId: mode.configId,
        type: "id",
        value: next,
      });
      expect(r.configOptions.map((o) => o.configId).sort()).toEqual(opts.map((o) => o.configId).sort());
      expect((r.configOptions.find((o) => o.configId === mode.configId) as any).currentValue).toBe(next);
      for (const u of h.updatesOfKind(s.sessionId, "config_option_update")) {
        expect(u.configOptions.map((o: any) => o.configId).sort()).toEqual(opts.map((o) => o.configId).sort());
      }
    });
  }, 30_000);

  test("ACP-PERM-201, ACP-PATCH-209, ACP-CLIENTCAP-201, ACP-CLIENTCAP-202: permission with a title and a tool-call subject, requires_action while it waits; no form without the capability", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:permission");
      expect((await h.idle(sessionId)).stopReason).toBe("end_turn");
      const asked = h.permissionRequests.filter((p) => p.sessionId === sessionId);
      expect(asked.length).toBeGreaterThan(0);
      for (const p of asked) {
        expect(p.title.length).toBeGreaterThan(0);
        expect((p.subject as any).type).toBe("tool_call");
        expect(p.options.length).toBeGreaterThan(0);
      }
      // Waiting for the answer is requires_action; the work runs again once it came.
      const states = h.states(sessionId).map((x) => x.state);
      expect(states.slice(0, 4)).toEqual(["running", "requires_action", "running", "idle"]);
      const askedAt = h.messages.findIndex((x) => x.method === "session/request_permission" && (x.params as any)?.sessionId === sessionId);
      const requiresAt = updatesAt(h, sessionId, (u) => u.sessionUpdate === "state_update" && u.state === "requires_action")[0]!;
      expect(requiresAt).toBeLessThan(askedAt);
      await h.prompt(sessionId, "#scenario:plan");
      await h.idle(sessionId, 2);
      expect(h.elicitations).toHaveLength(0);
      const clientMethods = new Set(Object.values(acp2.CLIENT_METHODS) as string[]);
      for (const x of h.messages) if (typeof x.method === "string") expect(clientMethods.has(x.method)).toBe(true);
    });
  }, 60_000);

  test("forms: a client with elicitation.form gets the plan approval as a v2 form", async () => {
    await withBridgeV2(
      { capabilities: { elicitation: { form: {} } }, onElicitation: () => ({ action: "accept", content: { decision: "approve" } }) },
      async (h) => {
        const { sessionId } = await h.newSession();
        await h.prompt(sessionId, "#scenario:plan");
        expect((await h.idle(sessionId)).stopReason).toBe("end_turn");
        expect(h.elicitations).toHaveLength(1);
        expect((h.elicitations[0] as any).requestedSchema.type).toBe("object");
      },
    );
  }, 60_000);

  test("subagents: the child session is announced with subagent_update (baseline in v2)", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:subagent");
      expect((await h.idle(sessionId)).stopReason).toBe("end_turn");
      expect(h.updatesOfKind(sessionId, "subagent_update").length).toBeGreaterThan(0);
    });
  }, 60_000);

  test("ACP-EXT-001, ACP-JSONRPC-001, ACP-JSONRPC-004: an unknown _method is answered -32601 with its own id; _session/steering answers", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.sendRaw({ jsonrpc: "2.0", id: 77, method: "_vendor/unknown", params: {} });
      expect((await h.responseTo(77)).error.code).toBe(-32601);
      await h.sendRaw({
        jsonrpc: "2.0",
        id: "s-1",
        method: "_session/steering",
        params: { sessionId, prompt: [{ type: "text", text: "x" }] },
      });
      expect((await h.responseTo("s-1")).result).toEqual({ outcome: "promptRequired", reason: "noRunningTurn" });
      // An unknown notification is not answered.
      await h.sendRaw({ jsonrpc: "2.0", method: "_vendor/note", params: {} });
      await h.agent.request(m.session.list, {});
      expect(h.messages.some((x) => !("method" in x) && (x.id === null || x.id === undefined))).toBe(false);
    });
  }, 30_000);

  test("goal extension: _session/goal is foreground work (running, then idle); its state in session_info_update _meta.goal", async () => {
    await withBridgeV2({ capabilities: { _meta: { goal: {} } } }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.sendRaw({ jsonrpc: "2.0", id: "g", method: "_session/goal", params: { sessionId, action: "set", objective: "ship it" } });
      expect((await h.responseTo("g")).result).toEqual({});
      const states = h.states(sessionId).map((s) => `${s.state}${s.stopReason ? `:${s.stopReason}` : ""}`);
      expect(states).toEqual(["running", "idle:end_turn"]);
      expect(h.updatesOfKind(sessionId, "session_info_update").some((u) => u._meta?.goal)).toBe(true);
    });
  }, 30_000);

  test("notices and compaction: baseline in v2, every v2 client gets them", async () => {
    await withBridgeV2({ args: ["--auto-compact", "80%"], env: { ZCODE_SIM_CONTEXT_FILL: "0.95" } }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "fill the context");
      await h.waitFor(() => h.updatesOfKind(sessionId, "notice").length > 0, "the auto-compact notice", 20_000);
      expect(h.updatesOfKind(sessionId, "notice")[0]).toMatchObject({ severity: "info" });
      await h.waitFor(() => h.updatesOfKind(sessionId, "compaction_update").length > 0, "the compaction", 20_000);
    });
  }, 60_000);

  test("the editor leaves mid-turn: stdin's EOF ends the turn, every request is answered, the bridge exits 0", async () => {
    const h = await HarnessV2.start({});
    try {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:slow n=400");
      await h.waitFor(() => h.updatesOfKind(sessionId, "agent_message_chunk").length > 0, "the turn's first words");
      await h.sendRaw({ jsonrpc: "2.0", id: "last", method: "session/list", params: {} });
      expect(await h.close()).toBe(0);
      expect(h.messages.some((x) => x.id === "last" && !("method" in x))).toBe(true);
    } catch (e) {
      await h.close({ expectExit: "any", allowProblems: true });
      throw e;
    }
  }, 30_000);

  test("ACP-BATCH-201, ACP-BATCH-202, ACP-BATCH-203, ACP-JSONRPC-005: batches: [] refused; entries taken one by one; notifications never answered", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.sendBytesRaw("[]\n");
      await h.waitFor(() => h.messages.some((x) => x.id === null), "the answer to []");
      expect(h.messages.filter((x) => x.id === null)).toEqual([
        expect.objectContaining({ error: expect.objectContaining({ code: -32600 }) }),
      ]);
      // A notification-only batch: nothing comes back (the fence is a later request's answer).
      await h.sendRaw([
        { jsonrpc: "2.0", method: "session/cancel", params: { sessionId } },
        { jsonrpc: "2.0", method: "_vendor/note", params: {} },
      ] as never);
      await h.agent.request(m.session.list, {});
      expect(h.messages.filter((x) => !("method" in x) && x.id === null)).toHaveLength(1);
      // A batch with requests and an invalid entry: each request answered by its id, the invalid one with -32600.
      await h.sendRaw([
        { jsonrpc: "2.0", id: "b1", method: "session/list", params: {} },
        { jsonrpc: "2.0", method: "_vendor/note", params: {} },
        5,
        { jsonrpc: "2.0", id: "b2", method: "_vendor/unknown", params: {} },
      ] as never);
      expect((await h.responseTo("b1")).result.sessions).toBeDefined();
      expect((await h.responseTo("b2")).error.code).toBe(-32601);
      await h.waitFor(() => h.messages.filter((x) => x.id === null).length === 2, "the invalid entry's answer");
      expect(h.messages.filter((x) => x.id === null)[1]).toMatchObject({ error: { code: -32600 } });
      expect((await h.agent.request(m.session.list, {})).sessions).toBeDefined();
    });
  }, 30_000);
});
