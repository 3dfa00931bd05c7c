// Issue 28 point 5: the product's core scenarios against a ZCode that speaks
// legacy and v4 (`both`, as 0.16.9 does) and against one that speaks v4 alone
// (`v4-only`: every legacy method answers -32601), the bridge in `auto`.
// Each scenario asserts what the editor sees, and the v4-only run must show
// the editor exactly what the `both` run showed ("no visible change"): the
// updates of each scenario are folded into a view (text runs joined, each
// tool call folded to its final state, ids and temp paths replaced) and the
// two views compared. One bridge per mode serves the independent scenarios,
// each on its own session, all started at once; the restart scenarios use
// bridges of their own on a state dir of their own. Every ACP message is
// schema-checked by the harness; every v4 command the bridge sends is checked
// against ZCode's strict envelope and payload schemas (the simulator's
// `envelopeIssues`, as commands-v4.test.ts does).
import * as acp from "@agentclientprotocol/sdk/unstable";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Harness, type HarnessOptions, type SimProtocol, withBridge } from "../support/acp-harness.ts";
import { formatIssues, type Schema, validate } from "../simulator/schema.ts";
import type { Sim } from "../simulator/sim.ts";
import { COMMAND_TYPES_0169, envelopeIssues } from "../simulator/v4.ts";
import { installV4Only } from "../simulator/v4-only.ts";
import {
  v4AttachmentBeginParams,
  v4AttachmentChunkParams,
  v4AttachmentTerminalParams,
  v4ResyncParams,
  v4SubscribeParams,
  v4UnsubscribeParams,
} from "../simulator/zcode-schemas.ts";
import { chunkText, EXPECTED_COMMANDS, simRequests, waitForCommands } from "./commands-support.ts";
import { toolViews } from "./interaction-support.ts";
import { simSaved, simTurnsEnded } from "./sim-store-support.ts";

const m = acp.methods.agent;

// The simulator's strict schemas of the v4-only surface: installed into this
// process's copy of its command table (createSession, switchModelConfig, …),
// so that envelopeIssues knows every payload a v4-only bridge sends.
installV4Only({} as Sim);

/**
 * envelopeIssues checks the envelope's `type` against the command list the
 * simulator's default mode keeps, which is not 0.16.9's (v4.ts: it predates
 * that reading); a v4-only simulator takes command.ts's list
 * (COMMAND_TYPES_0169), so a type of that list is not an issue there.
 */
function commandIssues(c: { type?: unknown }, mode: SimProtocol): string[] {
  const listed = mode === "v4-only" && (COMMAND_TYPES_0169 as readonly unknown[]).includes(c.type);
  return envelopeIssues(c).filter((i) => !(listed && i.startsWith("type: Invalid enum value")));
}

/** ZCode's strict params of the v4 requests other than commands (transport.ts, attachment upload; as the simulator checks them). */
const V4_PARAMS: Record<string, Schema> = {
  "v4/conversation/subscribe": v4SubscribeParams,
  "v4/conversation/resync": v4ResyncParams,
  "v4/conversation/unsubscribe": v4UnsubscribeParams,
  "v4/attachment/begin": v4AttachmentBeginParams,
  "v4/attachment/chunk": v4AttachmentChunkParams,
  "v4/attachment/commit": v4AttachmentTerminalParams,
  "v4/attachment/abort": v4AttachmentTerminalParams,
};
const MODES: SimProtocol[] = ["both", "v4-only"];
/** Sized for a machine half as fast as a busy 2-core one: every scenario of a mode runs within it. */
const SCENARIO_MS = 60_000;
const RESTART_MS = 90_000;

const ZAI = "builtin:zai-coding-plan";
const GLM47 = `${ZAI}/GLM-4.7`;
/** A 1×1 PNG. */
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==";
const PNG_BYTES = Buffer.from(PNG, "base64").length;
const PLAN_TEXT = "Add an exclamation mark";

// ---- what the editor sees, folded -------------------------------------------------

type Block = Record<string, unknown>;

/**
 * The editor's view of a run of updates: consecutive text chunks of one kind
 * joined, each tool call folded into its final state at the place it first
 * appeared, everything else as it came. Usage figures and the / menu are left
 * out (asserted where they matter): they follow ZCode's own accounting.
 */
function fold(updates: acp.SessionUpdate[]): Block[] {
  const out: Block[] = [];
  const tools = new Map<string, Block>();
  for (const u of updates) {
    switch (u.sessionUpdate) {
      case "agent_message_chunk":
      case "agent_thought_chunk":
      case "user_message_chunk": {
        const text = u.content.type === "text" ? u.content.text : `[${u.content.type}]`;
        const last = out.at(-1);
        if (last?.kind === u.sessionUpdate) last.text = `${last.text}${text}`;
        else out.push({ kind: u.sessionUpdate, text });
        break;
      }
      case "tool_call":
      case "tool_call_update": {
        let t = tools.get(u.toolCallId);
        if (!t) {
          t = { kind: "tool", id: u.toolCallId };
          tools.set(u.toolCallId, t);
          out.push(t);
        }
        for (const k of ["title", "kind", "status", "content", "locations"] as const) {
          const v = (u as Record<string, unknown>)[k];
          if (v !== undefined && v !== null) t[k === "kind" ? "toolKind" : k] = v;
        }
        break;
      }
      case "usage_update":
      case "available_commands_update":
        break;
      case "config_option_update":
        out.push({ kind: u.sessionUpdate, values: configValues(u.configOptions) });
        break;
      default: {
        const { sessionUpdate, ...rest } = u as Record<string, unknown>;
        out.push({ kind: sessionUpdate, ...rest });
      }
    }
  }
  return out;
}

