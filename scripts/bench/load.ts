// session/load of a huge conversation: `bun run bench load [--messages N]
// [--bytes B] [--big B] [--text C] [--modes resume,legacy,v4-only]`. A first
// bridge builds the session with the simulator's `#scenario:huge-history` (N
// messages, B bytes of tool output in all, one 8 MB output and one 2 MB
// answer near the end); then, for each mode, a fresh bridge loads it while
// this client reads every update:
//   resume   the simulator speaks legacy and v4 (0.16.9); the load names an
//            MCP server, so the bridge must use session/resume (the whole
//            transcript in its answer): the path every load took before
//   legacy   the same CLI, no MCP servers: the session is made live by a
//            one-row v4 read, without session/resume (src/session/reads.ts)
//   v4-only  the simulator speaks v4 alone (ZCODE_SIM_PROTOCOL=v4-only):
//            history from rowsRange pages, newest first
// Prints the time to the first update, the total time, the largest update
// and the bridge's peak RSS above its RSS before the load (sampled from /proc
// every 20 ms), and, apart, the simulator's own time: the requests the bridge
// sent it (ZCODE_SIM_RECORD) sent again to a fresh simulator, each timed to
// the first and last byte of its answer (sim-timing.ts; a v4 subscribe's
// frames come after its answer and are not in that figure), and the CPU time
// the bridge and the simulator each used during the load.
// Checks (legacy and v4-only): first update within 1 s of the bridge's own
// time, peak growth under 100 MB, no update over 4 MB.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rssOf } from "./first-session.ts";
import { RawAcpClient } from "./raw-acp-client.ts";
import { recordedRequests, type SimTiming, simTiming } from "./sim-timing.ts";

const FIRST_UPDATE_MS = 1000;
const PEAK_GROWTH_MB = 100;
const LARGEST_UPDATE_BYTES = 4 * 1024 * 1024;
const MODES = ["resume", "legacy", "v4-only"] as const;
type Mode = (typeof MODES)[number];
const CHECKED: readonly Mode[] = ["legacy", "v4-only"];

function arg(argv: string[], name: string, fallback: number): number {
  const i = argv.indexOf(`--${name}`);
  const v = i >= 0 ? Number(argv[i + 1]) : Number.NaN;
  return Number.isFinite(v) && v > 0 ? v : fallback;
}

function modesOf(argv: string[]): Mode[] {
  const i = argv.indexOf("--modes");
  if (i < 0) return [...MODES];
  const asked = (argv[i + 1] ?? "").split(",").filter(Boolean);
  for (const m of asked) if (!MODES.includes(m as Mode)) throw new Error(`unknown mode "${m}" (have: ${MODES.join(", ")})`);
  return asked as Mode[];
}

/**
 * The simulator's `huge-history` inserts its messages into the session
 * without a turn log entry for them (test/simulator/scenarios/basic.ts), and
 * its v4 rows are built from the turn log (v4.ts projectRows): a v4-only
 * load would see only the last turn. Until the scenario records its turns,
 * the bench gives each question and answer pair a finished turn of its own in
 * the stored session, as ZCode's store would have them. Only v4 reads look at
 * the turn log: the legacy loads see the same session as before.
 */
export function giveTurns(stateDir: string, sessionId: string): number {
  const file = join(stateDir, `${sessionId.replace(/[^A-Za-z0-9_.-]/g, "_")}.json`);
  const s = JSON.parse(readFileSync(file, "utf8")) as {
    messages: Array<{ info: { messageId: string; role: string; time?: { created?: number } } }>;
    turnLog?: Array<{ messageIds: string[] }>;
  };
  const logged = new Set((s.turnLog ?? []).flatMap((t) => t.messageIds));
  const turns: unknown[] = [];
  let open: { messageIds: string[] } | undefined;
  s.messages.forEach((m, i) => {
    if (logged.has(m.info.messageId)) return;
    if (m.info.role === "user" || !open) {
      const at = m.info.time?.created ?? 0;
      open = { messageIds: [] };
      turns.push(
        Object.assign(open, {
          turnId: `turn_bench_${i}`,
          origin: "userInput",
          state: "completedSuccess",
          startedAt: at,
          endedAt: at,
          guidedIds: [],
          files: [],
          fileState: "active",
        }),
      );
    }
    open.messageIds.push(m.info.messageId);
  });
  s.turnLog = [...(turns as NonNullable<typeof s.turnLog>), ...(s.turnLog ?? [])];
  writeFileSync(file, JSON.stringify(s));
  return turns.length;
}

