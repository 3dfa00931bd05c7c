// Message size from the editor. A line over the SDK's own limit (32 MiB) used
// to end the bridge (exit 0, nothing answered, nothing logged) with every
// session in it. Now the limit is ours (--max-message-bytes, 80 MiB by
// default, so prompts with large attachments fit), a request over it gets an
// error for its id, and the bridge goes on serving; memory stays bounded
// however long the line is.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AS_SHIPPED } from "../../scripts/allocator-env.ts";
import { RawAcpClient, rssMB, type JsonRpcMessage } from "../../scripts/bench/raw-acp-client.ts";
import { BRIDGE_BIN } from "./cli-support.ts";

const MiB = 1024 * 1024;
let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "harden-stdin-limits-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function spawn(env: Record<string, string | undefined> = {}): RawAcpClient {
  return RawAcpClient.spawn({
    env: { ZCODE_SIM_STATE_DIR: tmp, ZCODE_SIM_DELAY_MS: "1", ZCODE_ACP_LOG_LEVEL: "warn", ...env },
    cwd: tmp,
  });
}

/** A session/prompt line of about `bytes` bytes, `id` first as clients write it. */
function bigPrompt(id: number | string, sessionId: string, bytes: number): string {
  const frame = { jsonrpc: "2.0", id, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: "" }] } };
  const shell = JSON.stringify(frame);
  return shell.replace('"text":""', `"text":"${"a".repeat(Math.max(0, bytes - shell.length))}"`);
}

/** Writes a large string in slices, waiting for the pipe to take each one. */
async function writeLarge(client: RawAcpClient, text: string): Promise<void> {
  for (let off = 0; off < text.length; off += 4 * MiB) {
    client.proc.stdin.write(text.slice(off, off + 4 * MiB));
    await client.proc.stdin.flush();
  }
}

const answerTo = (client: RawAcpClient, id: number | string): JsonRpcMessage | undefined =>
  client.messages.find((m) => m.id === id && m.method === undefined);

test("a request over the 80 MiB default gets an error for its id; the bridge and its session go on", async () => {
  const client = spawn();
  try {
    await client.initialize();
    const sessionId = await client.newSession(tmp);
    await writeLarge(client, `${bigPrompt("too-big", sessionId, 81 * MiB)}\n`);
    await client.waitFor(() => answerTo(client, "too-big") !== undefined, "the answer to the oversized request", 20_000);
    const err = answerTo(client, "too-big")!.error;
    expect(err?.code).toBe(-32600);
    expect(err?.message).toContain("83886080");
    expect(err?.message).toContain("--max-message-bytes");
    expect(client.stderr).toContain("over the 83886080-byte limit");
    // The same session still works.
    const r = await client.prompt(sessionId, "hello after the big one");
    expect(r.stopReason).toBe("end_turn");
    expect(client.proc.exitCode).toBeNull();
  } finally {
    expect(await client.close()).toBe(0);
  }
}, 60_000);

test("a 40 MiB prompt (over the SDK's own 32 MiB) is read and handled", async () => {
  const client = spawn();
  try {
    await client.initialize();
    await writeLarge(client, `${bigPrompt(77, "sess_unknown", 40 * MiB)}\n`);
    await client.waitFor(() => answerTo(client, 77) !== undefined, "the answer to the 40 MiB prompt", 20_000);
    // Parsed and dispatched: the handler looked the session up.
    expect(answerTo(client, 77)!.error?.code).toBe(-32002);
    expect(await client.request("authenticate", { methodId: "zcode-app" })).toEqual({});
  } finally {
    expect(await client.close()).toBe(0);
  }
}, 60_000);

