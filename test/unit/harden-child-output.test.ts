// Text from the ZCode child (its stderr, its error messages, the stderr of
// its --version probe) is redacted where it enters the bridge: errors built
// from it go to the editor and into --trace files, which the log's own
// redaction never sees.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { ConsolaInstance } from "consola/core";
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REDACTED, redactLine } from "../../src/redact.ts";
import { errorFromWire, ZCodeExitedError } from "../../src/zcode/errors.ts";
import { detectVersion } from "../../src/zcode/cli-version.ts";
import { StderrCollector } from "../../src/zcode/stderr.ts";

// What a crashing CLI (or a wrapper echoing its environment) may print.
const SECRET_LINES = [
  "starting with OPENAI_API_KEY=sk-live-0123456789abcdefghijklmn",
  "request headers: { 'x-api-key': 'hunter2-secret-value' }",
  "fatal: Authorization: Bearer abcdef0123456789",
  "401: Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX",
  '{"level":"error","msg":"auth failed","apiKey":"k-0123456789"}',
];
const SECRETS = ["sk-live-0123456789", "hunter2-secret-value", "abcdef0123456789", "sk-proj-ABCDEFGH", "k-0123456789"];

function expectNoSecret(text: string): void {
  for (const s of SECRETS) expect(text).not.toContain(s);
}

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "harden-child-output-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

describe("redaction of child output at its source", () => {
  test("the stderr collector keeps (and logs) only redacted lines", () => {
    const logged: string[] = [];
    const log = { warn: (m: string) => logged.push(m), debug: (m: string) => logged.push(m) } as unknown as ConsolaInstance;
    const c = new StderrCollector(log, { linesPerSecond: 1000 });
    for (const l of SECRET_LINES) c.line(l);
    const tail = c.lastLines();
    expect(tail.length).toBe(SECRET_LINES.length);
    expectNoSecret(tail.join("\n"));
    expectNoSecret(logged.join("\n"));
    expect(tail.join("\n")).toContain(REDACTED);
    // What is not secret stays readable.
    expect(tail[0]).toStartWith("starting with OPENAI_API_KEY=");
  });

  test("a secret across the length cut is hidden, not just cut short", () => {
    const c = new StderrCollector({ warn() {}, debug() {} } as unknown as ConsolaInstance, { maxLineChars: 40 });
    c.line(`${"x".repeat(10)} API_KEY=supersecretvalue1234567890`);
    expect(c.lastLines()[0]).not.toContain("supersecret");
  });

  test("ZCodeExitedError redacts a raw stderr tail in its message and its fields", () => {
    const err = new ZCodeExitedError({ code: 3, signal: null, stderrTail: SECRET_LINES }, "session/create");
    expectNoSecret(err.message);
    expectNoSecret(err.stderrTail.join("\n"));
    expect(err.message).toContain("exited with code 3 while session/create was pending");
  });

  test("an error message from ZCode that quotes a key is redacted", () => {
    const err = errorFromWire("session/prompt", { code: -32000, message: "provider said: Incorrect API key provided: sk-proj-ABCDEFGHIJKLMNOPQRSTUVWX" });
    expectNoSecret(err.message);
    expect(err.message).toContain("provider said");
  });

  test("the --version probe's stderr is redacted in its error", async () => {
    const bin = join(tmp, "zcode-leaky");
    writeFileSync(bin, `#!/bin/sh\n${SECRET_LINES.map((l) => `echo ${shellQuote(l)} >&2`).join("\n")}\nexit 4\n`);
    chmodSync(bin, 0o755);
    const launch = { command: [bin], entry: bin, source: "env" as const };
    const err = await detectVersion(launch, { PATH: process.env.PATH }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toContain("exited with code 4");
    expectNoSecret((err as Error).message);
  });
});

describe("redactLine: shapes seen on a Node child's stderr", () => {
  test("single-quoted util.inspect pairs and bare well-known token shapes", () => {
    expect(redactLine("{ 'x-api-key': 'abc123def' }")).not.toContain("abc123def");
    expect(redactLine("{ authorization: 'Basic dXNlcjpwYXNz' }")).not.toContain("dXNlcjpwYXNz");
    expect(redactLine("key sk-ant-api03-abcdefghijklmnopqrstuvwxyz rejected")).toBe(`key ${REDACTED} rejected`);
    expect(redactLine("token ghp_abcdefghijklmnopqrstuvwxyz0123456789")).not.toContain("ghp_abcdef");
    expect(redactLine("AKIAABCDEFGHIJKLMNOP in use")).toBe(`${REDACTED} in use`);
    // Ordinary text is left alone.
    for (const s of ["the task-runner finished", "risk-assessment-document-for-review-2024", "ask-me-anything"]) {
      expect(redactLine(s)).toBe(s);
    }
  });
});

describe("redactLine: linear time on what a child may print", () => {
  test("long runs of word characters, key words and separators take milliseconds (64 KB of letters took 12 s)", () => {
    const inputs = ["a".repeat(1 << 20), "token".repeat(200_000), "a=".repeat(500_000), `token=${"a=".repeat(500_000)}`, "sk-".repeat(300_000)];
    for (const s of inputs) {
      const t0 = performance.now();
      redactLine(s);
      // Generous for a loaded machine; the quadratic version needs hours for 1 MB.
      expect(performance.now() - t0).toBeLessThan(1000);
    }
    expect(redactLine(`token=${"a=".repeat(10)}`)).toBe(`token=${REDACTED}`);
  });
});

function shellQuote(s: string): string {
  return `'${s.replace(/'/g, `'"'"'`)}'`;
}
