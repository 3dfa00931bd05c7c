import { describe, expect, test } from "bun:test";
import type { ConsolaInstance } from "consola/core";
import { REDACTED } from "../../../src/redact.ts";
import { StderrCollector } from "../../../src/zcode/stderr.ts";
import { SECRET_LINES, expectNoSecret } from "../support/child-secrets.ts";

function fakeLog() {
  const out: { level: string; msg: string }[] = [];
  const log = {
    warn: (msg: string) => out.push({ level: "warn", msg }),
    debug: (msg: string) => out.push({ level: "debug", msg }),
  } as unknown as ConsolaInstance;
  return { log, out };
}

test("stderr lines reach the log rate-limited, with a note of what was suppressed", () => {
  const { log, out } = fakeLog();
  let now = 0;
  const c = new StderrCollector(log, { linesPerSecond: 5, now: () => now });
  for (let i = 0; i < 50; i++) c.line(`line ${i}`);
  expect(out.length).toBe(5);
  now = 1500;
  c.line("later");
  expect(out.map((o) => o.msg)).toContain("stderr: suppressed 45 lines (more than 5/s)");
  expect(out.at(-1)!.msg).toBe("stderr: later");
});

test("error-looking lines are warnings, the rest debug; the tail keeps the last 20 lines, truncated", () => {
  const { log, out } = fakeLog();
  const c = new StderrCollector(log, { linesPerSecond: 1000, maxLineChars: 50 });
  c.line("loading config");
  c.line("Error: no credentials");
  expect(out.map((o) => o.level)).toEqual(["debug", "warn"]);
  for (let i = 0; i < 30; i++) c.line(`n${i}`);
  c.line("z".repeat(200));
  const tail = c.lastLines();
  expect(tail.length).toBe(20);
  expect(tail[0]).toBe("n11");
  expect(tail.at(-1)!.length).toBe(51);
});

// The child's stderr is redacted where it enters the bridge: its tail goes
// into errors the editor shows.
describe("redaction at the source", () => {
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
});
