// `bun run build`: the host binary dist/zcode-acp-server, plus the ZCode
// simulator dist/zcode-sim that tests, the demo and benchmarks run as the
// bridge's child. Pass --bridge-only or --sim-only to build one of them.
import { compile } from "./compile.ts";

const only = process.argv[2];
const jobs: Promise<void>[] = [];
if (only !== "--sim-only") {
  jobs.push(compile({ entry: "src/main.ts", outfile: "dist/zcode-acp-server" }));
}
if (only !== "--bridge-only") {
  jobs.push(compile({ entry: "test/simulator/main.ts", outfile: "dist/zcode-sim", bytecode: false }));
}
await Promise.all(jobs);

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
