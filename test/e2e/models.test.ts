// Models through the compiled bridge against the simulator's catalogue
// (test/simulator/catalog.ts): Z.ai GLM-5.3 (low/high/max, default max,
// 200k), GLM-4.7 (low/high, default high, 128k), GLM-4.5-Air (no levels,
// 128k); BigModel GLM-5.3 (same label as Z.ai's) and GLM-5.3-1M (disabled).
// Every ACP message is schema-checked by the harness.
import { describe, expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rejection, sharedBridge, withBridge, type Harness } from "../support/acp-harness.ts";
import { promptAndCollect } from "./commands-support.ts";

const m = acp.methods.agent;
const ZAI = "builtin:zai-coding-plan";
const BIG = "account:bigmodel-individual-coding-plan";
const GLM53 = `${ZAI}/GLM-5.3`;
const GLM47 = `${ZAI}/GLM-4.7`;
const AIR = `${ZAI}/GLM-4.5-Air`;
const BIG53 = `${BIG}/GLM-5.3`;

type Options = acp.SessionConfigOption[];
type Select = Extract<acp.SessionConfigOption, { type: "select" }>;

function option(options: Options | null | undefined, id: string): Select | undefined {
  return options?.find((o) => o.id === id) as Select | undefined;
}

/** The flat list of a select's choices (the bridge never groups them). */
function choices(o: Select | undefined): acp.SessionConfigSelectOption[] {
  return (o?.options ?? []) as acp.SessionConfigSelectOption[];
}

/** The session/setModel requests the simulator received; with `sessionId`, only that session's. */
const setModelFrames = (h: Harness, sessionId?: string) =>
  h.simFrames().filter((f) => f.method === "session/setModel" && (sessionId === undefined || f.params?.sessionId === sessionId));

function setOption(h: Harness, sessionId: string, configId: string, value: string) {
  return h.agent.request(m.session.setConfigOption, { sessionId, configId, value });
}

// One bridge for the tests with no options but a record, across the describes:
// each reads only its own session's frames and updates.
const recorded = sharedBridge({ record: true });

