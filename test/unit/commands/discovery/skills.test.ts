import { describe, expect, test } from "bun:test";
import { symlinkSync } from "node:fs";
import { join } from "node:path";
import { Probe } from "../../../../src/commands/discovery/probe.ts";
import { scanSkills } from "../../../../src/commands/discovery/skills.ts";
import { skillMd, tempDir, writeTree } from "../../support/file-tree.ts";

const names = (root: string, plugin?: string, disabled: string[] = []) =>
  scanSkills(new Probe(), [{ dir: root, ...(plugin ? { plugin } : {}) }], new Set(disabled)).map((s) => s.name);

describe("scanSkills", () => {
  test("<root>/<dir>/SKILL.md one level down, and the root's own SKILL.md", () => {
    const root = writeTree(tempDir(), {
      "SKILL.md": skillMd({ name: "root-skill", description: "At the root" }),
      "pdf/SKILL.md": skillMd({ name: "pdf", description: "Read PDFs" }),
      "group/deeper/SKILL.md": skillMd({ name: "too-deep", description: "Two levels down" }),
      "notes/README.md": "not a skill",
    });
    expect(names(root)).toEqual(["root-skill", "pdf"]);
  });

  test("name, description and argument-hint from the front matter; the file is kept", () => {
    const root = writeTree(tempDir(), {
      "review/SKILL.md": skillMd({ name: "code-review", description: '"Review the diff"', "argument-hint": "<branch>" }),
    });
    expect(scanSkills(new Probe(), [{ dir: root }], new Set())).toEqual([
      { name: "code-review", description: "Review the diff", argumentHint: "<branch>", file: join(root, "review/SKILL.md") },
    ]);
  });

  test("no front matter: the directory's name, no description", () => {
    const root = writeTree(tempDir(), { "handwritten/SKILL.md": "# Just instructions\n" });
    expect(scanSkills(new Probe(), [{ dir: root }], new Set())).toEqual([
      { name: "handwritten", description: "", file: join(root, "handwritten/SKILL.md") },
    ]);
  });

  test("what ZCode rejects is skipped, the rest still read: no name, no description, a description over 1024", () => {
    const root = writeTree(tempDir(), {
      "a-no-name/SKILL.md": skillMd({ description: "nameless" }),
      "b-no-desc/SKILL.md": skillMd({ name: "b" }),
      "c-long/SKILL.md": skillMd({ name: "c", description: "x".repeat(1025) }),
      "d-ok/SKILL.md": skillMd({ name: "d", description: "fine" }),
      "e-binary/SKILL.md": "\u0000\u0001\u0002",
    });
    expect(names(root)).toEqual(["d", "e-binary"]);
  });

  test("user-invocable: false keeps a skill out of the menu", () => {
    const root = writeTree(tempDir(), {
      "auto/SKILL.md": skillMd({ name: "auto", description: "model only", "user-invocable": "false" }),
      "both/SKILL.md": skillMd({ name: "both", description: "either", "user-invocable": "true" }),
    });
    expect(names(root)).toEqual(["both"]);
  });

  test("dot directories (but .system) and node_modules are not entered", () => {
    const root = writeTree(tempDir(), {
      ".cursor/SKILL.md": skillMd({ name: "vendored", description: "copy" }),
      ".system/SKILL.md": skillMd({ name: "system", description: "kept" }),
      "node_modules/SKILL.md": skillMd({ name: "dep", description: "no" }),
    });
    expect(names(root)).toEqual(["system"]);
  });

  test("switched off by path, or by the real path behind a link", () => {
    const root = writeTree(tempDir(), {
      "a/SKILL.md": skillMd({ name: "a", description: "A" }),
      "b/SKILL.md": skillMd({ name: "b", description: "B" }),
    });
    expect(names(root, undefined, [join(root, "a/SKILL.md")])).toEqual(["b"]);
    const linked = tempDir();
    symlinkSync(join(root, "b"), join(linked, "b"));
    expect(names(linked, undefined, [join(root, "b/SKILL.md")])).toEqual([]);
    expect(names(linked)).toEqual(["b"]);
  });

  test("a plugin's skills are <plugin>:<name>, and links inside a plugin are not followed", () => {
    const outside = writeTree(tempDir(), { "evil/SKILL.md": skillMd({ name: "evil", description: "outside" }) });
    const root = writeTree(tempDir(), { "pdf/SKILL.md": skillMd({ name: "pdf", description: "Read PDFs" }) });
    symlinkSync(join(outside, "evil"), join(root, "evil"));
    expect(names(root, "documents")).toEqual(["documents:pdf"]);
  });

  test("a missing root is nothing; the same file under two roots is read once", () => {
    const root = writeTree(tempDir(), { "a/SKILL.md": skillMd({ name: "a", description: "A" }) });
    expect(scanSkills(new Probe(), [{ dir: join(root, "nope") }, { dir: root }, { dir: root }], new Set()).map((s) => s.name)).toEqual([
      "a",
    ]);
  });
});
