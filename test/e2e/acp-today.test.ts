// Today's ACP (issue 21): every client gets clean tool calls (rawInput only
// once known, rawOutput what a person reads, ZCode's tool name); a client
// that opts in gets notices, compaction entities and plans by id, and any
// client may delete a session. A client that does not opt in sees what it
// saw before, minus the noise. Every message is checked against the SDK's
// schema (the unstable one for unstable-only update kinds) by the harness.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";

/** Everything issue 21 lets a client opt in to. */
const OPTED_IN = {
  session: { notices: {}, compaction: {}, configOptions: { boolean: {} } },
  plan: {},
} as acp.ClientCapabilities;

/**
 * One bridge for each kind of client (the tests below that need no env, args
 * or handlers of their own): every test starts sessions of its own and reads
 * only their updates.
 */
const plainBridge = sharedBridge({ clientCapabilities: {} });
const optedInBridge = sharedBridge({ clientCapabilities: OPTED_IN });
const bridgeFor = (clientCapabilities: acp.ClientCapabilities) => (clientCapabilities === OPTED_IN ? optedInBridge : plainBridge);

const NEW_KINDS = ["notice", "compaction_update", "compaction_summary_chunk", "plan_update", "plan_removed"];

function kindsSent(h: Harness, sessionId: string): Set<string> {
  return new Set(h.updates(sessionId).map((u) => u.sessionUpdate));
}

function toolCalls(h: Harness, sessionId: string) {
  return h.updatesOfKind(sessionId, "tool_call");
}

function toolUpdates(h: Harness, sessionId: string, toolCallId: string) {
  return h.updatesOfKind(sessionId, "tool_call_update").filter((u) => u.toolCallId === toolCallId);
}

test("raw output, every client: no rawInput {}, rawOutput is text a person reads, the tool's name on tool_call", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await bridgeFor(clientCapabilities).run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:tools")).stopReason).toBe("end_turn");
      const calls = toolCalls(h, sessionId);
      expect(calls.length).toBeGreaterThan(1);
      for (const c of calls) {
        // Never an empty placeholder: the input is sent once ZCode gives it.
        expect(c.rawInput).not.toEqual({});
        expect(typeof c.name).toBe("string");
        for (const u of toolUpdates(h, sessionId, c.toolCallId)) {
          if (u.rawInput !== undefined) expect(u.rawInput).not.toEqual({});
          // rawOutput is a string or absent: never ZCode's result object (perf, budgets, display).
          if (u.rawOutput !== undefined) expect(typeof u.rawOutput).toBe("string");
        }
      }
      if (clientCapabilities !== OPTED_IN) for (const k of NEW_KINDS) expect(kindsSent(h, sessionId).has(k)).toBe(false);
    });
  }
}, 30_000);

test("a denied tool: rawOutput and content say Denied, never ZCode's words to the model", async () => {
  const deny: (r: acp.RequestPermissionRequest) => acp.RequestPermissionResponse = (r) => {
    const reject = r.options.find((o) => o.kind === "reject_once")!;
    return { outcome: { outcome: "selected", optionId: reject.optionId } };
  };
  await withBridge({ onPermission: deny }, async (h) => {
    const { sessionId } = await h.newSession();
    await h.agent.request(acp.methods.agent.session.setConfigOption, { sessionId, configId: "mode", value: "build" });
    expect((await h.prompt(sessionId, "#scenario:permission")).stopReason).toBe("end_turn");
    const call = toolCalls(h, sessionId)[0]!;
    const last = toolUpdates(h, sessionId, call.toolCallId).at(-1)!;
    expect(last.status).toBe("failed");
    expect(last.rawOutput).toBe("Denied");
    const all = JSON.stringify(h.updates(sessionId));
    expect(all).not.toContain("STOP what you are doing");
  });
}, 30_000);

