import { log } from "../log.ts";
import { LogLimiter } from "../zcode/log-limit.ts";

// Serve mode: the ACP SDK (and any other dependency) reports problems with
// console.error / console.warn, straight to stderr, unformatted, ignoring
// --log-level, and as often as a misbehaving editor makes it (one line per
// stray response). console.log would even write to stdout, into the protocol.
// Every console method goes through our logger instead: level, format, log
// file and redaction apply, and a flood is cut to a per-second budget.

type ConsoleMethod = "error" | "warn" | "info" | "log" | "debug" | "trace";
type LogMethod = "error" | "warn" | "info" | "debug";

const ROUTES: Record<ConsoleMethod, LogMethod> = {
  error: "error",
  warn: "warn",
  info: "info",
  log: "info",
  debug: "debug",
  trace: "debug",
};

/** Routes the console to the log; returns a function that puts it back (for tests). */
export function routeConsoleToLog(linesPerSecond = 20): () => void {
  const logger = log.withTag("console");
  const limiter = new LogLimiter(linesPerSecond, (n) => logger.warn(`suppressed ${n} console lines (more than ${linesPerSecond}/s)`));
  const saved = new Map<ConsoleMethod, (...args: unknown[]) => void>();
  for (const [method, level] of Object.entries(ROUTES) as [ConsoleMethod, LogMethod][]) {
    saved.set(method, console[method]);
    console[method] = (...args: unknown[]) => {
      if (limiter.allow()) logger[level](...(args as [unknown, ...unknown[]]));
    };
  }
  return () => {
    for (const [method, fn] of saved) console[method] = fn;
  };
}
