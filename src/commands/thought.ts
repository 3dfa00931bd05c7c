import { createSettingCommand } from "./setting-command.ts";

export const thoughtCommand = createSettingCommand({
  name: "thought",
  description: "Set how much the model thinks (low, medium, high, max, ...); without a level, list them",
  noun: "thought level",
  hint: "<level>",
  pick: (settings) => (settings as { thoughtLevel?: unknown } | undefined)?.thoughtLevel,
  apply: (ctx, level) => ctx.setThoughtLevel(level),
});
