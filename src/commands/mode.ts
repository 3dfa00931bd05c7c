import { createSettingCommand } from "./setting-command.ts";

export const modeCommand = createSettingCommand({
  name: "mode",
  description: "Switch the session mode (plan, build, edit, yolo, ...); without a mode, list them",
  noun: "mode",
  hint: "<mode>",
  pick: (settings) => (settings as { mode?: unknown } | undefined)?.mode,
  apply: (ctx, mode) => ctx.setMode(mode),
});
