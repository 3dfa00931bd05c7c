// The real ZCode wire (ZCODE-REAL-WIRE.md), end to end: the compiled bridge
// against the simulator playing ZCode 0.16.9 as its source defines it. One
// test per point of "Speak the real ZCode wire"; the frames the simulator
// received (ZCODE_SIM_RECORD) show what the bridge really sent.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, Harness, SIM_BIN, sharedBridge, withBridge } from "../support/acp-harness.ts";

type Frame = ReturnType<Harness["simFrames"]>[number];

const requests = (h: Harness, method: string): Frame[] => h.simFrames().filter((f) => f.method === method && f.id !== undefined);
/**
 * Our answers to the simulator's own requests (ids "server-N"), picked by the
 * shape ZCode reads for `method` (the simulator's requests are not in its record).
 */
function answersTo(h: Harness, method: "permission" | "userInput"): unknown[] {
  const key = method === "permission" ? "decision" : "action";
  return h
    .simFrames()
    .filter((f) => f.method === undefined && typeof f.id === "string" && f.id.startsWith("server-") && f.result && key in f.result)
    .map((f) => f.result);
}

const toolUpdates = (h: Harness, sessionId: string) =>
  h
    .updates(sessionId)
    .filter(
      (u): u is Extract<acp.SessionUpdate, { sessionUpdate: "tool_call" | "tool_call_update" }> =>
        u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update",
    );

function contentText(c: acp.ToolCallContent[] | null | undefined): string {
  return (c ?? []).map((x) => (x.type === "content" && x.content.type === "text" ? x.content.text : "")).join("\n");
}

/** The last tool_call/tool_call_update fields of each tool, merged. */
function finalTools(h: Harness, sessionId: string): Map<string, Record<string, any>> {
  const out = new Map<string, Record<string, any>>();
  for (const u of toolUpdates(h, sessionId)) {
    const prev = out.get(u.toolCallId) ?? {};
    const next: Record<string, any> = { ...prev };
    for (const [k, v] of Object.entries(u)) if (v !== undefined && k !== "sessionUpdate") next[k] = v;
    out.set(u.toolCallId, next);
  }
  return out;
}

/** What ZCode takes as "delete this conversation": legacy session/close, or v4 deleteSession. */
function deletions(h: Harness): (string | undefined)[] {
  return h
    .simFrames()
    .filter((f) => f.method === "session/close" || (f.method === "v4/command" && f.params?.type === "deleteSession"))
    .map((f) => f.method);
}

// One bridge for the tests without options of their own, across the describes:
// each reads only its own session.
const bridge = sharedBridge({});

describe("1. sessions and reads with ZCode's real settings", () => {
  test("new, load, resume, fork and every read work; reads that need only settings pass messageLimit:1", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-real-"));
    let sessionId = "";
    await withBridge({ stateDir, record: true }, async (h) => {
      const s = await h.newSession();
      sessionId = s.sessionId;
      const model = s.configOptions?.find((o) => o.id === "model");
      expect(model?.currentValue).toBe("builtin:zai-coding-plan/GLM-5.3");
      expect((await h.prompt(sessionId, "hello")).stopReason).toBe("end_turn");
      const fork = await h.agent.request(acp.methods.agent.session.fork, { sessionId, cwd: stateDir, mcpServers: [] });
      expect(fork.sessionId).not.toBe(sessionId);
      expect((await h.prompt(fork.sessionId, "in the fork")).stopReason).toBe("end_turn");
      const reads = requests(h, "session/read");
      expect(reads.length).toBeGreaterThan(0);
      for (const r of reads) expect(r.params.messageLimit).toBe(1);
    });
    await withBridge({ stateDir, record: true }, async (h) => {
      const load = await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: stateDir, mcpServers: [] });
      expect(load.configOptions?.find((o) => o.id === "model")?.currentValue).toBe("builtin:zai-coding-plan/GLM-5.3");
      expect(h.updatesOfKind(sessionId, "user_message_chunk").some((u) => u.content.type === "text" && u.content.text === "hello")).toBe(
        true,
      );
      const resumed = await h.agent.request(acp.methods.agent.session.resume, { sessionId, cwd: stateDir, mcpServers: [] });
      expect(resumed.configOptions?.length).toBeGreaterThan(0);
      expect((await h.prompt(sessionId, "after load")).stopReason).toBe("end_turn");
      for (const r of requests(h, "session/read")) expect(r.params.messageLimit).toBe(1);
    });
    // Two bridges, a load and a fork: 4 s here, more on a loaded machine.
  }, 30_000);
});

