import { createSettingCommand } from "./setting-command.ts";

export const modeCommand = createSettingCommand({
  name: "mode",
  description: "Switch the session mode (plan, build, edit, yolo, guarded, …); without a mode, list them",
  noun: "mode",
  hint: "<mode>",
  pick: (options) => options.mode,
  apply: (ctx, mode) => ctx.setMode(mode),
});
