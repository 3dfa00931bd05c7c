// One release build per `npm test`, shared by the install tests.
//
// A release build of the targets below costs ~40 s of CPU (seven ~110 MB
// executables, each archived and gzipped). `scripts/test.ts` runs it once,
// beside the unit tests, into a temp dir it names in ZCODE_TEST_RELEASE_OUT
// (and removes at the end); install-release reads that build, install-sh and
// install-upgrade serve its archive for this host as the real release. A file
// run alone (`bun test test/e2e/install-sh.test.ts`) finds no shared build and
// makes what it needs itself, as before.
//
// The shared dir is read-only to the tests: every file copies what it changes.
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { HOMEBREW_TARGETS, REGISTRY_PLATFORMS } from "../../src/cli/distribution.ts";
import { assetName, hostTarget, targetId, type ReleaseTarget } from "../../src/cli/release-targets.ts";
import { ROOT, run, type RunResult } from "./cli-support.ts";

export const SHARED_RELEASE_ENV = "ZCODE_TEST_RELEASE_OUT";

/** Written last by a successful shared build: the targets it holds. */
const DONE_FILE = "release-test-targets.txt";

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

/** For scripts/test.ts: builds into `out` and marks it complete; the result says how it went. */
export async function buildSharedRelease(out: string, bytecodeOrder?: string): Promise<RunResult> {
  const r = await buildRelease(out, bytecodeOrder);
  if (r.code === 0) writeFileSync(join(out, DONE_FILE), RELEASE_TEST_TARGETS.join("\n"));
  return r;
}

/** The shared build of this run, if scripts/test.ts made one and it holds every target; else undefined. */
export function sharedReleaseOut(): string | undefined {
  const out = process.env[SHARED_RELEASE_ENV];
  if (!out) return undefined;
  const done = join(out, DONE_FILE);
  if (!existsSync(done) || readFileSync(done, "utf8") !== RELEASE_TEST_TARGETS.join("\n")) return undefined;
  return out;
}

/** This host's release archive (.tar.gz) from the shared build, or undefined when there is none. */
export function sharedHostArchive(): Uint8Array | undefined {
  const out = sharedReleaseOut();
  return out ? new Uint8Array(readFileSync(join(out, "release", assetName(HOST)))) : undefined;
}
