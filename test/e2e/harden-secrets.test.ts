// Secrets a dying ZCode CLI prints on stderr must not reach the editor: the
// tail of its stderr is quoted in the "ZCode CLI died" error, which goes out
// as a JSON-RPC error and into the --trace file (the log is redacted on its
// own). A small fake CLI stands in for ZCode: it answers --version, prints
// credentials on stderr, and dies when the first request arrives.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BRIDGE_BIN } from "./cli-support.ts";

const SECRETS = ["sk-live-0123456789abcdefghijklmn", "hunter2-secret-value", "abcdef0123456789"];

let tmp: string;
let fakeZCode: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "harden-secrets-"));
  fakeZCode = join(tmp, "zcode");
  writeFileSync(
    fakeZCode,
    `#!/bin/sh
if [ "$1" = "--version" ]; then echo "0.15.3"; exit 0; fi
echo "starting with OPENAI_API_KEY=${SECRETS[0]}" >&2
echo "request headers: { 'x-api-key': '${SECRETS[1]}' }" >&2
read line
echo "fatal: Authorization: Bearer ${SECRETS[2]}" >&2
exit 3
`,
  );
  chmodSync(fakeZCode, 0o755);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test("the ZCode-died error quotes the CLI's stderr redacted, on the wire, in the trace and in the log", async () => {
  const trace = join(tmp, "trace.jsonl");
  const logFile = join(tmp, "bridge.log");
  const p = Bun.spawn([BRIDGE_BIN, "--trace", trace, "--log-file", logFile, "--log-level", "debug"], {
    env: { PATH: process.env.PATH, HOME: tmp, ZCODE_BIN: fakeZCode },
    stdin: "pipe",
    stdout: "pipe",
    stderr: "pipe",
  });
  const killer = setTimeout(() => p.kill("SIGKILL"), 20_000);
  const stderr = new Response(p.stderr).text();
  p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: 1 } })}\n`);
  p.stdin.write(`${JSON.stringify({ jsonrpc: "2.0", id: 2, method: "session/new", params: { cwd: tmp, mcpServers: [] } })}\n`);
  await p.stdin.flush();
  // Read until session/new is answered, then close stdin.
  let text = "";
  const dec = new TextDecoder();
  for await (const chunk of p.stdout) {
    text += dec.decode(chunk, { stream: true });
    if (text.includes('"id":2,')) break;
  }
  p.stdin.end();
  const [err, code] = await Promise.all([stderr, p.exited]);
  clearTimeout(killer);
  const answer = text
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l))
    .find((m) => m.id === 2);
  expect(answer?.error?.message).toContain("The ZCode CLI died");
  expect(answer?.error?.message).toContain("exited with code 3");
  expect(answer?.error?.message).toContain("[REDACTED]");
  const everywhere = { wire: text, trace: readFileSync(trace, "utf8"), log: readFileSync(logFile, "utf8"), stderr: err };
  for (const [where, content] of Object.entries(everywhere)) {
    for (const s of SECRETS) expect({ where, leaked: content.includes(s) }).toEqual({ where, leaked: false });
  }
  expect(code).toBe(0);
}, 30_000);