function configValues(options: acp.SessionConfigOption[] | null | undefined): Record<string, unknown> {
  return Object.fromEntries((options ?? []).map((o) => [o.id, "currentValue" in o ? o.currentValue : undefined]));
}

/**
 * Ids and paths that differ between two runs replaced by stable names: the
 * temp dir, the ids named in `known` (sessions), tool call and message ids
 * (in order of appearance).
 */
function normalize(value: unknown, h: Harness, known: Record<string, string>): unknown {
  const names = new Map<string, string>();
  let text = JSON.stringify(value).replaceAll(h.stateDir, "<dir>");
  for (const [id, name] of Object.entries(known)) text = text.replaceAll(id, name);
  text = text.replace(/"(id|toolCallId|messageId|parentToolCallId)":"([^"]+)"/g, (_all, key: string, id: string) => {
    if (!names.has(id)) names.set(id, `<${key} ${names.size}>`);
    return `"${key}":"${names.get(id)}"`;
  });
  return JSON.parse(text);
}

/** The updates of `sessionId` from index `from` of everything received. */
function updatesSince(h: Harness, sessionId: string, from: number): acp.SessionUpdate[] {
  return h.received.updates
    .slice(from)
    .filter((u) => u.sessionId === sessionId)
    .map((u) => u.update);
}

/**
 * Scenarios that do not pass yet against a v4-only ZCode, and why: each is a
 * `test.todo` in v4-only mode (`bun test --todo` runs them) and passes in
 * `both`. Remove an entry once its scenario passes.
 */
const V4_ONLY_TODO: Record<string, string> = {};

/** The scenarios whose views are compared between the modes. */
const COMPARED = [
  "new",
  "prompt",
  "tools",
  "permission",
  "question",
  "plan",
  "cancel",
  "switch",
  "fork",
  "rewind",
  "compact",
  "goal",
  "subagent",
  "attachments",
  "load",
] as const;

/** Views that differ between a v4-only ZCode and `both` today, and how (each a `test.todo`). */
const V4_ONLY_DIFFERS: Partial<Record<(typeof COMPARED)[number], string>> = {
  // ZCode's v4 toolCall row has no exit code: buildToolOutput (projection-rows.ts) keeps the result's content and
  // display ({kind: bash_output, output, truncated, outputPath?}), not perf.detail.command.exitCode, where legacy reads it.
  tools: "a Bash call that exited 0 shows no 'exit code 0' line: a v4 toolCall row carries no exit code",
  permission: "the Bash call shows '(no output)' where legacy shows 'exit code 0': a v4 toolCall row carries no exit code",
  attachments:
    "the simulator words its echo of a v4 attachment ref differently ('shot.png 70 bytes (v4 attachment ref)', not 'image shot.png image/png 70 bytes')",
  switch:
    "the model stays the session's own: a v4-only ZCode publishes no model catalog, so another model is refused (asserted in the switch scenario)",
  goal: "`/goal clear` is refused in words: v4 has no command that clears a goal (asserted in the goal scenario)",
  load: "the replayed plan's priorities and statuses differ from ZCode's todos (high/in_progress/low → medium/pending/medium)",
};

/** What each mode showed, per scenario: the v4-only run is compared with the `both` run. */
const shown: Record<SimProtocol, Map<string, unknown>> = { both: new Map(), "v4-only": new Map() };

/** Keeps what the editor saw in a scenario, for the comparison tests of the v4-only run. */
function keepShown(mode: SimProtocol, scenario: string, view: unknown): void {
  shown[mode].set(scenario, view);
}

function sameAsBoth(mode: SimProtocol, scenario: string, view: unknown): void {
  shown[mode].set(scenario, view);
  const both = shown.both.get(scenario);
  // Run alone (`-t v4-only`), there is nothing to compare with.
  if (mode !== "both" && both !== undefined) expect({ scenario, view }).toEqual({ scenario, view: both });
}

// ---- the editor's answers --------------------------------------------------------

/** Plan approval: approve. A question: the first option of each. */
function answerForm(req: acp.CreateElicitationRequest): acp.CreateElicitationResponse {
  const r = req as { message?: string; requestedSchema?: { properties?: Record<string, any> } };
  if (r.message?.includes(PLAN_TEXT)) return { action: "accept", content: { decision: "approve" } } as acp.CreateElicitationResponse;
  const content: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(r.requestedSchema?.properties ?? {})) {
    if (prop.oneOf) content[key] = prop.oneOf[0].const;
    else if (prop.items?.anyOf) content[key] = [prop.items.anyOf[0].const];
  }
  return { action: "accept", content } as acp.CreateElicitationResponse;
}

function bridgeOptions(mode: SimProtocol, extra: HarnessOptions = {}): HarnessOptions {
  return {
    simProtocol: mode,
    record: true,
    clientCapabilities: { elicitation: { form: {} }, subagents: {} } as acp.ClientCapabilities,
    onElicitation: answerForm,
    ...extra,
  };
}

