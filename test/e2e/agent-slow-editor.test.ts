// An editor that reads slower than ZCode writes: the bridge merges
// consecutive updates of one message (or one tool call) while a notification
// is pending, so nothing is lost, order is kept, and fewer updates go out.
// The editor here reads nothing until the bridge has had the whole turn.
import { expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, SIM_BIN } from "../support/acp-harness.ts";
import { pollUntil } from "../support/poll.ts";

/** The bridge over raw pipes, so the test decides when stdout is read. */
async function slowEditor(clientCapabilities: object, prompt: string, check: (seen: any[]) => void): Promise<void> {
  const stateDir = mkdtempSync(join(tmpdir(), "zcode-sim-state-"));
  const record = join(stateDir, "record.jsonl");
  /** Methods the simulator received, in order. */
  const simMethods = (): string[] =>
    existsSync(record)
      ? readFileSync(record, "utf8")
          .split("\n")
          .filter(Boolean)
          .map((l) => /"method":"([^"]+)"/.exec(JSON.parse(l).line)?.[1] ?? "")
      : [];
  const proc = Bun.spawn([BRIDGE_BIN], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
    cwd: stateDir,
    env: { ...process.env, ZCODE_BIN: SIM_BIN, ZCODE_SIM_STATE_DIR: stateDir, ZCODE_SIM_RECORD: record, ZCODE_ACP_LOG_LEVEL: "error" },
  });
  const send = async (msg: object) => {
    proc.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", ...msg })}\n`);
    await proc.stdin.flush();
  };
  const reader = proc.stdout.getReader();
  const dec = new TextDecoder();
  let buf = "";
  const next = async (): Promise<any> => {
    for (;;) {
      const nl = buf.indexOf("\n");
      if (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        return JSON.parse(line);
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("bridge closed stdout");
      buf += dec.decode(value, { stream: true });
    }
  };
  const until = async (pred: (m: any) => boolean) => {
    const seen: any[] = [];
    for (;;) {
      const m = await next();
      seen.push(m);
      if (pred(m)) return seen;
    }
  };
  try {
    await send({ id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities } });
    await until((m) => m.id === 1);
    await send({ id: 2, method: "session/new", params: { cwd: stateDir, mcpServers: [] } });
    const sessionId = (await until((m) => m.id === 2)).at(-1).result.sessionId;
    await send({ id: 3, method: "session/prompt", params: { sessionId, prompt: [{ type: "text", text: prompt }] } });
    // Read nothing until the bridge has had the whole turn from ZCode (its
    // session/read after the turn's end): meanwhile the pipe fills and every
    // update behind the one in flight has to queue, and merge.
    const readAfterTurn = () => simMethods().slice(simMethods().lastIndexOf("session/send")).includes("session/read");
    if (!(await pollUntil(readAfterTurn, 20_000))) throw new Error("the bridge never read the session after the turn");
    const seen = await until((m) => m.id === 3);
    expect(seen.at(-1).result.stopReason).toBe("end_turn");
    check(seen.filter((m) => m.method === "session/update").map((m) => m.params.update));
  } finally {
    reader.releaseLock();
    proc.stdin.end();
    await proc.exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
}

function inOrder(text: string, n: number, item: (i: number) => string): void {
  let pos = 0;
  for (let i = 0; i < n; i++) {
    const at = text.indexOf(item(i), pos);
    if (at < pos) throw new Error(`${item(i)} missing or out of order`);
    pos = at + 1;
  }
}

test("text deltas: every one arrives, in order, merged into far fewer chunks", async () => {
  const n = 20_000;
  await slowEditor({}, `#scenario:flood n=${n} size=64`, (updates) => {
    const chunks = updates.filter((u) => u.sessionUpdate === "agent_message_chunk");
    const text = chunks.map((u) => u.content.text).join("");
    inOrder(text, n, (i) => `${i}:`);
    expect(Buffer.byteLength(text)).toBeGreaterThanOrEqual(n * 60);
    expect(chunks.length).toBeLessThan(n / 10);
    expect(new Set(chunks.map((u) => u.messageId)).size).toBe(1);
  });
}, 30_000);

test("terminal output of a chatty command: data appended, nothing lost, exit on its own", async () => {
  const n = 5_000;
  await slowEditor({ _meta: { terminal_output: true } }, `#scenario:flood-tools n=${n}`, (updates) => {
    const tool = updates.filter((u) => u.sessionUpdate === "tool_call_update");
    const data = tool.map((u) => u._meta?.terminal_output?.data ?? "").join("");
    inOrder(data, n, (i) => `line ${i} of build output\n`);
    // ZCode's progress events are large (4 KiB tails and preview each), so the
    // bridge parses them slower than text deltas and more go out before the
    // pipe fills (900-1,400 here), still far fewer than the n a bridge that
    // does not merge would send. The exact bound (one update per editor read)
    // is update-sink.timing.test.ts's.
    expect(tool.length).toBeLessThan(n / 2);
    const exits = tool.filter((u) => u._meta?.terminal_exit);
    expect(exits.length).toBe(1);
    expect(Object.keys(exits[0]._meta)).toEqual(["terminal_exit"]);
    expect(tool.at(-1)?.status ?? tool.findLast((u: any) => u.status)?.status).toBe("completed");
  });
}, 30_000);
