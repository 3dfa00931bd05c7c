// Shared `bun build --compile` for the host build, the simulator and the
// release matrix, through Bun.build so that the build plugin below applies.
// Bun can report an error and still produce a file (notably with --bytecode),
// so any error log fails the build here.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import pkg from "../package.json" with { type: "json" };
import { lazySdkSchemas } from "./lazy-schemas.ts";

/**
 * JavaScriptCore's JIT tier-up thresholds are multiplied by this at start.
 * Start-up code (module evaluation, the first requests) runs once: compiling
 * it costs time and memory (the compilers' code pages and JIT code) and never
 * pays back. Code that stays hot (a turn's event stream) still tiers up, just
 * later. Measured by scripts/bench/startup.ts and throughput.ts.
 */
export const JIT_POLICY = 8;

export interface CompileOptions {
  entry: string;
  outfile: string;
  /** e.g. "bun-linux-x64"; omitted for the host. */
  target?: string;
  /** Bytecode makes start-up ~25% faster (default on). */
  bytecode?: boolean;
  extraDefines?: Record<string, string>;
  /** Default JIT_POLICY with bytecode, 1 (Bun's normal policy) without. */
  jitPolicy?: number;
  /** A profile from recordBytecodeOrder (scripts/bytecode-order.ts): bytecode layout by use. */
  bytecodeOrder?: string;
}

export async function compile(o: CompileOptions): Promise<void> {
  mkdirSync(dirname(o.outfile), { recursive: true });
  const bytecode = o.bytecode !== false;
  let result: Awaited<ReturnType<typeof Bun.build>>;
  try {
    result = await Bun.build({
      entrypoints: [o.entry],
      compile: {
        outfile: o.outfile,
        ...(o.target ? { target: o.target as Bun.Build.CompileTarget } : {}),
        // A project's .env or bunfig.toml must never configure the binary.
        autoloadDotenv: false,
        autoloadBunfig: false,
        jitPolicy: o.jitPolicy ?? (bytecode ? JIT_POLICY : 1),
        ...(bytecode && o.bytecodeOrder ? { bytecodeOrder: o.bytecodeOrder } : {}),
      },
      minify: true,
      format: "esm",
      sourcemap: "linked",
      bytecode,
      define: { __VERSION__: JSON.stringify(pkg.version), ...o.extraDefines },
      plugins: [lazySdkSchemas],
    });
  } catch (e) {
    throw new Error(`bun build failed for ${o.outfile}: ${(e as Error).message}`);
  }
  const errors = result.logs.filter((l) => l.level === "error");
  if (!result.success || errors.length) {
    for (const l of result.logs) process.stderr.write(`${l}\n`);
    throw new Error(`bun build failed for ${o.outfile}`);
  }
}
