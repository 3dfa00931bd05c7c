import type { tools as en } from "../en/tools.ts";

export const tools: typeof en = {};
