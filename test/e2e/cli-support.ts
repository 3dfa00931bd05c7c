// Helpers for the CLI and installer end-to-end tests: run a binary, do one
// ACP initialize round trip over real pipes, build fake release archives.
import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { DEFLATE_OPTIONS } from "../../scripts/zip.ts";

export const ROOT = resolve(import.meta.dir, "../..");
export const BRIDGE_BIN = resolve(ROOT, "dist/zcode-acp-server");
export const SIM_BIN = resolve(ROOT, "dist/zcode-sim");

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Run to completion (async, so a Bun.serve in this process keeps serving). */
export async function run(
  cmd: string[],
  opts: { env?: Record<string, string | undefined>; cwd?: string; timeoutMs?: number } = {},
): Promise<RunResult> {
  const p = Bun.spawn(cmd, {
    env: opts.env ?? process.env,
    cwd: opts.cwd,
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const timer = setTimeout(() => p.kill("SIGKILL"), opts.timeoutMs ?? 20_000);
  const [stdout, stderr, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

export const INITIALIZE_LINE = `${JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: 1, clientCapabilities: {} },
})}\n`;

/**
 * Write one `initialize` request and return the first line the binary prints
 * on stdout (parsed), then close its stdin and wait for it to exit.
 */
export async function initializeRoundTrip(
  bin: string,
  env: Record<string, string | undefined> = process.env,
  cwd?: string,
): Promise<{ response: Record<string, unknown>; code: number; stderr: string }> {
  const p = Bun.spawn([bin], { env, cwd, stdin: "pipe", stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => p.kill("SIGKILL"), 15_000);
  p.stdin.write(INITIALIZE_LINE);
  await p.stdin.flush();
  const reader = p.stdout.getReader();
  let buf = "";
  const dec = new TextDecoder();
  while (!buf.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    buf += dec.decode(value, { stream: true });
  }
  reader.releaseLock();
  await p.stdin.end();
  const stderrText = new Response(p.stderr).text();
  const code = await p.exited;
  clearTimeout(timer);
  const line = buf.split("\n")[0] ?? "";
  let response: Record<string, unknown>;
  try {
    response = JSON.parse(line);
  } catch {
    throw new Error(`first stdout line is not JSON: ${JSON.stringify(line)}; stderr: ${await stderrText}`);
  }
  return { response, code, stderr: await stderrText };
}

export function sha256(data: Uint8Array): string {
  return createHash("sha256").update(data).digest("hex");
}

/**
 * A .tar.gz holding one executable file named `name`. Gzipped with libdeflate,
 * as the release is (scripts/zip.ts): for the ~110 MB bridge, under half the
 * CPU of Bun.Archive's own gzip.
 */
export async function tarGz(name: string, content: string | Uint8Array): Promise<Uint8Array> {
  const tar = await new Bun.Archive({ [name]: content }).bytes();
  return Bun.gzipSync(tar, DEFLATE_OPTIONS);
}

/** A shell script that answers `--version` like the real binary does. */
export function fakeBinary(version: string): string {
  return `#!/bin/sh\nif [ "$1" = --version ]; then echo "${version}"; exit 0; fi\necho "fake zcode-acp-server" >&2\nexit 3\n`;
}

/** Serve `files` (URL path -> bytes) on 127.0.0.1, `redirects` (path -> path) as GitHub's 302s; 404 for anything else. */
export function serveFiles(files: Map<string, Uint8Array>, redirects: Map<string, string> = new Map()) {
  const requests: string[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(req) {
      const path = new URL(req.url).pathname;
      requests.push(path);
      const to = redirects.get(path);
      if (to) return new Response(null, { status: 302, headers: { location: to } });
      const body = files.get(path);
      return body ? new Response(body) : new Response("not found", { status: 404 });
    },
  });
  return { server, requests, base: `http://127.0.0.1:${server.port}` };
}