describe("2. cancel", () => {
  test("session/stop goes as a request; ZCode really stops (no further tool runs); the next prompt waits out -32010 and goes through", async () => {
    await withBridge({ record: true, env: { ZCODE_SIM_DELAY_MS: "40" } }, async (h) => {
      const { sessionId } = await h.newSession();
      const p = h.prompt(sessionId, "#scenario:tools");
      await h.waitFor(() => h.updatesOfKind(sessionId, "tool_call").length >= 1, "the first tool call");
      await h.cancel(sessionId);
      expect((await p).stopReason).toBe("cancelled");
      const stops = h.simFrames().filter((f) => f.method === "session/stop");
      expect(stops.length).toBeGreaterThanOrEqual(1);
      for (const s of stops) expect(s.id).toBeDefined();
      expect((await h.prompt(sessionId, "after the cancel")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: after the cancel");
      // ZCode stopped the turn: of the dozen tools `tools` runs, only the first few did.
      const history = await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: h.stateDir, mcpServers: [] });
      expect(history).toBeDefined();
      const replayed = h.updatesOfKind(sessionId, "tool_call").filter((u) => u.status === "completed" || u.status === "failed");
      expect(replayed.length).toBeLessThan(6);
    });
  });

  test("a cancel ZCode ignores for a while: the next prompt meets -32010, waits for idle and is not lost", async () => {
    await withBridge({ record: true, env: { ZCODE_SIM_STOP_IGNORE_MS: "600" } }, async (h) => {
      const { sessionId } = await h.newSession();
      const p = h.prompt(sessionId, "#scenario:ignore-stop n=400");
      await h.waitFor(() => h.updatesOfKind(sessionId, "agent_message_chunk").length > 2, "streaming");
      await h.cancel(sessionId);
      expect((await p).stopReason).toBe("cancelled");
      expect((await h.prompt(sessionId, "next one")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("Echo: next one");
    });
  });
});

describe("3. closing a thread never deletes the conversation", () => {
  test("ACP session/close ends our side only: no ZCode session/close, the session stays listed and loadable; shutdown sends none either", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-real-close-"));
    let sessionId = "";
    await withBridge({ stateDir, record: true }, async (h) => {
      sessionId = (await h.newSession()).sessionId;
      await h.prompt(sessionId, "keep me");
      // A cancel, then a close under a running turn: neither deletes.
      const cancelled = h.prompt(sessionId, "#scenario:slow n=200");
      await h.waitFor(() => h.text(sessionId).length > 20, "streaming");
      await h.cancel(sessionId);
      expect((await cancelled).stopReason).toBe("cancelled");
      const p = h.prompt(sessionId, "#scenario:slow n=200");
      await h.waitFor(() => h.simMethods().filter((m) => m === "session/send").length >= 3, "the third turn");
      await h.agent.request(acp.methods.agent.session.close, { sessionId });
      expect((await p).stopReason).toBe("cancelled");
      const list = await h.agent.request(acp.methods.agent.session.list, {});
      expect(list.sessions.map((s) => s.sessionId)).toContain(sessionId);
      expect(deletions(h)).toEqual([]);
    });
    await withBridge({ stateDir, record: true }, async (h) => {
      await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: stateDir, mcpServers: [] });
      expect(h.updatesOfKind(sessionId, "user_message_chunk").some((u) => u.content.type === "text" && u.content.text === "keep me")).toBe(
        true,
      );
      await h.prompt(sessionId, "#scenario:slow n=50");
      // The editor goes away (stdin EOF) with the session open.
      await h.close();
      expect(deletions(h)).toEqual([]);
    });
  });
});

