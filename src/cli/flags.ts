import type { ArgsDef } from "citty";
import { cli } from "../i18n/en/cli.ts";

// Flag definitions, one table per command: names, types and value hints are
// what the strict parser (strict-args.ts) checks against. The descriptions
// are written once, in the message tables (src/i18n/<lang>/cli.ts): English
// here for citty's types, and main.ts swaps in the language in use when it
// renders --help.

const described = cli.flags;

export const loggingFlags = {
  "log-level": {
    type: "string",
    description: described["log-level"],
    valueHint: "level",
  },
  "log-file": {
    type: "string",
    description: described["log-file"],
    valueHint: "path",
  },
} as const satisfies ArgsDef;

export const languageFlags = {
  lang: {
    type: "string",
    description: described.lang,
    valueHint: "zh|en",
  },
} as const satisfies ArgsDef;

export const zcodeFlags = {
  "zcode-bin": {
    type: "string",
    description: described["zcode-bin"],
    valueHint: "path",
  },
  "zcode-node": {
    type: "string",
    description: described["zcode-node"],
    valueHint: "path",
  },
  "zcode-protocol": {
    type: "string",
    description: described["zcode-protocol"],
    valueHint: "auto|legacy|v4",
  },
} as const satisfies ArgsDef;

export const serveFlags = {
  ...zcodeFlags,
  ...loggingFlags,
  ...languageFlags,
  mode: {
    type: "string",
    description: described.mode,
    valueHint: "mode",
  },
  model: {
    type: "string",
    description: described.model,
    valueHint: "model",
  },
  trace: {
    type: "string",
    description: described.trace,
    valueHint: "file",
  },
  "auto-compact": {
    type: "string",
    description: described["auto-compact"],
    valueHint: "tokens|percent%",
  },
  "no-app-history": {
    type: "boolean",
    description: described["no-app-history"],
  },
  "no-quota-push": {
    type: "boolean",
    description: described["no-quota-push"],
  },
  "max-line-bytes": {
    type: "string",
    description: described["max-line-bytes"],
    valueHint: "bytes",
  },
  "max-message-bytes": {
    type: "string",
    description: described["max-message-bytes"],
    valueHint: "bytes",
  },
  "no-prewarm": {
    type: "boolean",
    description: described["no-prewarm"],
  },
  version: {
    type: "boolean",
    description: described.version,
  },
} as const satisfies ArgsDef;

export const doctorFlags = {
  ...zcodeFlags,
  ...loggingFlags,
  ...languageFlags,
} as const satisfies ArgsDef;

export const upgradeFlags = {
  version: {
    type: "positional",
    description: cli.arguments.version,
    required: false,
  },
  ...loggingFlags,
  ...languageFlags,
} as const satisfies ArgsDef;
