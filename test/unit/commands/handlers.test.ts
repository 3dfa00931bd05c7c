import { describe, expect, test } from "bun:test";
import { forkSession } from "../../../src/commands/fork.ts";
import { parseGoalArgs } from "../../../src/commands/goal.ts";
import { matchCommand } from "../../../src/commands/registry.ts";
import { checkSessionUpdate } from "../../support/schema.ts";
import { FakeCaps, FakeZCodeError, SETTINGS, fakeApi, fakeContext } from "../support/commands-fakes.ts";

/** Runs `text` as a command against scripted ZCode answers. */
async function run(
  text: string,
  answers: Record<string, unknown>,
  opts: { turnRunning?: boolean; caps?: FakeCaps; version?: string } = {},
) {
  const m = matchCommand(text);
  if (!m) throw new Error(`not a command: ${text}`);
  const { api, calls } = fakeApi(answers, opts.caps ?? new FakeCaps());
  const f = fakeContext(api, { args: m.args, turnRunning: opts.turnRunning, version: opts.version });
  await m.command.run(f.ctx);
  for (const u of f.updates) expect(checkSessionUpdate(u)).toEqual([]);
  return { ...f, calls };
}

const err = (code: number, message: string, method: string) => new FakeZCodeError(code, message, method);
const FORK_RESULT = {
  forkedSessionId: "sess_fork_9",
  session: { sessionId: "sess_fork_9", title: "Refactor auth", workspace: {}, createdAt: 1, updatedAt: 2 },
};

describe("/fork", () => {
  test("sends session/fork at the latest checkpoint and names the new session", async () => {
    const r = await run("/fork", { fork: FORK_RESULT });
    expect(r.calls).toEqual([
      { method: "session/fork", params: { sessionId: "sess_1", target: { kind: "latestCheckpoint" } } },
    ]);
    expect(r.said).toHaveLength(1);
    expect(r.said[0]).toContain("`sess_fork_9`");
    expect(r.said[0]).toContain("“Refactor auth”");
    expect(r.said[0]).toContain("session list");
  });

  test("forkSession (shared with ACP session/fork) returns id and title", async () => {
    const { api, calls } = fakeApi({ fork: FORK_RESULT });
    expect(await forkSession(api, "sess_1")).toEqual({ sessionId: "sess_fork_9", title: "Refactor auth" });
    expect(calls[0]?.params).toEqual({ sessionId: "sess_1", target: { kind: "latestCheckpoint" } });
  });

  test("an untitled fork says so", async () => {
    const r = await run("/fork", { fork: { forkedSessionId: "s2", session: { sessionId: "s2", title: "" } } });
    expect(r.said[0]).toContain("(untitled)");
  });

  test("a fork answer without an id is an error, not an invented id", async () => {
    const { api } = fakeApi({ fork: { session: {} } });
    await expect(forkSession(api, "sess_1")).rejects.toThrow("without the new session's id");
  });
});

describe("/rewind", () => {
  test("reads the revision, sends it as expectedRevision, reports what was removed", async () => {
    const r = await run("/rewind", {
      read: { projection: { status: "idle", revision: 7 } },
      rewind: { revision: 8, checkpointId: "cp_3", removedMessages: 2 },
    });
    expect(r.calls).toEqual([
      { method: "session/read", params: "sess_1" },
      {
        method: "session/rewind",
        params: { sessionId: "sess_1", target: { kind: "latestCheckpoint" }, expectedRevision: 7 },
      },
    ]);
    expect(r.said).toEqual(["Rewound to the latest checkpoint `cp_3`: removed 2 messages. Session revision is now 8."]);
  });

  test("no revision reported: expectedRevision is left out", async () => {
    const r = await run("/rewind", {
      read: { projection: { status: "idle" } },
      rewind: { removedMessages: 1 },
    });
    expect(r.calls[1]?.params).toEqual({ sessionId: "sess_1", target: { kind: "latestCheckpoint" } });
    expect(r.said).toEqual(["Rewound to the latest checkpoint: removed 1 message."]);
  });

  test("1409 revision conflict is explained, not thrown", async () => {
    const r = await run("/rewind", {
      read: { projection: { revision: 7 } },
      rewind: err(1409, "revision conflict", "session/rewind"),
    });
    expect(r.said).toHaveLength(1);
    expect(r.said[0]).toContain("Nothing was rewound");
    expect(r.said[0]).toContain("revision 7");
    expect(r.said[0]).toContain("`/rewind` again");
  });

  test("1410 no checkpoint is explained", async () => {
    const r = await run("/rewind", { read: { projection: {} }, rewind: err(1410, "no checkpoint", "session/rewind") });
    expect(r.said).toEqual([
      "Nothing to rewind: this session has no checkpoint yet. A checkpoint is made each time a turn completes.",
    ]);
  });

  test("1308 busy is explained", async () => {
    const r = await run("/rewind", {
      read: { projection: { revision: 1 } },
      rewind: err(1308, "prompt is running", "session/rewind"),
    });
    expect(r.said[0]).toContain("busy with a running turn");
    expect(r.said[0]).toContain("`/rewind`");
  });

  test("0.14.8: not supported, nothing sent", async () => {
    const r = await run("/rewind", {}, { caps: new FakeCaps("0.14.8", ["session/rewind", "session/steer"]), version: "0.14.8" });
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual(["`/rewind` is not supported by ZCode CLI 0.14.8"]);
  });
});

