// Which model words name: /model and --model / ZCODE_ACP_MODEL read them the
// same way (value, model id, label or menu name; any case; exact before a
// unique prefix), and a miss says why with the models to choose from.
import { describe, expect, test } from "bun:test";
import { describeModel, matchModel, mismatchText, offeredModels } from "../../../../src/translate/options/model-match.ts";
import { optionsFromSettings, type SessionOptions } from "../../../../src/translate/options/options.ts";
import { CREATE_SETTINGS, settings } from "../../support/bridge-fixtures.ts";

const LEVELS = {
  levels: [
    { value: "low", label: "Low" },
    { value: "high", label: "High" },
  ],
  defaultLevel: "high",
};
const entry = (providerId: string, modelId: string, extra: Record<string, unknown> = {}) => ({
  ref: { providerId, modelId },
  label: modelId,
  properties: {},
  ...extra,
});
const ZAI = "builtin:zai-coding-plan";
const BIG = "account:bigmodel-individual-coding-plan";
const CATALOGUE = [
  entry(ZAI, "GLM-5.3", { providerLabel: "Z.ai Coding Plan", reasoning: LEVELS }),
  entry(ZAI, "GLM-4.7", { providerLabel: "Z.ai Coding Plan", reasoning: LEVELS }),
  entry(ZAI, "GLM-4.5-Air", { providerLabel: "Z.ai Coding Plan" }),
  entry(BIG, "GLM-5.3", { providerLabel: "BigModel Coding Plan", reasoning: LEVELS }),
  entry(BIG, "GLM-5.3-1M", { label: "GLM-5.3 (1M context)", providerLabel: "BigModel Coding Plan", disabledReason: "Not in your plan" }),
];

function model(current = { providerId: ZAI, modelId: "GLM-5.3" }): SessionOptions["model"] {
  return optionsFromSettings(settings({ ...CREATE_SETTINGS, model: { current, available: CATALOGUE } })).model;
}

const picked = (words: string, m = model()) => {
  const r = matchModel(m, words);
  return r.kind === "one" ? r.model.info.value : r.kind;
};

describe("matchModel", () => {
  test("the option value, the model id, the label or the menu name, in any case", () => {
    expect(picked(`${ZAI}/GLM-4.7`)).toBe(`${ZAI}/GLM-4.7`);
    expect(picked("glm-4.7")).toBe(`${ZAI}/GLM-4.7`);
    expect(picked("GLM-4.5-AIR")).toBe(`${ZAI}/GLM-4.5-Air`);
    expect(picked("bigmodel coding plan › glm-5.3")).toBe(`${BIG}/GLM-5.3`);
    expect(picked(`  ${BIG.toUpperCase()}/glm-5.3 `)).toBe(`${BIG}/GLM-5.3`);
  });

  test("an exact match wins over longer names it begins", () => {
    const m = model();
    const withPrefixRival = optionsFromSettings(
      settings({
        ...CREATE_SETTINGS,
        model: { current: { providerId: ZAI, modelId: "GLM-4.7" }, available: [CATALOGUE[1], entry(ZAI, "GLM-4.7-Flash")] },
      }),
    ).model;
    expect(picked("glm-4.7", withPrefixRival)).toBe(`${ZAI}/GLM-4.7`);
    expect(picked("glm-4.7-f", withPrefixRival)).toBe(`${ZAI}/GLM-4.7-Flash`);
    expect(picked("glm-4.5", m)).toBe(`${ZAI}/GLM-4.5-Air`);
  });

  test("a prefix or an exact name more than one model has is ambiguous, with the candidates", () => {
    const same = matchModel(model(), "GLM-5.3");
    expect(same.kind).toBe("ambiguous");
    if (same.kind === "ambiguous") expect(same.candidates.map((c) => c.info.value)).toEqual([`${ZAI}/GLM-5.3`, `${BIG}/GLM-5.3`]);
    const prefix = matchModel(model(), "glm-4");
    expect(prefix.kind === "ambiguous" && prefix.candidates.map((c) => c.info.modelId)).toEqual(["GLM-4.7", "GLM-4.5-Air"]);
    expect(picked("account:")).toBe(`${BIG}/GLM-5.3`); // the disabled 1M model is not offered
  });

  test("nothing matches: none; a disabled model named exactly is reported as such", () => {
    expect(matchModel(model(), "gpt-5")).toEqual({ kind: "none" });
    expect(matchModel(model(), "").kind).toBe("none");
    const off = matchModel(model(), "glm-5.3-1m");
    expect(off.kind === "none" && off.unavailable?.value).toBe(`${BIG}/GLM-5.3-1M`);
    expect(matchModel(undefined, "glm").kind).toBe("none");
  });

  test("the current model is offered even when ZCode disabled it", () => {
    const m = model({ providerId: BIG, modelId: "GLM-5.3-1M" });
    expect(offeredModels(m).map((o) => o.info.modelId)).toContain("GLM-5.3-1M");
    expect(picked("glm-5.3-1m", m)).toBe(`${BIG}/GLM-5.3-1M`);
  });
});

describe("what a miss says", () => {
  test("none: the words and every offered model", () => {
    const m = model();
    const text = mismatchText(m, "gpt-5", { kind: "none" });
    expect(text).toStartWith('No model ZCode offers here matches "gpt-5". Choose one of: ');
    expect(text).toContain(`Z.ai Coding Plan › GLM-5.3 (${ZAI}/GLM-5.3)`);
    expect(text).toContain(`GLM-4.5-Air (${ZAI}/GLM-4.5-Air)`);
    expect(text).not.toContain("GLM-5.3-1M");
  });

  test("ambiguous: only the candidates", () => {
    const m = model();
    const r = matchModel(m, "glm-4");
    if (r.kind === "one") throw new Error("expected a miss");
    expect(mismatchText(m, "glm-4", r)).toBe(
      `"glm-4" matches more than one model: GLM-4.7 (${ZAI}/GLM-4.7), GLM-4.5-Air (${ZAI}/GLM-4.5-Air). Give more of the name, or the full id.`,
    );
  });

  test("a disabled model: why it cannot be used", () => {
    const m = model();
    const r = matchModel(m, "GLM-5.3-1M");
    if (r.kind === "one") throw new Error("expected a miss");
    expect(mismatchText(m, "GLM-5.3-1M", r)).toStartWith('The model "GLM-5.3-1M" is not available (Not in your plan). Choose one of: ');
  });

  test("describeModel: the menu name and the id", () => {
    const [first] = offeredModels(model());
    expect(describeModel(first!)).toBe(`Z.ai Coding Plan › GLM-5.3 (${ZAI}/GLM-5.3)`);
  });
});
