// Files the bridge does not own, read without hanging or swelling: only
// regular files, never more than the bound, and opening never blocks.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CONFIG_MAX_BYTES, readBounded, readBoundedText } from "../../src/read-bounded.ts";

const dir = mkdtempSync(join(tmpdir(), "zcode-read-bounded-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function fifo(name: string): string {
  const p = join(dir, name);
  expect(Bun.spawnSync(["mkfifo", p]).exitCode).toBe(0);
  return p;
}

describe("readBounded", () => {
  test("a regular file within the bound is read whole", () => {
    const p = join(dir, "ok.json");
    writeFileSync(p, '{"locale":"zh-CN"}');
    expect(readBounded(p, { maxBytes: 100 })).toEqual({ ok: true, text: '{"locale":"zh-CN"}', truncated: false });
    expect(readBoundedText(p)).toBe('{"locale":"zh-CN"}');
    // Exactly at the bound is within it.
    expect(readBounded(p, { maxBytes: 18 }).ok).toBe(true);
  });

  test("a FIFO with no writer is refused at once, not waited on", () => {
    const p = fifo("setting.json");
    expect(readBounded(p, { maxBytes: 100 })).toEqual({ ok: false, why: "not_a_file" });
    // Through a link too.
    symlinkSync(p, join(dir, "link-to-fifo"));
    expect(readBoundedText(join(dir, "link-to-fifo"))).toBeUndefined();
  });

  test("/dev/zero (an endless device) behind a link is refused without reading", () => {
    symlinkSync("/dev/zero", join(dir, "zero.json"));
    expect(readBounded(join(dir, "zero.json"), { maxBytes: CONFIG_MAX_BYTES })).toEqual({ ok: false, why: "not_a_file" });
    expect(readBounded(join(dir, "zero.json"), { maxBytes: 64, prefix: true })).toEqual({ ok: false, why: "not_a_file" });
  });

  test("a directory, a missing path", () => {
    mkdirSync(join(dir, "a-dir"));
    expect(readBounded(join(dir, "a-dir"), { maxBytes: 10 })).toEqual({ ok: false, why: "not_a_file" });
    expect(readBounded(join(dir, "missing"), { maxBytes: 10 })).toEqual({ ok: false, why: "missing" });
    expect(readBounded(join(dir, "missing", "below"), { maxBytes: 10 })).toEqual({ ok: false, why: "missing" });
  });

  test("a file over the bound is refused by its size, or only its start read when that is asked", () => {
    const p = join(dir, "big.md");
    writeFileSync(p, `---\ndescription: d\n---\n${"x".repeat(10_000)}`);
    expect(readBounded(p, { maxBytes: 1000 })).toEqual({ ok: false, why: "too_large" });
    const start = readBounded(p, { maxBytes: 20, prefix: true });
    expect(start).toEqual({ ok: true, text: "---\ndescription: d\n-", truncated: true });
  });

  test("noFollow: a link at the path is refused, a plain file read", () => {
    const target = join(dir, "target.md");
    writeFileSync(target, "hello");
    symlinkSync(target, join(dir, "link.md"));
    expect(readBounded(join(dir, "link.md"), { maxBytes: 10, noFollow: true })).toEqual({ ok: false, why: "not_a_file" });
    expect(readBounded(join(dir, "link.md"), { maxBytes: 10 })).toMatchObject({ ok: true, text: "hello" });
    expect(readBounded(target, { maxBytes: 10, noFollow: true })).toMatchObject({ ok: true, text: "hello" });
  });
});
