// Start-up and size benchmark (issues 5 and 14), all in one run so the ratios
// compare like with like:
//   floor   an empty compiled Bun program (same build flags): spawn -> exit
//   bridge  the compiled bridge, built from the current source
//   node    the same bridge bundled for Node (`bun build --target=node`), run
//           with `node` and a tiny shim for the few Bun APIs on the path to
//           `initialize` (Bun.stdin/stdout/write/sleep)
//   sim     the ZCode simulator, built from the current source, as ZCode
//   base    with --baseline REF: the bridge built from that git ref by its own
//           build script (before/after in the same run)
// Measured: time to `--version`, time from spawn to the `initialize`
// response, idle RSS after initialize (VmRSS), each release archive's size
// when dist/release exists; and the first session (first-session.ts): spawn
// -> initialize, -> a second request (the agent loaded), -> session/new
// answered, with the simulator booting at once, in 300 ms and in 1 s, against
// the simulator alone (boot + its own first session/create, the floor); RSS
// after session/new and after 10 turns, split into private memory (the JS heap
// apart, from a build that reports it) and the executable's mapped pages.
// Targets: initialize within 3x the floor's start and at most 0.4x the Node
// build's; idle RSS at most 45 MB; session/new within the simulator's boot +
// its session/create + 25 ms at each boot delay; RSS after session/new at most
// 40 MB, after 10 turns at most 45 MB.
//
//   bun scripts/bench/startup.ts [--runs N] [--session-runs N] [--baseline REF]
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { recordBytecodeOrder } from "../bytecode-order.ts";
import { compile } from "../compile.ts";
import { bridgeSession, simSession, type BridgeRun, type Rss, type SimRun } from "./first-session.ts";

const ROOT = resolve(import.meta.dir, "../..");
const INIT = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
const IDLE_MS = 300;
/** The simulator's boot delays (ZCODE_SIM_BOOT_MS): at once, a slow ZCode, a very slow one. */
const BOOTS = [0, 300, 1000] as const;
/** What the bridge may add to ZCode's own boot + session/create. */
const SESSION_SLACK_MS = 25;

interface Check {
  name: string;
  pass: boolean;
  detail?: string;
}

const NODE_SHIM = `
import { Readable } from "node:stream";
const done = (stream, data) => new Promise((r, j) => stream.write(data, (e) => (e ? j(e) : r())));
globalThis.Bun = {
  stdout: { fd: 1, writer: () => ({
    write: (c) => { process.stdout.write(c); return c.length ?? 0; },
    flush: () => done(process.stdout, ""),
    end: () => done(process.stdout, ""),
  }) },
  stderr: { fd: 2 },
  stdin: { stream: () => Readable.toWeb(process.stdin) },
  write: async (dest, data) => { await done(dest && dest.fd === 2 ? process.stderr : process.stdout, data); return data.length; },
  sleep: (ms) => new Promise((r) => setTimeout(r, ms)),
};
`;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)] ?? Number.NaN;
}

async function timeToExit(cmd: string[]): Promise<number> {
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdin: "ignore", stdout: "pipe", stderr: "ignore", env: { PATH: process.env.PATH ?? "" } });
  await new Response(p.stdout).arrayBuffer();
  const code = await p.exited;
  if (code !== 0) throw new Error(`${cmd.join(" ")} exited ${code}`);
  return performance.now() - t0;
}

/** Spawn, send initialize at once, time the first stdout line; then idle RSS. */
async function initialize(cmd: string[]): Promise<{ ms: number; rssKb: number }> {
  const env = { PATH: process.env.PATH ?? "", HOME: tmpdir() };
  const t0 = performance.now();
  const p = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "pipe", env });
  p.stdin.write(INIT);
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`${cmd.join(" ")}: stdout closed before initialize; stderr: ${await new Response(p.stderr).text()}`);
    text += new TextDecoder().decode(value);
  }
  const ms = performance.now() - t0;
  const msg = JSON.parse(text.slice(0, text.indexOf("\n")));
  if (msg.id !== 1 || !msg.result) throw new Error(`${cmd.join(" ")}: bad initialize response ${text.slice(0, 200)}`);
  await Bun.sleep(IDLE_MS);
  const status = readFileSync(`/proc/${p.pid}/status`, "utf8");
  const rssKb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  reader.releaseLock();
  p.stdin.end();
  await p.exited;
  return { ms, rssKb };
}

interface Commands {
  floor: string[];
  bridge: string[];
  /** The bridge plus a SIGUSR2 heap report (heap-report-main.ts). */
  heap: string[];
  sim: string;
  node: string[] | undefined;
  baseline: string[] | undefined;
}

