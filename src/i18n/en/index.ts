import { bridge } from "./bridge.ts";
import { cli } from "./cli.ts";
import { commands } from "./commands.ts";
import { errors } from "./errors.ts";
import { quota } from "./quota.ts";
import { tools } from "./tools.ts";

/** The English table: the reference every other language is checked against. */
export const en = {
  cli,
  commands,
  quota,
  bridge,
  tools,
  errors,
};

export type Messages = typeof en;
