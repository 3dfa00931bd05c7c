import type { ArgsDef } from "citty";
import { LOG_LEVEL_NAMES } from "../log.ts";

// Flag definitions, one table per command. The descriptions are what
// `--help` shows; the env variable each flag falls back to is named in the
// description so the help text is also the configuration reference.

export const loggingFlags = {
  "log-level": {
    type: "string",
    description: `Log verbosity: ${LOG_LEVEL_NAMES.join("|")} (env ZCODE_ACP_LOG_LEVEL; default warn). Logs go to stderr.`,
    valueHint: "level",
  },
  "log-file": {
    type: "string",
    description: "Also append log lines to this file, created with mode 0600 (env ZCODE_ACP_LOG_FILE)",
    valueHint: "path",
  },
} as const satisfies ArgsDef;

export const zcodeFlags = {
  "zcode-bin": {
    type: "string",
    description: "ZCode CLI binary or its .cjs/.mjs/.js entry (env ZCODE_BIN; default: PATH, then the ZCode app bundle)",
    valueHint: "path",
  },
  "zcode-node": {
    type: "string",
    description: "Node.js >= 22 used to run a .cjs/.mjs/.js ZCode entry (env ZCODE_NODE)",
    valueHint: "path",
  },
} as const satisfies ArgsDef;

export const serveFlags = {
  ...zcodeFlags,
  ...loggingFlags,
  mode: {
    type: "string",
    description: "Default mode for new sessions, e.g. yolo or build (env ZCODE_ACP_MODE)",
    valueHint: "mode",
  },
  trace: {
    type: "string",
    description: "Write a redacted JSON-lines trace of both wires to this file, mode 0600 (env ZCODE_ACP_TRACE)",
    valueHint: "file",
  },
  "max-line-bytes": {
    type: "string",
    description: "Longest line accepted from the ZCode CLI, in bytes (env ZCODE_ACP_MAX_LINE_BYTES; default 33554432)",
    valueHint: "bytes",
  },
  "max-message-bytes": {
    type: "string",
    description:
      "Longest message accepted from the editor, in bytes; a longer request is answered with an error (env ZCODE_ACP_MAX_MESSAGE_BYTES; default 67108864)",
    valueHint: "bytes",
  },
  "no-prewarm": {
    type: "boolean",
    description:
      "Start ZCode when the first session needs it, not in the background once initialize is answered (env ZCODE_ACP_PREWARM=0)",
  },
  version: {
    type: "boolean",
    description: "Print the version and exit",
  },
} as const satisfies ArgsDef;

export const doctorFlags = {
  ...zcodeFlags,
  ...loggingFlags,
} as const satisfies ArgsDef;

export const upgradeFlags = {
  version: {
    type: "positional",
    description: "Version to install, e.g. 0.2.0 or v0.2.0 (default: the latest release)",
    required: false,
  },
  ...loggingFlags,
} as const satisfies ArgsDef;
