// /goal: ZCode's own `response` is what the user reads (it knows what it did,
// in the user's language); an empty one gets a plain fallback.
import { describe, expect, test } from "bun:test";
import { parseGoalArgs } from "../../../src/commands/goal.ts";
import { CAPS_016, runCommand, zerr } from "../support/commands-fakes.ts";

/** session/goal's answer: {response, snapshot, startedTurn}. */
const goal = (response: string, startedTurn = false) => ({ response, snapshot: { session: { sessionId: "sess_1" } }, startedTurn });

describe("parseGoalArgs", () => {
  test("a bare keyword is an action, anything longer an objective", () => {
    expect(parseGoalArgs("")).toEqual({ action: "show" });
    expect(parseGoalArgs("  ")).toEqual({ action: "show" });
    expect(parseGoalArgs("clear")).toEqual({ action: "clear" });
    expect(parseGoalArgs("Pause")).toEqual({ action: "pause" });
    expect(parseGoalArgs("resume")).toEqual({ action: "resume" });
    expect(parseGoalArgs("show")).toEqual({ action: "show" });
    expect(parseGoalArgs("Ship login")).toEqual({ action: "set", objective: "Ship login" });
    expect(parseGoalArgs("clear the cache")).toEqual({ action: "set", objective: "clear the cache" });
    expect(parseGoalArgs("replace Ship signup")).toEqual({ action: "replace", objective: "Ship signup" });
    expect(parseGoalArgs("REPLACE  Ship\nsignup ")).toEqual({ action: "replace", objective: "Ship\nsignup" });
    expect(parseGoalArgs("replace")).toBeUndefined();
    expect(parseGoalArgs("replacement parts")).toEqual({ action: "set", objective: "replacement parts" });
  });
});

describe("/goal", () => {
  test("/goal shows ZCode's summary as it wrote it", async () => {
    const summary = "Goal active\nObjective: Ship login\nUsage: 1200 tokens / none\nTime: 42 seconds";
    const r = await runCommand("/goal", { goal: goal(summary) });
    expect(r.calls).toEqual([{ method: "session/goal", params: { sessionId: "sess_1", action: "show" } }]);
    expect(r.said).toEqual([summary]);
  });

  test("ZCode's response in another language is passed on untouched", async () => {
    const text = "Goal active\nObjective: 发布登录\n\nPlan mode 下已记录 goal，但不会自动继续。";
    const r = await runCommand("/goal 发布登录", { goal: goal(text) });
    expect(r.calls[0]?.params).toEqual({ sessionId: "sess_1", action: "set", objective: "发布登录" });
    expect(r.said).toEqual([text]);
  });

  test("an empty response: a plain fallback per action", async () => {
    for (const [args, action, expected] of [
      ["", "show", "No goal is set. Use `/goal <objective>` to set one."],
      ["Ship it", "set", "Goal set."],
      ["replace Ship it", "replace", "Goal replaced."],
      ["clear", "clear", "Goal cleared."],
      ["pause", "pause", "Goal paused."],
      ["resume", "resume", "Goal resumed."],
    ] as const) {
      const r = await runCommand(`/goal ${args}`.trim(), { goal: goal("   ") });
      expect((r.calls[0]?.params as { action: string }).action).toBe(action);
      expect(r.said).toEqual([expected]);
    }
  });

  test("a response that is not text reads as empty", async () => {
    const r = await runCommand("/goal pause", { goal: { response: 42, snapshot: {} } });
    expect(r.said).toEqual(["Goal paused."]);
  });

  test("ZCode started working on the goal: its response, a note, and the prompt stays open until ZCode is idle", async () => {
    const r = await runCommand("/goal Ship login", { goal: goal("Goal active\nObjective: Ship login", true) });
    expect(r.said).toEqual(["Goal active\nObjective: Ship login", "\n\nWorking toward the goal…\n\n"]);
    expect(r.waits).toEqual([6 * 60 * 60 * 1000]);
  });

  test("still working when the wait ends: says so", async () => {
    const r = await runCommand("/goal resume", { goal: goal("", true) }, { idle: false });
    expect(r.said).toEqual(["Goal resumed.", "\n\nWorking toward the goal…\n\n", "\n\nZCode is still working toward the goal."]);
  });

  test("no turn started: no working note, nothing waited for", async () => {
    const r = await runCommand("/goal Ship login", { goal: goal("Goal active\nObjective: Ship login", false) });
    expect(r.said).toEqual(["Goal active\nObjective: Ship login"]);
    expect(r.waits).toEqual([]);
  });

  test("/goal replace without objective: usage, nothing sent", async () => {
    const r = await runCommand("/goal replace", {});
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual([
      "`/goal replace` needs the new objective.\n\nUsage: `/goal [objective | replace <objective> | clear | pause | resume]`",
    ]);
  });

  test("-32010 while a prompt runs: explained, not thrown", async () => {
    const r = await runCommand("/goal Ship it", { goal: zerr(-32010, "Cannot manage goals while a prompt is running", "session/goal") });
    expect(r.said[0]).toContain("busy with a running turn");
    expect(r.said[0]).toContain("`/goal`");
  });

  test("other -32602 from ZCode becomes a usage reply", async () => {
    const r = await runCommand("/goal Ship it", { goal: zerr(-32602, "Invalid params — objective: Too long", "session/goal") });
    expect(r.said[0]).toContain("ZCode rejected `/goal`: Invalid params — objective: Too long");
    expect(r.said[0]).toContain("Usage: `/goal");
  });

  test("available on 0.16 (only steer and rewind are gone)", async () => {
    const r = await runCommand("/goal", { goal: goal("No goal is set. Use /goal <objective> to set one.") }, { caps: CAPS_016() });
    expect(r.calls).toHaveLength(1);
  });
});
