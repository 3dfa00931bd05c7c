// Fuzzing the editor side: random bytes, random JSON and random JSON-RPC
// frames written raw into the bridge's stdin (not through the SDK client, so
// nothing is cleaned up on the way). Fixed seeds, printed, so a failure
// reproduces. The bridge must never crash, must still answer a valid
// initialize, and must answer every request that has a valid id exactly once
// (result or error).
import { describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN, RawAcpClient, type JsonRpcMessage } from "../../scripts/bench/raw-acp-client.ts";
import { rng } from "../simulator/fuzz.ts";

const SEEDS = [1, 7, 20261202];
const FRAMES = 2000;

const METHODS = [
  "initialize",
  "authenticate",
  "session/new",
  "session/load",
  "session/resume",
  "session/list",
  "session/close",
  "session/fork",
  "session/prompt",
  "session/set_mode",
  "session/set_config_option",
  "session/cancel",
  "$/cancel_request",
  "fs/read_text_file",
  "unknown/method",
  "",
  "💥",
];
const WORDS = ["sessionId", "cwd", "prompt", "mcpServers", "protocolVersion", "text", "type", "_meta", "id", "method", "\u0000", "\\", '"'];

class Fuzzer {
  private readonly r: () => number;
  private nextId = 1;
  constructor(
    seed: number,
    private readonly cwd: string,
  ) {
    this.r = rng(seed);
  }
  int(n: number): number {
    return Math.floor(this.r() * n);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
  chance(p: number): boolean {
    return this.r() < p;
  }
  str(max = 30): string {
    let s = "";
    for (let i = this.int(max); i > 0; i--) {
      const k = this.int(10);
      s += k < 6 ? String.fromCharCode(32 + this.int(95)) : k < 8 ? this.pick(WORDS) : String.fromCodePoint(0x80 + this.int(0x2ff00));
    }
    return s;
  }
  value(depth = 0): unknown {
    switch (this.int(depth > 2 ? 6 : 9)) {
      case 0:
        return null;
      case 1:
        return this.chance(0.5);
      case 2:
        return this.pick([1e308, -1, 0.5, 2 ** 64, Number.MAX_SAFE_INTEGER]);
      case 3:
        return this.int(1000);
      case 4:
        return this.str();
      case 5:
        return this.pick([this.cwd, "relative/path", "/", "sess_nope", ""]);
      case 6:
        return Array.from({ length: this.int(4) }, () => this.value(depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = this.int(5); i > 0; i--) o[this.pick([...WORDS, this.str(6)])] = this.value(depth + 1);
        return o;
      }
    }
  }
  /** Params that are sometimes almost right, so handlers get past the first check. */
  params(method: string): unknown {
    if (this.chance(0.3)) return this.value();
    switch (method) {
      case "session/new":
        return { cwd: this.pick([this.cwd, "rel", 5]), mcpServers: this.pick([[], this.value(), undefined]) };
      case "session/prompt":
        return {
          sessionId: this.pick(["sess_nope", this.str(8)]),
          prompt: this.pick([[{ type: "text", text: this.str() }], [{ type: "image", data: "x" }], this.value()]),
        };
      case "initialize":
        return { protocolVersion: this.pick([1, 2, "1", null]), clientCapabilities: this.value() };
      default:
        return { sessionId: this.pick(["sess_nope", this.str(8), 3]), ...(this.value() as object) };
    }
  }
  /** One line to write, and the id of the request it is (if the bridge owes an answer). */
  line(): { line: string | Uint8Array; id?: number | string } {
    switch (this.int(10)) {
      case 0: {
        const b = new Uint8Array(1 + this.int(120));
        for (let i = 0; i < b.length; i++) b[i] = this.int(256);
        return { line: b.map((x) => (x === 10 ? 0xfe : x)) };
      }
      case 1:
        return { line: this.str(80) };
      case 2:
        return { line: JSON.stringify(this.value()) };
      case 3:
        // A response to something the bridge never asked.
        return { line: JSON.stringify({ jsonrpc: "2.0", id: this.pick([999_999, "stray", null]), result: this.value() }) };
      case 4: {
        // A notification (no answer owed).
        const method = this.pick(METHODS);
        return { line: JSON.stringify({ jsonrpc: "2.0", method, params: this.params(method) }) };
      }
      case 5: {
        // A request with a broken envelope: wrong jsonrpc, weird ids.
        const method = this.pick(METHODS);
        const frame: Record<string, unknown> = {
          jsonrpc: this.pick(["1.0", undefined, 2]),
          id: this.pick([{ a: 1 }, [1], true, 1.5]),
          method,
          params: this.params(method),
        };
        return { line: JSON.stringify(frame) };
      }
      default: {
        // A well-formed request with a unique id: it must be answered once.
        const method = this.pick(METHODS.filter((m) => m !== "session/cancel" && m !== "$/cancel_request"));
        const id = this.chance(0.5) ? 100_000 + this.nextId++ : `fz-${this.nextId++}`;
        const frame: Record<string, unknown> = { jsonrpc: "2.0", id, method };
        if (this.chance(0.9)) frame.params = this.params(method);
        return { line: JSON.stringify(frame), id };
      }
    }
  }
}

function responsesById(messages: JsonRpcMessage[]): Map<string, number> {
  const m = new Map<string, number>();
  for (const msg of messages) {
    if (msg.method === undefined && msg.id !== undefined && msg.id !== null) {
      const k = JSON.stringify(msg.id);
      m.set(k, (m.get(k) ?? 0) + 1);
    }
  }
  return m;
}

describe("fuzz: random input on the bridge's stdin", () => {
  for (const seed of SEEDS) {
    test(`seed ${seed}`, async () => {
      console.log(`fuzz-stdin seed=${seed} (re-run: bun test test/e2e/fuzz-stdin.test.ts -t "seed ${seed}")`);
      const stateDir = mkdtempSync(join(tmpdir(), "fuzz-stdin-"));
      const client = RawAcpClient.spawn({
        env: { ZCODE_SIM_STATE_DIR: stateDir, ZCODE_SIM_DELAY_MS: "1", ZCODE_ACP_LOG_LEVEL: "error" },
        cwd: stateDir,
        // Permission and other requests from the bridge get a quick refusal.
        onRequest: () => {
          throw new Error("fuzz client refuses");
        },
      });
      const fz = new Fuzzer(seed, stateDir);
      const owed: Array<number | string> = [];
      const blast = async (count: number) => {
        for (let i = 0; i < count; i++) {
          const { line, id } = fz.line();
          if (id !== undefined) owed.push(id);
          if (typeof line === "string") client.writeLine(line);
          else {
            client.writeRaw(line);
            client.writeRaw("\n");
          }
          if (i % 50 === 0) await Bun.sleep(1);
        }
      };
      try {
        // Before initialize, then a valid initialize that must be answered,
        // then more of the same against an initialized agent.
        await blast(FRAMES / 2);
        const init = await client.initialize();
        expect(init.protocolVersion).toBe(1);
        await blast(FRAMES / 2);
        const init2 = await client.initialize();
        expect(init2.protocolVersion).toBe(1);
        const key = (id: number | string) => JSON.stringify(id);
        await client.waitFor(
          () => {
            const got = responsesById(client.messages);
            return owed.every((id) => got.has(key(id)));
          },
          `answers to ${owed.length} requests`,
          15_000,
        );
        // Still serving; then EOF: once the bridge has exited, every answer
        // it will ever give is in, and each owed one must be there once.
        expect(client.proc.exitCode).toBeNull();
        expect(await client.close()).toBe(0);
        const got = responsesById(client.messages);
        const dupes = owed.filter((id) => (got.get(key(id)) ?? 0) !== 1);
        expect(dupes).toEqual([]);
        const errors = client.messages.filter((m) => m.error).length;
        console.log(
          `  ${FRAMES} lines, ${owed.length} requests owed an answer, ${client.messages.length} messages back (${errors} errors)`,
        );
        for (const m of client.messages) expect(m.jsonrpc).toBe("2.0");
        expect(client.junk).toEqual([]);
      } finally {
        const code = await client.close();
        rmSync(stateDir, { recursive: true, force: true });
        expect(code).toBe(0);
      }
    }, 30_000);
  }
});

// Line sizes around the message limit (lowered to LIMIT so the run is
// fast): requests just under, at and over it, with their id first as clients
// write it, must each be answered exactly once (over the limit: -32600 for
// that id); over-long notifications and responses are skipped unanswered;
// the bridge keeps serving throughout.
const LIMIT = 64 * 1024;

describe("fuzz: line sizes around the message limit", () => {
  for (const seed of SEEDS) {
    test(`seed ${seed}`, async () => {
      console.log(`fuzz-stdin limit seed=${seed} (re-run: bun test test/e2e/fuzz-stdin.test.ts -t "limit.*seed ${seed}")`);
      const stateDir = mkdtempSync(join(tmpdir(), "fuzz-stdin-limit-"));
      const client = RawAcpClient.spawn({
        env: { ZCODE_SIM_STATE_DIR: stateDir, ZCODE_ACP_LOG_LEVEL: "error", ZCODE_ACP_MAX_MESSAGE_BYTES: String(LIMIT) },
        cwd: stateDir,
      });
      const r = rng(seed);
      const int = (n: number) => Math.floor(r() * n);
      const sizes: number[] = [];
      const owed = new Map<string, boolean | -1>(); // id -> over the limit
      try {
        await client.initialize();
        for (let i = 0; i < 60; i++) {
          // Mostly within a few bytes of the limit, some anywhere up to 3x.
          const size = r() < 0.7 ? LIMIT - 3 + int(7) : 1024 + int(3 * LIMIT);
          sizes.push(size);
          const kind = int(10);
          const id = `lim-${i}`;
          const pad = (shell: string) => shell.replace("@PAD@", "p".repeat(Math.max(0, size - (shell.length - 5))));
          let line: string;
          if (kind < 7) {
            // A request (unknown session: a quick -32002 when it is read).
            line = pad(
              JSON.stringify({
                jsonrpc: "2.0",
                id,
                method: "session/prompt",
                params: { sessionId: "sess_nope", prompt: [{ type: "text", text: "@PAD@" }] },
              }),
            );
            owed.set(id, -1);
          } else if (kind < 9) {
            line = pad(
              JSON.stringify({ jsonrpc: "2.0", method: "session/cancel", params: { sessionId: "sess_nope", _meta: { x: "@PAD@" } } }),
            );
          } else {
            line = pad(JSON.stringify({ jsonrpc: "2.0", id: 999_000 + i, result: { x: "@PAD@" } }));
          }
          // Sometimes CRLF (the CR counts: the limit is on the bytes before the newline), sometimes split across writes.
          const text = `${line}${r() < 0.2 ? "\r\n" : "\n"}`;
          if (owed.get(id) === -1) owed.set(id, Buffer.byteLength(text) - 1 > LIMIT);
          if (r() < 0.3) {
            const cut = int(text.length);
            client.writeRaw(text.slice(0, cut));
            await Bun.sleep(0);
            client.writeRaw(text.slice(cut));
          } else client.writeRaw(text);
        }
        expect(await client.request("authenticate", { methodId: "zcode-app" })).toEqual({});
        await client.waitFor(
          () => [...owed.keys()].every((id) => client.messages.some((m) => m.id === id)),
          `answers to ${owed.size} requests`,
          15_000,
        );
        // Still serving; after EOF and the exit, every answer is in: each exactly once.
        expect(client.proc.exitCode).toBeNull();
        expect(await client.close()).toBe(0);
        for (const [id, over] of owed) {
          const answers = client.messages.filter((m) => m.id === id && m.method === undefined);
          expect({ id, count: answers.length, code: answers[0]?.error?.code }).toEqual({ id, count: 1, code: over ? -32600 : -32002 });
        }
        // Nothing answered a notification or a response.
        expect(client.messages.filter((m) => typeof m.id === "number" && m.id >= 999_000)).toEqual([]);
        expect(client.junk).toEqual([]);
        console.log(
          `  ${sizes.length} lines of ${Math.min(...sizes)}..${Math.max(...sizes)} bytes, ${[...owed.values()].filter(Boolean).length}/${owed.size} requests over the limit`,
        );
      } finally {
        const code = await client.close();
        rmSync(stateDir, { recursive: true, force: true });
        expect(code).toBe(0);
      }
    }, 30_000);
  }
});

// EOF while the editor is not reading stdout: fuzzed junk and requests that
// need no ZCode, then EOF, with the bridge's stdout going into a pipe whose
// reader sleeps first. Every line that comes out must parse, and every
// request is answered exactly once.
describe("fuzz: EOF with stdout backed up", () => {
  for (const seed of SEEDS) {
    test(`seed ${seed}`, async () => {
      console.log(`fuzz-stdin eof seed=${seed} (re-run: bun test test/e2e/fuzz-stdin.test.ts -t "EOF.*seed ${seed}")`);
      const fz = new Fuzzer(seed, "/nonexistent");
      const r = rng(seed);
      const owed: Array<number | string> = [];
      let input = `${JSON.stringify({ jsonrpc: "2.0", id: "init", method: "initialize", params: { protocolVersion: 1 } })}\n`;
      owed.push("init");
      for (let i = 0; i < 1500; i++) {
        if (r() < 0.3) {
          // Junk from the main fuzzer, without the requests that need ZCode.
          const { line, id } = fz.line();
          if (id !== undefined) continue;
          input += typeof line === "string" ? `${line}\n` : `${new TextDecoder().decode(line)}\n`;
        } else {
          const id = `eof-${i}`;
          const method = r() < 0.5 ? "initialize" : "authenticate";
          const params = method === "initialize" ? { protocolVersion: 1 } : { methodId: "zcode-app" };
          input += `${JSON.stringify({ jsonrpc: "2.0", id, method, params })}\n`;
          owed.push(id);
        }
      }
      const sh = Bun.spawn(["/bin/sh", "-c", `{ "$0"; echo "bridge-exit=$?" >&2; } | { sleep 1; cat; }`, BRIDGE_BIN], {
        env: { PATH: process.env.PATH, HOME: "/nonexistent", ZCODE_ACP_LOG_LEVEL: "error" },
        stdin: "pipe",
        stdout: "pipe",
        stderr: "pipe",
      });
      const killer = setTimeout(() => sh.kill("SIGKILL"), 25_000);
      const out = new Response(sh.stdout).text();
      const err = new Response(sh.stderr).text();
      sh.stdin.write(input);
      await sh.stdin.flush();
      sh.stdin.end();
      const [text, stderr] = await Promise.all([out, err, sh.exited]);
      clearTimeout(killer);
      expect(stderr).toContain("bridge-exit=0");
      expect(text.endsWith("\n")).toBe(true);
      const messages = text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l) as JsonRpcMessage);
      const got = responsesById(messages);
      const wrong = owed.filter((id) => got.get(JSON.stringify(id)) !== 1);
      expect(wrong).toEqual([]);
      console.log(`  ${text.length} bytes through a sleeping reader, ${owed.length} requests answered`);
    }, 30_000);
  }
});
