// How soon the bridge answers when a turn ends early, measured on the real
// binaries. The end-to-end tests assert these only as an order (the answer
// comes before ZCode's end, test/e2e/agent-cancel.test.ts) and the unit tests
// pin the timers on fake time (test/unit/session/turn.timing.test.ts); the
// wall-clock figures, which depend on the machine, live here:
// - cancel while ZCode streams: session/cancel → the prompt's `cancelled`;
// - cancel that ZCode ignores: the same, bounded by the cancel grace (500 ms);
// - the child dies mid-turn: its death → the prompt's error.
// `bun run bench latency [--runs N]`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { RawAcpClient } from "./raw-acp-client.ts";

interface Check {
  name: string;
  pass: boolean;
  detail: string;
}

const flag = (argv: string[], name: string) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const max = (xs: number[]) => Math.max(...xs);

/** One bridge over the simulator, `runs` times `measure` in one session. */
async function measureRuns(
  runs: number,
  env: Record<string, string>,
  measure: (c: RawAcpClient, sessionId: string) => Promise<number>,
): Promise<number[]> {
  const stateDir = mkdtempSync(join(tmpdir(), "zcode-acp-bench-latency-"));
  const c = RawAcpClient.spawn({ env: { ZCODE_SIM_STATE_DIR: stateDir, ZCODE_ACP_LOG_LEVEL: "error", ...env }, cwd: stateDir });
  try {
    await c.initialize();
    const sessionId = await c.newSession(stateDir);
    const ms: number[] = [];
    for (let i = 0; i < runs; i++) ms.push(await measure(c, sessionId));
    return ms;
  } finally {
    await c.close();
    rmSync(stateDir, { recursive: true, force: true });
  }
}

/** A prompt of `scenario`, cancelled once it streamed; ms from the cancel to its answer. */
function cancelAfterStreaming(scenario: string) {
  return async (c: RawAcpClient, sessionId: string): Promise<number> => {
    const before = c.text(sessionId).length;
    const answer = c.prompt(sessionId, scenario);
    await c.waitFor(() => c.text(sessionId).slice(before).includes("chunk 2 "), "streaming");
    const t0 = performance.now();
    c.notify("session/cancel", { sessionId });
    const r = await answer;
    const ms = performance.now() - t0;
    if (r.stopReason !== "cancelled") throw new Error(`expected cancelled, got ${r.stopReason}`);
    // The next prompt waits for ZCode to be idle: the runs do not overlap.
    await c.prompt(sessionId, "between runs");
    return ms;
  };
}

/** A turn whose child dies: ms from the prompt to its error (the crash comes at once). */
async function childDeath(c: RawAcpClient, sessionId: string): Promise<number> {
  const t0 = performance.now();
  const failed = await c.prompt(sessionId, "#scenario:crash").then(
    () => false,
    () => true,
  );
  const ms = performance.now() - t0;
  if (!failed) throw new Error("the crash did not fail the prompt");
  return ms;
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<{ checks: Check[] }> {
  const runs = Number(flag(argv, "--runs") ?? 5);
  const rows: Array<[string, number[], number]> = [
    ["cancel while streaming", await measureRuns(runs, {}, cancelAfterStreaming("#scenario:slow n=400")), 1000],
    [
      "cancel ZCode ignores",
      await measureRuns(runs, { ZCODE_SIM_STOP_IGNORE_MS: "1500" }, cancelAfterStreaming("#scenario:ignore-stop n=40")),
      1000,
    ],
    ["child dies mid-turn", await measureRuns(runs, {}, childDeath), 2000],
  ];
  const checks: Check[] = [];
  for (const [name, ms, target] of rows) {
    const detail = `median ${median(ms).toFixed(0)} ms, max ${max(ms).toFixed(0)} ms over ${ms.length} runs (target: max < ${target} ms)`;
    console.log(`${name}: ${detail}`);
    checks.push({ name, pass: max(ms) < target, detail });
  }
  return { checks };
}

if (import.meta.main) {
  const r = await main();
  for (const c of r.checks) console.log(`${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`);
  process.exitCode = r.checks.every((c) => c.pass) ? 0 : 1;
}