async function build(dir: string, baselineRef: string | undefined): Promise<Commands> {
  const empty = join(dir, "empty.ts");
  writeFileSync(empty, "export {};\n");
  const shim = join(dir, "bun-shim.mjs");
  writeFileSync(shim, NODE_SHIM);
  await Promise.all([
    compile({ entry: empty, outfile: join(dir, "floor") }),
    compile({ entry: join(ROOT, "src/main.ts"), outfile: join(dir, "bridge") }),
    compile({ entry: join(ROOT, "test/simulator/main.ts"), outfile: join(dir, "sim"), bytecode: false }),
  ]);
  // As `bun run build` does: laid out by a profile of a session.
  const order = await recordBytecodeOrder(join(dir, "bridge"), join(dir, "sim"));
  try {
    await Promise.all([
      compile({ entry: join(ROOT, "src/main.ts"), outfile: join(dir, "bridge"), bytecodeOrder: order.file }),
      compile({ entry: join(import.meta.dir, "heap-report-main.ts"), outfile: join(dir, "heap"), bytecodeOrder: order.file }),
    ]);
  } finally {
    order.cleanup();
  }
  const baseline = baselineRef ? buildBaseline(baselineRef, join(dir, "baseline-src")) : undefined;
  const nodeBundle = join(dir, "bridge.mjs");
  const b = Bun.spawnSync(
    [
      process.execPath,
      "build",
      join(ROOT, "src/main.ts"),
      "--target=node",
      "--format=esm",
      "--minify",
      "--define",
      `__VERSION__=${JSON.stringify(pkg.version)}`,
      "--outfile",
      nodeBundle,
    ],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, BUN_BE_BUN: "1" } },
  );
  if (b.exitCode !== 0) throw new Error(`node bundle failed: ${b.stderr.toString()}`);
  stubBunModules(nodeBundle, dir);
  const node = Bun.which("node");
  return {
    floor: [join(dir, "floor")],
    bridge: [join(dir, "bridge")],
    heap: [join(dir, "heap")],
    sim: join(dir, "sim"),
    node: node ? [node, "--import", shim, nodeBundle] : undefined,
    baseline,
  };
}

/**
 * Node cannot load Bun's own modules (`bun:sqlite`, which the ZCode app
 * history imports): the Node build gets stand-ins that throw if used. Only
 * the path to `initialize` is measured, and it uses none of them.
 */
function stubBunModules(bundle: string, dir: string): void {
  const code = readFileSync(bundle, "utf8").replace(/import\s*\{([^}]*)\}\s*from\s*"bun:(\w+)"/g, (_, names: string, mod: string) => {
    const stub = join(dir, `bun-${mod}-stub.mjs`);
    const exported = names
      .split(",")
      .map((n) => n.trim().split(/\s+as\s+/)[0])
      .filter(Boolean);
    const body = exported.map(
      (n) => `export class ${n} { constructor() { throw new Error("bun:${mod} is not in the Node comparison build"); } }`,
    );
    writeFileSync(stub, `${body.join("\n")}\n`);
    return `import{${names}}from${JSON.stringify(stub)}`;
  });
  if (/from\s*"bun:/.test(code)) throw new Error("the Node bundle imports a Bun module in a form the stubs do not cover");
  writeFileSync(bundle, code);
}

/** The bridge as of `ref`, built by that ref's own build script (its flags, its dependencies' use). */
function buildBaseline(ref: string, dir: string): string[] {
  mkdirSync(dir, { recursive: true });
  const archive = Bun.spawnSync(["sh", "-c", `git -C "$0" archive "$1" | tar -x -C "$2"`, ROOT, ref, dir], { stderr: "pipe" });
  if (archive.exitCode !== 0) throw new Error(`git archive ${ref} failed: ${archive.stderr.toString()}`);
  symlinkSync(join(ROOT, "node_modules"), join(dir, "node_modules"));
  const b = Bun.spawnSync([process.execPath, "scripts/build.ts", "--bridge-only"], { cwd: dir, stdout: "pipe", stderr: "pipe" });
  if (b.exitCode !== 0) throw new Error(`building ${ref} failed: ${b.stderr.toString()}`);
  return [join(dir, "dist/zcode-acp-server")];
}

function flag(argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name);
  return i === -1 ? undefined : argv[i + 1];
}

interface SessionSamples {
  bridge: Map<number, BridgeRun[]>;
  baseline: Map<number, BridgeRun[]>;
  sim: Map<number, SimRun[]>;
  heap: BridgeRun[];
}

