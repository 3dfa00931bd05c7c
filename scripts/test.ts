// `npm test`: lint (Biome) and the layer check, typecheck, build the bridge
// and the simulator, run the unit tests (fast: a broken change fails there
// first), then the end-to-end tests, and end with the line CI reads:
// `N passed, N failed` (both runs summed, each check counting as one test).
// Extra arguments replace the two runs by one `bun test` with them
// (e.g. `npm test -- test/unit/session`).
//
// The aim: under three minutes on an idle 2-core machine. To get there:
// - lint, layers and typecheck run beside the build and the tests (their
//   output is held and shown once they end, so it never interleaves);
// - both `bun test` runs use `--parallel`, the unit run with one worker more
//   than the cores, the e2e run with two more (one on one core; at most
//   MAX_WORKERS; ZCODE_TEST_WORKERS overrides both, 1 runs the files one by
//   one), starting the slowest files first
//   (`test/unit-timings.json`, `test/e2e-timings.json`);
// - both runs keep one module registry per worker (`--no-isolate`): every
//   e2e file imports the ACP SDK, the schema validators and the harness
//   (~0.25 s of CPU each time), ~20 s of CPU over the run; the unit files,
//   most of src/ (~7 s of CPU over the unit run);
// - every process of the run gets mimalloc's transparent huge pages and
//   keeps the memory it freed (scripts/allocator-env.ts): a third of the
//   run's CPU had been page faults (~400 -> ~280 s of CPU, ~210 -> ~150 s of
//   wall time); what measures memory runs as Bun ships (AS_SHIPPED);
// - the release archives are built once, from the end of the host build on,
//   beside the unit and then the e2e tests, into a temp dir the install tests
//   share and wait for (test/e2e/release-support.ts), laid out by the
//   bytecode profile the host build recorded (not recorded twice).
//
// The per-test timeout: 15 s unless a test gives its own (or
// ZCODE_TEST_TIMEOUT_MS), passed as `--timeout` because the preload's
// (test/support/timeouts.ts) reaches only the first file of a process.
//
// A unit file, like an e2e file, leaves its worker as it found it (real timers,
// process.env, no module mock) and does not depend on the order of its tests
// (`bun test --randomize` must pass).
// Rules for every e2e test file, because files run at the same time as others:
// - Parallel-safe: its own temp dirs (mkdtemp), its own ports (port 0), and
//   only its own processes: look for children/descendants of the pids it
//   started (process-support.ts `zcodeChild`, raw-acp-client `childPids`) or
//   for a marker unique to the test (pid + time), never for "any process named
//   zcode-sim", never at counts of processes on the machine.
// - Timeout: a test that may take more than ~2 s on a slow machine (a release
//   build, unpacking archives, npm, megabytes through the bridge, a long
//   history) gives its own, sized for a machine half as fast: `test(name, fn, 60_000)`
//   (a heavy setup too: `beforeAll(fn, 120_000)`).
// - Waits for events (`pollUntil`, `h.waitFor`), never for wall-clock time.
// - Leaves nothing behind in its worker: a worker runs several files with one
//   module registry, so a file neither changes process.env, globals or
//   module mocks nor leaves a process or server running after its afterAll.
// - Measures memory as users run it: a process whose RSS a test reads gets
//   AS_SHIPPED in its env (scripts/allocator-env.ts).
// And where a describe's tests need no bridge of their own, they share one
// (acp-harness.ts sharedBridge): a bridge's start and end cost ~0.25 s of CPU.
// To refresh the timings after adding a slow file:
//   bun test --parallel=2 --timings test/e2e-timings.json --update-timings test/e2e
//   bun test --parallel=2 --timings test/unit-timings.json --update-timings test/unit test/simulator
import { mkdtempSync, rmSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { buildSharedRelease, SHARED_RELEASE_ENV } from "../test/e2e/release-support.ts";
import { useTestRunAllocator } from "./allocator-env.ts";
import { testTimeoutMs } from "../test/support/test-timeout.ts";

const extra = process.argv.slice(2);
// For every process this run starts (see allocator-env.ts); a value the caller set is kept.
useTestRunAllocator(process.env);

/**
 * Workers per `bun test` run, capped (e2e files start real processes): the unit run one more than the cores
 * this process may use, the e2e run two more. An e2e file waits for its children much of its time (a bridge's
 * timeout, a hung child, npm, the shared release build), and the slowest files, started first, are the ones
 * that wait most: on an idle 2-core machine 3 workers took the e2e run from 211 s to 178 s, and a 4th, once
 * the release build ran beside the e2e run, from ~178 s to ~170 s (it had been worse, 186 s, while the e2e
 * run waited for the build first). One core keeps one worker: its timing tests get the one CPU to themselves.
 * ZCODE_TEST_WORKERS sets both.
 */
const MAX_WORKERS = 4;
const CORES = availableParallelism();
const workers = (extra: number) => Number(process.env.ZCODE_TEST_WORKERS) || (CORES <= 1 ? 1 : Math.min(MAX_WORKERS, CORES + extra));
const UNIT_WORKERS = workers(1);
const E2E_WORKERS = workers(2);

async function run(cmd: string[], output: "inherit" | "tee" | "hold"): Promise<{ code: number; out: string }> {
  const p = Bun.spawn(cmd, {
    env: { ...process.env }, // as it is now (SHARED_RELEASE_ENV is set on the way)
    stdout: output === "inherit" ? "inherit" : "pipe",
    stderr: output === "inherit" ? "inherit" : "pipe",
    stdin: "ignore",
  });
  if (output === "inherit") return { code: await p.exited, out: "" };
  // bun test reports on stderr; echo it live ("tee") or hold it ("hold"), and keep a copy.
  let out = "";
  const pump = async (s: ReadableStream<Uint8Array>, sink: NodeJS.WriteStream) => {
    const dec = new TextDecoder();
    for await (const chunk of s) {
      const t = dec.decode(chunk, { stream: true });
      out += t;
      if (output === "tee") sink.write(t);
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

/** A check that counts as one test: passed, or failed with its name and its output said. */
async function check(name: string, cmd: string[]): Promise<void> {
  const started = performance.now();
  const r = await run(cmd, "hold");
  const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
  if (r.code === 0) {
    passed++;
    console.error(`${name}: ok (${took})`);
  } else {
    failed++;
    process.stderr.write(r.out);
    console.error(`${name}: FAILED (${took})`);
  }
}

/** One `bun test` run, its counts added to the totals. */
async function testRun(paths: string[], flags: string[] = []): Promise<void> {
  // The preload's default timeout reaches only the first file of a process (test/support/timeouts.ts).
  const timeout = ["--timeout", String(testTimeoutMs())];
  const tests = await run([process.execPath, "test", ...timeout, ...flags, ...paths], "tee");
  const pass = /^\s*(\d+) pass$/m.exec(tests.out);
  const fail = /^\s*(\d+) fail$/m.exec(tests.out);
  passed += pass ? Number(pass[1]) : 0;
  failed += fail ? Number(fail[1]) : 0;
  if (tests.code !== 0 && !fail?.[1]) failed++; // the runner itself broke
  if (!pass) failed++; // ran no test: that is a failure, not a success
}

/** `--parallel` and flags that only mean something with it; nothing when the files run one by one. */
const withParallel = (workers: number, ...flags: string[]) => (workers > 1 ? [`--parallel=${workers}`, ...flags] : []);

// Lint, layers and typecheck need no build: they run while it and the tests do.
const checks = (async () => {
  await check("lint (biome check)", [process.execPath, "x", "biome", "check", "src", "test", "scripts"]);
  await check("layers", [process.execPath, "scripts/check-layers.ts"]);
  await check("typecheck", [process.execPath, "x", "tsc", "--noEmit"]);
})();

// The release build below lays its targets out by the bytecode profile this build records (the same tree).
const orderDir = extra.length ? undefined : mkdtempSync(join(tmpdir(), "zcode-acp-test-order-"));
const orderFile = orderDir ? join(orderDir, "bytecode-order") : undefined;
const build = await run([process.execPath, "scripts/build.ts", ...(orderFile ? ["--keep-order", orderFile] : [])], "inherit");
if (build.code !== 0) {
  if (orderDir) rmSync(orderDir, { recursive: true, force: true });
  await checks;
  console.error("build: FAILED (no tests can run without the binaries)");
  console.log(`${passed} passed, ${failed + 1} failed`);
  process.exit(1);
}

let releaseOut: string | undefined;
let release: Promise<void> | undefined;
try {
  if (extra.length) await testRun(extra);
  else {
    // The release build the install tests share (test/e2e/release-support.ts):
    // made once, beside the unit tests and then the e2e tests, which do not
    // wait for it; the install tests wait for its end (done or failed). If it
    // fails, it counts as a failed check and install-release builds again and
    // says why.
    releaseOut = mkdtempSync(join(tmpdir(), "zcode-acp-test-release-"));
    const out = releaseOut;
    process.env[SHARED_RELEASE_ENV] = out;
    release = (async () => {
      const started = performance.now();
      const r = await buildSharedRelease(out, orderFile);
      const took = `${((performance.now() - started) / 1000).toFixed(1)} s`;
      if (r.code === 0) {
        passed++;
        console.error(`release build for the install tests: ok (${took})`);
      } else {
        failed++;
        process.stderr.write(r.stderr);
        console.error(`release build for the install tests: FAILED (${took})`);
      }
    })();
    await testRun(["test/unit", "test/simulator"], withParallel(UNIT_WORKERS, "--no-isolate", "--timings", "test/unit-timings.json"));
    await testRun(["test/e2e"], withParallel(E2E_WORKERS, "--no-isolate", "--timings", "test/e2e-timings.json"));
  }
  await Promise.all([checks, release]);
} finally {
  await release?.catch(() => {});
  for (const dir of [releaseOut, orderDir]) if (dir) rmSync(dir, { recursive: true, force: true });
}

console.log(`${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);