// ---- the scenarios ---------------------------------------------------------------

interface Run {
  sessionId: string;
  /** Every update of the session from its creation on. */
  updates: acp.SessionUpdate[];
  text: string;
  stopReasons: string[];
  data: Record<string, unknown>;
}

type Scenario = (h: Harness) => Promise<Run>;

async function session(h: Harness): Promise<{ sessionId: string; from: number; response: acp.NewSessionResponse }> {
  const from = h.received.updates.length;
  const response = await h.newSession();
  return { sessionId: response.sessionId, from, response };
}

/** Sends the prompts one after another in a new session. */
function prompts(...texts: Array<string | acp.ContentBlock[]>): Scenario {
  return async (h) => {
    const { sessionId, from } = await session(h);
    const stopReasons: string[] = [];
    for (const t of texts) stopReasons.push((await h.prompt(sessionId, t)).stopReason);
    const updates = updatesSince(h, sessionId, from);
    return { sessionId, updates, text: chunkText(updates), stopReasons, data: {} };
  };
}

const SCENARIOS: Record<string, Scenario> = {
  new: async (h) => {
    const { sessionId, from, response } = await session(h);
    const commands = await waitForCommands(h, sessionId);
    return {
      sessionId,
      updates: updatesSince(h, sessionId, from),
      text: "",
      stopReasons: [],
      data: { modes: response.modes, config: configValues(response.configOptions), commands },
    };
  },
  prompt: prompts("hello there"),
  tools: prompts("#scenario:tools"),
  permission: prompts("#scenario:permission"),
  question: prompts("#scenario:question"),
  plan: prompts("#scenario:plan"),
  cancel: async (h) => {
    const { sessionId, from } = await session(h);
    const turn = h.prompt(sessionId, "#scenario:slow n=400");
    await h.waitFor(() => h.text(sessionId).includes("chunk 0 "), "the turn to stream", SCENARIO_MS);
    await h.cancel(sessionId);
    const stopReasons = [(await turn).stopReason];
    const after = h.received.updates.length;
    stopReasons.push((await h.prompt(sessionId, "after cancel")).stopReason);
    const updates = updatesSince(h, sessionId, from);
    return { sessionId, updates, text: chunkText(updates), stopReasons, data: { after: fold(updatesSince(h, sessionId, after)) } };
  },
  switch: async (h) => {
    const { sessionId, from } = await session(h);
    // A v4-only ZCode publishes no model catalog (see "switch" below): the model is refused there, in words.
    const model = await h.agent.request(m.session.setConfigOption, { sessionId, configId: "model", value: GLM47 }).then(
      (x) => configValues(x.configOptions),
      (e: unknown) => ({ refused: (e as Error).message ?? String(e) }),
    );
    const thought = await h.agent.request(m.session.setConfigOption, { sessionId, configId: "thought_level", value: "low" });
    await h.agent.request(m.session.setMode, { sessionId, modeId: "plan" });
    const stopReasons = [(await h.prompt(sessionId, "on the new model")).stopReason];
    const updates = updatesSince(h, sessionId, from);
    return {
      sessionId,
      updates,
      text: chunkText(updates),
      stopReasons,
      data: { model, thought: configValues(thought.configOptions) },
    };
  },
  steer: async (h) => {
    const { sessionId, from } = await session(h);
    const turn = h.prompt(sessionId, "#scenario:guided");
    await h.waitFor(() => h.updates(sessionId).some((u) => u.sessionUpdate === "tool_call"), "the turn's tool call", SCENARIO_MS);
    const steer = (await h.prompt(sessionId, "/steer use TypeScript")).stopReason;
    const stopReasons = [(await turn).stopReason, steer];
    const updates = updatesSince(h, sessionId, from);
    return { sessionId, updates, text: chunkText(updates), stopReasons, data: {} };
  },
  rewind: prompts("#scenario:edit", "/rewind"),
  compact: prompts("Plan the login page", "/compact"),
  goal: async (h) => {
    const r = await prompts("/goal Ship the login page", "/goal")(h);
    // On a v4-only ZCode the clear is refused (the goal test says why): its words are the answer.
    const clear = await h.prompt(r.sessionId, "/goal clear").then(
      (x) => x.stopReason as string,
      (e: unknown) => `refused: ${(e as Error).message}`,
    );
    const updates = updatesSince(h, r.sessionId, 0);
    return { ...r, updates, text: chunkText(updates), stopReasons: [...r.stopReasons, clear] };
  },
  subagent: async (h) => {
    const run = await prompts("#scenario:subagent")(h);
    const child = h.updatesOfKind(run.sessionId, "subagent_update")[0]?.sessionId;
    if (!child) return run;
    await h.waitFor(
      () =>
        h.updatesOfKind(run.sessionId, "subagent_update").some((u) => u.state?.state === "idle") &&
        h.text(child).includes("Found 2 callers"),
      "the child's answer and its end",
      SCENARIO_MS,
    );
    return { ...run, updates: updatesSince(h, run.sessionId, 0), data: { child, childUpdates: h.updates(child) } };
  },
  attachments: prompts([
    { type: "text", text: "what is in this?" },
    { type: "image", data: PNG, mimeType: "image/png", uri: "file:///home/me/shot.png" },
  ]),
};