/** The first session at each boot delay, subjects interleaved so drift hits them alike. */
async function firstSessions(cmds: Commands, runs: number, stateDir: string): Promise<SessionSamples> {
  const out: SessionSamples = { bridge: new Map(), baseline: new Map(), sim: new Map(), heap: [] };
  const push = <T>(m: Map<number, T[]>, k: number, v: T) => m.set(k, [...(m.get(k) ?? []), v]);
  // Warm the page cache of every binary once.
  await simSession(cmds.sim, { stateDir, bootMs: 0 });
  await bridgeSession(cmds.bridge, { sim: cmds.sim, stateDir, bootMs: 0 });
  if (cmds.baseline) await bridgeSession(cmds.baseline, { sim: cmds.sim, stateDir, bootMs: 0 });
  for (let r = 0; r < runs; r++) {
    for (const bootMs of BOOTS) {
      // Memory and turns only with the instant boot: they do not depend on it.
      const memory = bootMs === 0;
      push(out.sim, bootMs, await simSession(cmds.sim, { stateDir, bootMs }));
      push(out.bridge, bootMs, await bridgeSession(cmds.bridge, { sim: cmds.sim, stateDir, bootMs, memory, turns: 10 }));
      if (cmds.baseline) {
        push(out.baseline, bootMs, await bridgeSession(cmds.baseline, { sim: cmds.sim, stateDir, bootMs, memory, turns: 10 }));
      }
    }
    if (r < 5) out.heap.push(await bridgeSession(cmds.heap, { sim: cmds.sim, stateDir, bootMs: 0, memory: true, heapReport: true }));
  }
  return out;
}

const medianOf = <T>(xs: T[], f: (x: T) => number | undefined) => median(xs.map(f).filter((x): x is number => x !== undefined));
const rssMedian = (xs: BridgeRun[], key: "rssAfterNew" | "rssAfterTurns"): Rss => ({
  total: medianOf(xs, (x) => x[key]?.total),
  anon: medianOf(xs, (x) => x[key]?.anon),
  file: medianOf(xs, (x) => x[key]?.file),
});

