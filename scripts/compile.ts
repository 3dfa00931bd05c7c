// Shared `bun build --compile` invocation for the host build, the simulator
// and the release matrix. Bun can print `error:` and still exit 0 (notably
// with --bytecode), so any such line fails the build here.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import pkg from "../package.json" with { type: "json" };

export interface CompileOptions {
  entry: string;
  outfile: string;
  /** e.g. "bun-linux-x64"; omitted for the host. */
  target?: string;
  /** Bytecode makes start-up ~25% faster; off for the test-only simulator. */
  bytecode?: boolean;
  extraDefines?: Record<string, string>;
}

export async function compile(o: CompileOptions): Promise<void> {
  mkdirSync(dirname(o.outfile), { recursive: true });
  const args = [
    process.execPath,
    "build",
    o.entry,
    "--compile",
    "--minify",
    "--format=esm",
    "--sourcemap=linked",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--define",
    `__VERSION__=${JSON.stringify(pkg.version)}`,
    "--outfile",
    o.outfile,
  ];
  if (o.bytecode !== false) args.push("--bytecode");
  if (o.target) args.push(`--target=${o.target}`);
  for (const [k, v] of Object.entries(o.extraDefines ?? {})) args.push("--define", `${k}=${v}`);
  const proc = Bun.spawn(args, { stdout: "pipe", stderr: "pipe", env: { ...process.env, BUN_BE_BUN: "1" } });
  const [out, err, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  const text = `${out}\n${err}`;
  if (code !== 0 || /^\s*error:/im.test(text)) {
    process.stderr.write(text);
    throw new Error(`bun build failed for ${o.outfile} (exit ${code})`);
  }
}