test("plan approval and todos: the plan once; plan_update (items and Markdown) only for a client with the plan capability", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await bridgeFor(clientCapabilities).run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
      expect((await h.prompt(sessionId, "#scenario:todo")).stopReason).toBe("end_turn");
      const all = JSON.stringify(h.updates(sessionId));
      // ZCode's echo of the approved plan to the model never reaches the editor.
      expect(all).not.toContain("User has approved your plan");
      const todoCall = toolCalls(h, sessionId).find((c) => c.name === "TodoWrite")!;
      for (const u of toolUpdates(h, sessionId, todoCall.toolCallId)) {
        expect(u.rawOutput).toBeUndefined();
        expect(JSON.stringify(u.content ?? [])).not.toContain("[x]");
      }
      const planUpdates = h.updatesOfKind(sessionId, "plan_update");
      if (clientCapabilities === OPTED_IN) {
        expect(h.updatesOfKind(sessionId, "plan")).toHaveLength(0);
        expect(planUpdates.map((u) => u.plan.type).sort()).toEqual(["items", "markdown"]);
        const md = planUpdates.find((u) => u.plan.type === "markdown")!.plan as { planId: string; content: string };
        expect(md.planId).toStartWith("plan-");
        expect(md.content.length).toBeGreaterThan(0);
      } else {
        expect(planUpdates).toHaveLength(0);
        expect(h.updatesOfKind(sessionId, "plan")).toHaveLength(1);
      }
    });
  }
}, 30_000);

test("/compact: a compaction_update entity with ZCode's summary when opted in; else the tool call, with no snapshot as rawOutput", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await bridgeFor(clientCapabilities).run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "some work first");
      expect((await h.prompt(sessionId, "/compact")).stopReason).toBe("end_turn");
      const entities = h.updatesOfKind(sessionId, "compaction_update");
      const compactCall = toolCalls(h, sessionId).find((c) => c.title === "Compacting conversation");
      if (clientCapabilities === OPTED_IN) {
        expect(compactCall).toBeUndefined();
        // One entity: the command's own updates and ZCode's progress reports patch it.
        expect(new Set(entities.map((u) => u.compactionId)).size).toBe(1);
        expect(entities[0]!.status).toBe("in_progress");
        expect(entities.at(-1)).toMatchObject({ status: "completed", summary: [{ type: "text" }] });
      } else {
        expect(entities).toHaveLength(0);
        expect(compactCall).toBeDefined();
        expect("rawInput" in compactCall!).toBe(false);
        for (const u of toolUpdates(h, sessionId, compactCall!.toolCallId)) expect(u.rawOutput).toBeUndefined();
      }
      expect(h.text(sessionId)).toContain("Conversation compacted.");
    });
  }
}, 30_000);

test("a compaction ZCode starts itself: compaction_update when opted in; nothing new otherwise", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await bridgeFor(clientCapabilities).run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:auto-compaction")).stopReason).toBe("end_turn");
      const entities = h.updatesOfKind(sessionId, "compaction_update");
      if (clientCapabilities === OPTED_IN) {
        expect(entities.map((u) => u.status)).toEqual(["in_progress", "completed"]);
        expect(entities[1]!.compactionId).toBe(entities[0]!.compactionId);
      } else {
        expect(entities).toHaveLength(0);
        expect(toolCalls(h, sessionId)).toHaveLength(0);
      }
      expect(h.text(sessionId)).toContain("Echo");
    });
  }
}, 30_000);