describe("/goal", () => {
  test("argument parsing", () => {
    expect(parseGoalArgs("")).toEqual({ action: "show" });
    expect(parseGoalArgs("clear")).toEqual({ action: "clear" });
    expect(parseGoalArgs("Pause")).toEqual({ action: "pause" });
    expect(parseGoalArgs("resume")).toEqual({ action: "resume" });
    expect(parseGoalArgs("show")).toEqual({ action: "show" });
    expect(parseGoalArgs("Ship login")).toEqual({ action: "set", objective: "Ship login" });
    expect(parseGoalArgs("clear the cache")).toEqual({ action: "set", objective: "clear the cache" });
    expect(parseGoalArgs("replace Ship signup")).toEqual({ action: "replace", objective: "Ship signup" });
    expect(parseGoalArgs("replace")).toBeUndefined();
    expect(parseGoalArgs("replacement parts")).toEqual({ action: "set", objective: "replacement parts" });
  });

  const goal = (status = "active") => ({ goal: { objective: "Ship login", status, setAt: Date.UTC(2026, 11, 2, 9, 30) } });

  test("/goal shows the goal and its state", async () => {
    const r = await run("/goal", { goal: goal() });
    expect(r.calls).toEqual([{ method: "session/goal", params: { sessionId: "sess_1", action: "show" } }]);
    expect(r.said).toEqual(["Current goal: **Ship login** (active, set 2026-12-02 09:30 UTC)"]);
  });

  test("/goal with a setAt that makes no date: shown without it, not an error", async () => {
    const r = await run("/goal", { goal: { goal: { objective: "Ship login", status: "active", setAt: 1e20 } } });
    expect(r.said).toEqual(["Current goal: **Ship login** (active)"]);
  });

  test("/goal with nothing set", async () => {
    const r = await run("/goal", { goal: { goal: null } });
    expect(r.said).toEqual(["No goal is set. Set one with `/goal <objective>`."]);
  });

  test("/goal <objective> sets", async () => {
    const r = await run("/goal Ship login", { goal: goal() });
    expect(r.calls[0]?.params).toEqual({ sessionId: "sess_1", action: "set", objective: "Ship login" });
    expect(r.said[0]).toStartWith("Goal set: **Ship login** (active");
  });

  test("/goal replace <objective>", async () => {
    const r = await run("/goal replace Ship login", { goal: goal() });
    expect(r.calls[0]?.params).toEqual({ sessionId: "sess_1", action: "replace", objective: "Ship login" });
    expect(r.said[0]).toStartWith("Goal replaced: **Ship login**");
  });

  test("/goal clear, pause, resume", async () => {
    const clear = await run("/goal clear", { goal: { goal: null } });
    expect(clear.calls[0]?.params).toEqual({ sessionId: "sess_1", action: "clear" });
    expect(clear.said).toEqual(["Goal cleared."]);
    const pause = await run("/goal pause", { goal: goal("paused") });
    expect(pause.calls[0]?.params).toEqual({ sessionId: "sess_1", action: "pause" });
    expect(pause.said[0]).toStartWith("Goal paused: **Ship login** (paused");
    const resume = await run("/goal resume", { goal: goal() });
    expect(resume.calls[0]?.params).toEqual({ sessionId: "sess_1", action: "resume" });
    expect(resume.said[0]).toStartWith("Goal resumed: **Ship login** (active");
  });

  test("/goal replace without objective: usage, nothing sent", async () => {
    const r = await run("/goal replace", {});
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual([
      "`/goal replace` needs the new objective.\n\nUsage: `/goal [objective | replace <objective> | clear | pause | resume]`",
    ]);
  });

  test("pause with no goal: says why and how to set one", async () => {
    const r = await run("/goal pause", { goal: err(-32602, "Invalid params: no goal is set", "session/goal") });
    expect(r.said).toEqual(["Could not pause the goal (Invalid params: no goal is set). Set one with `/goal <objective>`."]);
  });

  test("other -32602 from ZCode becomes a usage reply", async () => {
    const r = await run("/goal Ship it", { goal: err(-32602, "objective too long", "session/goal") });
    expect(r.said[0]).toContain("ZCode rejected `/goal`: objective too long");
    expect(r.said[0]).toContain("Usage: `/goal");
  });
});

