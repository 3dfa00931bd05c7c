// docs/architecture.md names code by file:line. Each reference written as
// `` `name` (`src/file.ts:N`) `` must point at a line that holds `name` (its
// last part, for `Class.method`), and every `src/…:N` must exist, so the map
// cannot drift from the code unnoticed.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.join(import.meta.dir, "..", "..");
const doc = readFileSync(path.join(ROOT, "docs/architecture.md"), "utf8");

const lines = new Map<string, string[]>();
function lineOf(file: string, n: number): string | undefined {
  if (!lines.has(file)) lines.set(file, readFileSync(path.join(ROOT, file), "utf8").split("\n"));
  return lines.get(file)![n - 1];
}

describe("docs/architecture.md", () => {
  const named = [...doc.matchAll(/`([A-Za-z_.]+)(?:\(\))?`\s*\(`((?:src|test)\/[\w./-]+\.ts):(\d+)`\)/g)];
  const all = [...doc.matchAll(/`((?:src|test)\/[\w./-]+\.ts):(\d+)`/g)];

  test("has file:line references to check", () => {
    expect(named.length).toBeGreaterThan(10);
  });

  test("every file:line exists", () => {
    const missing = all.filter(([, file, n]) => lineOf(file!, Number(n)) === undefined).map((m) => m[0]);
    expect(missing).toEqual([]);
  });

  test("every `name` (`file:line`) points at a line that holds the name", () => {
    const wrong = named
      .filter(([, name, file, n]) => !(lineOf(file!, Number(n)) ?? "").includes(name!.split(".").at(-1)!))
      .map(([, name, file, n]) => `${name} at ${file}:${n}: ${lineOf(file!, Number(n))?.trim()}`);
    expect(wrong).toEqual([]);
  });
});
