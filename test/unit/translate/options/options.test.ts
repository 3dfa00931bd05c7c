// A session's mode, model and thought level as ACP config options, built from
// ZCode's real settings ({ref, label, providerLabel, reasoning, contextWindow,
// disabledReason} model entries) and kept in sync.
import { describe, expect, test } from "bun:test";
import { RequestError, type SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import {
  CONFIG_IDS,
  configOptions,
  modeState,
  modelChoiceFor,
  optionsFromSettings,
  optionUpdates,
  sessionSetup,
  validateChoice,
  withCurrent,
  type SessionOptions,
} from "../../../../src/translate/options/options.ts";
import { modelValue, parseModelValue } from "../../../../src/zcode/model-ref.ts";
import { CREATE_SETTINGS, GLM, expectValid, settings } from "../../support/bridge-fixtures.ts";

const LEVELS = [
  { value: "low", label: "Low" },
  { value: "high", label: "High" },
  { value: "max", label: "Max" },
];

const model = (providerId: string, modelId: string, extra: Record<string, unknown> = {}) => ({
  ref: { providerId, modelId },
  label: modelId,
  properties: {},
  ...extra,
});

const FLASH = model("builtin:zai-coding-plan", "GLM-5.3-Flash", {
  label: "GLM-5.3 Flash",
  providerLabel: "Z.ai Coding Plan",
  contextWindow: 128000,
});
/** Same label as GLM, another provider. */
const GLM_OR = model("openrouter", "z-ai/glm-5.3", {
  label: "GLM-5.3",
  providerLabel: "OpenRouter",
  contextWindow: 131072,
  reasoning: {
    levels: [
      { value: "low", label: "Low" },
      { value: "high", label: "High" },
    ],
  },
});
const LOCKED = model("account:zai-individual-coding-plan", "GLM-5.3-Pro", {
  label: "GLM-5.3 Pro",
  disabledReason: "Sign in to the Coding Plan",
});

function opts(p: unknown, previous?: SessionOptions): SessionOptions {
  return optionsFromSettings(settings(p), previous);
}

function withModels(
  current: { providerId: string; modelId: string; options?: unknown },
  available: unknown[],
  extra: Record<string, unknown> = {},
) {
  return { ...CREATE_SETTINGS, model: { current, available }, ...extra };
}

const update = (o: SessionOptions): SessionUpdate => ({ sessionUpdate: "config_option_update", configOptions: configOptions(o) });

describe("models", () => {
  test("a create answer: values providerId/modelId, named by label, the provider as description", () => {
    const o = opts(CREATE_SETTINGS);
    expect(o.model?.current).toBe("builtin:zai-coding-plan/GLM-5.3");
    expect(o.model?.choices).toEqual([{ value: "builtin:zai-coding-plan/GLM-5.3", name: "GLM-5.3", description: "Z.ai Coding Plan" }]);
    expect(o.model?.contextWindow).toBe(200000);
    expect(o.model?.models[0]).toMatchObject({
      providerId: "builtin:zai-coding-plan",
      modelId: "GLM-5.3",
      levels: LEVELS,
      defaultLevel: "max",
    });
    expectValid([update(o)]);
  });

  test("two providers sharing a label: 'Provider › label'", () => {
    const o = opts(withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" }, [GLM, FLASH, GLM_OR]));
    expect(o.model?.choices.map((c) => c.name)).toEqual(["Z.ai Coding Plan › GLM-5.3", "GLM-5.3 Flash", "OpenRouter › GLM-5.3"]);
    expect(o.model?.choices[1]?.description).toBe("Z.ai Coding Plan");
    expect(o.model?.choices[0]?.description).toBeUndefined();
    expectValid([update(o)]);
  });

  test("disabled models are left out unless current (then marked, in the name every menu shows)", () => {
    const off = opts(withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" }, [GLM, LOCKED]));
    expect(off.model?.choices.map((c) => c.value)).toEqual(["builtin:zai-coding-plan/GLM-5.3"]);
    // Still known: a later settings answer could make it current.
    expect(off.model?.models.map((m) => m.modelId)).toContain("GLM-5.3-Pro");
    const on = opts(withModels({ providerId: "account:zai-individual-coding-plan", modelId: "GLM-5.3-Pro" }, [GLM, LOCKED]));
    expect(on.model?.choices.find((c) => c.value === "account:zai-individual-coding-plan/GLM-5.3-Pro")).toEqual({
      value: "account:zai-individual-coding-plan/GLM-5.3-Pro",
      name: "GLM-5.3 Pro (unavailable)",
      description: "Unavailable: Sign in to the Coding Plan",
    });
  });

  test("a current model missing from ZCode's list is shown, marked", () => {
    const o = opts(withModels({ providerId: "gone", modelId: "old-model" }, [GLM]));
    expect(o.model?.current).toBe("gone/old-model");
    expect(o.model?.choices.at(-1)).toEqual({
      value: "gone/old-model",
      name: "old-model (no longer offered)",
      description: "Unavailable: no longer offered",
    });
    expectValid([update(o)]);
  });

  test("no model entry we can read at all: the current one is shown plainly (nothing proves it left)", () => {
    const o = opts(withModels({ providerId: "zhipu", modelId: "GLM-5.2" }, []));
    expect(o.model?.choices).toEqual([{ value: "zhipu/GLM-5.2", name: "GLM-5.2" }]);
    expect(o.model?.models[0]?.disabledReason).toBeUndefined();
  });

  test("a read's single-model list keeps the earlier catalogue", () => {
    const created = opts(withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" }, [GLM, FLASH, GLM_OR]));
    const read = opts(withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3-Flash" }, [FLASH]), created);
    expect(read.model?.current).toBe("builtin:zai-coding-plan/GLM-5.3-Flash");
    expect(read.model?.choices.map((c) => c.value)).toEqual([
      "builtin:zai-coding-plan/GLM-5.3",
      "builtin:zai-coding-plan/GLM-5.3-Flash",
      "openrouter/z-ai/glm-5.3",
    ]);
    expect(read.model?.contextWindow).toBe(128000);
  });

  test("settings without a current model keep the earlier model option", () => {
    const created = opts(CREATE_SETTINGS);
    const after = opts({ mode: { current: "plan" } }, created);
    expect(after.model).toBe(created.model);
    expect(after.mode?.current).toBe("plan");
  });

  test("no model settings at all: no model option", () => {
    expect(opts({ mode: { current: "build" } }).model).toBeUndefined();
  });

  test("a model's contextWindow of null or 0 is not a window", () => {
    const o = opts(withModels({ providerId: "p", modelId: "m" }, [model("p", "m", { contextWindow: null })]));
    expect(o.model?.contextWindow).toBeUndefined();
    expect(
      opts(withModels({ providerId: "p", modelId: "m" }, [model("p", "m", { contextWindow: 0 })])).model?.contextWindow,
    ).toBeUndefined();
  });

  test("modelValue / parseModelValue split at the first slash", () => {
    expect(modelValue("openrouter", "z-ai/glm-5.3")).toBe("openrouter/z-ai/glm-5.3");
    expect(parseModelValue("openrouter/z-ai/glm-5.3")).toEqual({ providerId: "openrouter", modelId: "z-ai/glm-5.3" });
    expect(parseModelValue("builtin:zai-coding-plan/GLM-5.3")).toEqual({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" });
    for (const bad of ["nomodel", "/m", "p/", ""]) expect(parseModelValue(bad)).toBeUndefined();
  });
});

describe("thought levels", () => {
  test("follow the current model's reasoning levels; the current level from settings", () => {
    const o = opts(CREATE_SETTINGS);
    expect(o.thought).toEqual({
      current: "max",
      choices: [
        { value: "low", name: "Low" },
        { value: "high", name: "High" },
        { value: "max", name: "Max" },
      ],
    });
    const other = opts(
      withModels({ providerId: "openrouter", modelId: "z-ai/glm-5.3", options: { reasoningLevel: "high" } }, [GLM, GLM_OR], {
        thoughtLevel: {
          enabled: true,
          current: "high",
          available: [
            { value: "low", label: "Low" },
            { value: "high", label: "High" },
          ],
        },
      }),
    );
    expect(other.thought?.choices.map((c) => c.value)).toEqual(["low", "high"]);
    expect(other.thought?.current).toBe("high");
  });

  test("the model's levels win over a thoughtLevel list that does not match it", () => {
    const o = opts(
      withModels({ providerId: "openrouter", modelId: "z-ai/glm-5.3" }, [GLM_OR], {
        thoughtLevel: { enabled: true, current: "high", available: LEVELS },
      }),
    );
    expect(o.thought?.choices.map((c) => c.value)).toEqual(["low", "high"]);
  });

  test("vanish for a model without levels", () => {
    const o = opts(
      withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3-Flash" }, [GLM, FLASH], {
        thoughtLevel: { enabled: false, available: [] },
      }),
    );
    expect(o.thought).toBeUndefined();
    expect(configOptions(o).map((c) => c.id)).toEqual([CONFIG_IDS.mode, CONFIG_IDS.model]);
    const noThoughtSettings = {
      model: { current: { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3-Flash" }, available: [FLASH] },
      mode: { current: "build" },
    };
    expect(opts(noThoughtSettings, opts(CREATE_SETTINGS)).thought).toBeUndefined();
  });

  test("turned off by ZCode: none, even with levels", () => {
    expect(opts({ ...CREATE_SETTINGS, thoughtLevel: { enabled: false, current: "max", available: LEVELS } }).thought).toBeUndefined();
  });

  test("no current level in thoughtLevel: the model selection's, else the defaults", () => {
    const viaSelection = opts({ ...CREATE_SETTINGS, thoughtLevel: { enabled: true, available: LEVELS } });
    expect(viaSelection.thought?.current).toBe("max");
    const viaDefault = opts(
      withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" }, [GLM], {
        thoughtLevel: { enabled: true, defaultLevel: "high", available: LEVELS },
      }),
    );
    expect(viaDefault.thought?.current).toBe("high");
    const viaModel = opts(withModels({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3" }, [GLM], { thoughtLevel: undefined }));
    expect(viaModel.thought?.current).toBe("max");
  });
});

describe("modes", () => {
  test("ZCode's modes, the current one marked; an unknown current one is added", () => {
    const o = opts(CREATE_SETTINGS);
    expect(o.mode?.current).toBe("yolo");
    expect(o.mode?.choices.map((c) => c.value)).toEqual(["plan", "build", "edit", "yolo", "guarded", "auto"]);
    expect(modeState(o)).toEqual({ currentModeId: "yolo", availableModes: o.mode!.choices.map((c) => ({ id: c.value, name: c.name })) });
    const odd = opts({ mode: { current: "turbo" } });
    expect(odd.mode?.choices.at(-1)).toEqual({ value: "turbo", name: "Turbo" });
    expect(modeState({})).toBeUndefined();
  });

  test("withCurrent changes one option, adding a value not listed yet", () => {
    const o = opts(CREATE_SETTINGS);
    const p = withCurrent(o, "mode", "plan");
    expect(p.mode?.current).toBe("plan");
    expect(p.mode?.choices).toEqual(o.mode?.choices);
    expect(o.mode?.current).toBe("yolo");
    expect(withCurrent(o, "thought", "ultra").thought?.choices.at(-1)).toEqual({ value: "ultra", name: "Ultra" });
    expect(withCurrent({}, "mode", "plan").mode).toEqual({ current: "plan", choices: [{ value: "plan", name: "Plan" }] });
  });
});

describe("what the editor is sent", () => {
  test("configOptions: mode, model, thought level as selects", () => {
    const c = configOptions(opts(CREATE_SETTINGS));
    expect(c.map((x) => [x.id, x.category, (x as { currentValue?: string }).currentValue])).toEqual([
      ["mode", "mode", "yolo"],
      ["model", "model", "builtin:zai-coding-plan/GLM-5.3"],
      ["thought_level", "thought_level", "max"],
    ]);
    expect(configOptions({})).toEqual([]);
  });

  test("sessionSetup: modes and configOptions for new/load/resume/fork", () => {
    const o = opts(CREATE_SETTINGS);
    expect(sessionSetup(o)).toEqual({ modes: modeState(o)!, configOptions: configOptions(o) });
    expect(sessionSetup({})).toEqual({ configOptions: [] });
  });

  test("optionUpdates only on a change; current_mode_update only when the mode changed", () => {
    const o = opts(CREATE_SETTINGS);
    expect(optionUpdates(o, opts(CREATE_SETTINGS))).toEqual([]);
    const plan = withCurrent(o, "mode", "plan");
    const u = optionUpdates(o, plan);
    expect(u).toEqual([
      { sessionUpdate: "config_option_update", configOptions: configOptions(plan) },
      { sessionUpdate: "current_mode_update", currentModeId: "plan" },
    ]);
    const high = withCurrent(o, "thought", "high");
    expect(optionUpdates(o, high).map((x) => x.sessionUpdate)).toEqual(["config_option_update"]);
    expectValid([...u, ...optionUpdates(o, high)]);
  });

  test("validateChoice: -32602 naming the valid values", () => {
    const o = opts(CREATE_SETTINGS);
    expect(() => validateChoice(o, "mode", "plan")).not.toThrow();
    const e = (() => {
      try {
        validateChoice(o, "thought", "ultra");
      } catch (x) {
        return x as RequestError;
      }
    })();
    expect(e).toBeInstanceOf(RequestError);
    expect(e?.code).toBe(-32602);
    expect(e?.message).toContain("low, high, max");
    expect(() => validateChoice({}, "mode", "plan")).toThrow("no mode option");
  });
});

describe("modelChoiceFor", () => {
  const o = opts(
    withModels(
      { providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3", options: { reasoningLevel: "max" } },
      [GLM, FLASH, GLM_OR, LOCKED],
      {
        thoughtLevel: { enabled: true, current: "max", available: LEVELS },
      },
    ),
  );

  test("a model with levels gets the user's level when it has it", () => {
    const high = withCurrent(o, "thought", "high");
    expect(modelChoiceFor(high, "openrouter/z-ai/glm-5.3").choice).toEqual({
      providerId: "openrouter",
      modelId: "z-ai/glm-5.3",
      options: { reasoningLevel: "high" },
    });
    expect(modelChoiceFor(o, "builtin:zai-coding-plan/GLM-5.3").choice.options).toEqual({ reasoningLevel: "max" });
    // Not the model's default (max): the user's.
    expect(modelChoiceFor(withCurrent(o, "thought", "low"), "builtin:zai-coding-plan/GLM-5.3").choice.options).toEqual({
      reasoningLevel: "low",
    });
    expect(modelChoiceFor(withCurrent(o, "thought", "low"), "openrouter/z-ai/glm-5.3").choice.options).toEqual({ reasoningLevel: "low" });
  });

  test("else the model's defaultLevel, else its last level", () => {
    expect(modelChoiceFor(withCurrent(o, "thought", "medium"), "builtin:zai-coding-plan/GLM-5.3").choice.options).toEqual({
      reasoningLevel: "max",
    });
    // "max" is not one of GLM_OR's levels and it names no default: its last.
    expect(modelChoiceFor(o, "openrouter/z-ai/glm-5.3").choice.options).toEqual({ reasoningLevel: "high" });
  });

  test("a model without levels gets no options", () => {
    const r = modelChoiceFor(o, "builtin:zai-coding-plan/GLM-5.3-Flash");
    expect(r.choice).toEqual({ providerId: "builtin:zai-coding-plan", modelId: "GLM-5.3-Flash" });
    expect(r.info.label).toBe("GLM-5.3 Flash");
  });

  test("unknown or disabled models are refused with the models offered", () => {
    for (const value of ["nope/nothing", "account:zai-individual-coding-plan/GLM-5.3-Pro"]) {
      let err: unknown;
      try {
        modelChoiceFor(o, value);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(RequestError);
      expect((err as RequestError).code).toBe(-32602);
      expect((err as RequestError).message).toContain("builtin:zai-coding-plan/GLM-5.3-Flash");
    }
    expect(() => modelChoiceFor({}, "a/b")).toThrow("none");
  });
});