describe("4. answers to ZCode's interactions, as its interaction broker reads them", () => {
  test('permission: the chosen option\'s own response goes back, so "Always allow" sticks (ZCode does not ask again)', async () => {
    await withBridge(
      {
        record: true,
        onPermission: (req) => {
          const always = req.options.find((o) => o.kind === "allow_always")!;
          return { outcome: { outcome: "selected", optionId: always.optionId } };
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:permission")).stopReason).toBe("end_turn");
        expect(h.received.permissionRequests.length).toBe(1);
        const kinds = h.received.permissionRequests[0]!.options.map((o) => o.kind);
        expect(kinds).toEqual(["allow_once", "allow_always", "reject_once"]);
        const answer = answersTo(h, "permission")[0] as { decision: string; permissionUpdates?: unknown[] };
        expect(answer.decision).toBe("allow");
        expect(answer.permissionUpdates?.length).toBeGreaterThan(0);
        expect((await h.prompt(sessionId, "#scenario:permission")).stopReason).toBe("end_turn");
        expect(h.received.permissionRequests.length).toBe(1);
      },
    );
  });

  test("plan approval by permission prompt: answered approve under the plan question and answer_0; ZCode switches to build", async () => {
    await withBridge({ record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
      expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
      const answer = answersTo(h, "userInput")[0] as { action: string; content: Record<string, any> };
      expect(answer.action).toBe("accept");
      expect(answer.content.answers["Review this implementation plan."]).toBe("approve");
      expect(answer.content.answer_0).toBe("approve");
      expect(h.updatesOfKind(sessionId, "current_mode_update").at(-1)?.currentModeId).toBe("build");
    });
  });

  test("plan approval by form, rejected with feedback: ZCode keeps planning and gets the feedback", async () => {
    await withBridge(
      {
        record: true,
        clientCapabilities: { elicitation: { form: {} } } as acp.ClientCapabilities,
        onElicitation: () =>
          ({ action: "accept", content: { decision: "reject", feedback: "test first" } }) as acp.CreateElicitationResponse,
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
        expect((await h.prompt(sessionId, "#scenario:plan")).stopReason).toBe("end_turn");
        const answer = answersTo(h, "userInput")[0] as { action: string; content: Record<string, any> };
        expect(answer.content.answers["Review this implementation plan."]).toBe("test first");
        expect(h.updatesOfKind(sessionId, "current_mode_update").some((u) => u.currentModeId === "build")).toBe(false);
      },
    );
  });

  test("questions by form: answers under content.answers keyed by question text reach the tool", async () => {
    await withBridge(
      {
        record: true,
        clientCapabilities: { elicitation: { form: {} } } as acp.ClientCapabilities,
        onElicitation: () =>
          ({ action: "accept", content: { q_0: ["auth.test.ts", "api.test.ts"], q_1: "Bun" } }) as acp.CreateElicitationResponse,
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:question-multi")).stopReason).toBe("end_turn");
        const answer = answersTo(h, "userInput")[0] as { content: { answers: Record<string, unknown> } };
        expect(answer.content.answers["Which package manager should I use?"]).toBe("Bun");
        expect(answer.content.answers["Select the files to test"]).toEqual(["auth.test.ts", "api.test.ts"]);
        const tool = [...finalTools(h, sessionId).values()].find((t) => String(t.title).startsWith("Ask"));
        expect(contentText(tool?.content)).toContain('"Which package manager should I use?"="Bun"');
      },
    );
  });

  test("questions without forms: one permission prompt per question, answers under content.answers", async () => {
    await withBridge(
      {
        record: true,
        onPermission: (req) => {
          const pick = req.options.find((o) => o.name === "npm") ?? req.options[0]!;
          return { outcome: { outcome: "selected", optionId: pick.optionId } };
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:question")).stopReason).toBe("end_turn");
        const answer = answersTo(h, "userInput")[0] as { content: { answers: Record<string, unknown> } };
        expect(answer.content.answers["Which package manager should I use?"]).toBe("npm");
        expect(h.text(sessionId)).not.toContain("did not provide answers");
      },
    );
  });
});

describe("5. tool results render from result.content / display / perf", () => {
  test("Bash output and exit code, Read text, Grep/Glob lists, Write and Edit as diffs from the input, failures failed", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:tools")).stopReason).toBe("end_turn");
      const tools = [...finalTools(h, sessionId).values()];
      const byTitle = (re: RegExp) => tools.filter((t) => re.test(String(t.title)));
      const ls = byTitle(/^ls -la$/)[0]!;
      expect(ls.status).toBe("completed");
      expect(contentText(ls.content)).toContain("package.json");
      expect(contentText(ls.content)).toContain("exit code 0");
      const failing = byTitle(/^bun test$/)[0]!;
      expect(failing.status).toBe("failed");
      expect(contentText(failing.content)).toContain("1 fail");
      expect(contentText(failing.content)).toContain("exit code 1");
      expect(contentText(failing.content)).not.toContain("Exit code 1");
      const read = byTitle(/^Read /)[0]!;
      expect(contentText(read.content)).toContain("export function greet");
      expect(contentText(read.content)).not.toMatch(/^\d+\t/m);
      const grep = byTitle(/^grep /)[0]!;
      expect(contentText(grep.content)).toMatch(/Found \d+ files?/);
      const edits = byTitle(/^Edit /);
      const ok = edits.find((t) => t.status === "completed")!;
      const diff = (ok.content as acp.ToolCallContent[]).find((c) => c.type === "diff") as Extract<acp.ToolCallContent, { type: "diff" }>;
      expect(diff.newText).toContain("Hello, ${name}!");
      expect(diff.oldText).toContain('"Hello, " + name');
      expect(edits.some((t) => t.status === "failed")).toBe(true);
      const write = byTitle(/^Write /)[0]!;
      const wdiff = (write.content as acp.ToolCallContent[]).find((c) => c.type === "diff") as Extract<
        acp.ToolCallContent,
        { type: "diff" }
      >;
      expect(wdiff.oldText).toBeNull();
      expect(wdiff.newText).toContain("farewell");
      for (const t of tools) expect(["completed", "failed"]).toContain(t.status);
    });
  });

  test("Zed's terminal: the command's output and its real exit code", async () => {
    await withBridge({ clientCapabilities: { _meta: { terminal_output: true } } as acp.ClientCapabilities }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:bash-fail");
      const exits = toolUpdates(h, sessionId)
        .map((u) => (u._meta as Record<string, any> | undefined)?.terminal_exit)
        .filter(Boolean);
      expect(exits).toEqual([expect.objectContaining({ exit_code: 1 })]);
      const data = toolUpdates(h, sessionId)
        .map((u) => (u._meta as Record<string, any> | undefined)?.terminal_output?.data ?? "")
        .join("");
      expect(data).toContain("0 pass");
      expect(data.match(/0 pass/g)?.length).toBe(1);
    });
  });
});

