import type { Messages } from "../en/index.ts";
import { cli } from "./cli.ts";

/** 中文表：与英文表逐项对应。 */
export const zh: Messages = {
  cli,
};
