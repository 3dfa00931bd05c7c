// `bun run bench` runs every benchmark that exists (splitter, startup,
// throughput, latency), one after the other so they do not compete for the CPU;
// `bun run bench <name> [args]` runs one (also `load`, run only when named). Each module exports
// `main(argv)`; a result with `checks` counts towards the exit code.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { TEST_RUN_ALLOCATOR } from "../allocator-env.ts";

const BENCHES = ["splitter", "startup", "throughput", "latency"] as const;
/** Run only when named: `load` builds a 200 MB conversation first. */
const ON_DEMAND = ["load"] as const;

interface Check {
  name: string;
  pass: boolean;
  detail?: string;
}

async function run(name: string, argv: string[]): Promise<Check[]> {
  const file = join(import.meta.dir, `${name}.ts`);
  if (!existsSync(file)) {
    console.log(`\n== ${name}: not present (scripts/bench/${name}.ts), skipped`);
    return [];
  }
  console.log(`\n== ${name}`);
  const mod = (await import(file)) as { main?: (argv: string[]) => Promise<unknown> };
  if (typeof mod.main !== "function") throw new Error(`scripts/bench/${name}.ts does not export main()`);
  const result = (await mod.main(argv)) as { checks?: Check[] } | undefined;
  return (result?.checks ?? []).map((c) => ({ ...c, name: `${name}: ${c.name}` }));
}

export async function main(argv: string[] = process.argv.slice(2)): Promise<{ checks: Check[] }> {
  // Time and memory as users get them: without the allocator settings a test run may have passed down.
  for (const k of Object.keys(TEST_RUN_ALLOCATOR)) delete process.env[k];
  const [first, ...rest] = argv;
  const names = first && !first.startsWith("-") ? [first] : [...BENCHES];
  const args = first && !first.startsWith("-") ? rest : argv;
  for (const n of names) {
    if (![...BENCHES, ...ON_DEMAND].includes(n as never))
      throw new Error(`unknown benchmark "${n}" (have: ${[...BENCHES, ...ON_DEMAND].join(", ")})`);
  }
  const checks: Check[] = [];
  for (const n of names) checks.push(...(await run(n, args)));
  if (checks.length) {
    console.log("\n== summary");
    for (const c of checks) console.log(`${c.pass ? "PASS" : "FAIL"}  ${c.name}`);
    console.log(`${checks.filter((c) => c.pass).length} passed, ${checks.filter((c) => !c.pass).length} failed`);
  }
  return { checks };
}

if (import.meta.main) {
  const r = await main();
  process.exitCode = r.checks.every((c) => c.pass) ? 0 : 1;
}