function envFor(stateDir: string, mode?: Mode): Record<string, string> {
  return {
    HOME: join(stateDir, "home"),
    ZCODE_SIM_STATE_DIR: stateDir,
    ZCODE_SIM_DELAY_MS: "0",
    ZCODE_ACP_LOG_LEVEL: "warn",
    ...(mode === "v4-only" ? { ZCODE_SIM_PROTOCOL: "v4-only" } : {}),
  };
}

/** CPU time (user + system) a process has used, in ms; NaN once it is gone. */
export function cpuMs(pid: number): number {
  try {
    // /proc/<pid>/stat: utime and stime are fields 14 and 15, after the ")" that ends the command name.
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return ((Number(f[11]) + Number(f[12])) * 1000) / CLOCK_TICKS;
  } catch {
    return Number.NaN;
  }
}

/** The kernel's clock ticks per second (USER_HZ): 100 on Linux. */
const CLOCK_TICKS = 100;

/** The first child of `pid` (the bridge's ZCode), if any. */
export function childOf(pid: number): number | undefined {
  try {
    const first = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/)[0];
    return first ? Number(first) : undefined;
  } catch {
    return undefined;
  }
}

interface LoadRun {
  mode: Mode;
  failed?: string;
  first: number;
  total: number;
  count: number;
  largest: number;
  base: number;
  peak: number;
  sim?: SimTiming;
  /** The simulator's time for the calls answered before the first update. */
  simFirst?: number;
  /** CPU time used during the load by the bridge and by its simulator (the frames a v4 subscribe pushes included). */
  cpu?: { bridge: number; sim: number };
}

async function loadOnce(stateDir: string, sessionId: string, mode: Mode): Promise<LoadRun> {
  const record = join(stateDir, `record-${mode}.jsonl`);
  let first = 0;
  let firstAt = 0;
  let count = 0;
  let largest = 0;
  let start = 0;
  const loader = RawAcpClient.spawn({
    env: { ...envFor(stateDir, mode), ZCODE_SIM_RECORD: record },
    keep: false,
    onMessage: (msg, line) => {
      if (msg.method !== "session/update") return;
      count++;
      if (!first) {
        first = performance.now() - start;
        firstAt = Date.now();
      }
      largest = Math.max(largest, line.length);
    },
  });
  await loader.initialize();
  // The child started and idle: the baseline is the bridge with its ZCode up, before the load.
  await loader.request("session/list", { cwd: stateDir });
  const warmup = recordedRequests(record);
  const base = rssOf(loader.pid).total;
  const simPid = childOf(loader.pid);
  const cpu0 = { bridge: cpuMs(loader.pid), sim: simPid ? cpuMs(simPid) : Number.NaN };
  let peak = base;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(loader.pid).total);
    } catch {
      /* exited */
    }
  }, 20);
  const mcpServers = mode === "resume" ? [{ type: "http", name: "bench", url: "http://127.0.0.1:9/bench", headers: [] }] : [];
  start = performance.now();
  let failed: string | undefined;
  try {
    await loader.request("session/load", { sessionId, cwd: stateDir, mcpServers }, 600_000);
  } catch (err) {
    failed = err instanceof Error ? err.message : String(err);
  }
  const total = performance.now() - start;
  const answeredAt = Date.now();
  clearInterval(sampler);
  peak = Math.max(peak, rssOf(loader.pid).total);
  const cpu = { bridge: cpuMs(loader.pid) - cpu0.bridge, sim: simPid ? cpuMs(simPid) - cpu0.sim : Number.NaN };
  await loader.close();
  const run: LoadRun = { mode, first, total, count, largest, base, peak, cpu, ...(failed ? { failed } : {}) };
  if (failed) return run;
  // The simulator's share: the load's requests again, to a fresh simulator on the same store.
  const all = recordedRequests(record);
  const timed = all.slice(warmup.length).filter((r) => r.t <= answeredAt);
  run.sim = await simTiming(envFor(stateDir, mode), warmup, timed);
  run.simFirst = run.sim.calls.reduce((sum, c, i) => (timed[i]!.t <= firstAt ? sum + c.lastByteMs : sum), 0);
  return run;
}