/** The scenarios that need another's session: list and fork read the `prompt` one. */
async function listAndFork(h: Harness, promptRun: Run): Promise<Run> {
  const list = await h.agent.request(m.session.list, { cwd: h.stateDir });
  const fork = await h.agent.request(m.session.fork, { sessionId: promptRun.sessionId, cwd: h.stateDir, mcpServers: [] });
  const from = h.received.updates.length;
  const stopReasons = [(await h.prompt(fork.sessionId, "in the fork")).stopReason];
  const updates = updatesSince(h, fork.sessionId, from);
  return { sessionId: fork.sessionId, updates, text: chunkText(updates), stopReasons, data: { list: list.sessions } };
}

describe.each(MODES)("ZCODE_SIM_PROTOCOL=%s, the bridge in auto", (mode) => {
  let h: Harness;
  const runs = new Map<string, Promise<Run>>();
  const run = (name: string) => runs.get(name)!;

  beforeAll(async () => {
    h = await Harness.start(bridgeOptions(mode));
    // Independent scenarios, each on its own session, all at once (a failure surfaces in its own test).
    for (const [name, scenario] of Object.entries(SCENARIOS)) {
      const p = scenario(h);
      p.catch(() => {});
      runs.set(name, p);
    }
    const fork = run("prompt").then((r) => listAndFork(h, r));
    fork.catch(() => {});
    runs.set("listAndFork", fork);
  }, SCENARIO_MS);

  afterAll(async () => {
    await Promise.allSettled(runs.values());
    await h?.close();
  }, SCENARIO_MS);

  /** A scenario's test; in v4-only mode a `test.todo` when it does not pass yet (V4_ONLY_TODO says why). */
  const scenario =
    (key: string) =>
    (name: string, fn: () => Promise<void>, timeout: number): void => {
      const why = mode === "v4-only" ? V4_ONLY_TODO[key] : undefined;
      if (why) test.todo(`${name} (todo: ${why})`, fn, timeout);
      else test(name, fn, timeout);
    };

  const view = (r: Run) => normalize(fold(r.updates), h, { [r.sessionId]: "<session>" });
  const named = (r: Run, value: unknown) => normalize(value, h, { [r.sessionId]: "<session>" });

  scenario("new")(
    "new: modes, config options and the / menu",
    async () => {
      const r = await run("new");
      expect((r.data.modes as acp.SessionModeState).availableModes.map((x) => x.id)).toContain("plan");
      expect(r.data.config).toMatchObject({ model: `${ZAI}/GLM-5.3`, thought_level: "max" });
      expect(r.data.commands).toEqual(EXPECTED_COMMANDS["0.16.9"]!);
      keepShown(mode, "new", named(r, r.data));
    },
    SCENARIO_MS,
  );

  scenario("prompt")(
    "a prompt with text: thoughts, text, title, usage; end_turn",
    async () => {
      const r = await run("prompt");
      expect(r.stopReasons).toEqual(["end_turn"]);
      expect(r.text).toContain("Echo: hello there");
      expect(r.updates.some((u) => u.sessionUpdate === "agent_thought_chunk")).toBe(true);
      expect(r.updates.filter((u) => u.sessionUpdate === "session_info_update").at(-1)).toMatchObject({ title: "hello there" });
      expect(r.updates.some((u) => u.sessionUpdate === "usage_update")).toBe(true);
      keepShown(mode, "prompt", view(r));
    },
    SCENARIO_MS,
  );

  scenario("tools")(
    "tools: titles, kinds, diffs and output; each ends completed or failed",
    async () => {
      const r = await run("tools");
      expect(r.stopReasons).toEqual(["end_turn"]);
      const tools = [...toolViews(h, r.sessionId).values()];
      expect(tools.length).toBeGreaterThanOrEqual(5);
      for (const t of tools) {
        expect(t.title?.length).toBeGreaterThan(0);
        expect(["completed", "failed"]).toContain(t.status!);
      }
      expect(tools.some((t) => t.content?.some((c) => c.type === "diff"))).toBe(true);
      expect(tools.some((t) => t.kind === "execute" && (t.content?.length ?? 0) > 0)).toBe(true);
      keepShown(mode, "tools", view(r));
    },
    SCENARIO_MS,
  );

  scenario("permission")(
    "permissions: the editor is asked, its answer is ZCode's",
    async () => {
      const r = await run("permission");
      const asked = h.received.permissionRequests.filter((p) => p.sessionId === r.sessionId);
      expect(asked).toHaveLength(1);
      expect(JSON.stringify(asked[0]!.toolCall)).toContain("rm -rf build");
      expect(r.text).toContain("Removed the build directory.");
      keepShown(mode, "permission", { view: view(r), asked: named(r, asked) });
    },
    SCENARIO_MS,
  );

  scenario("question")(
    "questions: one form, the chosen option reaches ZCode",
    async () => {
      const r = await run("question");
      const forms = h.received.elicitations.filter((e) => (e as { sessionId?: string }).sessionId === r.sessionId);
      expect(forms).toHaveLength(1);
      expect(r.text).toContain('"Which package manager should I use?"="Bun"');
      keepShown(mode, "question", { view: view(r), forms: named(r, forms) });
    },
    SCENARIO_MS,
  );

  scenario("plan")(
    "plan approval: a form showing the plan; approved",
    async () => {
      const r = await run("plan");
      const forms = h.received.elicitations.filter((e) => (e as { sessionId?: string }).sessionId === r.sessionId);
      expect(forms).toHaveLength(1);
      expect((forms[0] as { message: string }).message).toContain(PLAN_TEXT);
      expect(r.text).toContain("Plan approved");
      keepShown(mode, "plan", { view: view(r), forms: named(r, forms) });
    },
    SCENARIO_MS,
  );

  scenario("cancel")(
    "cancel: the turn ends cancelled; the next prompt runs",
    async () => {
      const r = await run("cancel");
      expect({ stopReasons: r.stopReasons, tail: r.text.slice(-300) }).toEqual({
        stopReasons: ["cancelled", "end_turn"],
        tail: expect.stringContaining("Echo: after cancel"),
      });
      // How far the cancelled turn streamed depends on the machine: only what follows is compared.
      keepShown(mode, "cancel", named(r, r.data.after));
    },
    SCENARIO_MS,
  );

  scenario("switch")(
    "model, thought level and mode switch; the session goes on",
    async () => {
      const r = await run("switch");
      if (mode === "v4-only") {
        // ZCode's CLI publishes no model catalog over v4 (v4-workspace-config.ts: the desktop host's
        // ModelSelectionView keeps it): only the session's own model is offered; another is refused in words.
        expect(r.data.model).toMatchObject({ refused: expect.stringContaining(GLM47) });
        expect(r.data.thought).toMatchObject({ model: `${ZAI}/GLM-5.3`, thought_level: "low" });
      } else {
        expect(r.data.model).toMatchObject({ model: GLM47, thought_level: "high" });
        expect(r.data.thought).toMatchObject({ model: GLM47, thought_level: "low" });
      }
      expect(r.updates.filter((u) => u.sessionUpdate === "current_mode_update").at(-1)).toMatchObject({ currentModeId: "plan" });
      expect(r.stopReasons).toEqual(["end_turn"]);
      keepShown(mode, "switch", { view: view(r), data: r.data });
    },
    SCENARIO_MS,
  );

  scenario("fork")(
    "list and fork: the session is listed with its title; its fork runs",
    async () => {
      const prompt = await run("prompt");
      const r = await run("listAndFork");
      const listed = (r.data.list as acp.SessionInfo[]).find((s) => s.sessionId === prompt.sessionId);
      expect(listed).toMatchObject({ cwd: h.stateDir, title: "hello there" });
      expect(r.sessionId).not.toBe(prompt.sessionId);
      expect(r.stopReasons).toEqual(["end_turn"]);
      expect(r.text).toContain("Echo: in the fork");
      keepShown(mode, "fork", view(r));
    },
    SCENARIO_MS,
  );

  scenario("steer")(
    "/steer: the guide reaches the running turn, shown as the user's words",
    async () => {
      const r = await run("steer");
      expect(r.stopReasons).toEqual(["end_turn", "end_turn"]);
      expect(r.text).toContain("Steering the running turn with:\n\n> use TypeScript");
      expect(r.text).toContain("[guide received: use TypeScript]");
      const users = r.updates.filter((u) => u.sessionUpdate === "user_message_chunk");
      expect(users.map((u) => (u.content.type === "text" ? u.content.text : ""))).toEqual(["use TypeScript"]);
    },
    SCENARIO_MS,
  );

  scenario("rewind")(
    "/rewind: the last turn's file changes undone; the chat stays",
    async () => {
      const r = await run("rewind");
      expect(r.stopReasons).toEqual(["end_turn", "end_turn"]);
      expect(r.text).toMatch(/Rewound the last turn's changes to 1 file; the conversation is unchanged:\n\n- `.*greet\.ts` \(restored\)$/);
      keepShown(mode, "rewind", view(r));
    },
    SCENARIO_MS,
  );

  scenario("compact")(
    "/compact: a compaction tool call that completes; ZCode's words",
    async () => {
      const r = await run("compact");
      expect(r.stopReasons).toEqual(["end_turn", "end_turn"]);
      const compaction = [...toolViews(h, r.sessionId).values()].find((t) => t.title === "Compacting conversation");
      expect(compaction?.status).toBe("completed");
      expect(r.text).toContain("Conversation compacted");
      keepShown(mode, "compact", view(r));
    },
    SCENARIO_MS,
  );

  scenario("goal")(
    "/goal: set, shown, cleared, in ZCode's words",
    async () => {
      const r = await run("goal");
      expect(r.text).toContain("Objective: Ship the login page");
      if (mode === "v4-only") {
        // v4 has no command that clears a goal (command.ts; goal-compact.ts: sendGoalCommand, pauseGoal, resumeGoal only).
        expect(r.stopReasons).toEqual(["end_turn", "end_turn", expect.stringContaining("no command to clear a goal")]);
      } else {
        expect(r.stopReasons).toEqual(["end_turn", "end_turn", "end_turn"]);
        expect(r.text).toContain("Goal cleared.");
      }
      keepShown(mode, "goal", view(r));
    },
    SCENARIO_MS,
  );

  scenario("subagent")(
    "subagents: announced, the child's own session, its end",
    async () => {
      const r = await run("subagent");
      const child = r.data.child as string;
      expect(child).toMatch(/^sess_subagent_agent_/);
      expect(h.updatesOfKind(r.sessionId, "subagent_update")[0]).toMatchObject({
        title: "Find callers of greet",
        state: { state: "running" },
      });
      expect(h.text(child)).toContain("Found 2 callers");
      expect(h.updatesOfKind(child, "tool_call").some((c) => c.name === "Grep")).toBe(true);
      expect(h.updatesOfKind(r.sessionId, "tool_call").map((c) => c.name)).toEqual(["Agent"]);
      // The child's id is ZCode's agent id: new each run.
      const known = { [r.sessionId]: "<session>", [child]: "<child>", [child.replace(/^sess_subagent_/, "")]: "<agent>" };
      keepShown(
        mode,
        "subagent",
        normalize({ parent: fold(r.updates), child: fold(r.data.childUpdates as acp.SessionUpdate[]) }, h, known),
      );
    },
    SCENARIO_MS,
  );

  scenario("attachments")(
    "attachments: an image reaches ZCode with its name and size",
    async () => {
      const r = await run("attachments");
      expect(r.stopReasons).toEqual(["end_turn"]);
      // The simulator echoes what its turn took: session/send's attachment, or a committed v4 upload's ref.
      expect(r.text).toContain(
        mode === "both"
          ? `Attachments: image shot.png image/png ${PNG_BYTES} bytes`
          : `Attachments: shot.png ${PNG_BYTES} bytes (v4 attachment ref)`,
      );
      keepShown(mode, "attachments", view(r));
    },
    SCENARIO_MS,
  );

  scenario("frames")(
    "every v4 frame the bridge sent passes ZCode's strict schemas: command envelopes and payloads, subscribe, resync, unsubscribe, attachments",
    async () => {
      await Promise.allSettled(runs.values());
      const requests = simRequests(h).filter((f) => f.method.startsWith("v4/"));
      const commands = requests.filter((f) => f.method === "v4/command").map((f) => f.params);
      expect(commands.length).toBeGreaterThan(0);
      const issues = new Set<string>();
      for (const c of commands) for (const i of commandIssues(c, mode)) issues.add(`v4/command ${c.type}: ${i}`);
      for (const f of requests) {
        const schema = V4_PARAMS[f.method];
        const v = schema ? validate(schema, f.params) : undefined;
        if (v && !v.ok) issues.add(`${f.method}: ${formatIssues(v.issues)}`);
      }
      expect([...issues]).toEqual([]);
      expect(new Set(commands.map((c) => c.clientId)).size).toBe(1);
      expect(new Set(commands.map((c) => c.commandId)).size).toBe(commands.length);
      if (mode === "v4-only") {
        const methods = new Set(requests.map((f) => f.method));
        for (const m of ["v4/conversation/subscribe", "v4/attachment/begin", "v4/attachment/commit"]) expect(methods).toContain(m);
      }
    },
    SCENARIO_MS,
  );

  scenario("restart")(
    "after a bridge restart: load replays the conversation before answering; resume replays nothing; a fork runs",
    async () => {
      const stateDir = mkdtempSync(join(tmpdir(), "zcode-v4-only-restart-"));
      try {
        const made = await withBridge(bridgeOptions(mode, { stateDir }), async (a) => {
          const loaded = (await a.newSession()).sessionId;
          for (const p of ["first question", "#scenario:todo make a plan", "#scenario:edit"]) await a.prompt(loaded, p);
          const resumed = (await a.newSession()).sessionId;
          await a.prompt(resumed, "before the restart");
          // ZCode saves the todos and ends its turns a moment after the answers.
          await a.waitFor(
            () => simSaved(stateDir, loaded)?.todos?.length === 3 && simTurnsEnded(a, loaded) === 3 && simTurnsEnded(a, resumed) === 1,
            "ZCode to save both sessions",
            SCENARIO_MS,
          );
          return { loaded, resumed };
        });
        await withBridge(bridgeOptions(mode, { stateDir }), async (b) => {
          const before = b.received.updates.length;
          const load = await b.agent.request(m.session.load, { sessionId: made.loaded, cwd: stateDir, mcpServers: [] });
          expect(load.modes?.currentModeId).toBeTruthy();
          // Everything before the answer is the replay.
          const replay = updatesSince(b, made.loaded, before);
          const kinds = new Set<string>(replay.map((u) => u.sessionUpdate));
          for (const k of ["user_message_chunk", "agent_message_chunk", "tool_call", "plan", "session_info_update"])
            expect(kinds).toContain(k);
          expect(chunkText(replay)).toContain("Echo: first question");
          keepShown(mode, "load", normalize(fold(replay), b, { [made.loaded]: "<session>" }));

          const beforeResume = b.received.updates.length;
          await b.agent.request(m.session.resume, { sessionId: made.resumed, cwd: stateDir });
          await waitForCommands(b, made.resumed);
          const kindsAfterResume = updatesSince(b, made.resumed, beforeResume).map((u) => u.sessionUpdate);
          expect(kindsAfterResume.filter((k) => k !== "available_commands_update")).toEqual([]);
          expect((await b.prompt(made.resumed, "after resume")).stopReason).toBe("end_turn");
          expect(b.text(made.resumed)).toContain("Echo: after resume");

          const fork = await b.agent.request(m.session.fork, { sessionId: made.loaded, cwd: stateDir, mcpServers: [] });
          expect((await b.prompt(fork.sessionId, "in the fork")).stopReason).toBe("end_turn");
          expect(b.text(fork.sessionId)).toContain("Echo: in the fork");
        });
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    },
    RESTART_MS,
  );

  // "No visible change": each scenario's view in v4-only mode is the one of the `both` run (run the whole file: alone,
  // `-t v4-only` has nothing to compare with and these pass without comparing).
  if (mode === "v4-only")
    for (const key of COMPARED) {
      const why = V4_ONLY_DIFFERS[key] ?? (V4_ONLY_TODO[key === "load" ? "restart" : key] ? "its scenario does not pass yet" : undefined);
      const name = `the editor sees what it sees with both: ${key}`;
      const fn = async () => {
        await Promise.allSettled(runs.values());
        const both = shown.both.get(key);
        if (both === undefined) return;
        expect(shown[mode].has(key)).toBe(true);
        expect({ key, view: shown[mode].get(key) }).toEqual({ key, view: both });
      };
      if (why) test.todo(`${name} (todo: ${why})`, fn, SCENARIO_MS);
      else test(name, fn, SCENARIO_MS);
    }
});

describe.each(MODES)("ZCODE_SIM_PROTOCOL=%s: history of a long turn", (mode) => {
  test(
    "load replays every tool call of a 250-tool turn once, as legacy does; v4 reads it in rowsRange pages, newest first",
    async () => {
      const stateDir = mkdtempSync(join(tmpdir(), "zcode-v4-only-long-"));
      try {
        const sessionId = await withBridge(bridgeOptions(mode, { stateDir }), async (a) => {
          const { sessionId } = await a.newSession();
          // rows=250: 250 Reads before the scenario's own, more rows than a page holds (core.ts rowsRangeMaxLimit 200).
          expect((await a.prompt(sessionId, "#scenario:read rows=250")).stopReason).toBe("end_turn");
          await a.waitFor(() => simTurnsEnded(a, sessionId) === 1, "ZCode to save the session", SCENARIO_MS);
          return sessionId;
        });
        await withBridge(bridgeOptions(mode, { stateDir }), async (b) => {
          const before = b.received.updates.length;
          await b.agent.request(m.session.load, { sessionId, cwd: stateDir, mcpServers: [] });
          const replay = updatesSince(b, sessionId, before);
          const calls = replay.filter((u) => u.sessionUpdate === "tool_call");
          expect(calls).toHaveLength(251);
          expect(new Set(calls.map((c) => c.toolCallId)).size).toBe(251);
          expect(chunkText(replay)).toContain("It defines greet().");
          sameAsBoth(mode, "long load", normalize(fold(replay), b, { [sessionId]: "<session>" }));
          const pages = simRequests(b).filter((f) => f.method === "v4/conversation/rowsRange" && f.params.sessionId === sessionId);
          if (mode === "v4-only") {
            // Newest first, then back from the oldest row read while hasMore: never the same page twice.
            expect(pages.length).toBeGreaterThanOrEqual(2);
            expect(pages[0]!.params.beforeRowId).toBeUndefined();
            const cursors = pages.slice(1).map((p) => p.params.beforeRowId as number);
            expect(cursors.every((c, i) => i === 0 || c < cursors[i - 1]!)).toBe(true);
          } else {
            // Opened by one row; the history came from session/messages.
            expect(pages.map((p) => p.params)).toEqual([{ sessionId, limit: 1 }]);
          }
        });
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    },
    RESTART_MS,
  );
});

describe("v4-only: /compact while the last turn's own work is still let go", () => {
  test(
    "ZCode queues it (typed FIFO); the answer waits for the compaction and reports the compacted context",
    async () => {
      // ZCODE_SIM_BUSY_TAIL_MS: the turn's runtime (its activeWorks entry) is let go 300 ms after its end event, so
      // /compact arrives while the turn's work is active: ZCode accepts it with delivery "queue" and runs it once that
      // work is gone (projection-state.ts computeAvailability). The frame that empties activeWorks is then no sign of
      // the compaction (feed-next-work.test.ts): the answer waits for the compaction's own work.
      await withBridge(bridgeOptions("v4-only", { env: { ZCODE_SIM_BUSY_TAIL_MS: "300" } }), async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "Plan the login page")).stopReason).toBe("end_turn");
        const before = h.updatesOfKind(sessionId, "usage_update").at(-1)?.used;
        expect(before).toBeGreaterThan(0);
        expect((await h.prompt(sessionId, "/compact")).stopReason).toBe("end_turn");
        const said = /Conversation compacted\. Context in use: ([\d,]+) of/.exec(h.text(sessionId))?.[1];
        expect(said).toBeDefined();
        // The simulator's compaction leaves a tenth of the context (scenarios/basic.ts compact).
        expect(Number(said!.replaceAll(",", ""))).toBe(Math.max(100, Math.floor(before! / 10)));
        const frames = simRequests(h).filter((f) => f.method === "v4/command" && f.params.type === "compact");
        expect(frames).toHaveLength(1);
      });
    },
    SCENARIO_MS,
  );
});

