// Every slash command against the simulator in every version personality,
// through the compiled bridge: the exact frames ZCode received, what the
// editor saw, and that no model turn was started (no session/send).
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { type Harness, sharedBridge, withBridge } from "../support/acp-harness.ts";
import {
  EXPECTED_COMMANDS,
  PERSONALITIES,
  type PromptOutcome,
  advertised,
  promptAndCollect,
  sessionWithOneTurn,
  waitForCommands,
} from "./commands-support.ts";

/** Runs a command and checks what every command must do: answer end_turn without a turn. */
async function command(h: Harness, sessionId: string, text: string): Promise<PromptOutcome> {
  const out = await promptAndCollect(h, sessionId, text);
  expect(out.response.stopReason).toBe("end_turn");
  expect(out.frames.map((f) => f.method)).not.toContain("session/send");
  expect(out.text.length).toBeGreaterThan(0);
  return out;
}

describe.each(PERSONALITIES)("slash commands against ZCode %s", (version) => {
  const full = version === "0.15.3";
  // One bridge per personality: every test starts sessions of its own.
  const shared = sharedBridge({ simVersion: version, record: true });
  const bridge = (_version: string, fn: (h: Harness) => Promise<void>) => shared.run(fn);

  test("advertised after session/new: only what this CLI supports", () =>
    bridge(version, async (h) => {
      const { sessionId } = await h.newSession();
      expect(await waitForCommands(h, sessionId)).toEqual(EXPECTED_COMMANDS[version]!);
      const list = h.updatesOfKind(sessionId, "available_commands_update")[0]!.availableCommands;
      expect(list.find((c) => c.name === "goal")?.input?.hint).toContain("objective");
      // The advertisement follows the session/new response: nothing about the
      // session may reach the editor before it knows the session.
      const msgs = h.received.messages;
      const responseAt = msgs.findIndex((m) => (m.result as { sessionId?: string } | undefined)?.sessionId === sessionId);
      const updateAt = msgs.findIndex(
        (m) =>
          m.method === "session/update" &&
          (m.params as acp.SessionNotification).sessionId === sessionId &&
          (m.params as acp.SessionNotification).update.sessionUpdate === "available_commands_update",
      );
      expect(responseAt).toBeGreaterThanOrEqual(0);
      expect(updateAt).toBeGreaterThan(responseAt);
    }));

  test("/fork: session/fork at the latest checkpoint; the fork is in the session list", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const out = await command(h, sid, "/fork");
      expect(out.frames).toEqual([
        { id: expect.anything(), method: "session/fork", params: { sessionId: sid, target: { kind: "latestCheckpoint" } } },
      ]);
      const forkId = /new session `([^`]+)`/.exec(out.text)?.[1];
      expect(forkId).toBeDefined();
      expect(forkId).not.toBe(sid);
      expect(out.text).toContain("Plan the login page"); // the title carried over
      expect(out.text).toContain("session list");
      const list = await h.agent.request(acp.methods.agent.session.list, { cwd: h.stateDir });
      expect(list.sessions.map((s) => s.sessionId)).toContain(forkId!);
    }));

  test("/FORK before any turn: a readable reply, not an error (matched whatever the case)", () =>
    bridge(version, async (h) => {
      const { sessionId } = await h.newSession();
      const out = await command(h, sessionId, "/FORK");
      expect(out.frames.map((f) => f.method)).toEqual(["session/fork"]);
      expect(out.text).toContain("Nothing to fork yet: this session has no checkpoint");
    }));

  test("/rewind", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const out = await command(h, sid, "/rewind");
      if (!full) {
        expect(out.frames).toEqual([]);
        expect(out.text).toBe(`\`/rewind\` is not supported by ZCode CLI ${version}`);
        return;
      }
      expect(out.frames.map((f) => f.method)).toEqual(["session/read", "session/rewind"]);
      expect(out.frames[0]!.params).toEqual({ sessionId: sid, messageLimit: 1 });
      const rewind = out.frames[1]!.params;
      expect(rewind).toEqual({
        sessionId: sid,
        target: { kind: "latestCheckpoint" },
        expectedRevision: expect.any(Number),
      });
      expect(out.text).toMatch(/^Rewound to the latest checkpoint .*: removed \d+ messages?\./);
    }));

  test("/rewind with no checkpoint yet is explained, not an error", () =>
    bridge(version, async (h) => {
      const { sessionId } = await h.newSession();
      await waitForCommands(h, sessionId);
      const out = await command(h, sessionId, "/rewind");
      expect(out.text).toBe(
        full
          ? "Nothing to rewind: this session has no checkpoint yet. A checkpoint is made each time a turn completes."
          : `\`/rewind\` is not supported by ZCode CLI ${version}`,
      );
    }));

  test("/goal: show, set, pause, resume, replace, clear, in ZCode's own words", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      // Setting, resuming or replacing a goal sets ZCode to work on it: the
      // prompt stays open (polling session/read) until ZCode is idle again.
      const steps: Array<[string, object, RegExp]> = [
        ["/goal", { action: "show" }, /^No goal is set\. Use \/goal <objective> to set one\.$/],
        ["/goal pause", { action: "pause" }, /^No goal to pause\.$/],
        ["/goal Ship the login page", { action: "set", objective: "Ship the login page" }, /Objective: Ship the login page/],
        ["/goal", { action: "show" }, /Objective: Ship the login page/],
        ["/goal pause", { action: "pause" }, /^Goal paused\.$/],
        ["/goal resume", { action: "resume" }, /Ship the login page/],
        ["/goal replace Ship signup too", { action: "replace", objective: "Ship signup too" }, /Objective: Ship signup too/],
        ["/goal clear", { action: "clear" }, /^Goal cleared\.$/],
        ["/goal", { action: "show" }, /^No goal is set\./],
      ];
      for (const [text, params, reply] of steps) {
        const out = await command(h, sid, text);
        expect(out.frames[0]).toEqual({ id: expect.anything(), method: "session/goal", params: { sessionId: sid, ...params } });
        // Reads while ZCode works; a read may number the stream's held tail (delta-batch.ts), leaving a hole
        // in the live seqs that a resubscription with afterSeq fills.
        expect(
          out.frames
            .slice(1)
            .every((f) => f.method === "session/read" || (f.method === "session/subscribe" && f.params.afterSeq !== undefined)),
        ).toBe(true);
        expect(out.text).toMatch(reply);
      }
      const bad = await command(h, sid, "/goal replace");
      expect(bad.frames).toEqual([]);
      expect(bad.text).toContain("Usage: `/goal [objective | replace <objective> | clear | pause | resume]`");
    }));

  test("/compact: tool call in progress then completed, then usage_update", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      for (const [text, params] of [
        ["/compact", { sessionId: sid }],
        ["/compact keep the API decisions", { sessionId: sid, instructions: "keep the API decisions" }],
      ] as const) {
        const out = await command(h, sid, text);
        // The compaction runs as a turn of ZCode's own: the answer waits for it (session/read until idle).
        const [first, ...rest] = out.frames.map((f) => [f.method, f.params]);
        expect(first).toEqual(["session/compact", params]);
        expect(rest.length).toBeGreaterThan(0);
        for (const r of rest) expect(r).toEqual(["session/read", { sessionId: sid, messageLimit: 1 }]);
        // ZCode's own session.updated may add a usage_update anywhere; ours
        // (from session/read) follows the completed tool call.
        const kinds = out.updates.map((u) => u.sessionUpdate).filter((k, i, all) => k !== "usage_update" || i === all.lastIndexOf(k));
        expect(kinds).toEqual(["tool_call", "tool_call_update", "usage_update", "agent_message_chunk"]);
        const start = out.updates.find((u) => u.sessionUpdate === "tool_call") as acp.ToolCall;
        const done = out.updates.find((u) => u.sessionUpdate === "tool_call_update") as acp.ToolCallUpdate;
        const usage = out.updates.findLast((u) => u.sessionUpdate === "usage_update") as acp.UsageUpdate;
        expect(start).toMatchObject({ title: "Compacting conversation", status: "in_progress" });
        expect(["other", "think"]).toContain(start.kind!);
        expect(done).toMatchObject({ toolCallId: start.toolCallId, status: "completed" });
        expect(usage.used).toBeNumber();
        expect(usage.size).toBeGreaterThan(0);
        expect(out.text).toStartWith("Conversation compacted");
      }
    }));

  test("/steer with no turn running: says so, sends nothing", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const out = await command(h, sid, "/steer prefer tabs");
      expect(out.frames).toEqual([]);
      if (full) {
        expect(out.text).toStartWith("No turn is running, so there is nothing to steer.");
        expect(out.text).toContain("> prefer tabs");
      } else {
        expect(out.text).toBe(`\`/steer\` is not supported by ZCode CLI ${version}`);
      }
    }));

  test("/mode and /thought: list, set (with config updates), reject bad values", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      // The choices are the session's own (kept in sync with ZCode): listing asks ZCode nothing.
      const list = await command(h, sid, "/mode");
      expect(list.frames).toEqual([]);
      expect(list.text).toMatch(/^Current mode: `\w+`\. Available: `/);

      const set = await command(h, sid, "/mode plan");
      const setMode = set.frames.filter((f) => f.method === "session/setMode");
      expect(setMode.map((f) => f.params)).toEqual([{ sessionId: sid, mode: "plan" }]);
      expect(set.frames.map((f) => f.method)).toEqual(["session/setMode"]);
      expect(set.updates.map((u) => u.sessionUpdate)).toContain("config_option_update");
      expect(set.updates.map((u) => u.sessionUpdate)).toContain("current_mode_update");
      expect(set.text).toBe("Mode set to `plan`.");

      const bad = await command(h, sid, "/mode TURBO");
      expect(bad.frames).toEqual([]);
      expect(bad.text).toMatch(/^Unknown mode `TURBO`\.\n\nUsage: `\/mode <[a-z|]+>`$/);
      expect(bad.text).toContain("plan");

      const thought = await command(h, sid, "/thought LOW");
      expect(thought.frames.filter((f) => f.method === "session/setThoughtLevel").map((f) => f.params)).toEqual([
        { sessionId: sid, thoughtLevel: "low" },
      ]);
      expect(thought.updates.map((u) => u.sessionUpdate)).toContain("config_option_update");
      expect(thought.text).toBe("Thought level set to `low`.");

      const badLevel = await command(h, sid, "/thought extreme");
      expect(badLevel.text).toStartWith("Unknown thought level `extreme`.");
    }));

  test("/help lists every command with its usage and sends nothing", () =>
    bridge(version, async (h) => {
      const sid = await sessionWithOneTurn(h);
      const out = await command(h, sid, "/help");
      expect(out.frames).toEqual([]);
      for (const usage of [
        "`/fork`",
        "`/rewind [new prompt]`",
        "`/goal [objective",
        "`/compact [instructions]`",
        "`/steer <instructions>`",
        "`/mode <mode>`",
        "`/thought <level>`",
      ])
        expect(out.text).toContain(usage);
      expect((out.text.match(/not supported by ZCode CLI/g) ?? []).length).toBe(full ? 0 : 2);
      expect(advertised(h, sid)).toEqual(EXPECTED_COMMANDS[version]!);
    }));
});

test("ZCode 0.14.7: no session can start, so no command is advertised; the error names both versions", () =>
  withBridge({ simVersion: "0.14.7", record: true }, async (h) => {
    const err = await h.newSession().then(
      () => undefined,
      (e: unknown) => e as { message?: string; data?: unknown },
    );
    expect(err).toBeDefined();
    const said = `${err!.message ?? ""} ${JSON.stringify(err!.data ?? "")}`;
    expect(said).toContain("0.14.7");
    expect(said).toContain("0.14.8");
    expect(h.received.updates.filter((u) => u.update.sessionUpdate === "available_commands_update")).toEqual([]);
  }));
