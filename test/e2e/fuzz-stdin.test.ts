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
import { RawAcpClient, type JsonRpcMessage } from "../../scripts/bench/raw-acp-client.ts";
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
        return { sessionId: this.pick(["sess_nope", this.str(8)]), prompt: this.pick([[{ type: "text", text: this.str() }], [{ type: "image", data: "x" }], this.value()]) };
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
        const frame: Record<string, unknown> = { jsonrpc: this.pick(["1.0", undefined, 2]), id: this.pick([{ a: 1 }, [1], true, 1.5]), method, params: this.params(method) };
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
        // Give duplicates a moment to show up, then check exactly-once.
        await Bun.sleep(200);
        const got = responsesById(client.messages);
        const dupes = owed.filter((id) => (got.get(key(id)) ?? 0) !== 1);
        expect(dupes).toEqual([]);
        const errors = client.messages.filter((m) => m.error).length;
        console.log(`  ${FRAMES} lines, ${owed.length} requests owed an answer, ${client.messages.length} messages back (${errors} errors)`);
        for (const m of client.messages) expect(m.jsonrpc).toBe("2.0");
        expect(client.junk).toEqual([]);
        expect(client.proc.exitCode).toBeNull();
      } finally {
        const code = await client.close();
        rmSync(stateDir, { recursive: true, force: true });
        expect(code).toBe(0);
      }
    }, 30_000);
  }
});
