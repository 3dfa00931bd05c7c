import { createConsola, LogLevels, type ConsolaInstance, type LogObject } from "consola/core";
import { appendFileSync, closeSync, fchmodSync, openSync } from "node:fs";
import { redact, redactLine } from "./redact.ts";

// One logger for the whole bridge. It writes to stderr (and optionally a
// file), never to stdout: stdout carries the ACP protocol only.
//
// `consola/core` with our own reporter avoids consola's fancy reporter, which
// pulls in node:tty and node:util and costs ~20 ms of start-up.

export type LogLevelName = "silent" | "error" | "warn" | "info" | "debug" | "trace";
export const LOG_LEVEL_NAMES: readonly LogLevelName[] = ["silent", "error", "warn", "info", "debug", "trace"];

const LEVEL_VALUE: Record<LogLevelName, number> = {
  silent: LogLevels.silent,
  error: LogLevels.error,
  warn: LogLevels.warn,
  info: LogLevels.info,
  debug: LogLevels.debug,
  trace: LogLevels.trace,
};

let fileFd: number | undefined;

function format(obj: LogObject): string {
  const parts = obj.args.map((a) =>
    // Everything goes through redaction: logs end up in bug reports, and
    // strings include raw child frames and stderr lines.
    typeof a === "string" ? redactLine(a) : a instanceof Error ? redactLine(a.stack ?? a.message) : safeJson(redact(a)),
  );
  const tag = obj.tag ? `[${obj.tag}] ` : "";
  return `${obj.date.toISOString()} ${obj.type.toUpperCase()} ${tag}${parts.join(" ")}\n`;
}

function safeJson(v: unknown): string {
  try {
    return JSON.stringify(v);
  } catch {
    return String(v);
  }
}

const reporter = {
  log(obj: LogObject) {
    const line = format(obj);
    try {
      process.stderr.write(line);
    } catch {
      // stderr gone: nothing sensible left to do with a log line.
    }
    if (fileFd !== undefined) {
      try {
        appendFileSync(fileFd, line);
      } catch {
        // A full disk must not take the bridge down.
      }
    }
  },
};

const shared: ConsolaInstance = createConsola({
  level: LogLevels.warn,
  reporters: [reporter],
});

/**
 * consola copies its options, the level among them, into every logger that
 * withTag() (withDefaults, create) derives: a module that makes its tagged
 * logger at import time, before the CLI has resolved --log-level, would keep
 * the default level for good, and whether a module was imported before or
 * after setLogLevel() would decide what it logs. So every derived logger
 * reads (and sets) the level of the shared one, whenever it was made.
 */
function followSharedLevel(instance: ConsolaInstance): ConsolaInstance {
  if (instance !== shared) {
    Object.defineProperty(instance, "level", {
      get: () => shared.level,
      set: (level: number) => {
        shared.level = level;
      },
      configurable: true,
      enumerable: true,
    });
  }
  // withTag and withDefaults derive through create(): wrapping it covers them all, and their own derivations.
  const create = instance.create.bind(instance);
  instance.create = (options) => followSharedLevel(create(options));
  return instance;
}

export const log: ConsolaInstance = followSharedLevel(shared);

// Most modules make their tagged logger at import (~50 of them); consola
// builds each one whole (every log type wrapped), ~5 ms of the bridge's
// start-up for loggers most runs never call. A tagged logger is made when it
// is first used instead.
const eagerWithTag = log.withTag.bind(log);
log.withTag = (tag: string) => {
  let real: ConsolaInstance | undefined;
  const made = () => (real ??= eagerWithTag(tag));
  return new Proxy({} as ConsolaInstance, {
    get: (_target, key) => Reflect.get(made(), key),
    set: (_target, key, value) => Reflect.set(made(), key, value),
    has: (_target, key) => Reflect.has(made(), key),
  });
};

/** The level of every logger, tagged ones included, whenever they were created. */
export function setLogLevel(level: LogLevelName): void {
  shared.level = LEVEL_VALUE[level];
}

/** Also append every log line to `path`, created with mode 0600. */
export function setLogFile(path: string | undefined): void {
  if (fileFd !== undefined) {
    closeSync(fileFd);
    fileFd = undefined;
  }
  if (path) {
    fileFd = openSync(path, "a", 0o600);
    // The mode above only applies to a new file; tighten an existing one too.
    try {
      fchmodSync(fileFd, 0o600);
    } catch {
      // Not ours to chmod (e.g. /dev/stderr): keep logging anyway.
    }
  }
}

export function isLogLevel(v: string): v is LogLevelName {
  return (LOG_LEVEL_NAMES as readonly string[]).includes(v);
}
