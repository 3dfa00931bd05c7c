// /model: the session's models as a list, or a switch through the session to
// the one the words name (read as --model reads them); every miss answers
// in words, never by reaching the model as a prompt.
import { describe, expect, test } from "bun:test";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { optionsFromSettings } from "../../../src/translate/options/options.ts";
import { matchCommand } from "../../../src/commands/registry.ts";
import { CREATE_SETTINGS, settings } from "../support/bridge-fixtures.ts";
import { runCommand, zerr } from "../support/commands-fakes.ts";

const ZAI = "builtin:zai-coding-plan";
const BIG = "account:bigmodel-individual-coding-plan";
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
const CATALOGUE = [
  entry(ZAI, "GLM-5.3", { providerLabel: "Z.ai Coding Plan", reasoning: LEVELS }),
  entry(ZAI, "GLM-4.7", { providerLabel: "Z.ai Coding Plan", reasoning: LEVELS }),
  entry(ZAI, "GLM-4.5-Air", { providerLabel: "Z.ai Coding Plan" }),
  entry(BIG, "GLM-5.3", { providerLabel: "BigModel Coding Plan", reasoning: LEVELS }),
  entry(BIG, "GLM-5.3-1M", { label: "GLM-5.3 (1M context)", disabledReason: "Not in your plan" }),
];

function options(
  current: { providerId: string; modelId: string; options?: unknown } = {
    providerId: ZAI,
    modelId: "GLM-5.3",
    options: { reasoningLevel: "high" },
  },
) {
  return optionsFromSettings(
    settings({
      ...CREATE_SETTINGS,
      model: { current, available: CATALOGUE },
      thoughtLevel: { enabled: true, current: "high", available: LEVELS.levels },
    }),
  );
}

describe("/model", () => {
  test("is ours (not ZCode's terminal-only reply), with a hint", () => {
    const m = matchCommand("/model glm-4.7");
    expect(m?.command.description).toContain("Switch the model");
    expect(m?.command.hint).toBe("<name or id>");
    expect(m?.args).toBe("glm-4.7");
  });

  test("without args: every model, the current one marked, the disabled one said so", async () => {
    const r = await runCommand("/model", {}, { options: options() });
    expect(r.modelSets).toEqual([]);
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual([
      [
        `Current model: GLM-5.3 (\`${ZAI}/GLM-5.3\`), thought level \`high\`.`,
        [
          `- **Z.ai Coding Plan › GLM-5.3** \`${ZAI}/GLM-5.3\` (current)`,
          `- GLM-4.7 \`${ZAI}/GLM-4.7\``,
          `- GLM-4.5-Air \`${ZAI}/GLM-4.5-Air\``,
          `- BigModel Coding Plan › GLM-5.3 \`${BIG}/GLM-5.3\``,
          `- GLM-5.3 (1M context) \`${BIG}/GLM-5.3-1M\` (unavailable: Not in your plan)`,
        ].join("\n"),
        "Switch with `/model <name or id>` (case does not matter; the start of a name is enough when only one model has it).",
      ].join("\n\n"),
    ]);
  });

  test("a current model ZCode no longer offers is listed as such", async () => {
    const r = await runCommand("/model", {}, { options: options({ providerId: "gone", modelId: "old-model" }) });
    expect(r.said[0]).toContain("- **old-model** `gone/old-model` (current, no longer offered)");
  });

  test("switches by id, value, label or a unique start, in any case", async () => {
    for (const [words, value] of [
      ["glm-4.7", `${ZAI}/GLM-4.7`],
      [`${BIG}/GLM-5.3`, `${BIG}/GLM-5.3`],
      ["BigModel Coding Plan › GLM-5.3", `${BIG}/GLM-5.3`],
      ["glm-4.5", `${ZAI}/GLM-4.5-Air`],
    ]) {
      const r = await runCommand(`/model ${words}`, {}, { options: options() });
      expect(r.modelSets).toEqual([value!]);
    }
  });

  test("the reply names the model and the thought level the session has now", async () => {
    const r = await runCommand("/MODEL glm-4.7", {}, { options: options() });
    expect(r.said).toEqual([`Model set to GLM-4.7 (${ZAI}/GLM-4.7); thought level \`high\`.`]);
  });

  test("ambiguous: the candidates, nothing switched", async () => {
    const r = await runCommand("/model glm-5.3", {}, { options: options() });
    expect(r.modelSets).toEqual([]);
    expect(r.said[0]).toStartWith(
      `"glm-5.3" matches more than one model: Z.ai Coding Plan › GLM-5.3 (${ZAI}/GLM-5.3), BigModel Coding Plan › GLM-5.3 (${BIG}/GLM-5.3).`,
    );
    expect(r.said[0]).toEndWith("Usage: `/model <name or id>`");
  });

  test("no match: every model offered; a disabled one says why", async () => {
    const none = await runCommand("/model gpt-5", {}, { options: options() });
    expect(none.modelSets).toEqual([]);
    expect(none.said[0]).toStartWith('No model ZCode offers here matches "gpt-5". Choose one of: ');
    expect(none.said[0]).toContain(`GLM-4.5-Air (${ZAI}/GLM-4.5-Air)`);
    const off = await runCommand("/model glm-5.3-1m", {}, { options: options() });
    expect(off.said[0]).toStartWith('The model "glm-5.3-1m" is not available (Not in your plan).');
  });

  test("the current model: nothing to do", async () => {
    const r = await runCommand(`/model ${ZAI}/GLM-5.3`, {}, { options: options() });
    expect(r.modelSets).toEqual([]);
    expect(r.said).toEqual([`Already using Z.ai Coding Plan › GLM-5.3 (${ZAI}/GLM-5.3).`]);
  });

  test("ZCode refusing the switch: its reason, in words", async () => {
    const refusal = new RequestError(-32603, "ZCode did not switch to GLM-4.7 (x): down. The session keeps GLM-5.3 (y).");
    const r = await runCommand(
      "/model glm-4.7",
      {},
      {
        options: options(),
        setModel: async () => {
          throw refusal;
        },
      },
    );
    expect(r.said).toEqual([refusal.message]);
  });

  test("the CLI busy: the shared reply; anything else reaches the editor as an error", async () => {
    const busy = await runCommand(
      "/model glm-4.7",
      {},
      {
        options: options(),
        setModel: async () => {
          throw zerr(-32010, "A prompt is already running for this session", "session/setModel");
        },
      },
    );
    expect(busy.said[0]).toContain("ZCode is busy");
    const died = runCommand(
      "/model glm-4.7",
      {},
      {
        options: options(),
        setModel: async () => {
          throw new Error("The ZCode CLI exited");
        },
      },
    );
    await expect(died).rejects.toThrow("The ZCode CLI exited");
  });

  test("a session without models says so", async () => {
    const r = await runCommand("/model", {}, { options: {} });
    expect(r.said).toEqual(["This session has no model to choose: ZCode listed none."]);
  });
});
