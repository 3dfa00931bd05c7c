import type { bridge as en } from "../en/bridge.ts";

export const bridge: typeof en = {};