describe("6. batches and events the bridge does not use", () => {
  test("batch {toolCallIds} closes its tools; unused event types consume their seq: one session/subscribe for a session's turns", async () => {
    await withBridge({ record: true }, async (h) => {
      const { sessionId } = await h.newSession();
      for (const p of ["#scenario:batch", "#scenario:tools", "#scenario:markers", "plain"]) {
        expect((await h.prompt(sessionId, p)).stopReason).toBe("end_turn");
      }
      for (const t of finalTools(h, sessionId).values()) expect(["completed", "failed"]).toContain(t.status);
      expect(requests(h, "session/subscribe").length).toBe(1);
    });
  });
});

describe("7. titles, modes and usage as ZCode sends them", () => {
  test("session.titleUpdated → session_info_update at once; usage_update.used is the context in use, sized by the model", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "#scenario:usage name this session");
      const updates = h.updates(sessionId);
      const title = updates.findIndex((u) => u.sessionUpdate === "session_info_update");
      const firstText = updates.findIndex((u) => u.sessionUpdate === "agent_message_chunk");
      expect(title).toBeGreaterThanOrEqual(0);
      expect(title).toBeLessThan(firstText);
      expect((updates[title] as { title?: string }).title).toBe("name this session");
      const usage = h.updatesOfKind(sessionId, "usage_update");
      // ZCode's own meter: the last completion's input + output tokens (12345 + 678).
      expect(usage.some((u) => u.used === 12345 + 678 && u.size === 200000)).toBe(true);
    });
  });

  test("a mode change ZCode makes mid-turn reaches the editor before the turn's last words", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.agent.request(acp.methods.agent.session.setMode, { sessionId, modeId: "plan" });
      const before = h.updates(sessionId).length;
      await h.prompt(sessionId, "#scenario:plan");
      const turn = h.updates(sessionId).slice(before);
      const mode = turn.findIndex((u) => u.sessionUpdate === "current_mode_update");
      const lastText = turn.map((u) => u.sessionUpdate).lastIndexOf("agent_message_chunk");
      expect(mode).toBeGreaterThanOrEqual(0);
      expect(mode).toBeLessThan(lastText);
    });
  });
});