function print(r: LoadRun): void {
  const label: Record<Mode, string> = {
    resume: "legacy + v4 CLI, MCP servers given: session/resume",
    legacy: "legacy + v4 CLI, no MCP servers: opened by a one-row v4 read",
    "v4-only": "v4-only CLI: rowsRange pages",
  };
  console.log(`\n-- ${r.mode}: ${label[r.mode]}`);
  if (r.failed) console.log(`session/load FAILED: ${r.failed}`);
  const sim = (ms: number | undefined) => (ms === undefined ? "" : ` (simulator: ${ms.toFixed(0)} ms of it)`);
  console.log(`time to first update: ${r.first.toFixed(0)} ms${sim(r.simFirst)}`);
  console.log(`total load time:      ${r.total.toFixed(0)} ms${sim(r.sim?.lastByteMs)} (${r.count.toLocaleString("en-US")} updates)`);
  console.log(`largest update:       ${(r.largest / 1024).toFixed(0)} KB`);
  if (r.cpu) console.log(`CPU during the load:  bridge ${r.cpu.bridge.toFixed(0)} ms, simulator ${r.cpu.sim.toFixed(0)} ms`);
  console.log(
    `peak RSS:             ${r.peak.toFixed(0)} MB (+${(r.peak - r.base).toFixed(0)} MB over ${r.base.toFixed(0)} MB before the load)`,
  );
  if (r.sim) {
    const calls = r.sim.calls.map(
      (c) => `${c.method} ${c.firstByteMs.toFixed(0)}/${c.lastByteMs.toFixed(0)} ms ${(c.bytes / 1e6).toFixed(c.bytes < 1e6 ? 2 : 0)} MB`,
    );
    console.log(`simulator calls (first/last byte): ${calls.join("; ")}`);
  }
}

export async function main(argv: string[] = []) {
  const messages = arg(argv, "messages", 20_000);
  const bytes = arg(argv, "bytes", 200_000_000);
  const big = arg(argv, "big", 8_000_000);
  const text = arg(argv, "text", 2_000_000);
  const modes = modesOf(argv);
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

    if (modes.includes("v4-only"))
      console.log(`gave the simulator's store ${giveTurns(stateDir, sessionId).toLocaleString("en-US")} turns for its v4 rows`);

    // 2. A fresh bridge per mode loads it.
    const checks = [];
    for (const mode of modes) {
      const r = await loadOnce(stateDir, sessionId, mode);
      print(r);
      if (!CHECKED.includes(mode)) continue;
      const own = r.first - (r.simFirst ?? 0);
      const growth = r.peak - r.base;
      checks.push(
        { name: `${mode}: session/load answers`, pass: !r.failed, detail: r.failed ?? "" },
        {
          name: `${mode}: first update within ${FIRST_UPDATE_MS} ms of the bridge's own time`,
          pass: r.first > 0 && own <= FIRST_UPDATE_MS,
          detail: `${own.toFixed(0)} ms (${r.first.toFixed(0)} ms in all)`,
        },
        { name: `${mode}: peak RSS growth under ${PEAK_GROWTH_MB} MB`, pass: growth < PEAK_GROWTH_MB, detail: `${growth.toFixed(0)} MB` },
        { name: `${mode}: no update over 4 MB`, pass: r.largest <= LARGEST_UPDATE_BYTES, detail: `${r.largest} bytes` },
      );
    }
    return { checks };
  } finally {
    rmSync(stateDir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const r = await main(process.argv.slice(2));
  process.exitCode = r.checks.every((c) => c.pass) ? 0 : 1;
}
