import { defineCommand } from "citty";
import { VERSION } from "../version.ts";
import { doctorFlags, serveFlags, upgradeFlags } from "./flags.ts";

// Command declarations (metadata and flag tables). What each command does
// lives in main.ts, so `--help` never loads a command's implementation.

export const doctorCommand = defineCommand({
  meta: {
    name: "doctor",
    description: "Check the ZCode CLI, its version, Node and sign-in; print editor settings",
  },
  args: doctorFlags,
});

export const upgradeCommand = defineCommand({
  meta: {
    name: "upgrade",
    description: "Download, verify (SHA-256) and install a release over this binary",
  },
  args: upgradeFlags,
});

export const rootCommand = defineCommand({
  meta: {
    name: "zcode-acp-server",
    version: VERSION,
    description: "Agent Client Protocol bridge for ZCode. With no command, serves ACP on stdio",
  },
  args: serveFlags,
  subCommands: { doctor: doctorCommand, upgrade: upgradeCommand },
});

export const SUBCOMMANDS = { doctor: doctorCommand, upgrade: upgradeCommand } as const;
export type SubcommandName = keyof typeof SUBCOMMANDS;
