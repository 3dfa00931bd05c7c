import { launchEnv } from "./launch-env.ts";
import { cleanEnv } from "./process.ts";
import { resolveZCode } from "./resolve.ts";
import type { Env } from "./host.ts";

// Signing in and out is ZCode's own: `zcode login` (its OAuth or API-key
// flow, writing ~/.zcode/v2/credentials.json) and `zcode logout` (clearing
// it), as ZCode's CLI implements them (jimpablo/ZCode@aac4755:
// apps/zcode-cli/packages/bootstrap/src/auth-login.ts `loginZCodeCli`,
// `configureCodingPlanApiKey`, and `logoutZCodeCli` re-exported there). The
// bridge never writes that file: it runs the command and reports its exit.
// Shared by the CLI's `login` / `logout`, ACP `logout` and ACP v2's
// `auth/login` / `auth/logout`.

export type ZCodeAuthCommand = "login" | "logout";

export interface ZCodeAuthOptions {
  bin?: string;
  node?: string;
  env: Env;
  /**
   * "inherit": a person at a terminal talks to ZCode (the CLI subcommands,
   * ACP terminal auth). "pipe": ZCode gets no terminal and no stdin (an ACP
   * request: stdout is the protocol), its output is returned.
   */
  stdio: "inherit" | "pipe";
}

export interface ZCodeAuthResult {
  /** ZCode's exit code (null when a signal ended it). */
  code: number | null;
  /** With stdio "pipe": the last lines ZCode wrote (stdout and stderr), for an error message. */
  output: string[];
}

const TAIL_LINES = 20;
const TAIL_BYTES = 64 * 1024;

/** The end of a stream, read to its end but never more than TAIL_BYTES kept. */
async function lastBytes(stream: ReadableStream<Uint8Array>): Promise<string> {
  let kept = new Uint8Array(0);
  for await (const chunk of stream) {
    const joined = new Uint8Array(kept.length + chunk.length);
    joined.set(kept);
    joined.set(chunk, kept.length);
    kept = joined.length > TAIL_BYTES ? joined.slice(joined.length - TAIL_BYTES) : joined;
  }
  return new TextDecoder().decode(kept);
}

/** Runs `zcode login` or `zcode logout` with the same CLI and environment the bridge serves with. Throws what resolveZCode throws. */
export async function runZCodeAuth(command: ZCodeAuthCommand, opts: ZCodeAuthOptions): Promise<ZCodeAuthResult> {
  const launch = resolveZCode({ bin: opts.bin, node: opts.node, env: opts.env });
  const env = cleanEnv(launchEnv(launch, opts.env));
  if (opts.stdio === "inherit") {
    const p = Bun.spawn([...launch.command, command], { env, stdin: "inherit", stdout: "inherit", stderr: "inherit" });
    return { code: await p.exited, output: [] };
  }
  const p = Bun.spawn([...launch.command, command], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([lastBytes(p.stdout), lastBytes(p.stderr), p.exited]);
  const output = `${out}\n${err}`
    .split(/\r?\n/)
    .map((l) => l.trimEnd())
    .filter((l) => l)
    .slice(-TAIL_LINES);
  return { code, output };
}
