// Fuzzing the ZCode side: the simulator in its fuzzing mode (ZCODE_SIM_FUZZ)
// interleaves junk with every frame it writes — broken bytes, non-frames,
// wrong types, unknown events and requests, stray and duplicate answers,
// re-sent old events — and sometimes mangles a real answer. Through all of it
// the bridge must not crash or hang: every prompt is answered (a result or an
// error) within a bound, every message to the editor is valid ACP (checked by
// the harness), and it exits 0 when the editor leaves.
import { describe, expect, test } from "bun:test";
import { withBridge, type Harness } from "../support/acp-harness.ts";

const SEEDS = [1, 2, 3, 42, 1337];
const PROMPTS = [
  "hello fuzz",
  "#scenario:text",
  "#scenario:tools",
  "#scenario:bash",
  "#scenario:permission",
  "#scenario:flood n=300 size=40",
];
const PROMPT_BOUND_MS = 8000;

function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return Promise.race([p, Bun.sleep(ms).then(() => Promise.reject(new Error(`${what}: no answer within ${ms} ms (hang)`)))]);
}

/** A session, retried: a mangled session/create answer may fail one attempt. */
async function session(h: Harness): Promise<string> {
  let last: unknown;
  for (let i = 0; i < 5; i++) {
    try {
      return (await within(h.newSession(), PROMPT_BOUND_MS, "session/new")).sessionId;
    } catch (e) {
      if ((e as Error).message.includes("hang")) throw e;
      last = e;
    }
  }
  throw last;
}

describe("fuzz: junk from the ZCode child during prompts", () => {
  for (const seed of SEEDS) {
    test(`seed ${seed}`, async () => {
      console.log(`fuzz-zcode seed=${seed} (re-run: ZCODE_SIM_FUZZ=${seed}; bun test test/e2e/fuzz-zcode.test.ts -t "seed ${seed}")`);
      await withBridge({ env: { ZCODE_SIM_FUZZ: String(seed), ZCODE_ACP_STALL_MS: "300", ZCODE_ACP_LOG_LEVEL: "error" } }, async (h) => {
        const sessionId = await session(h);
        const outcomes: string[] = [];
        for (const text of PROMPTS) {
          const r = await within(
            h.prompt(sessionId, text).then(
              (x) => x.stopReason,
              (e: Error) => `error: ${e.message.slice(0, 80)}`,
            ),
            PROMPT_BOUND_MS,
            `prompt ${JSON.stringify(text)}`,
          );
          outcomes.push(r);
        }
        console.log(`  outcomes: ${outcomes.join(" | ")}`);
        // Junk must not turn every turn into an error.
        expect(outcomes.filter((o) => o === "end_turn").length).toBeGreaterThan(0);
        expect(h.proc.exitCode).toBeNull();
      });
    }, 60_000);
  }
});
