// `bun run build`: the host binary dist/zcode-acp-server, plus the ZCode
// simulator dist/zcode-sim that tests, the demo and benchmarks run as the
// bridge's child. Pass --bridge-only or --sim-only to build one of them.
// The bridge is built twice: the first build runs a session against the
// simulator to record which bytecode start-up uses, the second is laid out
// by that profile (scripts/bytecode-order.ts). `--keep-order FILE` keeps the
// profile there, for a release build of the same tree (`npm test` does).
import { copyFileSync, existsSync } from "node:fs";
import { recordBytecodeOrder } from "./bytecode-order.ts";
import { compile } from "./compile.ts";

const only = process.argv.find((a) => a === "--sim-only" || a === "--bridge-only");
const keepAt = process.argv.indexOf("--keep-order");
const keepOrder = keepAt === -1 ? undefined : process.argv[keepAt + 1];
if (keepAt !== -1 && (!keepOrder || keepOrder.startsWith("--"))) throw new Error("--keep-order needs a file");
const BRIDGE = "dist/zcode-acp-server";
const SIM = "dist/zcode-sim";
const jobs: Promise<void>[] = [];
if (only !== "--sim-only") jobs.push(compile({ entry: "src/main.ts", outfile: BRIDGE }));
// The simulator with bytecode too: the e2e suite starts it ~600 times (each
// bridge runs its `--version` probe and its `app-server`), and bytecode halves
// the CPU of each start (~70 -> ~50 ms). Normal JIT policy: it is a test peer,
// its hot paths should tier up as Bun's do.
if (only !== "--bridge-only") jobs.push(compile({ entry: "test/simulator/main.ts", outfile: SIM, jitPolicy: 1 }));
await Promise.all(jobs);

if (only !== "--sim-only") {
  if (existsSync(SIM)) {
    const order = await recordBytecodeOrder(BRIDGE, SIM);
    try {
      if (keepOrder) copyFileSync(order.file, keepOrder);
      await compile({ entry: "src/main.ts", outfile: BRIDGE, bytecodeOrder: order.file });
    } finally {
      order.cleanup();
    }
  } else {
    process.stderr.write(`no ${SIM} to record a bytecode profile with: ${BRIDGE} is laid out without one\n`);
  }
}

if (only !== "--sim-only") {
  // Smoke-run: a binary that builds but dies on start must fail the build.
  const p = Bun.spawnSync(["dist/zcode-acp-server", "--version"], { stderr: "pipe" });
  const v = p.stdout.toString().trim();
  if (p.exitCode !== 0 || !/^\d+\.\d+\.\d+/.test(v)) {
    process.stderr.write(p.stderr.toString());
    throw new Error(`dist/zcode-acp-server --version failed (exit ${p.exitCode}, printed ${JSON.stringify(v)})`);
  }
  process.stderr.write(`built dist/zcode-acp-server ${v}\n`);
}
