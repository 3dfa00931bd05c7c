// `bun run build:release`: every release target from this one machine, and
// every file a release publishes, with one set of checksums:
//   dist/release/       one archive per target, SHA256SUMS, install.sh and
//                       install.ps1 stamped with this version
//   dist/npm/           the npm packages, one directory each (npm pack/publish)
//   dist/homebrew/      zcode-acp-server.rb for the tap
//   dist/registry/zcode-acp-server/   agent.json (with sha256) + icon.svg,
//                       ready to copy into the ACP registry repository
// then smoke-runs the binary built for this host (`--version` and an ACP
// `initialize` with an empty environment, as the ACP registry does).
//
//   bun scripts/release.ts                          all targets
//   bun scripts/release.ts --targets a,b            a subset (comma-separated ids); the
//                                                   formula and registry entry are written
//                                                   only when their archives are built
//   bun scripts/release.ts --out DIR                write under DIR instead of dist/
//   bun scripts/release.ts --bytecode-order FILE    lay out by this profile, recorded by a
//                                                   bytecode build of this same tree
//                                                   (`bun scripts/build.ts --keep-order FILE`),
//                                                   instead of recording one here
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { parseSha256Sums } from "../src/cli/checksums.ts";
import { HOMEBREW_FORMULA, HOMEBREW_TARGETS, REGISTRY_AGENT_ID, REGISTRY_PLATFORMS } from "../src/cli/distribution.ts";
import {
  assetName,
  binaryName,
  bunTarget,
  hostTarget,
  parseTargetId,
  RELEASE_TARGETS,
  targetId,
  type ReleaseTarget,
} from "../src/cli/release-targets.ts";
import { recordBytecodeOrder } from "./bytecode-order.ts";
import { compile } from "./compile.ts";
import { sha256File, tarGz, zipOne } from "./release/archive.ts";
import { formulaText } from "./release/homebrew.ts";
import { writeNpmPackages } from "./release/npm-packages.ts";
import { entryText, registryEntry, type RegistryEntry } from "./release/registry-entry.ts";
import { smoke } from "./release/smoke.ts";
import { writeStampedInstaller } from "./release/stamp-installers.ts";

const ROOT = resolve(import.meta.dir, "..");

function argValue(flag: string): string | undefined {
  const i = process.argv.indexOf(flag);
  if (i === -1) return undefined;
  const v = process.argv[i + 1];
  if (!v || v.startsWith("--")) throw new Error(`${flag} needs a value`);
  return v;
}

function selectedTargets(): ReleaseTarget[] {
  const list = argValue("--targets");
  if (list === undefined) return [...RELEASE_TARGETS];
  const picked = list
    .split(",")
    .filter(Boolean)
    .map((id) => {
      const t = parseTargetId(id);
      if (!t) throw new Error(`unknown target ${id}; known: ${RELEASE_TARGETS.map(targetId).join(", ")}`);
      return t;
    });
  if (picked.length === 0) throw new Error("--targets needs a comma-separated list");
  return picked;
}

const OUT_ROOT = resolve(argValue("--out") ?? join(ROOT, "dist"));
const OUT = join(OUT_ROOT, "release");
const WORK = join(OUT, ".build");
const version = pkg.version;

interface Built {
  target: ReleaseTarget;
  asset: string;
  binary: string;
  ok: boolean;
  error?: string;
}

/**
 * The bytecode layout profile every target is built with (one profile fits
 * every target): recorded by a host build running a session against the
 * simulator (scripts/bytecode-order.ts). Without it the binaries still work,
 * they only start with more of themselves read; that is said, not hidden.
 */
async function recordOrder(): Promise<{ file: string; cleanup: () => void } | undefined> {
  // `npm test` built the bridge from this tree a moment ago and kept its profile: the same one would be recorded.
  const given = argValue("--bytecode-order");
  if (given) {
    if (existsSync(given)) return { file: resolve(given), cleanup: () => {} };
    process.stderr.write(`WARNING: --bytecode-order ${given}: no such file; recording a profile\n`);
  }
  const bridge = join(WORK, "order-bridge");
  const sim = join(WORK, "order-sim");
  try {
    await Promise.all([
      compile({ entry: join(ROOT, "src/main.ts"), outfile: bridge }),
      compile({ entry: join(ROOT, "test/simulator/main.ts"), outfile: sim, bytecode: false }),
    ]);
    return await recordBytecodeOrder(bridge, sim);
  } catch (e) {
    process.stderr.write(`WARNING: no bytecode layout profile (${(e as Error).message}); building without one\n`);
    return undefined;
  } finally {
    for (const f of [bridge, sim]) for (const x of [f, `${f}.map`]) rmSync(x, { force: true });
  }
}

