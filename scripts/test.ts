// `npm test`: lint (Biome) and the layer check, typecheck, build the bridge
// and the simulator, run the unit
// tests (fast: a broken change fails there first), then the end-to-end
// tests, and end with the line CI reads: `N passed, N failed` (both runs summed).
// Extra arguments replace the two runs by one `bun test` with them
// (e.g. `npm test -- test/unit/session`).
export {};

const extra = process.argv.slice(2);

async function run(cmd: string[], capture = false): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(cmd, {
    stdout: capture ? "pipe" : "inherit",
    stderr: capture ? "pipe" : "inherit",
    stdin: "ignore",
  });
  if (!capture) return { code: await p.exited, out: "" };
  // bun test reports on stderr; echo it live and keep a copy to count from.
  let out = "";
  const pump = async (s: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const dec = new TextDecoder();
    for await (const chunk of s) {
      const t = dec.decode(chunk, { stream: true });
      out += t;
      sink.write(t);
    }
  };
  await Promise.all([
    pump(p.stdout as ReadableStream<Uint8Array>, process.stdout),
    pump(p.stderr as ReadableStream<Uint8Array>, process.stderr),
  ]);
  return { code: await p.exited, out };
}

let passed = 0;
let failed = 0;

/** A check that counts as one test: passed, or failed with its name said. */
async function check(name: string, cmd: string[]): Promise<void> {
  const r = await run(cmd);
  if (r.code === 0) passed++;
  else {
    failed++;
    console.error(`${name}: FAILED`);
  }
}

await check("lint (biome check)", [process.execPath, "x", "biome", "check", "src", "test", "scripts"]);
await check("layers", [process.execPath, "scripts/check-layers.ts"]);
await check("typecheck", [process.execPath, "x", "tsc", "--noEmit"]);

const build = await run([process.execPath, "scripts/build.ts"]);
if (build.code !== 0) {
  console.error("build: FAILED (no tests can run without the binaries)");
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
}

/** One `bun test` run, its counts added to the totals. */
async function testRun(paths: string[]): Promise<void> {
  const tests = await run([process.execPath, "test", ...paths], true);
  const pass = /^\s*(\d+) pass$/m.exec(tests.out);
  const fail = /^\s*(\d+) fail$/m.exec(tests.out);
  passed += pass ? Number(pass[1]) : 0;
  failed += fail ? Number(fail[1]) : 0;
  if (tests.code !== 0 && !fail?.[1]) failed++; // the runner itself broke
  if (!pass) failed++; // ran no test: that is a failure, not a success
}

const UNIT = ["test/unit", "test/simulator"];
const E2E = ["test/e2e"];
for (const paths of extra.length ? [extra] : [UNIT, E2E]) await testRun(paths);

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
