// Profile-guided bytecode layout for the bridge (Bun's --bytecode-order).
//
// A bytecode build of the bridge runs one ordinary editor session against the
// ZCode simulator with BUN_BYTECODE_ORDER_OUT set; the functions that session
// used are written out when it exits, and the next build places their
// bytecode together at the front of the executable. Start-up then reads and
// decodes less of the file: ~2 MB less resident memory after session/new
// (scripts/bench/startup.ts). The profile is recorded afresh by every build
// (about a second), so it never goes stale; it holds hashes, no source.
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawAcpClient } from "./bench/raw-acp-client.ts";

/**
 * Runs `bridge` (a bytecode build) for one session with `sim` as ZCode and
 * returns the path of the profile it wrote (in a temp dir the caller removes
 * with `cleanup`).
 */
export async function recordBytecodeOrder(bridge: string, sim: string): Promise<{ file: string; cleanup: () => void }> {
  const dir = mkdtempSync(join(tmpdir(), "zcode-acp-order-"));
  const cleanup = () => rmSync(dir, { recursive: true, force: true });
  try {
    const c = RawAcpClient.spawn({
      cmd: [bridge],
      keep: false,
      env: {
        PATH: process.env.PATH,
        HOME: dir,
        ZCODE_BIN: sim,
        ZCODE_SIM_STATE_DIR: dir,
        ZCODE_SIM_DELAY_MS: "1",
        // %p: the simulator (a Bun binary too) writes its own file beside it.
        BUN_BYTECODE_ORDER_OUT: join(dir, "order-%p"),
      },
    });
    // What an editor does first: the path start-up takes.
    await c.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
    await c.request("authenticate", { methodId: "zcode-app" });
    const sessionId = await c.newSession(dir);
    await c.prompt(sessionId, "hello");
    await c.request("session/list", {});
    const code = await c.close();
    const file = join(dir, `order-${c.pid}`);
    if (code !== 0 || !existsSync(file))
      throw new Error(`the recording session ended with ${code} and no profile${c.stderr ? `: ${c.stderr.slice(-500)}` : ""}`);
    return { file, cleanup };
  } catch (e) {
    cleanup();
    throw e;
  }
}
