import { log } from "../log.ts";

/**
 * Serve mode only: a promise rejection nobody handled is a bug, but under Bun
 * it ends the process (exit 1), which kills the editor's agent mid-session
 * over something that was, by definition, not being waited on. Log it (so it
 * gets reported) and keep serving.
 */
export function logStrayRejections(): void {
  process.on("unhandledRejection", (reason) => {
    log.error("internal error (an unhandled promise rejection; please report it):", reason);
  });
}
