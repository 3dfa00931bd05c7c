import type { BridgeConfig } from "../config.ts";
import { log } from "../log.ts";
import { ZCodeConnection } from "../zcode/connection.ts";

// The ZCode CLI is a large Node program that takes hundreds of milliseconds to
// boot. Started when session/new arrives, all of that boot is added to the
// first session; started once initialize is answered, it overlaps with the
// agent's loading and with the editor's own work before session/new.
//
// Nothing depends on this succeeding: a background start that fails (no ZCode
// installed, a CLI too old, one that dies at boot) is only logged, and the
// request that needs a child starts one as before and reports the error as
// before. The connection belongs to the agent from then on, and its shutdown
// (stdin EOF, a signal, stdout gone) stops the child like any other.

export function prewarmZCode(config: BridgeConfig): ZCodeConnection {
  const conn = new ZCodeConnection(config);
  conn.start().then(
    (info) => log.debug(`ZCode ${info.version} started ahead of the first session (pid ${info.pid})`),
    (e: unknown) => log.debug(`ZCode did not start ahead of the first session; it is started again when needed: ${(e as Error).message}`),
  );
  return conn;
}