describe("auto picks the protocol the CLI speaks", () => {
  const legacyRequests = (h: Harness) => simRequests(h).filter((f) => !f.method.startsWith("v4/"));
  const v4Types = (h: Harness) =>
    simRequests(h)
      .filter((f) => f.method === "v4/command")
      .map((f) => f.params.type as string);

  async function oneTurn(h: Harness): Promise<void> {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
    expect(h.text(sessionId)).toContain("Echo: hello");
  }

  test("0.15.3: legacy; v4 only probed", () =>
    withBridge({ simVersion: "0.15.3", record: true }, async (h) => {
      await oneTurn(h);
      expect(legacyRequests(h).map((f) => f.method)).toEqual(expect.arrayContaining(["session/create", "session/send"]));
      expect(
        simRequests(h)
          .filter((f) => f.method.startsWith("v4/"))
          .map((f) => f.method),
      ).toEqual(["v4/commands/query"]);
    }));

  test("0.16.9: legacy for the session, v4 for its commands", () =>
    withBridge({ simVersion: "0.16.9", record: true }, async (h) => {
      await oneTurn(h);
      expect(legacyRequests(h).map((f) => f.method)).toEqual(expect.arrayContaining(["session/create", "session/send"]));
      // v4 probed for the commands legacy lost (/steer, /rewind: the main describe runs them), the turn itself on legacy.
      expect(simRequests(h).some((f) => f.method === "v4/commands/query")).toBe(true);
      expect(v4Types(h)).toEqual([]);
    }));

  test("v4-only: every session operation on v4; no legacy method tried twice", () =>
    withBridge({ simProtocol: "v4-only", record: true }, async (h) => {
      await oneTurn(h);
      expect(v4Types(h)).toEqual(expect.arrayContaining(["createSession", "sendText"]));
      const legacy = legacyRequests(h)
        .map((f) => f.method)
        .filter((x) => x !== "initialize");
      expect(legacy.length).toBe(new Set(legacy).size);
    }));
});

