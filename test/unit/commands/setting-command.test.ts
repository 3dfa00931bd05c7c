// /mode and /thought: the choices the editor sees (ctx.options(), built from
// ZCode's settings), matched case-insensitively, applied through the agent.
import { describe, expect, test } from "bun:test";
import { optionsFromSettings, withCurrent } from "../../../src/translate/options/options.ts";
import { matchCommand } from "../../../src/commands/registry.ts";
import { CREATE_SETTINGS, settings } from "../support/bridge-fixtures.ts";
import { FakeCaps, fakeApi, fakeContext, runCommand, sessionOptions, zerr } from "../support/commands-fakes.ts";

const MODES = "plan|build|edit|yolo|guarded|auto";

describe("/mode", () => {
  test("/mode <mode> applies through the agent, with no ZCode call of its own", async () => {
    const r = await runCommand("/mode plan", {});
    expect(r.calls).toEqual([]);
    expect(r.modeSets).toEqual(["plan"]);
    expect(r.said).toEqual(["Mode set to `plan`."]);
  });

  test("matched case-insensitively to ZCode's spelling", async () => {
    expect((await runCommand("/mode YOLO", {})).modeSets).toEqual(["yolo"]);
    expect((await runCommand("/MODE Plan", {})).modeSets).toEqual(["plan"]);
  });

  test("without args: the current mode and the choices", async () => {
    const r = await runCommand("/mode", {});
    expect(r.modeSets).toEqual([]);
    expect(r.said).toEqual([
      `Current mode: \`build\`. Available: \`plan\`, \`build\`, \`edit\`, \`yolo\`, \`guarded\`, \`auto\`.\n\nChange it with \`/mode <${MODES}>\`.`,
    ]);
  });

  test("a bad value: usage with the valid values", async () => {
    const r = await runCommand("/mode turbo", {});
    expect(r.modeSets).toEqual([]);
    expect(r.said).toEqual([`Unknown mode \`turbo\`.\n\nUsage: \`/mode <${MODES}>\``]);
  });

  test("the choices follow the session's options as they are now", async () => {
    const options = withCurrent(sessionOptions(), "mode", "plan");
    const r = await runCommand("/mode", {}, { options });
    expect(r.said[0]).toStartWith("Current mode: `plan`.");
  });

  test("a session without a mode says so", async () => {
    const r = await runCommand("/mode plan", {}, { options: {} });
    expect(r.modeSets).toEqual([]);
    expect(r.said).toEqual(["This session has no mode to choose (the current model has none)."]);
  });

  test("-32601 from setMode: not supported", async () => {
    const m = matchCommand("/mode plan")!;
    const { api } = fakeApi({}, new FakeCaps());
    const f = fakeContext(api, {
      args: m.args,
      version: "0.14.8",
      setMode: async () => {
        throw zerr(-32601, "Method not found", "session/setMode");
      },
    });
    await m.command.run(f.ctx);
    expect(f.said).toEqual(["`/mode` is not supported by ZCode CLI 0.14.8"]);
  });
});

describe("/thought", () => {
  test("/thought <level> among the current model's levels", async () => {
    const r = await runCommand("/thought high", {});
    expect(r.levelSets).toEqual(["high"]);
    expect(r.said).toEqual(["Thought level set to `high`."]);
    expect((await runCommand("/thought LOW", {})).levelSets).toEqual(["low"]);
  });

  test("bad and empty", async () => {
    const bad = await runCommand("/thought extreme", {});
    expect(bad.levelSets).toEqual([]);
    expect(bad.said).toEqual(["Unknown thought level `extreme`.\n\nUsage: `/thought <low|high|max>`"]);
    const list = await runCommand("/thought", {});
    expect(list.said[0]).toStartWith("Current thought level: `max`. Available: `low`, `high`, `max`.");
  });

  test("a model without levels: nothing to choose", async () => {
    const noLevels = optionsFromSettings(
      settings({
        ...CREATE_SETTINGS,
        model: {
          current: { providerId: "p", modelId: "flash" },
          available: [{ ref: { providerId: "p", modelId: "flash" }, label: "Flash" }],
        },
        thoughtLevel: { enabled: false, available: [] },
      }),
    );
    const r = await runCommand("/thought high", {}, { options: noLevels });
    expect(r.levelSets).toEqual([]);
    expect(r.said).toEqual(["This session has no thought level to choose (the current model has none)."]);
  });
});
