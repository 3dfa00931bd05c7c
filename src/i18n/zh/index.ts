import type { Messages } from "../en/index.ts";
import { bridge } from "./bridge.ts";
import { cli } from "./cli.ts";
import { commands } from "./commands.ts";
import { errors } from "./errors.ts";
import { quota } from "./quota.ts";
import { tools } from "./tools.ts";

/** 中文表：与英文表逐项对应。 */
export const zh: Messages = {
  cli,
  commands,
  quota,
  bridge,
  tools,
  errors,
};