describe("/compact", () => {
  const answers = {
    compact: { compacted: true, summary: "We refactored auth.", messagesBefore: 12 },
    read: { projection: { contextUsed: 1500, contextWindow: 200000 } },
  };

  test("tool call in progress, completed, then usage_update and a reply", async () => {
    const r = await run("/compact", answers);
    expect(r.calls).toEqual([
      { method: "session/compact", params: { sessionId: "sess_1" } },
      { method: "session/read", params: "sess_1" },
    ]);
    const [start, done, usage, ...rest] = r.updates;
    expect(rest).toEqual([]);
    expect(start).toMatchObject({ sessionUpdate: "tool_call", title: "Compacting conversation", status: "in_progress" });
    expect(["other", "think"]).toContain((start as { kind: string }).kind);
    const id = (start as { toolCallId: string }).toolCallId;
    expect(done).toMatchObject({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
    expect(usage).toEqual({ sessionUpdate: "usage_update", used: 1500, size: 200000 });
    expect(r.said).toEqual(["Conversation compacted (12 messages summarized). Context in use: 1,500 of 200,000 tokens."]);
  });

  test("instructions are passed on", async () => {
    const r = await run("/compact keep the API notes", answers);
    expect(r.calls[0]).toEqual({
      method: "session/compact",
      params: { sessionId: "sess_1", instructions: "keep the API notes" },
    });
  });

  test("no context figures: no usage_update", async () => {
    const r = await run("/compact", { compact: { compacted: true }, read: { projection: {} } });
    expect(r.updates.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
    expect(r.said).toEqual(["Conversation compacted."]);
  });

  test("figures ACP cannot take (negative, fractional, zero window): no usage_update", async () => {
    for (const projection of [{ contextUsed: -5, contextWindow: 1000 }, { contextUsed: 1.5, contextWindow: 1000 }, { contextUsed: 5, contextWindow: 0 }]) {
      const r = await run("/compact", { compact: { compacted: true }, read: { projection } });
      expect(r.updates.map((u) => u.sessionUpdate)).toEqual(["tool_call", "tool_call_update"]);
      expect(r.said).toEqual(["Conversation compacted."]);
    }
  });

  test("1308 busy: the tool call fails and the reason is explained", async () => {
    const r = await run("/compact", { compact: err(1308, "prompt is running", "session/compact") });
    expect(r.updates.map((u) => [u.sessionUpdate, (u as { status?: string }).status])).toEqual([
      ["tool_call", "in_progress"],
      ["tool_call_update", "failed"],
    ]);
    expect(r.said[0]).toContain("busy with a running turn");
  });
});

describe("/steer", () => {
  test("during a turn: session/steer and a short confirmation", async () => {
    const r = await run("/steer use TypeScript", { steer: { accepted: true } }, { turnRunning: true });
    expect(r.calls).toEqual([{ method: "session/steer", params: { sessionId: "sess_1", content: "use TypeScript" } }]);
    expect(r.said).toEqual(["Steering the running turn with:\n\n> use TypeScript"]);
  });

  test("no turn running: nothing sent, suggests a message", async () => {
    const r = await run("/steer use TypeScript", {}, { turnRunning: false });
    expect(r.calls).toEqual([]);
    expect(r.said[0]).toContain("No turn is running");
    expect(r.said[0]).toContain("ordinary message");
    expect(r.said[0]).toContain("> use TypeScript");
  });

  test("ZCode 1309 (turn ended meanwhile): same explanation", async () => {
    const r = await run("/steer x", { steer: err(1309, "no turn running", "session/steer") }, { turnRunning: true });
    expect(r.said[0]).toContain("No turn is running");
  });

  test("no text: usage", async () => {
    const r = await run("/steer", {}, { turnRunning: true });
    expect(r.calls).toEqual([]);
    expect(r.said[0]).toEndWith("Usage: `/steer <instructions>`");
  });

  test("-32601: 'not supported' naming the CLI version; capability marked off", async () => {
    const caps = new FakeCaps("0.16.2");
    const r = await run("/steer x", { steer: err(-32601, "Method not found", "session/steer") }, {
      turnRunning: true,
      caps,
      version: "0.16.2",
    });
    expect(r.said).toEqual(["`/steer` is not supported by ZCode CLI 0.16.2"]);
    expect(caps.supports("session/steer")).toBe(false);
  });
});

describe("/mode and /thought", () => {
  test("/mode <mode> reads the choices and applies through the agent", async () => {
    const r = await run("/mode plan", { read: { settings: SETTINGS } });
    expect(r.calls).toEqual([{ method: "session/read", params: "sess_1" }]);
    expect(r.modeSets).toEqual(["plan"]);
    expect(r.said).toEqual(["Mode set to `plan`."]);
  });

  test("/mode matches case-insensitively to ZCode's spelling", async () => {
    const r = await run("/mode YOLO", { read: { settings: SETTINGS } });
    expect(r.modeSets).toEqual(["yolo"]);
  });

  test("/mode without args lists the modes", async () => {
    const r = await run("/mode", { read: { settings: SETTINGS } });
    expect(r.modeSets).toEqual([]);
    expect(r.said).toEqual([
      "Current mode: `build`. Available: `plan`, `build`, `yolo`.\n\nChange it with `/mode <plan|build|yolo>`.",
    ]);
  });

  test("/mode with a bad value: usage with the valid values", async () => {
    const r = await run("/mode turbo", { read: { settings: SETTINGS } });
    expect(r.modeSets).toEqual([]);
    expect(r.said).toEqual(["Unknown mode `turbo`.\n\nUsage: `/mode <plan|build|yolo>`"]);
  });

  test("/thought <level>", async () => {
    const r = await run("/thought max", { read: { settings: SETTINGS } });
    expect(r.levelSets).toEqual(["max"]);
    expect(r.said).toEqual(["Thought level set to `max`."]);
  });

  test("/thought bad and empty", async () => {
    const bad = await run("/thought extreme", { read: { settings: SETTINGS } });
    expect(bad.levelSets).toEqual([]);
    expect(bad.said).toEqual(["Unknown thought level `extreme`.\n\nUsage: `/thought <low|high|max>`"]);
    const list = await run("/thought", { read: { settings: SETTINGS } });
    expect(list.said[0]).toStartWith("Current thought level: `high`. Available: `low`, `high`, `max`.");
  });

  test("no choices reported: the value is passed on as typed", async () => {
    const r = await run("/mode auto", { read: {} });
    expect(r.modeSets).toEqual(["auto"]);
  });

  test("-32601 from setMode: not supported", async () => {
    const m = matchCommand("/mode plan")!;
    const { api } = fakeApi({ read: { settings: SETTINGS } }, new FakeCaps());
    const f = fakeContext(api, {
      args: m.args,
      version: "0.14.8",
      setMode: async () => {
        throw err(-32601, "Method not found", "session/setMode");
      },
    });
    await m.command.run(f.ctx);
    expect(f.said).toEqual(["`/mode` is not supported by ZCode CLI 0.14.8"]);
  });
});

describe("/help", () => {
  test("every command with its usage; unsupported ones marked", async () => {
    const r = await run("/help", {}, { caps: new FakeCaps("0.16.2", ["session/steer", "session/rewind"]), version: "0.16.2" });
    expect(r.calls).toEqual([]);
    const text = r.said.join("");
    for (const usage of [
      "`/fork`",
      "`/rewind`",
      "`/goal [objective | replace <objective> | clear | pause | resume]`",
      "`/compact [instructions]`",
      "`/steer <instructions>`",
      "`/mode <mode>`",
      "`/thought <level>`",
      "`/help`",
    ])
      expect(text).toContain(usage);
    expect(text).toContain("not supported by ZCode CLI 0.16.2");
    expect(text.match(/not supported/g)).toHaveLength(2);
  });
});
