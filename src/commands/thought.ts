import { t } from "../i18n/index.ts";
import { createSettingCommand } from "./setting-command.ts";

export const thoughtCommand = createSettingCommand({
  name: "thought",
  text: () => t().commands.thought,
  pick: (options) => options.thought,
  apply: (ctx, level) => ctx.setThoughtLevel(level),
});