describe("session/load on a CLI with both protocols: no session/resume transcript unless it must", () => {
  const methodsOf = (h: Harness, id: string) =>
    simRequests(h)
      .filter((f) => f.params?.sessionId === id)
      .map((f) => f.method);

  test(
    "without MCP servers: made live by a one-row v4 read, then session/read; the same replay; with MCP servers or another cwd: session/resume",
    async () => {
      const stateDir = mkdtempSync(join(tmpdir(), "zcode-v4-only-quiet-"));
      const mcp: acp.McpServer[] = [{ type: "http", name: "docs", url: "http://127.0.0.1:9/docs", headers: [] }];
      try {
        const ids = await withBridge({ stateDir }, async (a) => {
          const made: string[] = [];
          for (let i = 0; i < 3; i++) {
            const { sessionId } = await a.newSession();
            await a.prompt(sessionId, `#scenario:edit turn ${i}`);
            made.push(sessionId);
          }
          await a.waitFor(() => made.every((id) => simTurnsEnded(a, id) === 1), "ZCode to save the sessions", SCENARIO_MS);
          return made;
        });
        const replays: unknown[] = [];
        await withBridge({ stateDir, record: true }, async (b) => {
          const before = b.received.updates.length;
          await b.agent.request(m.session.load, { sessionId: ids[0]!, cwd: stateDir, mcpServers: [] });
          replays.push(normalize(fold(updatesSince(b, ids[0]!, before)), b, { [ids[0]!]: "<session>" }));
          const quiet = methodsOf(b, ids[0]!);
          expect(quiet).not.toContain("session/resume");
          expect(quiet.slice(0, 2)).toEqual(["v4/conversation/rowsRange", "session/read"]);
          expect(simRequests(b).find((f) => f.method === "v4/conversation/rowsRange")!.params).toEqual({ sessionId: ids[0]!, limit: 1 });
          expect((await b.prompt(ids[0]!, "after the load")).stopReason).toBe("end_turn");
          expect(b.text(ids[0]!)).toContain("Echo: after the load");

          const withMcp = b.received.updates.length;
          await b.agent.request(m.session.load, { sessionId: ids[1]!, cwd: stateDir, mcpServers: mcp });
          replays.push(normalize(fold(updatesSince(b, ids[1]!, withMcp)), b, { [ids[1]!]: "<session>" }));
          expect(simRequests(b).find((f) => f.method === "session/resume" && f.params.sessionId === ids[1])?.params.mcpServers).toEqual(
            mcp,
          );

          // Another cwd than the one ZCode stored: session/resume moves it there.
          const elsewhere = mkdtempSync(join(tmpdir(), "zcode-v4-only-elsewhere-"));
          try {
            await b.agent.request(m.session.resume, { sessionId: ids[2]!, cwd: elsewhere });
            expect(methodsOf(b, ids[2]!)).toContain("session/resume");
          } finally {
            rmSync(elsewhere, { recursive: true, force: true });
          }
        });
        // What the editor sees is the same either way (only the turn's text differs: "turn 0", "turn 1").
        expect(JSON.stringify(replays[0]).replaceAll("turn 0", "turn N")).toBe(JSON.stringify(replays[1]).replaceAll("turn 1", "turn N"));
      } finally {
        rmSync(stateDir, { recursive: true, force: true });
      }
    },
    RESTART_MS,
  );
});