test("memory stays bounded while a 256 MiB line is skipped (limit lowered to 1 MiB)", async () => {
  const client = spawn({ ...AS_SHIPPED, ZCODE_ACP_MAX_MESSAGE_BYTES: String(MiB) }); // its RSS is measured
  let maxRss = 0;
  const sampler = setInterval(() => (maxRss = Math.max(maxRss, rssMB(client.pid) ?? 0)), 25);
  try {
    await client.initialize();
    const head = `{"jsonrpc":"2.0","id":"huge","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"`;
    client.writeRaw(head);
    const block = "b".repeat(MiB);
    for (let i = 0; i < 256; i++) {
      client.proc.stdin.write(block);
      await client.proc.stdin.flush();
    }
    client.writeRaw('"}]}}\n');
    await client.waitFor(() => answerTo(client, "huge") !== undefined, "the answer to the 256 MiB request", 30_000);
    expect(answerTo(client, "huge")!.error?.message).toContain("over zcode-acp-server's limit of 1048576 bytes");
    expect(await client.request("authenticate", { methodId: "zcode-app" })).toEqual({});
  } finally {
    clearInterval(sampler);
    expect(await client.close()).toBe(0);
  }
  console.log(`bridge max RSS while skipping 256 MiB: ${maxRss.toFixed(0)} MB`);
  // Buffering the line would take 256 MB and more; the bridge idles near 50 MB.
  expect(maxRss).toBeGreaterThan(0);
  expect(maxRss).toBeLessThan(160);
}, 60_000);

test("exactly at the limit is accepted, one byte over is refused", async () => {
  const limit = 64 * 1024;
  const client = spawn({ ZCODE_ACP_MAX_MESSAGE_BYTES: String(limit) });
  try {
    await client.initialize();
    const at = bigPrompt(1001, "sess_unknown", limit);
    const over = bigPrompt(1002, "sess_unknown", limit + 1);
    expect([Buffer.byteLength(at), Buffer.byteLength(over)]).toEqual([limit, limit + 1]);
    client.writeRaw(`${at}\n${over}\r\n`);
    await client.waitFor(() => answerTo(client, 1001) !== undefined && answerTo(client, 1002) !== undefined, "both answers");
    expect(answerTo(client, 1001)!.error?.code).toBe(-32002);
    expect(answerTo(client, 1002)!.error?.code).toBe(-32600);
  } finally {
    expect(await client.close()).toBe(0);
  }
}, 30_000);

test("an oversized line whose id cannot be read at its start is skipped with a log line; an oversized response is never answered", async () => {
  const client = spawn({ ZCODE_ACP_MAX_MESSAGE_BYTES: String(64 * 1024) });
  try {
    await client.initialize();
    const pad = "c".repeat(100 * 1024);
    // params before id: the id is past what is read of the line.
    client.writeLine(
      `{"jsonrpc":"2.0","method":"session/prompt","params":{"sessionId":"s","prompt":[{"type":"text","text":"${pad}"}]},"id":555}`,
    );
    // A response (its id is one of the bridge's own): answering it would hit
    // an editor request with the same number.
    client.writeLine(`{"jsonrpc":"2.0","id":1,"result":{"content":"${pad}"}}`);
    expect(await client.request("authenticate", { methodId: "zcode-app" })).toEqual({});
    // After EOF and the exit, every answer and log line the bridge will give is in.
    expect(await client.close()).toBe(0);
    expect(answerTo(client, 555)).toBeUndefined();
    // id 1 is the initialize answer, and only that.
    expect(client.messages.filter((m) => m.id === 1).length).toBe(1);
    expect(client.stderr).toContain("no request id at its start to answer");
  } finally {
    expect(await client.close()).toBe(0);
  }
}, 30_000);

test("--max-message-bytes: a good value is taken, a bad one is a usage error naming the flag", async () => {
  const good = Bun.spawn([BRIDGE_BIN, "--max-message-bytes", "1048576"], { stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  good.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`);
  good.stdin.end();
  const [out, goodCode] = await Promise.all([new Response(good.stdout).text(), good.exited]);
  expect(goodCode).toBe(0);
  expect(JSON.parse(out).result.protocolVersion).toBe(1);

  const bad = Bun.spawn([BRIDGE_BIN, "--max-message-bytes", "12"], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(bad.stderr).text(), bad.exited]);
  expect(code).toBe(2);
  expect(err).toContain("--max-message-bytes: '12' is not a byte count");
});
