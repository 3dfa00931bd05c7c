// The fast path (initialize answered by the CLI before the SDK loads) must
// answer exactly what the agent answers. --trace forces the agent path (the
// trace must record the agent's own answer), so every first line below is
// sent to both and the bytes on stdout compared. The second line
// (authenticate, which needs no ZCode) shows whether the connection ended up
// initialized: a wrong success on the fast path leaves it uninitialized, and
// every later request fails with "must be initialized".
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN } from "./cli-support.ts";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "harden-initialize-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const init = (params: unknown, id: unknown = 1, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "initialize", params, ...extra });

const FIRST_LINES: Record<string, string> = {
  "a plain initialize": init({ protocolVersion: 1, clientCapabilities: {} }),
  "a protocol version the SDK refuses (70000)": init({ protocolVersion: 70000 }),
  "a protocol version beyond safe integers (1e20)": init({ protocolVersion: 1e20 }),
  "an id that parses to Infinity": init({ protocolVersion: 1 }).replace('"id":1', '"id":1e400'),
  "a newer protocol version (2)": init({ protocolVersion: 2 }),
  "the highest protocol version (65535)": init({ protocolVersion: 65535 }),
  "protocol version as a string": init({ protocolVersion: "1" }),
  "a negative protocol version": init({ protocolVersion: -1 }),
  "a fractional protocol version": init({ protocolVersion: 1.5 }),
  "no params": JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize" }),
  "params as an array": init([1]),
  "junk client capabilities": init({ protocolVersion: 1, clientCapabilities: { fs: 5, terminal: "yes" } }),
  "client capabilities as a number": init({ protocolVersion: 1, clientCapabilities: 5 }),
  "a string id and unknown fields": init({ protocolVersion: 1, somethingNew: { a: 1 } }, "init-1", { extra: true }),
  "a wrong jsonrpc version": init({ protocolVersion: 1 }).replace('"2.0"', '"1.0"'),
  "CRLF line end": `${init({ protocolVersion: 1 })}\r`,
  "leading whitespace": `   ${init({ protocolVersion: 1 })}`,
  "not JSON": "{initialize",
};

const AUTH = JSON.stringify({ jsonrpc: "2.0", id: 2, method: "authenticate", params: { methodId: "zcode-app" } });

async function answers(firstLine: string, args: string[]): Promise<string> {
  const p = Bun.spawn([BRIDGE_BIN, ...args], {
    env: { PATH: process.env.PATH, HOME: tmp },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  p.stdin.write(`${firstLine}\n${AUTH}\n`);
  p.stdin.end();
  const [out] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(killer);
  return out;
}

for (const [name, line] of Object.entries(FIRST_LINES)) {
  test(`first line, ${name}: the fast path answers what the agent answers`, async () => {
    const trace = join(tmp, `${name.replace(/\W+/g, "-")}.jsonl`);
    const [fast, agent] = await Promise.all([answers(line, []), answers(line, ["--trace", trace])]);
    expect(agent.split("\n").filter(Boolean).length).toBeGreaterThan(0);
    expect(fast).toBe(agent);
  }, 30_000);
}

test("after a refused initialize, a good one initializes the connection (fast path)", async () => {
  const p = Bun.spawn([BRIDGE_BIN], { env: { PATH: process.env.PATH, HOME: tmp }, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  p.stdin.write(`${init({ protocolVersion: 70000 })}\n${init({ protocolVersion: 1 }, 3)}\n`);
  await p.stdin.flush();
  // As an editor does: the next request only once initialize has answered.
  let text = "";
  const dec = new TextDecoder();
  const reader = p.stdout.getReader();
  while (!text.includes('"id":3,')) {
    const r = await reader.read();
    if (r.done) break;
    text += dec.decode(r.value, { stream: true });
  }
  p.stdin.write(`${AUTH}\n`);
  p.stdin.end();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    text += dec.decode(r.value, { stream: true });
  }
  expect(await p.exited).toBe(0);
  clearTimeout(killer);
  const out = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  expect(out.find((m) => m.id === 1)?.error?.code).toBe(-32602);
  expect(out.find((m) => m.id === 3)?.result?.protocolVersion).toBe(1);
  expect(out.find((m) => m.id === 2)?.result).toEqual({});
});
