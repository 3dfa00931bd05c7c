import type { quota as en } from "../en/quota.ts";

export const quota: typeof en = {};
