// A `.env` in the editor's working directory (the user's project) must not
// reach the bridge's settings nor the ZCode child's environment: the binary is
// built with --no-compile-autoload-dotenv.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, SIM_BIN } from "./cli-support.ts";

let project: string;
let leak: string;

beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "zcode-acp-dotenv-"));
  leak = join(project, "leak.jsonl");
  writeFileSync(
    join(project, ".env"),
    [
      // Would make the bridge refuse to start (exit 2) if loaded.
      "ZCODE_ACP_LOG_LEVEL=not-a-level",
      "ZCODE_ACP_MODE=not a mode",
      // Would make the simulator (our child) record every frame to this file.
      `ZCODE_SIM_RECORD=${leak}`,
      "",
    ].join("\n"),
  );
  writeFileSync(join(project, "bunfig.toml"), '[run]\npreload = ["./nonexistent-preload.ts"]\n');
});
afterAll(() => rmSync(project, { recursive: true, force: true }));

/** initialize + session/new (which starts the ZCode child) from `cwd`. */
async function session(cwd: string, env: Record<string, string | undefined>) {
  const p = Bun.spawn([BRIDGE_BIN], { cwd, env, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const send = (msg: unknown) => p.stdin.write(`${JSON.stringify(msg)}\n`);
  const reader = p.stdout.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const waitFor = async (id: number) => {
    for (;;) {
      for (const line of buf.split("\n")) {
        if (!line.trim()) continue;
        const m = JSON.parse(line);
        if (m.id === id && !("method" in m)) return m;
      }
      const { value, done } = await reader.read();
      if (done) throw new Error(`stdout closed before response ${id}; stderr: ${await new Response(p.stderr).text()}`);
      buf += dec.decode(value, { stream: true });
    }
  };
  send({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } });
  await p.stdin.flush();
  const init = await waitFor(1);
  send({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd, mcpServers: [] } });
  await p.stdin.flush();
  const created = await waitFor(2);
  reader.releaseLock();
  p.stdin.end();
  const code = await p.exited;
  clearTimeout(killer);
  return { init, created, code };
}

test("a .env (and bunfig.toml) in the working directory changes neither the bridge nor the child", async () => {
  const stateDir = mkdtempSync(join(tmpdir(), "zcode-acp-dotenv-state-"));
  try {
    const env = { PATH: process.env.PATH, HOME: project, ZCODE_BIN: SIM_BIN, ZCODE_SIM_STATE_DIR: stateDir };
    const r = await session(project, env);
    expect(r.init.result.protocolVersion).toBe(1);
    expect(r.created.result?.sessionId).toBeString();
    expect(r.code).toBe(0);
    expect(existsSync(leak)).toBe(false);

    // Control: the same variable set for real does reach the child, so the
    // assertion above can fail.
    const r2 = await session(project, { ...env, ZCODE_SIM_RECORD: leak });
    expect(r2.created.result?.sessionId).toBeString();
    expect(existsSync(leak)).toBe(true);
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
});
