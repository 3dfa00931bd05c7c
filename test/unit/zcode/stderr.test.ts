import { expect, test } from "bun:test";
import type { ConsolaInstance } from "consola/core";
import { StderrCollector } from "../../../src/zcode/stderr.ts";

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
