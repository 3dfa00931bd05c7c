import { t } from "../i18n/index.ts";
import { createSettingCommand } from "./setting-command.ts";

export const modeCommand = createSettingCommand({
  name: "mode",
  text: () => t().commands.mode,
  pick: (options) => options.mode,
  apply: (ctx, mode) => ctx.setMode(mode),
});
