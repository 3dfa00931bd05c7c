// One release build per `npm test`, shared by the install tests.
//
// A release build of the targets below costs ~50 s of CPU (seven ~110 MB
// executables, each archived and gzipped). `scripts/test.ts` runs it once,
// from the end of the host build on, beside the unit tests and then beside the
// end-to-end tests, into a temp dir it names in ZCODE_TEST_RELEASE_OUT (and
// removes at the end); install-release reads that build, install-sh and
// install-upgrade serve its archive for this host as the real release. They
// wait for it (it may still be building when they start): the build marks its
// end with a file, done or failed. A file run alone (`bun test
// test/e2e/install-sh.test.ts`) finds no shared build and makes what it needs
// itself, as before; so does one whose shared build failed.
//
// The shared dir is read-only to the tests: every file copies what it changes.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMEBREW_TARGETS, REGISTRY_PLATFORMS } from "../../src/cli/distribution.ts";
import { assetName, hostTarget, targetId, type ReleaseTarget } from "../../src/cli/release-targets.ts";
import { pollUntil } from "../support/poll.ts";
import { ROOT, run, type RunResult } from "./cli-support.ts";

export const SHARED_RELEASE_ENV = "ZCODE_TEST_RELEASE_OUT";

/** Written last by a successful shared build: the targets it holds. */
const DONE_FILE = "release-test-targets.txt";
/** Written instead when the shared build failed: its output's tail. */
const FAILED_FILE = "release-test-failed.txt";
/** How long a test waits for the shared build still under way (it takes ~1 min on 2 busy cores). */
const SHARED_BUILD_WAIT_MS = 10 * 60_000;
/** The budget of a setup that may wait for the shared build, then do `ownMs` of work. */
export const sharedBuildBudget = (ownMs: number) => SHARED_BUILD_WAIT_MS + ownMs;

export const HOST: ReleaseTarget = hostTarget();
export const HOST_BASELINE: ReleaseTarget | undefined = HOST.arch === "x64" ? { ...HOST, baseline: true } : undefined;

/** The targets the registry entry and the Homebrew formula name, plus this host's (and its baseline twin, for npm). */
export const RELEASE_TEST_TARGETS: string[] = [
  ...new Set([
    ...Object.values(REGISTRY_PLATFORMS),
    ...Object.values(HOMEBREW_TARGETS).flatMap((o) => [o.arm, o.intel]),
    targetId(HOST),
    ...(HOST_BASELINE ? [targetId(HOST_BASELINE)] : []),
  ]),
].sort();

/**
 * `scripts/release.ts` for RELEASE_TEST_TARGETS into `out` (release/, npm/, homebrew/, registry/); laid out by
 * `bytecodeOrder` when given (a profile the host build of this tree kept), else by one it records.
 */
export async function buildRelease(out: string, bytecodeOrder?: string): Promise<RunResult> {
  const args = ["--targets", RELEASE_TEST_TARGETS.join(","), "--out", out, ...(bytecodeOrder ? ["--bytecode-order", bytecodeOrder] : [])];
  return run([process.execPath, join(ROOT, "scripts/release.ts"), ...args], { cwd: ROOT, timeoutMs: 600_000 });
}

/**
 * For scripts/test.ts: builds into `out` and marks its end there (done, or failed with the output's tail) for
 * the tests waiting on it; the result says how it went.
 */
export async function buildSharedRelease(out: string, bytecodeOrder?: string): Promise<RunResult> {
  let r: RunResult;
  try {
    r = await buildRelease(out, bytecodeOrder);
  } catch (e) {
    r = { code: 1, stdout: "", stderr: `build:release did not run: ${(e as Error).message}` };
  }
  try {
    if (r.code === 0) writeFileSync(join(out, DONE_FILE), RELEASE_TEST_TARGETS.join("\n"));
    else writeFileSync(join(out, FAILED_FILE), r.stderr.slice(-4000));
  } catch (e) {
    r = { ...r, code: r.code || 1, stderr: `${r.stderr}\ncannot mark the shared build's end in ${out}: ${(e as Error).message}` };
  }
  return r;
}

/**
 * The shared build of this run once it is done, if scripts/test.ts is making one (waiting for it while it
 * builds) and it holds every target; undefined when there is none or it failed (the caller builds its own).
 */
export async function sharedReleaseOut(): Promise<string | undefined> {
  const out = process.env[SHARED_RELEASE_ENV];
  // No such dir: no build is under way there (a leftover setting), nothing to wait for.
  if (!out || !existsSync(out)) return undefined;
  const done = join(out, DONE_FILE);
  const ended = () => existsSync(done) || existsSync(join(out, FAILED_FILE));
  if (!(await pollUntil(ended, SHARED_BUILD_WAIT_MS, 250))) {
    throw new Error(`the shared release build in ${out} did not end within ${SHARED_BUILD_WAIT_MS / 1000} s`);
  }
  if (!existsSync(done) || readFileSync(done, "utf8") !== RELEASE_TEST_TARGETS.join("\n")) return undefined;
  return out;
}

/** This host's release archive (.tar.gz) from the shared build, or undefined when there is none. */
export async function sharedHostArchive(): Promise<Uint8Array | undefined> {
  const out = await sharedReleaseOut();
  return out ? new Uint8Array(readFileSync(join(out, "release", assetName(HOST)))) : undefined;
}