describe("the model option", () => {
  test("session/new lists every model ZCode offers: providerId/modelId values, labels, 'Provider › label' where two share one, the disabled one left out", async () => {
    await withBridge({}, async (h) => {
      const r = await h.newSession();
      const model = option(r.configOptions, "model")!;
      expect(model.category).toBe("model");
      expect(model.currentValue).toBe(GLM53);
      expect(choices(model).map((c) => [c.value, c.name])).toEqual([
        [GLM53, "Z.ai Coding Plan › GLM-5.3"],
        [GLM47, "GLM-4.7"],
        [AIR, "GLM-4.5-Air"],
        [BIG53, "BigModel Coding Plan › GLM-5.3"],
      ]);
      expect(choices(model).find((c) => c.value === GLM47)?.description).toBe("Z.ai Coding Plan");
    });
  });

  test("set_config_option sends session/setModel (object form, the level kept when the new model has it, else its default); thought levels follow; usage_update carries the new window", async () => {
    await recorded.run(async (h) => {
      const { sessionId, configOptions } = await h.newSession();
      expect(option(configOptions, "thought_level")?.currentValue).toBe("max");

      // max is not a GLM-4.7 level: its default (high).
      const r1 = await setOption(h, sessionId, "model", GLM47);
      expect(setModelFrames(h, sessionId).at(-1)?.params).toEqual({
        sessionId,
        model: { providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "high" } },
        persistAsWorkspaceLastUsed: false,
      });
      expect(option(r1.configOptions, "model")?.currentValue).toBe(GLM47);
      expect(option(r1.configOptions, "thought_level")?.currentValue).toBe("high");
      expect(choices(option(r1.configOptions, "thought_level")).map((c) => c.value)).toEqual(["low", "high"]);
      const update1 = h.updatesOfKind(sessionId, "config_option_update").at(-1)!;
      expect(option(update1.configOptions, "model")?.currentValue).toBe(GLM47);
      expect(choices(option(update1.configOptions, "thought_level")).map((c) => c.value)).toEqual(["low", "high"]);
      expect(h.updatesOfKind(sessionId, "usage_update").at(-1)?.size).toBe(128000);

      // A level the next model has is kept.
      await setOption(h, sessionId, "thought_level", "low");
      const r2 = await setOption(h, sessionId, "model", BIG53);
      expect(setModelFrames(h, sessionId).at(-1)?.params.model).toEqual({
        providerId: BIG,
        modelId: "GLM-5.3",
        options: { reasoningLevel: "low" },
      });
      expect(option(r2.configOptions, "thought_level")?.currentValue).toBe("low");
      expect(choices(option(r2.configOptions, "thought_level")).map((c) => c.value)).toEqual(["low", "high", "max"]);
      expect(h.updatesOfKind(sessionId, "usage_update").at(-1)?.size).toBe(200000);

      // A model without levels: no options sent, no thought level offered.
      const r3 = await setOption(h, sessionId, "model", AIR);
      expect(setModelFrames(h, sessionId).at(-1)?.params.model).toEqual({ providerId: ZAI, modelId: "GLM-4.5-Air" });
      expect(option(r3.configOptions, "thought_level")).toBeUndefined();
      expect(option(h.updatesOfKind(sessionId, "config_option_update").at(-1)!.configOptions, "thought_level")).toBeUndefined();
      expect(h.updatesOfKind(sessionId, "usage_update").at(-1)?.size).toBe(128000);

      // The session goes on with its new model.
      expect((await h.prompt(sessionId, "on air")).stopReason).toBe("end_turn");
    });
  });

  test("a switch ZCode refuses: a JSON-RPC error naming both models and ZCode's reason; the option keeps its value", async () => {
    await withBridge({ record: true, env: { ZCODE_SIM_SET_MODEL_FAILS: GLM47 } }, async (h) => {
      const { sessionId } = await h.newSession();
      const updatesBefore = h.updates(sessionId).length;
      const e = await rejection(setOption(h, sessionId, "model", GLM47));
      expect(e.code).toBe(-32603);
      expect(e.message).toBe(
        `ZCode did not switch to GLM-4.7 (${GLM47}): Provider ${ZAI} is unavailable: connection refused. The session keeps GLM-5.3 (${GLM53}).`,
      );
      expect(setModelFrames(h)).toHaveLength(1);
      expect(
        h
          .updates(sessionId)
          .slice(updatesBefore)
          .filter((u) => u.sessionUpdate !== "available_commands_update"),
      ).toEqual([]);
      const after = await setOption(h, sessionId, "thought_level", "high");
      expect(option(after.configOptions, "model")?.currentValue).toBe(GLM53);
      // Not offered at all: refused before ZCode hears of it.
      const disabled = await rejection(setOption(h, sessionId, "model", `${BIG}/GLM-5.3-1M`));
      expect(disabled.code).toBe(-32602);
      expect(setModelFrames(h)).toHaveLength(1);
    });
  });

  test("the choice is made again after a resume in a new child (ZCode fell back to its default there)", async () => {
    await withBridge({ record: true, env: { ZCODE_SIM_RESUME_RESETS_MODEL: "1" } }, async (h) => {
      const { sessionId } = await h.newSession();
      await setOption(h, sessionId, "model", GLM47);
      await rejection(h.prompt(sessionId, "#scenario:crash"));
      const updatesBefore = h.updates(sessionId).length;
      const framesBefore = h.simFrames().length;
      expect((await h.prompt(sessionId, "after the crash")).stopReason).toBe("end_turn");
      const methods = h
        .simFrames()
        .slice(framesBefore)
        .map((f) => f.method)
        .filter((x): x is string => typeof x === "string");
      expect(methods.indexOf("session/resume")).toBeGreaterThanOrEqual(0);
      expect(methods.indexOf("session/setModel")).toBeGreaterThan(methods.indexOf("session/resume"));
      expect(methods.indexOf("session/setModel")).toBeLessThan(methods.indexOf("session/send"));
      expect(setModelFrames(h).at(-1)?.params.model).toEqual({ providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "high" } });
      // The editor never saw the fallback.
      for (const u of h.updates(sessionId).slice(updatesBefore)) {
        if (u.sessionUpdate === "config_option_update") expect(option(u.configOptions, "model")?.currentValue).toBe(GLM47);
      }
      const read = await setOption(h, sessionId, "thought_level", "low");
      expect(option(read.configOptions, "model")?.currentValue).toBe(GLM47);
    });
  });
});

