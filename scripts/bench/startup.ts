// Start-up and size benchmark (issue 5), all in one run so the ratios compare
// like with like:
//   floor   an empty compiled Bun program (same build flags): spawn -> exit
//   bridge  the compiled bridge, built from the current source
//   node    the same bridge bundled for Node (`bun build --target=node`), run
//           with `node` and a tiny shim for the few Bun APIs on the path to
//           `initialize` (Bun.stdin/stdout/write/sleep)
// Measured: time to `--version`, time from spawn to the `initialize`
// response, idle RSS after initialize (VmRSS), and each release archive's size
// when dist/release exists. Targets: initialize within 3x the floor's start
// and at most 0.4x the Node build's; idle RSS at most 45 MB.
//
//   bun scripts/bench/startup.ts [--runs N]
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { compile } from "../compile.ts";

const ROOT = resolve(import.meta.dir, "../..");
const INIT = `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`;
const IDLE_MS = 300;

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

/**
 * The price of loading the agent lazily: after initialize, the time to answer
 * the first session/new (SDK load + hand-over + starting the simulator as
 * ZCode). Reported, not a target.
 */
async function firstSession(cmd: string[], sim: string, stateDir: string): Promise<number> {
  const env = { PATH: process.env.PATH ?? "", HOME: stateDir, ZCODE_BIN: sim, ZCODE_SIM_STATE_DIR: stateDir };
  const p = Bun.spawn(cmd, { stdin: "pipe", stdout: "pipe", stderr: "ignore", env });
  const reader = p.stdout.getReader();
  let text = "";
  const waitLines = async (n: number) => {
    while (text.split("\n").length - 1 < n) {
      const { value, done } = await reader.read();
      if (done) throw new Error("stdout closed");
      text += new TextDecoder().decode(value);
    }
  };
  p.stdin.write(INIT);
  await p.stdin.flush();
  await waitLines(1);
  const t0 = performance.now();
  p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: stateDir, mcpServers: [] } })}\n`);
  await p.stdin.flush();
  for (;;) {
    await waitLines(text.split("\n").length);
    if (text.split("\n").some((l) => l.startsWith('{"jsonrpc":"2.0","id":2'))) break;
  }
  const ms = performance.now() - t0;
  reader.releaseLock();
  p.stdin.end();
  await p.exited;
  return ms;
}

async function build(dir: string): Promise<{ floor: string[]; bridge: string[]; node: string[] | undefined }> {
  const empty = join(dir, "empty.ts");
  writeFileSync(empty, "export {};\n");
  const shim = join(dir, "bun-shim.mjs");
  writeFileSync(shim, NODE_SHIM);
  await Promise.all([
    compile({ entry: empty, outfile: join(dir, "floor") }),
    compile({ entry: join(ROOT, "src/main.ts"), outfile: join(dir, "bridge") }),
  ]);
  const nodeBundle = join(dir, "bridge.mjs");
  const b = Bun.spawnSync(
    [process.execPath, "build", join(ROOT, "src/main.ts"), "--target=node", "--format=esm", "--minify",
      "--define", `__VERSION__=${JSON.stringify(pkg.version)}`, "--outfile", nodeBundle],
    { stdout: "pipe", stderr: "pipe", env: { ...process.env, BUN_BE_BUN: "1" } },
  );
  if (b.exitCode !== 0) throw new Error(`node bundle failed: ${b.stderr.toString()}`);
  const node = Bun.which("node");
  return {
    floor: [join(dir, "floor")],
    bridge: [join(dir, "bridge")],
    node: node ? [node, "--import", shim, nodeBundle] : undefined,
  };
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<{ checks: Check[] }> {
  const i = argv.indexOf("--runs");
  const runs = i === -1 ? 15 : Number(argv[i + 1]);
  const dir = mkdtempSync(join(tmpdir(), "zcode-acp-bench-startup-"));
  try {
    const cmds = await build(dir);
    const nodeVersion = cmds.node ? Bun.spawnSync([cmds.node[0] as string, "--version"]).stdout.toString().trim() : "absent";

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

    const sim = join(ROOT, "dist/zcode-sim");
    const sessionMs: number[] = [];
    if (existsSync(sim)) {
      for (let r = 0; r < Math.min(runs, 5); r++) sessionMs.push(await firstSession(cmds.bridge, sim, dir));
    }

    const f = median(floorStart);
    const bi = median(bridgeInit);
    const ni = median(nodeInit);
    const rssMb = median(bridgeRss) / 1024;
    const ms = (x: number) => `${x.toFixed(1)} ms`;
    console.log(`startup (median of ${runs}; bun ${Bun.version}, node ${nodeVersion})`);
    console.log(`  floor (empty compiled program) spawn->exit   ${ms(f)}`);
    console.log(`  bridge --version                             ${ms(median(bridgeVersion))}  (${(median(bridgeVersion) / f).toFixed(2)}x floor)`);
    if (cmds.node) console.log(`  node build --version                         ${ms(median(nodeVersionMs))}`);
    console.log(`  bridge spawn->initialize response            ${ms(bi)}  (${(bi / f).toFixed(2)}x floor)`);
    if (cmds.node) console.log(`  node build spawn->initialize response        ${ms(ni)}  (bridge/node = ${(bi / ni).toFixed(2)})`);
    console.log(`  bridge idle RSS after initialize             ${rssMb.toFixed(1)} MB`);
    if (cmds.node) console.log(`  node build idle RSS after initialize         ${(median(nodeRss) / 1024).toFixed(1)} MB`);
    if (sessionMs.length) console.log(`  bridge first session/new after initialize    ${ms(median(sessionMs))}  (agent loads here; ZCode = simulator)`);

    const releaseDir = join(ROOT, "dist/release");
    if (existsSync(releaseDir)) {
      console.log("  release archives:");
      for (const name of readdirSync(releaseDir).filter((n) => /\.(tar\.gz|zip)$/.test(n)).sort()) {
        console.log(`    ${name.padEnd(46)} ${(statSync(join(releaseDir, name)).size / 1e6).toFixed(1)} MB`);
      }
    } else {
      console.log("  release archives: dist/release absent (run `bun run build:release` for sizes)");
    }

    const checks: Check[] = [
      { name: "initialize within 3x the floor's start", pass: bi <= 3 * f, detail: `${ms(bi)} vs 3 x ${ms(f)}` },
      {
        name: "initialize at most 0.4x the Node build's",
        pass: cmds.node !== undefined && bi <= 0.4 * ni,
        detail: cmds.node ? `${ms(bi)} vs 0.4 x ${ms(ni)}` : "node not found",
      },
      { name: "idle RSS at most 45 MB", pass: rssMb <= 45, detail: `${rssMb.toFixed(1)} MB` },
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
