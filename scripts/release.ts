// `bun run build:release`: every release target from this one machine into
// dist/release/ — one archive per target, SHA256SUMS, and the installers —
// then smoke-runs the archive built for this host (`--version` and an ACP
// `initialize` round trip with an empty environment, as the ACP registry does).
//
//   bun scripts/release.ts                       all targets
//   bun scripts/release.ts --targets linux-x64   a subset (comma-separated ids)
import { chmodSync, copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import pkg from "../package.json" with { type: "json" };
import {
  assetName,
  binaryName,
  bunTarget,
  hostTarget,
  RELEASE_TARGETS,
  targetId,
  type ReleaseTarget,
} from "../src/cli/release-targets.ts";
import { compile } from "./compile.ts";
import { writeZip } from "./zip.ts";

const ROOT = resolve(import.meta.dir, "..");
const OUT = join(ROOT, "dist/release");
const WORK = join(OUT, ".build");

function selectedTargets(): ReleaseTarget[] {
  const i = process.argv.indexOf("--targets");
  if (i === -1) return [...RELEASE_TARGETS];
  const ids = (process.argv[i + 1] ?? "").split(",").filter(Boolean);
  const picked = ids.map((id) => {
    const t = RELEASE_TARGETS.find((x) => targetId(x) === id);
    if (!t) throw new Error(`unknown target ${id}; known: ${RELEASE_TARGETS.map(targetId).join(", ")}`);
    return t;
  });
  if (picked.length === 0) throw new Error("--targets needs a comma-separated list");
  return picked;
}

async function buildOne(t: ReleaseTarget): Promise<{ target: ReleaseTarget; asset: string; ok: boolean; error?: string }> {
  const id = targetId(t);
  const dir = join(WORK, id);
  const bin = join(dir, binaryName(t));
  const asset = assetName(t);
  try {
    rmSync(dir, { recursive: true, force: true });
    await compile({
      entry: join(ROOT, "src/main.ts"),
      outfile: bin,
      target: bunTarget(t),
      extraDefines: { __RELEASE_TARGET__: JSON.stringify(id) },
    });
    chmodSync(bin, 0o755);
    if (t.os === "windows") {
      writeZip(join(OUT, asset), [{ name: binaryName(t), data: readFileSync(bin), mode: 0o755 }]);
    } else {
      await tarGz(join(OUT, asset), dir, binaryName(t));
    }
    return { target: t, asset, ok: true };
  } catch (e) {
    return { target: t, asset, ok: false, error: (e as Error).message };
  }
}

async function tarGz(out: string, dir: string, file: string): Promise<void> {
  // Owner 0 and a fixed mode: the archive must not leak the build machine's users.
  const args = ["tar", "-czf", out, "-C", dir];
  const gnu = Bun.spawnSync(["tar", "--version"]).stdout.toString().includes("GNU");
  if (gnu) args.push("--owner=0", "--group=0", "--numeric-owner");
  args.push(file);
  const p = Bun.spawn(args, { stdout: "ignore", stderr: "pipe" });
  const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
  if (code !== 0) throw new Error(`tar failed: ${err}`);
}

async function sha256File(path: string): Promise<string> {
  const h = new Bun.CryptoHasher("sha256");
  h.update(await Bun.file(path).arrayBuffer());
  return h.digest("hex");
}

/** The host archive must start and answer `initialize` before anything is published. */
async function smoke(t: ReleaseTarget): Promise<void> {
  const bin = join(WORK, targetId(t), binaryName(t));
  const v = Bun.spawnSync([bin, "--version"], { env: {} });
  const printed = v.stdout.toString().trim();
  if (v.exitCode !== 0 || printed !== pkg.version) {
    throw new Error(`smoke: ${bin} --version printed ${JSON.stringify(printed)} (exit ${v.exitCode}), expected ${pkg.version}`);
  }
  const p = Bun.spawn([bin], { env: {}, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const killer = setTimeout(() => p.kill("SIGKILL"), 10_000);
  p.stdin.write(
    `${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1, clientCapabilities: {} } })}\n`,
  );
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await p.stdin.end();
  const code = await p.exited;
  clearTimeout(killer);
  const first = text.split("\n")[0] ?? "";
  let msg: { id?: unknown; result?: { protocolVersion?: unknown; authMethods?: unknown[] } };
  try {
    msg = JSON.parse(first);
  } catch {
    throw new Error(`smoke: initialize got no JSON line (got ${JSON.stringify(first.slice(0, 200))}); stderr: ${await new Response(p.stderr).text()}`);
  }
  if (msg.id !== 1 || msg.result?.protocolVersion !== 1) {
    throw new Error(`smoke: unexpected initialize response ${first.slice(0, 300)}`);
  }
  if (code !== 0) throw new Error(`smoke: bridge exited ${code} after stdin closed`);
  process.stderr.write(`smoke ${targetId(t)}: --version ${printed}, initialize answered, exit 0\n`);
}

const targets = selectedTargets();
mkdirSync(WORK, { recursive: true });
for (const t of targets) rmSync(join(OUT, assetName(t)), { force: true });

// Two at a time: each build may first download its Bun runtime from npm.
const results: Awaited<ReturnType<typeof buildOne>>[] = [];
const queue = [...targets];
await Promise.all(
  [0, 1].map(async () => {
    for (let t = queue.shift(); t; t = queue.shift()) {
      const started = performance.now();
      const r = await buildOne(t);
      results.push(r);
      process.stderr.write(
        `${r.ok ? "built " : "FAILED"} ${targetId(t)} in ${((performance.now() - started) / 1000).toFixed(1)} s${r.error ? `: ${r.error}` : ""}\n`,
      );
    }
  }),
);

const built = results.filter((r) => r.ok).sort((a, b) => a.asset.localeCompare(b.asset));
const sums = await Promise.all(built.map(async (r) => `${await sha256File(join(OUT, r.asset))}  ${r.asset}\n`));
writeFileSync(join(OUT, "SHA256SUMS"), sums.join(""));
for (const f of ["install.sh", "install.ps1"]) copyFileSync(join(ROOT, f), join(OUT, f));

for (const r of built) {
  const mb = statSync(join(OUT, r.asset)).size / 1e6;
  process.stderr.write(`  ${r.asset.padEnd(48)} ${mb.toFixed(1)} MB\n`);
}

let host: ReleaseTarget | undefined;
try {
  host = hostTarget();
} catch {
  host = undefined;
}
const hostBuilt = host && built.find((r) => targetId(r.target) === targetId(host));
if (hostBuilt) await smoke(hostBuilt.target);
else process.stderr.write("smoke: no archive for this host among the selected targets; skipped\n");

const failed = results.filter((r) => !r.ok);
if (failed.length > 0) {
  process.stderr.write(`${failed.length} target(s) failed: ${failed.map((r) => targetId(r.target)).join(", ")}\n`);
  process.exit(1);
}
process.stderr.write(`dist/release: ${built.length} archives + SHA256SUMS\n`);
