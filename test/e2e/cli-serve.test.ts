// Serve mode's fast start: initialize is answered before the ACP SDK loads,
// then the agent takes over. Whatever the editor sends, and however it is
// chunked, it sees exactly one answer per request.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, INITIALIZE_LINE, SIM_BIN } from "./cli-support.ts";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-serve-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const env = () => ({ PATH: process.env.PATH, HOME: tmp, ZCODE_BIN: SIM_BIN, ZCODE_SIM_STATE_DIR: tmp });
const line = (msg: unknown) => `${JSON.stringify(msg)}\n`;
const newSession = (id: number) => line({ jsonrpc: "2.0", id, method: "session/new", params: { cwd: tmp, mcpServers: [] } });

/** Feed `writes` (each awaited after `gapMs`), close stdin, return every stdout message. */
async function exchange(
  writes: string[],
  gapMs = 0,
  args: string[] = [],
  processEnv: Record<string, string | undefined> = env(),
): Promise<{ messages: Array<Record<string, any>>; code: number; stderr: string }> {
  const p = Bun.spawn([BRIDGE_BIN, ...args], { env: processEnv, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const out = new Response(p.stdout).text();
  for (const w of writes) {
    p.stdin.write(w);
    await p.stdin.flush();
    if (gapMs) await Bun.sleep(gapMs);
  }
  p.stdin.end();
  const [text, stderr, code] = await Promise.all([out, new Response(p.stderr).text(), p.exited]);
  clearTimeout(killer);
  const messages = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l));
  return { messages, code, stderr };
}

const responses = (ms: Array<Record<string, any>>, id: number) => ms.filter((m) => m.id === id && !("method" in m));

test("initialize then EOF: one answer, exit 0", async () => {
  const r = await exchange([INITIALIZE_LINE]);
  expect(r.messages).toHaveLength(1);
  expect(r.messages[0]?.result?.protocolVersion).toBe(1);
  expect(r.code).toBe(0);
});

test("initialize and session/new in one write: each answered exactly once, in order", async () => {
  const r = await exchange([INITIALIZE_LINE + newSession(2)]);
  expect(responses(r.messages, 1)).toHaveLength(1);
  expect(responses(r.messages, 2)).toHaveLength(1);
  expect(responses(r.messages, 2)[0]?.result?.sessionId).toBeString();
  expect(r.messages.findIndex((m) => m.id === 1)).toBeLessThan(r.messages.findIndex((m) => m.id === 2));
  expect(r.code).toBe(0);
});

test("with --trace too (the agent answers initialize itself): session/new in the same write is answered", async () => {
  const trace = join(tmp, "same-write.jsonl");
  const r = await exchange([INITIALIZE_LINE + newSession(2)], 0, ["--trace", trace]);
  expect(responses(r.messages, 1)).toHaveLength(1);
  expect(responses(r.messages, 2)[0]?.result?.sessionId).toBeString();
  expect(r.messages.findIndex((m) => m.id === 1)).toBeLessThan(r.messages.findIndex((m) => m.id === 2));
  expect(r.code).toBe(0);
  const dirs = (await Bun.file(trace).text())
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l).dir);
  expect(dirs).toContain("bridge->editor");
});

test("no ZCode anywhere and an empty HOME: initialize answers first, session/new gets the not-found fix, exit 0", async () => {
  const r = await exchange([INITIALIZE_LINE + newSession(2)], 0, [], { HOME: "" });
  expect(r.messages[0]?.id).toBe(1);
  expect(r.messages[0]?.result?.protocolVersion).toBe(1);
  const err = responses(r.messages, 2)[0]?.error;
  expect(err?.message).toContain("ZCode CLI was not found");
  expect(err?.message).toContain("ZCODE_BIN");
  expect(err?.message).toContain("zcode-acp-server doctor");
  expect(r.code).toBe(0);
});

test("the last message without a trailing newline is still answered (printf '{…}' | bridge)", async () => {
  const r = await exchange([INITIALIZE_LINE + newSession(2).trimEnd()]);
  expect(responses(r.messages, 1)).toHaveLength(1);
  expect(responses(r.messages, 2)[0]?.result?.sessionId).toBeString();
  const only = await exchange([INITIALIZE_LINE.trimEnd()]);
  expect(only.messages[0]?.result?.protocolVersion).toBe(1);
  expect(only.code).toBe(0);
});

test("initialize split across writes, then session/new later: one answer each", async () => {
  const half = Math.floor(INITIALIZE_LINE.length / 2);
  const r = await exchange([INITIALIZE_LINE.slice(0, half), INITIALIZE_LINE.slice(half), newSession(2)], 30);
  expect(responses(r.messages, 1)).toHaveLength(1);
  expect(responses(r.messages, 2)[0]?.result?.sessionId).toBeString();
});

test("the fast answer is the agent's answer (same value as after the hand-over)", async () => {
  // With --trace the agent answers initialize itself through the SDK.
  const fast = await exchange([INITIALIZE_LINE]);
  const p = Bun.spawn([BRIDGE_BIN, "--trace", join(tmp, "t.jsonl")], { env: env(), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  p.stdin.write(INITIALIZE_LINE);
  p.stdin.end();
  const slow = JSON.parse((await new Response(p.stdout).text()).split("\n")[0] as string);
  expect(await p.exited).toBe(0);
  expect(fast.messages[0]).toEqual(slow);
});

test("a first message that is not initialize goes to the SDK, which refuses it", async () => {
  const r = await exchange([newSession(7)]);
  const answer = responses(r.messages, 7)[0];
  expect(answer?.error?.code).toBe(-32600);
});

test("a first line that is not JSON gets the SDK's parse error; the bridge survives", async () => {
  const r = await exchange(["this is not json\n", INITIALIZE_LINE]);
  expect(r.messages.some((m) => m.error?.code === -32700)).toBe(true);
  expect(responses(r.messages, 1)[0]?.result?.protocolVersion).toBe(1);
  expect(r.code).toBe(0);
});

test("SIGTERM while idle after initialize (agent not loaded yet): exit 0", async () => {
  const p = Bun.spawn([BRIDGE_BIN], { env: env(), stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  p.stdin.write(INITIALIZE_LINE);
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  await reader.read();
  p.kill("SIGTERM");
  expect(await p.exited).toBe(0);
});

test("started by hand in a terminal: one line on stderr says what it is and to run doctor, then it waits; Ctrl-D ends it", async () => {
  // `script` gives the bridge a terminal for stdin, stdout and stderr (merged in what script prints).
  const p = Bun.spawn(["script", "-qec", `'${BRIDGE_BIN}' 2>&1`, "/dev/null"], {
    env: env(),
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const reader = p.stdout.getReader();
  let seen = "";
  while (!seen.includes("Ctrl-D quits.")) {
    const r = await reader.read();
    if (r.done) break;
    seen += new TextDecoder().decode(r.value);
  }
  expect(seen).toContain("zcode-acp-server is an ACP agent");
  expect(seen).toContain("`zcode-acp-server doctor`");
  // Still waiting: Ctrl-D through the terminal is the end of its stdin.
  p.stdin.write("\u0004");
  await p.stdin.flush();
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    seen += new TextDecoder().decode(r.value);
  }
  expect(await p.exited).toBe(0);
  clearTimeout(killer);
  expect(seen.match(/is an ACP agent/g)).toHaveLength(1);
});

test("from an editor's pipe: no hint on stderr", async () => {
  const r = await exchange([INITIALIZE_LINE]);
  expect(r.stderr).not.toContain("ACP agent");
});