async function buildOne(t: ReleaseTarget, bytecodeOrder: string | undefined): Promise<Built> {
  const id = targetId(t);
  const dir = join(WORK, id);
  const binary = join(dir, binaryName(t));
  const asset = assetName(t);
  try {
    rmSync(dir, { recursive: true, force: true });
    await compile({
      entry: join(ROOT, "src/main.ts"),
      outfile: binary,
      target: bunTarget(t),
      extraDefines: { __RELEASE_TARGET__: JSON.stringify(id) },
      bytecodeOrder,
    });
    if (t.os === "windows") zipOne(join(OUT, asset), binary, binaryName(t));
    else await tarGz(join(OUT, asset), dir, binaryName(t));
    return { target: t, asset, binary, ok: true };
  } catch (e) {
    return { target: t, asset, binary, ok: false, error: (e as Error).message };
  }
}

const targets = selectedTargets();
mkdirSync(WORK, { recursive: true });
for (const t of targets) rmSync(join(OUT, assetName(t)), { force: true });

const order = await recordOrder();
// Two at a time: each build may first download its Bun runtime from npm.
const results: Built[] = [];
const queue = [...targets];
await Promise.all(
  [0, 1].map(async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      const started = performance.now();
      const r = await buildOne(t, order?.file);
      results.push(r);
      process.stderr.write(
        `${r.ok ? "built " : "FAILED"} ${targetId(t)} in ${((performance.now() - started) / 1000).toFixed(1)} s${r.error ? `: ${r.error}` : ""}\n`,
      );
    }
  }),
);

order?.cleanup();
const built = results.filter((r) => r.ok).sort((a, b) => a.asset.localeCompare(b.asset));
const sumsText = (await Promise.all(built.map(async (r) => `${await sha256File(join(OUT, r.asset))}  ${r.asset}\n`))).join("");
writeFileSync(join(OUT, "SHA256SUMS"), sumsText);
const sums = parseSha256Sums(sumsText);
for (const f of ["install.sh", "install.ps1"]) writeStampedInstaller(join(ROOT, f), join(OUT, f), f, version);

// npm: every built target gets its package; the main package always lists
// every platform package, built here or not.
const npmDirs = writeNpmPackages(
  join(OUT_ROOT, "npm"),
  version,
  new Map(built.map((r) => [targetId(r.target), { target: r.target, path: r.binary }])),
);

const builtIds = new Set(built.map((r) => targetId(r.target)));
const missing = (ids: string[]) => ids.filter((id) => !builtIds.has(id));

const formulaMissing = missing(Object.values(HOMEBREW_TARGETS).flatMap((o) => [o.arm, o.intel]));
const formulaPath = join(OUT_ROOT, "homebrew", `${HOMEBREW_FORMULA}.rb`);
rmSync(formulaPath, { force: true });
if (formulaMissing.length === 0) {
  mkdirSync(join(OUT_ROOT, "homebrew"), { recursive: true });
  writeFileSync(formulaPath, formulaText(version, sums));
} else {
  process.stderr.write(`homebrew: formula not written (not built: ${formulaMissing.join(", ")})\n`);
}

const registryMissing = missing(Object.values(REGISTRY_PLATFORMS));
const registryDir = join(OUT_ROOT, "registry", REGISTRY_AGENT_ID);
rmSync(registryDir, { recursive: true, force: true });
if (registryMissing.length === 0) {
  const template = JSON.parse(readFileSync(join(ROOT, "registry/agent.json"), "utf8")) as RegistryEntry;
  mkdirSync(registryDir, { recursive: true });
  writeFileSync(join(registryDir, "agent.json"), entryText(registryEntry(template, version, sums)));
  copyFileSync(join(ROOT, "registry/icon.svg"), join(registryDir, "icon.svg"));
} else {
  process.stderr.write(`registry: agent.json not written (not built: ${registryMissing.join(", ")})\n`);
}

for (const r of built) {
  const mb = statSync(join(OUT, r.asset)).size / 1e6;
  process.stderr.write(`  ${r.asset.padEnd(52)} ${mb.toFixed(1)} MB\n`);
}

let host: ReleaseTarget | undefined;
try {
  host = hostTarget();
} catch {
  host = undefined;
}
// The host's build and, on x64, its baseline twin (which runs on any x64 CPU).
const runnable = host
  ? built.filter((r) => targetId(r.target) === targetId(host) || targetId(r.target) === targetId({ ...host, baseline: true }))
  : [];
for (const r of runnable) await smoke(r.binary, targetId(r.target));
if (runnable.length === 0) process.stderr.write("smoke: no archive for this host among the selected targets; skipped\n");

const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  process.stderr.write(`${failed.length} target(s) failed: ${failed.map((r) => targetId(r.target)).join(", ")}\n`);
  process.exit(1);
}
process.stderr.write(
  `${OUT}: ${built.length} archives + SHA256SUMS + installers; ${OUT_ROOT}/npm: ${npmDirs.length} packages` +
    `${formulaMissing.length === 0 ? `; ${formulaPath}` : ""}${registryMissing.length === 0 ? `; ${registryDir}/agent.json` : ""}\n`,
);
