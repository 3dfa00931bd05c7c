import { cli } from "./cli.ts";

/** The English table: the reference every other language is checked against. */
export const en = {
  cli,
};

export type Messages = typeof en;