describe("/model", () => {
  test("lists the models, switches to the one named, and answers a miss or an ambiguity in words, never reaching the model", async () => {
    await recorded.run(async (h) => {
      const { sessionId } = await h.newSession();
      const list = await promptAndCollect(h, sessionId, "/model");
      expect(list.response.stopReason).toBe("end_turn");
      expect(list.text).toContain(`Current model: GLM-5.3 (\`${GLM53}\`), thought level \`max\`.`);
      expect(list.text).toContain(`- **Z.ai Coding Plan › GLM-5.3** \`${GLM53}\` (current)`);
      expect(list.text).toContain(`- GLM-5.3 (1M context) \`${BIG}/GLM-5.3-1M\` (unavailable: Not included in your current plan)`);
      expect(list.frames.filter((f) => f.params?.sessionId === sessionId).map((f) => f.method)).not.toContain("session/setModel");

      const ambiguous = await promptAndCollect(h, sessionId, "/model glm-5.3");
      expect(ambiguous.text).toStartWith(
        `"glm-5.3" matches more than one model: Z.ai Coding Plan › GLM-5.3 (${GLM53}), BigModel Coding Plan › GLM-5.3 (${BIG53}).`,
      );
      const none = await promptAndCollect(h, sessionId, "/model gpt-5");
      expect(none.text).toStartWith('No model ZCode offers here matches "gpt-5". Choose one of: ');
      expect(none.text).toContain(`GLM-4.7 (${GLM47})`);
      const disabled = await promptAndCollect(h, sessionId, "/model GLM-5.3-1M");
      expect(disabled.text).toStartWith('The model "GLM-5.3-1M" is not available (Not included in your current plan).');
      expect(setModelFrames(h, sessionId)).toEqual([]);

      const sw = await promptAndCollect(h, sessionId, "/Model glm-4.7");
      expect(sw.text).toBe(`Model set to GLM-4.7 (${GLM47}); thought level \`high\`.`);
      expect(
        sw.frames.filter((f) => f.method === "session/setModel" && f.params?.sessionId === sessionId).map((f) => f.params.model),
      ).toEqual([{ providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "high" } }]);
      const update = sw.updates.filter((u) => u.sessionUpdate === "config_option_update").at(-1) as { configOptions: Options } | undefined;
      expect(option(update?.configOptions, "model")?.currentValue).toBe(GLM47);
      expect(sw.updates.some((u) => u.sessionUpdate === "usage_update" && u.size === 128000)).toBe(true);

      // A unique start of a label is enough.
      const air = await promptAndCollect(h, sessionId, "/model glm-4.5");
      expect(air.text).toBe(`Model set to GLM-4.5-Air (${AIR}).`);
      expect(h.simMethods(sessionId)).not.toContain("session/send");
    });
  });

  test("a switch ZCode refuses is said in words; the model stays", async () => {
    await withBridge({ record: true, env: { ZCODE_SIM_SET_MODEL_FAILS: GLM47 } }, async (h) => {
      const { sessionId } = await h.newSession();
      const r = await promptAndCollect(h, sessionId, "/model glm-4.7");
      expect(r.response.stopReason).toBe("end_turn");
      expect(r.text).toBe(
        `ZCode did not switch to GLM-4.7 (${GLM47}): Provider ${ZAI} is unavailable: connection refused. The session keeps GLM-5.3 (${GLM53}).`,
      );
      expect(r.updates.filter((u) => u.sessionUpdate === "config_option_update")).toEqual([]);
    });
  });
});