test("bridge notices: a notice with a level when opted in; else an agent message of its own, apart from the answer", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await withBridge({ clientCapabilities, args: ["--auto-compact", "80%"], env: { ZCODE_SIM_CONTEXT_FILL: "0.95" } }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "fill the context");
      await h.waitFor(() => h.text(sessionId).includes("Conversation compacted."), "the auto-compaction");
      const notices = h.updatesOfKind(sessionId, "notice");
      const chunks = h.updatesOfKind(sessionId, "agent_message_chunk");
      const said = (u: (typeof chunks)[number]) => (u.content.type === "text" ? u.content.text : "");
      if (clientCapabilities === OPTED_IN) {
        expect(notices).toHaveLength(1);
        expect(notices[0]).toMatchObject({ severity: "info" });
        expect(notices[0]!.title).toContain("auto-compact threshold");
        expect(chunks.some((u) => said(u).includes("auto-compact threshold"))).toBe(false);
      } else {
        expect(notices).toHaveLength(0);
        const notice = chunks.find((u) => said(u).includes("auto-compact threshold"))!;
        // Its own message: no chunk of the model's answer shares its id.
        expect(chunks.filter((u) => u.messageId === notice.messageId)).toHaveLength(1);
      }
    });
  }
}, 30_000);

/** A state dir whose HOME holds the app's task index (as test/e2e/app-history.test.ts builds it). */
function withAppDatabase(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "zcode-delete-e2e-"));
  const v2 = join(dir, "home/.zcode/v2");
  mkdirSync(v2, { recursive: true });
  const file = join(v2, "tasks-index.sqlite");
  const db = new Database(file, { create: true, readwrite: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(readFileSync(join(ROOT, "test/fixtures/zcode-app/tasks-index.sql"), "utf8"));
  db.close();
  return { dir, file };
}

function deletedFlag(file: string, id: string): number | undefined {
  const db = new Database(file, { readonly: true });
  try {
    return (db.query("SELECT deleted FROM tasks WHERE task_id = ?").get(id) as { deleted: number } | null)?.deleted;
  } finally {
    db.close();
  }
}

async function listed(h: Harness): Promise<string[]> {
  const r = await h.agent.request(acp.methods.agent.session.list, {});
  return r.sessions.map((s) => s.sessionId);
}

test("session/delete: advertised; ends the running turn, deletes in ZCode and in the app's history; session/close never deletes", async () => {
  const { dir, file } = withAppDatabase();
  try {
    await withBridge({ stateDir: dir, record: true }, async (h) => {
      expect(h.initializeResponse?.agentCapabilities?.sessionCapabilities?.delete).toEqual({});
      const kept = (await h.newSession()).sessionId;
      const gone = (await h.newSession()).sessionId;
      await h.prompt(kept, "hello");
      await h.waitFor(() => deletedFlag(file, gone) === 0, "the app's row");
      // close keeps the conversation.
      await h.agent.request(acp.methods.agent.session.close, { sessionId: kept });
      expect(await listed(h)).toContain(kept);
      // delete while a turn runs: the turn is answered, then the session is gone.
      const running = h.prompt(gone, "#scenario:slow n=400");
      await h.waitFor(() => h.updates(gone).some((u) => u.sessionUpdate === "agent_message_chunk"), "the turn to start");
      await h.agent.request(acp.methods.agent.session.delete, { sessionId: gone });
      expect((await running).stopReason).toBe("cancelled");
      expect(await listed(h)).not.toContain(gone);
      expect(await listed(h)).toContain(kept);
      expect(deletedFlag(file, gone)).toBe(1);
      expect(deletedFlag(file, kept)).toBe(0);
      // Only the delete sent ZCode's deleting command, once (0.16.9: v4 deleteSession, ZCode's own delete).
      expect(h.simFrames().filter((f) => f.method === "v4/command" && f.params?.type === "deleteSession")).toHaveLength(1);
      expect(h.simMethods().filter((m) => m === "session/close")).toHaveLength(0);
      // The session is gone here too.
      await expect(h.prompt(gone, "again")).rejects.toThrow();
    });
    // A session this bridge never opened (another editor's, an earlier run's) is found and deleted.
    await withBridge({ stateDir: dir }, async (h) => {
      const [id] = await listed(h);
      await h.agent.request(acp.methods.agent.session.delete, { sessionId: id! });
      expect(await listed(h)).not.toContain(id);
      // An unknown session: -32002 on the wire (the SDK's client reads that as "already gone").
      await h.agent.request(acp.methods.agent.session.delete, { sessionId: "sess_unknown" });
      expect(h.received.messages.at(-1)).toMatchObject({ error: { code: -32002, data: { sessionId: "sess_unknown" } } });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 30_000);

test("auto-compact switch: a boolean option when opted in, an on/off select otherwise; off means no compaction", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await withBridge(
      { clientCapabilities, record: true, args: ["--auto-compact", "80%"], env: { ZCODE_SIM_CONTEXT_FILL: "0.95" } },
      async (h) => {
        const { sessionId, configOptions } = await h.newSession();
        const opt = configOptions!.find((o) => o.id === "auto_compact")!;
        const boolean = clientCapabilities === OPTED_IN;
        if (boolean) expect(opt).toMatchObject({ type: "boolean", currentValue: true });
        else expect(opt).toMatchObject({ type: "select", currentValue: "on", options: [{ value: "on" }, { value: "off" }] });
        const off = boolean ? { type: "boolean" as const, value: false } : { value: "off" };
        const r = await h.agent.request(acp.methods.agent.session.setConfigOption, {
          sessionId,
          configId: "auto_compact",
          ...off,
        } as acp.SetSessionConfigOptionRequest);
        expect(r.configOptions.find((o) => o.id === "auto_compact")).toMatchObject({ currentValue: boolean ? false : "off" });
        expect(h.updatesOfKind(sessionId, "config_option_update").length).toBeGreaterThan(0);
        await h.prompt(sessionId, "fill the context");
        await h.prompt(sessionId, "and again");
        expect(h.simMethods()).not.toContain("session/compact");
      },
    );
  }
  // Without --auto-compact there is nothing to switch.
  await optedInBridge.run(async (h) => {
    const { configOptions } = await h.newSession();
    expect(configOptions!.some((o) => o.id === "auto_compact")).toBe(false);
  });
}, 30_000);

const AIR = { _meta: { jetbrains: { air: { version: 1, capabilities: [] } } } } as acp.ClientCapabilities;

function extRequest(h: Harness, method: string, params: unknown): Promise<unknown> {
  return (h.agent.request as (m: string, p: unknown) => Promise<unknown>)(method, params);
}

function goalStates(h: Harness, sessionId: string): unknown[] {
  return h
    .updatesOfKind(sessionId, "session_info_update")
    .filter((u) => u._meta && "goal" in u._meta)
    .map((u) => u._meta!.goal);
}

test("goal extension: advertised at the top of initialize; _session/goal runs /goal; the state in session_info_update _meta.goal", async () => {
  for (const clientCapabilities of [{}, AIR]) {
    await withBridge({ clientCapabilities, record: true }, async (h) => {
      expect(h.initializeResponse?._meta?.goal).toEqual({
        version: 1,
        controlMethod: "_session/goal",
        actions: ["set", "pause", "resume", "clear"],
      });
      expect(h.initializeResponse?._meta?.steering).toEqual({ supported: true });
      const { sessionId } = await h.newSession();
      // A client that never uses the extension sees no goal state from ordinary turns.
      await h.prompt(sessionId, "hello");
      expect(goalStates(h, sessionId)).toEqual([]);
      expect(await extRequest(h, "_session/goal", { sessionId, action: "set", objective: "ship the release" })).toEqual({});
      const goals = h
        .simFrames()
        .filter((f) => f.method === "session/goal")
        .map((f) => f.params);
      expect(goals[0]).toMatchObject({ action: "replace", objective: "ship the release" });
      expect(goalStates(h, sessionId).at(-1)).toMatchObject({
        objective: "ship the release",
        status: "active",
        controlMethod: "_session/goal",
      });
      expect(await extRequest(h, "_session/goal", { sessionId, action: "clear" })).toEqual({});
      expect(goalStates(h, sessionId).at(-1)).toBeNull();
      await expect(extRequest(h, "_session/goal", { sessionId, action: "set" })).rejects.toThrow();
      await expect(extRequest(h, "_session/goal", { sessionId, action: "explode" })).rejects.toThrow();
    });
  }
}, 30_000);

test("steering extension: _session/steering runs /steer in the running turn; idle answers promptRequired", async () => {
  // A CLI with session/steer (0.15); on 0.16 /steer itself says it is not supported, and so does this path.
  await withBridge({ clientCapabilities: AIR, record: true, simVersion: "0.15.3" }, async (h) => {
    const { sessionId } = await h.newSession();
    expect(await extRequest(h, "_session/steering", { sessionId, prompt: [{ type: "text", text: "use tabs" }] })).toEqual({
      outcome: "promptRequired",
      reason: "noRunningTurn",
    });
    const running = h.prompt(sessionId, "#scenario:slow n=400");
    await h.waitFor(() => h.updates(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), "the turn to start");
    expect(
      await extRequest(h, "_session/steering", {
        sessionId,
        prompt: [{ type: "text", text: "use tabs" }],
        _meta: { steering: { idleBehavior: "promptRequired" } },
      }),
    ).toEqual({ outcome: "injected" });
    expect(h.simFrames().find((f) => f.method === "session/steer")?.params).toMatchObject({ sessionId, content: "use tabs" });
    await h.cancel(sessionId);
    await running;
  });
}, 30_000);

test("huge history: session/load replays the last 500 messages with a note, in updates of bounded size", async () => {
  await plainBridge.run(async (first) => {
    const { sessionId } = await first.newSession();
    await first.prompt(sessionId, "#scenario:huge-history n=700 bytes=7000000 big=5000000 text=1000000");
    const stateDir = first.stateDir;
    await withBridge({ stateDir }, async (h) => {
      await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: stateDir, mcpServers: [] });
      const updates = h.updates(sessionId);
      const firstText = updates.find((u) => u.sessionUpdate === "agent_message_chunk" || u.sessionUpdate === "user_message_chunk");
      expect(firstText?.sessionUpdate).toBe("agent_message_chunk");
      expect(JSON.stringify(firstText)).toContain("Only the last 500 messages");
      const sizes = h.received.messages.filter((m) => m.method === "session/update").map((m) => JSON.stringify(m).length);
      expect(Math.max(...sizes)).toBeLessThan(1024 * 1024);
      // The 5 MB output is capped with a note; the 1 MB answer arrives whole, in pieces of one message.
      expect(JSON.stringify(updates)).toContain("more characters not shown");
      const pieces = h
        .updatesOfKind(sessionId, "agent_message_chunk")
        .filter((u) => u.content.type === "text" && u.content.text.startsWith("z"));
      expect(pieces.length).toBeGreaterThan(1);
      expect(new Set(pieces.map((u) => u.messageId)).size).toBe(1);
      expect(pieces.reduce((n, u) => n + (u.content.type === "text" ? u.content.text.length : 0), 0)).toBe(1_000_000);
    });
  });
}, 60_000);

test("a goal paused by a cancel: a notice when opted in; else a message of its own", async () => {
  for (const clientCapabilities of [{}, OPTED_IN]) {
    await bridgeFor(clientCapabilities).run(async (h) => {
      const { sessionId } = await h.newSession();
      const running = h.prompt(sessionId, "/goal #scenario:slow n=400");
      await h.waitFor(() => h.text(sessionId).includes("Working toward the goal"), "the goal's work to start");
      await h.cancel(sessionId);
      expect((await running).stopReason).toBe("cancelled");
      const notices = h.updatesOfKind(sessionId, "notice");
      if (clientCapabilities === OPTED_IN) {
        expect(notices.map((n) => n.title)).toEqual([expect.stringContaining("The goal is paused")]);
      } else {
        expect(notices).toHaveLength(0);
        expect(h.text(sessionId)).toContain("The goal is paused");
      }
    });
  }
}, 30_000);
