import { defineCommand } from "citty";
import { cli } from "../i18n/en/cli.ts";
import { VERSION } from "../version.ts";
import { doctorFlags, serveFlags, upgradeFlags } from "./flags.ts";

// Command declarations (metadata and flag tables). What each command does
// lives in main.ts, so `--help` never loads a command's implementation. The
// descriptions come from the message table (English here; main.ts renders
// --help in the language in use).

export const doctorCommand = defineCommand({
  meta: {
    name: "doctor",
    description: cli.commands.doctor,
  },
  args: doctorFlags,
});

export const upgradeCommand = defineCommand({
  meta: {
    name: "upgrade",
    description: cli.commands.upgrade,
  },
  args: upgradeFlags,
});

export const loginCommand = defineCommand({
  meta: {
    name: "login",
    description: cli.commands.login,
  },
  args: doctorFlags,
});

export const logoutCommand = defineCommand({
  meta: {
    name: "logout",
    description: cli.commands.logout,
  },
  args: doctorFlags,
});

export const rootCommand = defineCommand({
  meta: {
    name: "zcode-acp-server",
    version: VERSION,
    description: cli.commands["zcode-acp-server"],
  },
  args: serveFlags,
  subCommands: { doctor: doctorCommand, login: loginCommand, logout: logoutCommand, upgrade: upgradeCommand },
});

export const SUBCOMMANDS = { doctor: doctorCommand, login: loginCommand, logout: logoutCommand, upgrade: upgradeCommand } as const;
export type SubcommandName = keyof typeof SUBCOMMANDS;
