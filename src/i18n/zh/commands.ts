import type { commands as en } from "../en/commands.ts";

export const commands: typeof en = {};
