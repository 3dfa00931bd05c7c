import { describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { scanCommands } from "../../../../src/commands/discovery/custom-commands.ts";
import { Probe } from "../../../../src/commands/discovery/probe.ts";
import { tempDir, writeTree } from "../../support/file-tree.ts";

const scan = (dir: string, opts: { plugin?: boolean; disabled?: string[] } = {}) =>
  scanCommands(new Probe(), [{ dir, ...(opts.plugin ? { plugin: true } : {}) }], new Set(opts.disabled ?? []));

describe("scanCommands", () => {
  test("description and argument-hint from the front matter; names from the path, subdirectories joined by ':'", () => {
    const root = writeTree(tempDir(), {
      "review.md": "---\ndescription: Review the current diff\nargument-hint: <focus>\n---\nReview $ARGUMENTS\n",
      "git/Commit.md": "---\ndescription: Commit staged changes\n---\nbody\n",
      "notes.txt": "not markdown",
    });
    expect(scan(root)).toEqual([
      { name: "git:commit", description: "Commit staged changes", file: join(root, "git/Commit.md") },
      { name: "review", description: "Review the current diff", argumentHint: "<focus>", file: join(root, "review.md") },
    ]);
  });

  test("no description: the body's first line, heading marks removed; neither: skipped", () => {
    const root = writeTree(tempDir(), {
      "a.md": "\n\n# Explain the selected code\n\nMore text\n",
      "b.md": "---\nargument-hint: x\n---\n\n",
      "c.md": "",
    });
    expect(scan(root).map((c) => [c.name, c.description])).toEqual([["a", "Explain the selected code"]]);
  });

  test("names ZCode refuses are skipped", () => {
    const root = writeTree(tempDir(), {
      "has space.md": "---\ndescription: d\n---\n",
      "-dash.md": "---\ndescription: d\n---\n",
      [`${"x".repeat(65)}.md`]: "---\ndescription: d\n---\n",
      "ok_1-2.md": "---\ndescription: d\n---\n",
    });
    expect(scan(root).map((c) => c.name)).toEqual(["ok_1-2"]);
  });

  test("disable-noninteractive commands are left out, as ZCode's own catalog does", () => {
    const root = writeTree(tempDir(), {
      "tui-only.md": "---\ndescription: d\ndisable-noninteractive: true\n---\n",
      "fine.md": "---\ndescription: d\ndisable-noninteractive: false\n---\n",
    });
    expect(scan(root).map((c) => c.name)).toEqual(["fine"]);
  });

  test("switched off by path", () => {
    const root = writeTree(tempDir(), { "a.md": "# A\n", "b.md": "# B\n" });
    expect(scan(root, { disabled: [join(root, "a.md")] }).map((c) => c.name)).toEqual(["b"]);
  });

  test("links are followed in the user's roots, not in a plugin's", () => {
    const outside = writeTree(tempDir(), { "shared/x.md": "# X\n" });
    const root = writeTree(tempDir(), { "own.md": "# Own\n" });
    symlinkSync(join(outside, "shared"), join(root, "shared"));
    expect(scan(root).map((c) => c.name)).toEqual(["own", "shared:x"]);
    expect(scan(root, { plugin: true }).map((c) => c.name)).toEqual(["own"]);
  });

  test("a link loop is followed once: no /loop:loop:… entries", () => {
    const root = writeTree(tempDir(), { "own.md": "# Own\n", "git/commit.md": "# Commit\n" });
    symlinkSync(".", join(root, "loop"));
    symlinkSync("..", join(root, "git", "up"));
    expect(scan(root).map((c) => c.name)).toEqual(["git:commit", "own"]);
  });

  test("two links to one directory: its commands are listed once, under the first name", () => {
    const outside = writeTree(tempDir(), { "shared/x.md": "# X\n" });
    const root = writeTree(tempDir(), {});
    symlinkSync(join(outside, "shared"), join(root, "a"));
    symlinkSync(join(outside, "shared"), join(root, "b"));
    expect(scan(root).map((c) => c.name)).toEqual(["a:x"]);
  });

  test("a missing root is nothing", () => {
    expect(scan(join(tempDir(), "missing"))).toEqual([]);
  });
});
