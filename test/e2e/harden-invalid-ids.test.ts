// An invalid request whose id can be read must be answered with that id: the
// editor waits on it. The SDK answers a wrong `jsonrpc`, a non-string
// `method` and a line that is not JSON with `id: null`, so the editor's
// request hung forever. Messages without a usable id still get `id: null`,
// and responses (their id is one of ours) are never answered.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawAcpClient } from "../../scripts/bench/raw-acp-client.ts";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "harden-invalid-ids-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

// [line, the id its error answer must carry, the error code]
const ECHOED: Array<[string, string | number, number]> = [
  ['{"jsonrpc":"1.0","id":501,"method":"session/new","params":{}}', 501, -32600],
  ['{"id":502,"method":"session/new","params":{}}', 502, -32600],
  ['{"jsonrpc":2,"id":"req-503","method":"session/list"}', "req-503", -32600],
  ['{"jsonrpc":"2.0","id":504,"method":7}', 504, -32600],
  ['{"jsonrpc":"2.0","id":505,"method":"session/new","params":{"cwd":', 505, -32700],
  ['{"jsonrpc":"2.0","method":"session/list","id":"req-506",', "req-506", -32700],
  ['{"jsonrpc":"2.0","id":507,"method":"session/new","params":{"cwd":"/tmp"}} trailing junk', 507, -32700],
];
// Lines without a usable id: answered with id null (as before).
const NULL_ID = [
  '{"jsonrpc":"2.0","id":{"a":1},"method":"session/new"}',
  "not json at all",
  "[1,2]",
  "42",
  '{"jsonrpc":"1.0","method":"session/cancel"}',
];

test("invalid requests are answered with their own id when it can be read, id null otherwise; responses never", async () => {
  const client = RawAcpClient.spawn({ env: { ZCODE_SIM_STATE_DIR: tmp, ZCODE_ACP_LOG_LEVEL: "error" }, cwd: tmp });
  try {
    await client.initialize();
    for (const [line] of ECHOED) client.writeLine(line);
    for (const line of NULL_ID) client.writeLine(line);
    // A broken response to a request of ours: nothing may come back for it.
    client.writeLine('{"jsonrpc":"2.0","id":1,"result":');
    // Still serving, and everything before it has been answered.
    expect(await client.request("authenticate", { methodId: "zcode-app" })).toEqual({});
    // After EOF and the exit, every answer the bridge will give is in.
    expect(await client.close()).toBe(0);
    const answers = client.messages.filter((m) => m.method === undefined);
    for (const [line, id, code] of ECHOED) {
      const a = answers.filter((m) => m.id === id);
      expect({ line, answers: a.length, code: a[0]?.error?.code }).toEqual({ line, answers: 1, code });
    }
    // The broken response is not JSON: it gets JSON-RPC's parse error with id null, never its own id.
    expect(answers.filter((m) => m.id === null).length).toBe(NULL_ID.length + 1);
    // id 1 is the initialize answer, and only that.
    expect(answers.filter((m) => m.id === 1).length).toBe(1);
    expect(client.junk).toEqual([]);
  } finally {
    expect(await client.close()).toBe(0);
  }
}, 30_000);

test("the same on the first line, before the agent has loaded (the fast path hands it over)", async () => {
  const client = RawAcpClient.spawn({ env: { ZCODE_SIM_STATE_DIR: tmp, ZCODE_ACP_LOG_LEVEL: "error" }, cwd: tmp });
  try {
    client.writeLine('{"jsonrpc":"1.0","id":"first","method":"initialize","params":{"protocolVersion":1}}');
    await client.waitFor(() => client.messages.some((m) => m.id === "first"), "the answer to the first line");
    expect(client.messages.find((m) => m.id === "first")?.error?.code).toBe(-32600);
    expect((await client.initialize()).protocolVersion).toBe(1);
  } finally {
    expect(await client.close()).toBe(0);
  }
}, 30_000);
