// session/load of a huge conversation: `bun run bench load [--messages N]
// [--bytes B] [--big B] [--text C]`. A first bridge builds the session with the simulator's
// `#scenario:huge-history` (N messages, B bytes of tool output in all, one
// 8 MB output and one 2 MB answer near the end); a second, fresh bridge then
// loads it while this client reads every update. Prints the time to the
// first update, the total time, the largest update and the bridge's peak
// RSS above its RSS before the load (sampled from /proc every 20 ms).
// Checks: first update within 1 s, peak growth under 100 MB, no update over
// 4 MB.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rssOf } from "./first-session.ts";
import { RawAcpClient } from "./raw-acp-client.ts";

const FIRST_UPDATE_MS = 1000;
const PEAK_GROWTH_MB = 100;
const LARGEST_UPDATE_BYTES = 4 * 1024 * 1024;

function arg(argv: string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(argv[i + 1]) : Number.NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

function envFor(stateDir: string): Record<string, string> {
  return { HOME: join(stateDir, "home"), ZCODE_SIM_STATE_DIR: stateDir, ZCODE_SIM_DELAY_MS: "0", ZCODE_ACP_LOG_LEVEL: "warn" };
}

export async function main(argv: string[] = []) {
  const messages = arg(argv, "messages", 20_000);
  const bytes = arg(argv, "bytes", 200_000_000);
  const big = arg(argv, "big", 8_000_000);
  const text = arg(argv, "text", 2_000_000);
  const stateDir = mkdtempSync(join(tmpdir(), "zcode-bench-load-"));
  try {
    // 1. The conversation, stored by the simulator.
    const maker = RawAcpClient.spawn({ env: envFor(stateDir), keep: false });
    await maker.initialize();
    const sessionId = await maker.newSession(stateDir);
    const t0 = performance.now();
    await maker.prompt(sessionId, `#scenario:huge-history n=${Math.ceil(messages / 2)} bytes=${bytes} big=${big} text=${text}`, 600_000);
    await maker.close();
    console.log(
      `built ${messages.toLocaleString("en-US")} messages, ${(bytes / 1e6).toFixed(0)} MB of tool output in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );

    // 2. A fresh bridge loads it.
    let first = 0;
    let count = 0;
    let largest = 0;
    let start = 0;
    const loader = RawAcpClient.spawn({
      env: envFor(stateDir),
      keep: false,
      onMessage: (msg, line) => {
        if (msg.method !== "session/update") return;
        count++;
        if (!first) first = performance.now() - start;
        largest = Math.max(largest, line.length);
      },
    });
    await loader.initialize();
    // The child started and idle: the baseline is the bridge with its ZCode up, before the load.
    await loader.request("session/list", {});
    const base = rssOf(loader.pid).total;
    let peak = base;
    const sampler = setInterval(() => {
      try {
        peak = Math.max(peak, rssOf(loader.pid).total);
      } catch {
        /* exited */
      }
    }, 20);
    start = performance.now();
    let failed: string | undefined;
    try {
      await loader.request("session/load", { sessionId, cwd: stateDir, mcpServers: [] }, 600_000);
    } catch (err) {
      failed = err instanceof Error ? err.message : String(err);
    }
    const total = performance.now() - start;
    clearInterval(sampler);
    peak = Math.max(peak, rssOf(loader.pid).total);
    await loader.close();

    const growth = peak - base;
    if (failed) console.log(`session/load FAILED: ${failed}`);
    console.log(`time to first update: ${first.toFixed(0)} ms`);
    console.log(`total load time:      ${total.toFixed(0)} ms (${count.toLocaleString("en-US")} updates)`);
    console.log(`largest update:       ${(largest / 1024).toFixed(0)} KB`);
    console.log(`peak RSS:             ${peak.toFixed(0)} MB (+${growth.toFixed(0)} MB over ${base.toFixed(0)} MB before the load)`);
    return {
      checks: [
        { name: "session/load answers", pass: !failed, detail: failed ?? "" },
        {
          name: `first update within ${FIRST_UPDATE_MS} ms`,
          pass: first > 0 && first <= FIRST_UPDATE_MS,
          detail: `${first.toFixed(0)} ms`,
        },
        { name: `peak RSS growth under ${PEAK_GROWTH_MB} MB`, pass: growth < PEAK_GROWTH_MB, detail: `${growth.toFixed(0)} MB` },
        { name: "no update over 4 MB", pass: largest <= LARGEST_UPDATE_BYTES, detail: `${largest} bytes` },
      ],
    };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const r = await main(process.argv.slice(2));
  process.exitCode = r.checks.every((c) => c.pass) ? 0 : 1;
}