describe("--model / ZCODE_ACP_MODEL", () => {
  test("new sessions start on the model named, switched before session/new answers", async () => {
    await withBridge({ record: true, args: ["--model", "glm-4.7"] }, async (h) => {
      const r = await h.newSession();
      expect(option(r.configOptions, "model")?.currentValue).toBe(GLM47);
      expect(option(r.configOptions, "thought_level")?.currentValue).toBe("high");
      const methods = h.simMethods();
      expect(methods.slice(methods.indexOf("session/create"))).toContain("session/setModel");
      expect(setModelFrames(h)[0]?.params.model).toEqual({ providerId: ZAI, modelId: "GLM-4.7", options: { reasoningLevel: "high" } });
      // The answer carried the options: no update for a session the editor did not know yet.
      const respIdx = h.received.messages.findIndex((x) => (x.result as { sessionId?: string } | undefined)?.sessionId === r.sessionId);
      const early = h.received.messages.slice(0, respIdx).filter((x) => x.method === "session/update");
      expect(early).toEqual([]);
      expect((await h.prompt(r.sessionId, "hello")).stopReason).toBe("end_turn");
    });
    await withBridge({ env: { ZCODE_ACP_MODEL: "BigModel Coding Plan › GLM-5.3" } }, async (h) => {
      expect(option((await h.newSession()).configOptions, "model")?.currentValue).toBe(BIG53);
    });
  });

  test("a value naming no model, or several: session/new fails -32602 naming it and the choices; ZCode's session is left alone", async () => {
    const stateDir = mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
    try {
      await withBridge({ stateDir, record: true, env: { ZCODE_ACP_MODEL: "gpt-5" } }, async (h) => {
        const e = await rejection(h.newSession());
        expect(e.code).toBe(-32602);
        expect(e.message).toContain('No model ZCode offers here matches "gpt-5". Choose one of: ');
        expect(e.message).toContain(`GLM-4.7 (${GLM47})`);
        expect(e.message).toContain("--model / ZCODE_ACP_MODEL");
        expect(h.simMethods()).toContain("session/create");
        expect(h.simMethods()).not.toContain("session/close");
        expect(h.simMethods()).not.toContain("session/setModel");
        // ZCode still has the conversation it created.
        expect((await h.agent.request(m.session.list, { cwd: stateDir })).sessions).toHaveLength(1);
      });
      await withBridge({ stateDir, args: ["--model", "GLM-5.3"] }, async (h) => {
        const e = await rejection(h.newSession());
        expect(e.code).toBe(-32602);
        expect(e.message).toContain(
          `"GLM-5.3" matches more than one model: Z.ai Coding Plan › GLM-5.3 (${GLM53}), BigModel Coding Plan › GLM-5.3 (${BIG53}).`,
        );
      });
    } finally {
      rmSync(stateDir, { recursive: true, force: true });
    }
  });
});

describe("a current model ZCode no longer offers", () => {
  async function firstTurns(h: Harness, name: string, notice: string): Promise<void> {
    const { sessionId, configOptions } = await h.newSession();
    const model = option(configOptions, "model")!;
    expect(model.currentValue).toBe(GLM47);
    expect(choices(model).find((c) => c.value === GLM47)?.name).toBe(name);
    expect(h.stderr).toContain(`its model ${GLM47} is not offered by ZCode now`);
    // Nothing is said on open.
    expect(h.updatesOfKind(sessionId, "agent_message_chunk")).toEqual([]);
    const first = await promptAndCollect(h, sessionId, "first");
    // The bridge's notice is a message of its own, set apart from the answer.
    expect(first.text).toBe(`\n\n${notice}\n\nEcho: first`);
    const chunks = first.updates.filter((u) => u.sessionUpdate === "agent_message_chunk") as Array<{ messageId?: string | null }>;
    expect(chunks[0]?.messageId).not.toBe(chunks.at(-1)?.messageId);
    // Once per session.
    expect((await promptAndCollect(h, sessionId, "second")).text).toBe("Echo: second");
    // And the user can switch away.
    expect((await promptAndCollect(h, sessionId, "/model glm-5.3-")).text).toStartWith("No model ZCode offers");
    expect((await promptAndCollect(h, sessionId, `/model ${GLM53}`)).text).toStartWith("Model set to");
  }

  test("gone from ZCode's list: the menu says '(no longer offered)', the log warns, the first turn says so once", async () => {
    const env = { ZCODE_SIM_DEFAULT_MODEL: GLM47, ZCODE_SIM_WITHDRAWN_MODELS: GLM47 };
    await withBridge({ env }, (h) =>
      firstTurns(
        h,
        "GLM-4.7 (no longer offered)",
        `_The model GLM-4.7 (${GLM47}) is no longer offered by ZCode; pick another with /model or the model menu._`,
      ),
    );
  });

  test("disabled by ZCode: the menu says '(unavailable)' with the reason, and the notice gives it", async () => {
    const env = { ZCODE_SIM_DEFAULT_MODEL: GLM47, ZCODE_SIM_DISABLED_MODELS: GLM47 };
    await withBridge({ env }, async (h) => {
      await firstTurns(
        h,
        "GLM-4.7 (unavailable)",
        `_The model GLM-4.7 (${GLM47}) is no longer offered by ZCode (Switched off in the ZCode app); pick another with /model or the model menu._`,
      );
    });
  });
});
