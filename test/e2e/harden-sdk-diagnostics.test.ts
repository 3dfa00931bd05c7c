// The ACP SDK reports what it dislikes with console.error / console.warn
// (for example one "Got response to unknown request" per stray response).
// Those lines must obey --log-level, carry the log's format (and go to the
// log file), and be rate-limited: an editor sending junk must not flood the
// editor's agent log.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN } from "./cli-support.ts";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "harden-sdk-diag-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const INIT = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`;
const stray = (i: number) => `${JSON.stringify({ jsonrpc: "2.0", id: 900_000 + i, result: {} })}\n`;

const BARRIER = `${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "authenticate", params: { methodId: "zcode-app" } })}\n`;

/** initialize, then `n` responses to requests the bridge never sent, then EOF. */
async function strays(n: number, args: string[]): Promise<{ stderr: string; stdout: string; code: number }> {
  const p = Bun.spawn([BRIDGE_BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: tmp },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const reader = p.stdout.getReader();
  const dec = new TextDecoder();
  let stdout = "";
  /** Reads stdout until `done` holds or it ends. */
  const readUntil = async (done: () => boolean) => {
    while (!done()) {
      const r = await reader.read();
      if (r.done) return;
      stdout += dec.decode(r.value, { stream: true });
    }
  };
  const err = new Response(p.stderr).text();
  p.stdin.write(INIT);
  await p.stdin.flush();
  // The agent (and with it the SDK) loads when a second message arrives.
  let body = "";
  for (let i = 0; i < n; i++) body += stray(i);
  p.stdin.write(body + BARRIER);
  await p.stdin.flush();
  // The SDK has seen them all once the request behind them is answered (stdin is read in order); then EOF.
  await readUntil(() => stdout.includes('"id":2'));
  p.stdin.end();
  const [, stderr, code] = await Promise.all([readUntil(() => false), err, p.exited]);
  clearTimeout(killer);
  return { stdout, stderr, code };
}

test("--log-level silent: the SDK's complaints do not reach stderr", async () => {
  const r = await strays(5, ["--log-level", "silent"]);
  expect(r.stderr).toBe("");
  expect(r.code).toBe(0);
});

test("at the default level they are log lines in our format, also in the log file, and a flood is cut", async () => {
  const logFile = join(tmp, "bridge.log");
  const r = await strays(500, ["--log-file", logFile]);
  const lines = r.stderr.split("\n").filter((l) => l.includes("unknown request"));
  expect(lines.length).toBeGreaterThan(0);
  for (const l of lines) expect(l).toMatch(/^\d{4}-\d\d-\d\dT[\d:.]+Z (ERROR|WARN) \[console\] /);
  // 20 a second; the run takes well under 5 s.
  expect(lines.length).toBeLessThan(100);
  expect(readFileSync(logFile, "utf8")).toContain("unknown request");
  // Nothing of it on stdout: that is the protocol.
  for (const l of r.stdout.split("\n").filter(Boolean)) expect(() => JSON.parse(l)).not.toThrow();
  expect(r.code).toBe(0);
});
