import { createSettingCommand } from "./setting-command.ts";

export const thoughtCommand = createSettingCommand({
  name: "thought",
  description: "Set how much the model thinks (the levels the current model offers); without a level, list them",
  noun: "thought level",
  hint: "<level>",
  pick: (options) => options.thought,
  apply: (ctx, level) => ctx.setThoughtLevel(level),
});