export async function main(argv: string[] = process.argv.slice(2)): Promise<{ checks: Check[] }> {
  const runs = Number(flag(argv, "--runs") ?? 15);
  const sessionRuns = Number(flag(argv, "--session-runs") ?? runs);
  const baselineRef = flag(argv, "--baseline");
  const dir = mkdtempSync(join(tmpdir(), "zcode-acp-bench-startup-"));
  try {
    const cmds = await build(dir, baselineRef);
    const nodeVersion = cmds.node
      ? Bun.spawnSync([cmds.node[0] as string, "--version"])
          .stdout.toString()
          .trim()
      : "absent";

    const floorStart: number[] = [];
    const bridgeVersion: number[] = [];
    const nodeVersionMs: number[] = [];
    const bridgeInit: number[] = [];
    const nodeInit: number[] = [];
    const bridgeRss: number[] = [];
    const nodeRss: number[] = [];
    // Warm the page cache, then interleave so drift hits every subject alike.
    await timeToExit(cmds.floor);
    await timeToExit([...cmds.bridge, "--version"]);
    for (let r = 0; r < runs; r++) {
      floorStart.push(await timeToExit(cmds.floor));
      bridgeVersion.push(await timeToExit([...cmds.bridge, "--version"]));
      const bi = await initialize(cmds.bridge);
      bridgeInit.push(bi.ms);
      bridgeRss.push(bi.rssKb);
      if (cmds.node) {
        nodeVersionMs.push(await timeToExit([...cmds.node, "--version"]));
        const ni = await initialize(cmds.node);
        nodeInit.push(ni.ms);
        nodeRss.push(ni.rssKb);
      }
    }
    const stateDir = join(dir, "state");
    mkdirSync(stateDir);
    const sessions = await firstSessions(cmds, sessionRuns, stateDir);

    const f = median(floorStart);
    const bi = median(bridgeInit);
    const ni = median(nodeInit);
    const rssMb = median(bridgeRss) / 1024;
    const ms = (x: number) => `${x.toFixed(1)} ms`;
    const mb = (x: number) => `${x.toFixed(1)} MB`;
    console.log(`startup (median of ${runs}; bun ${Bun.version}, node ${nodeVersion})`);
    console.log(`  floor (empty compiled program) spawn->exit   ${ms(f)}`);
    console.log(
      `  bridge --version                             ${ms(median(bridgeVersion))}  (${(median(bridgeVersion) / f).toFixed(2)}x floor)`,
    );
    if (cmds.node) console.log(`  node build --version                         ${ms(median(nodeVersionMs))}`);
    console.log(`  bridge spawn->initialize response            ${ms(bi)}  (${(bi / f).toFixed(2)}x floor)`);
    if (cmds.node) console.log(`  node build spawn->initialize response        ${ms(ni)}  (bridge/node = ${(bi / ni).toFixed(2)})`);
    console.log(`  bridge idle RSS after initialize             ${mb(rssMb)}  (no ZCode found: agent loaded, no child)`);
    if (cmds.node) console.log(`  node build idle RSS after initialize         ${mb(median(nodeRss) / 1024)}`);

    const subjects: Array<[string, Map<number, BridgeRun[]>]> = [["bridge", sessions.bridge]];
    if (cmds.baseline) subjects.push([`base (${baselineRef})`, sessions.baseline]);
    console.log(`first session (median of ${sessionRuns}; ZCode = the simulator, booting in ZCODE_SIM_BOOT_MS)`);
    const sessionChecks: Check[] = [];
    for (const bootMs of BOOTS) {
      const sim = sessions.sim.get(bootMs) ?? [];
      const ready = medianOf(sim, (x) => x.ready);
      const create = medianOf(sim, (x) => x.create);
      const floor = ready + create;
      console.log(
        `  boot ${String(bootMs).padStart(4)} ms: ZCode alone: spawn->ready ${ms(ready)} + its first session/create ${ms(create)} = floor ${ms(floor)}`,
      );
      for (const [name, runsOf] of subjects) {
        const xs = runsOf.get(bootMs) ?? [];
        const sn = medianOf(xs, (x) => x.sessionNew);
        console.log(
          `    ${name.padEnd(22)} spawn->initialize ${ms(medianOf(xs, (x) => x.initialize))}, ->second request ${ms(medianOf(xs, (x) => x.second))}, ` +
            `->session/new ${ms(sn)}  (floor + ${ms(sn - floor)}, ${(sn / floor).toFixed(2)}x floor)`,
        );
        if (name === "bridge") {
          sessionChecks.push({
            name: `session/new within ZCode's boot + session/create + ${SESSION_SLACK_MS} ms (boot ${bootMs} ms)`,
            pass: sn <= floor + SESSION_SLACK_MS,
            detail: `${ms(sn)} vs ${ms(floor)} + ${SESSION_SLACK_MS}`,
          });
        }
      }
    }
    const rssLine = (r: Rss) => `${mb(r.total)} (private ${mb(r.anon)}, executable and other files ${mb(r.file)})`;
    for (const [name, runsOf] of subjects) {
      const xs = runsOf.get(0) ?? [];
      console.log(`  ${name} RSS after session/new   ${rssLine(rssMedian(xs, "rssAfterNew"))}`);
      console.log(`  ${name} RSS after 10 turns      ${rssLine(rssMedian(xs, "rssAfterTurns"))}`);
    }
    const heapUsed = medianOf(sessions.heap, (x) => x.heapAfterNew?.used);
    const heapTotal = medianOf(sessions.heap, (x) => x.heapAfterNew?.total);
    const heapRss = rssMedian(sessions.heap, "rssAfterNew");
    console.log(
      `  JS heap after session/new (bench build with a heap report): ${mb(heapUsed)} used of ${mb(heapTotal)}; ` +
        `that build's RSS ${mb(heapRss.total)}: JS heap ${mb(heapTotal)}, other private ${mb(heapRss.anon - heapTotal)}, files ${mb(heapRss.file)}`,
    );

    const releaseDir = join(ROOT, "dist/release");
    if (existsSync(releaseDir)) {
      console.log("  release archives:");
      for (const name of readdirSync(releaseDir)
        .filter((n) => /\.(tar\.gz|zip)$/.test(n))
        .sort()) {
        console.log(`    ${name.padEnd(46)} ${(statSync(join(releaseDir, name)).size / 1e6).toFixed(1)} MB`);
      }
    } else {
      console.log("  release archives: dist/release absent (run `bun run build:release` for sizes)");
    }

    const afterNew = rssMedian(sessions.bridge.get(0) ?? [], "rssAfterNew").total;
    const afterTurns = rssMedian(sessions.bridge.get(0) ?? [], "rssAfterTurns").total;
    const checks: Check[] = [
      { name: "initialize within 3x the floor's start", pass: bi <= 3 * f, detail: `${ms(bi)} vs 3 x ${ms(f)}` },
      {
        name: "initialize at most 0.4x the Node build's",
        pass: cmds.node !== undefined && bi <= 0.4 * ni,
        detail: cmds.node ? `${ms(bi)} vs 0.4 x ${ms(ni)}` : "node not found",
      },
      { name: "idle RSS at most 45 MB", pass: rssMb <= 45, detail: mb(rssMb) },
      ...sessionChecks,
      { name: "RSS after session/new at most 40 MB", pass: afterNew <= 40, detail: mb(afterNew) },
      { name: "RSS after 10 turns at most 45 MB", pass: afterTurns <= 45, detail: mb(afterTurns) },
    ];
    for (const c of checks) console.log(`  ${c.pass ? "PASS" : "FAIL"}  ${c.name}: ${c.detail}`);
    return { checks };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const { checks } = await main();
  process.exit(checks.every((c) => c.pass) ? 0 : 1);
}