describe("8. how turns end", () => {
  test("max turns / tool calls / budget end max_turn_requests with a visible reason; during-execution ends with one too", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      for (const s of ["max-turns", "max-tool-calls", "max-budget"]) {
        expect((await h.prompt(sessionId, `#scenario:${s}`)).stopReason).toBe("max_turn_requests");
      }
      expect(h.text(sessionId)).toContain("ZCode stopped: the turn reached ZCode's limit of model requests");
      expect(h.text(sessionId)).toContain("limit of tool calls");
      expect(h.text(sessionId)).toContain("token budget");
      expect((await h.prompt(sessionId, "#scenario:during-execution")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("an error interrupted the turn");
    });
  });

  test("turn.failed retries on attribution.retryable (and a top-level retryable) with a notice; otherwise ZCode's error text", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "#scenario:fail-transient fails=1")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("retrying");
      expect((await h.prompt(sessionId, "#scenario:fail-transient fails=1 top=1")).stopReason).toBe("end_turn");
      let error: acp.RequestError | undefined;
      try {
        await h.prompt(sessionId, "#scenario:fail-fatal");
      } catch (e) {
        error = e as acp.RequestError;
      }
      expect(error?.message).toMatch(/^ZCode: /);
      expect((await h.prompt(sessionId, "still usable")).stopReason).toBe("end_turn");
    });
  });
});

describe("9. history replay", () => {
  test("tool calls come back with their output and diffs; hidden, model-only and synthetic messages are not user text; a compaction is one summary", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-real-history-"));
    let sessionId = "";
    await withBridge({ stateDir }, async (h) => {
      sessionId = (await h.newSession()).sessionId;
      await h.prompt(sessionId, "#scenario:tools");
      await h.prompt(sessionId, "/compact");
      await h.prompt(sessionId, "after compaction");
    });
    await withBridge({ stateDir }, async (h) => {
      await h.agent.request(acp.methods.agent.session.load, { sessionId, cwd: stateDir, mcpServers: [] });
      const users = h.updatesOfKind(sessionId, "user_message_chunk").map((u) => (u.content.type === "text" ? u.content.text : ""));
      expect(users.some((t) => t.includes("system-reminder"))).toBe(false);
      expect(users.some((t) => t.includes("after compaction"))).toBe(true);
      const calls = h.updatesOfKind(sessionId, "tool_call");
      expect(calls.length).toBeGreaterThan(5);
      const edit = calls.find((c) => c.title?.startsWith("Edit ") && c.status === "completed");
      expect(edit?.content?.some((c) => c.type === "diff")).toBe(true);
      const bash = calls.find((c) => c.title === "bun test");
      expect(bash?.status).toBe("failed");
      expect(h.text(sessionId)).toContain("Conversation summary");
    });
  });
});

describe("10. /goal and /compact read ZCode's real answers", () => {
  test("/goal shows ZCode's own words; /compact says when a compaction was already running", async () => {
    await bridge.run(async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "/goal");
      expect(h.text(sessionId)).toContain("No goal is set.");
      await h.prompt(sessionId, "/goal ship the greeting");
      expect(h.text(sessionId)).toContain("ship the greeting");
      await h.prompt(sessionId, "/goal clear");
      expect(h.text(sessionId)).toContain("Goal cleared.");
      await h.prompt(sessionId, "/compact");
      expect(h.text(sessionId)).toContain("Conversation compacted.");
    });
  });
});

