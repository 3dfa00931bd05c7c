import type { errors as en } from "../en/errors.ts";

export const errors: typeof en = {};