/** A ZCode desktop app bundle whose zcode.cjs is run by a stand-in Node that runs the simulator. */
function fakeAppBundle(): { entry: string; node: string; appDir: string } {
  const appDir = mkdtempSync(join(tmpdir(), "zcode-app-"));
  const glm = join(appDir, "ZCode.app", "Contents", "Resources", "glm");
  mkdirSync(join(glm, "provider"), { recursive: true });
  writeFileSync(join(glm, "provider", "zcode-builtin.json"), JSON.stringify({ revision: "test" }));
  writeFileSync(
    join(appDir, "ZCode.app", "Contents", "Info.plist"),
    "<plist><dict><key>CFBundleShortVersionString</key>\n<string>3.14.1</string></dict></plist>\n",
  );
  const entry = join(glm, "zcode.cjs");
  writeFileSync(entry, "// stand-in for the app's bundled CLI\n");
  const node = join(appDir, "node");
  writeFileSync(node, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo v22.11.0; exit 0; fi\nshift\nexec "${SIM_BIN}" "$@"\n`);
  chmodSync(node, 0o755);
  return { entry, node, appDir };
}

describe("11. launching the app's bundled CLI", () => {
  test("a .cjs entry gets both provider tables; ZCODE_BASE_URL is dropped; the 3.12+ CLI then boots and runs a turn", async () => {
    const app = fakeAppBundle();
    const home = mkdtempSync(join(tmpdir(), "zcode-home-"));
    mkdirSync(join(home, ".zcode", "v2"), { recursive: true });
    writeFileSync(join(home, ".zcode", "v2", "provider_config.json"), "{}");
    await withBridge(
      {
        env: {
          ZCODE_BIN: app.entry,
          ZCODE_NODE: app.node,
          HOME: home,
          ZCODE_SIM_REQUIRE_PROVIDER_CONFIG: "1",
          ZCODE_BASE_URL: "https://proxy.example.invalid",
        },
      },
      async (h) => {
        const { sessionId } = await h.newSession();
        expect((await h.prompt(sessionId, "#scenario:env")).stopReason).toBe("end_turn");
        const text = h.text(sessionId);
        expect(text).toContain("zcode-builtin.json");
        expect(text).toContain("provider_config.json");
        expect(text).not.toContain("proxy.example.invalid");
      },
    );
    const doctor = Bun.spawnSync([BRIDGE_BIN, "doctor"], {
      env: { PATH: "/usr/bin:/bin", HOME: home, ZCODE_BIN: app.entry, ZCODE_NODE: app.node, ZCODE_SIM_REQUIRE_PROVIDER_CONFIG: "1" },
    });
    const out = doctor.stdout.toString();
    expect(out).toContain("ZCode desktop app: version 3.14.1");
    expect(out).toContain("ZCODE_BUILTIN_PROVIDER_CONFIG_FILE");
    expect(out).toContain("zcode-builtin.json (found next to the CLI)");
    expect(out).toContain("provider_config.json (found next to the CLI)".replace("found next to the CLI", "found next to the CLI"));
  });
});

describe("12. provider runtime headers for account-type plans", () => {
  const accountModel = { ZCODE_SIM_DEFAULT_MODEL: "account:bigmodel-individual-coding-plan/GLM-5.3@max" };

  test("answered with the plan's key from the app's config.json; the key never reaches a log", async () => {
    const home = mkdtempSync(join(tmpdir(), "zcode-home-key-"));
    mkdirSync(join(home, ".zcode", "v2"), { recursive: true });
    const key = "sk-plan-key-0123456789abcdef";
    writeFileSync(
      join(home, ".zcode", "v2", "config.json"),
      JSON.stringify({
        provider: {
          "builtin:bigmodel-coding-plan": { enabled: true, options: { apiKey: key, baseURL: "https://open.bigmodel.cn/api/anthropic" } },
        },
      }),
    );
    const log = join(home, "bridge.log");
    await withBridge({ env: { ...accountModel, HOME: home, ZCODE_ACP_LOG_LEVEL: "debug" }, args: ["--log-file", log] }, async (h) => {
      const { sessionId } = await h.newSession();
      expect((await h.prompt(sessionId, "signed")).stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toContain("auth: apiKey");
      expect(h.stderr).not.toContain(key);
    });
    expect(readFileSync(log, "utf8")).not.toContain(key);
  });

  test("no key: headersApplied false with what to do, shown as the turn's error", async () => {
    const home = mkdtempSync(join(tmpdir(), "zcode-home-nokey-"));
    await withBridge({ env: { ...accountModel, HOME: home } }, async (h) => {
      const { sessionId } = await h.newSession();
      let error: acp.RequestError | undefined;
      try {
        await h.prompt(sessionId, "unsigned");
      } catch (e) {
        error = e as acp.RequestError;
      }
      expect(error?.message).toContain("Sign in to this plan in the ZCode app");
    });
  });
});

describe("regression: a captured real 0.16.9 turn", () => {
  test("replays to end_turn with PROBE_OK, usage 134370/4/134374 and the title", async () => {
    const cwd = mkdtempSync(join(tmpdir(), "zcode-probe-"));
    const fixture = join(import.meta.dir, "../fixtures/real-0.16.9-text-turn.jsonl");
    await withBridge({ env: { ZCODE_SIM_REPLAY: fixture, ZCODE_SIM_REPLAY_WORKSPACE: cwd, ZCODE_ACP_MODE: "yolo" } }, async (h) => {
      const { sessionId } = await h.newSession(cwd);
      const r = await h.prompt(sessionId, "Reply with exactly the token: PROBE_OK");
      expect(r.stopReason).toBe("end_turn");
      expect(h.text(sessionId)).toBe("PROBE_OK");
      expect(r.usage).toMatchObject({ inputTokens: 134370, outputTokens: 4, totalTokens: 134374 });
      expect(h.updatesOfKind(sessionId, "session_info_update").at(-1)?.title).toBe("Reply with exactly the token: PROBE_OK");
    });
  });
});
