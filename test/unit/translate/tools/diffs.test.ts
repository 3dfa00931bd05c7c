// Diffs for Edit and Write from the tool's input and ZCode's `file_diff` view
// (jsdiff hunks): ZCode's result text is only a status line.
import { describe, expect, test } from "bun:test";
import { editDiff, fileDiffPatch, firstChangedLine, reversePatch, writeDiff } from "../../../../src/translate/tools/diffs.ts";
import { CWD, EDITED_TS, HUNK, ORIGINAL_TS, TOOLS } from "../../support/bridge-fixtures.ts";

const fileDiff = (structuredPatch: unknown) => ({
  kind: "file_diff",
  filePath: `${CWD}/src/x.ts`,
  additions: 1,
  deletions: 1,
  structuredPatch,
  truncated: false,
});

describe("the file_diff view", () => {
  test("fileDiffPatch only reads a file_diff display", () => {
    expect(fileDiffPatch(fileDiff([HUNK]))).toEqual([HUNK]);
    expect(fileDiffPatch({ kind: "bash_output", structuredPatch: [HUNK] })).toBeUndefined();
    expect(fileDiffPatch({})).toBeUndefined();
  });

  test("firstChangedLine: the first hunk's line in the new file, at least 1", () => {
    const top = { oldStart: 1, oldLines: 1, newStart: 1, newLines: 1, lines: ["-a", "+b"] };
    expect(firstChangedLine(fileDiff([top]))).toBe(1);
    const later = { oldStart: 12, oldLines: 1, newStart: 14, newLines: 1, lines: ["-x", "+y"] };
    expect(firstChangedLine(fileDiff([later, top]))).toBe(14);
    expect(firstChangedLine(fileDiff([{ ...top, newStart: 0 }]))).toBe(1);
    expect(firstChangedLine(fileDiff([]))).toBeUndefined();
    expect(firstChangedLine({ kind: "other" })).toBeUndefined();
    // Hunks without numbers are not hunks.
    expect(firstChangedLine(fileDiff([{ lines: ["-a", "+b"] }]))).toBeUndefined();
  });
});

describe("reversePatch", () => {
  test("rebuilds the old file from the new one, several hunks", () => {
    const newText = "a\nB\nc\nd\ne\nF\ng";
    const patch = [
      { oldStart: 1, oldLines: 3, newStart: 1, newLines: 3, lines: [" a", "-b", "+B", " c"] },
      { oldStart: 5, oldLines: 2, newStart: 5, newLines: 3, lines: [" e", "-f", "+F", "+g"] },
    ];
    expect(reversePatch(newText, patch)).toBe("a\nb\nc\nd\ne\nf");
    expect(reversePatch(EDITED_TS, [HUNK])).toBe(ORIGINAL_TS);
  });

  test("'\\ No newline at end of file' markers are not content", () => {
    const patch = [
      {
        oldStart: 1,
        oldLines: 1,
        newStart: 1,
        newLines: 1,
        lines: ["-old", "\\ No newline at end of file", "+new", "\\ No newline at end of file"],
      },
    ];
    expect(reversePatch("new", patch)).toBe("old");
  });

  test("a patch that does not fit the text, or no hunks: undefined", () => {
    expect(reversePatch("nothing alike", [HUNK])).toBeUndefined();
    expect(reversePatch("x", [])).toBeUndefined();
    expect(reversePatch("x", "not a patch")).toBeUndefined();
  });
});

describe("editDiff", () => {
  test("the input's own strings, with an absolute path", () => {
    expect(editDiff({ file_path: "src/x.ts", old_string: "a", new_string: "b" }, {}, CWD)).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: "a", newText: "b" },
    ]);
    expect(editDiff(TOOLS.edit.input, fileDiff([HUNK]), CWD)).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: "export const b = 2;", newText: "export const b = 42;" },
    ]);
  });

  test("an empty new_string (a deletion) is still a diff", () => {
    expect(editDiff({ file_path: "f", old_string: "gone", new_string: "" }, {}, CWD)).toEqual([
      { type: "diff", path: `${CWD}/f`, oldText: "gone", newText: "" },
    ]);
  });

  test("input without the strings: ZCode's hunks as snippets, the path from the view if need be", () => {
    const second = { oldStart: 10, oldLines: 1, newStart: 10, newLines: 1, lines: ["-x", "+y"] };
    expect(editDiff({}, fileDiff([HUNK, second]), CWD)).toEqual([
      {
        type: "diff",
        path: `${CWD}/src/x.ts`,
        oldText: "export const a = 1;\nexport const b = 2;\nexport const c = 3;\n…\nx",
        newText: "export const a = 1;\nexport const b = 42;\nexport const c = 3;\n…\ny",
      },
    ]);
  });

  test("nothing to build from: undefined", () => {
    expect(editDiff({ old_string: "a", new_string: "b" }, {}, CWD)).toBeUndefined();
    expect(editDiff({ file_path: "f" }, {}, CWD)).toBeUndefined();
  });
});

describe("writeDiff", () => {
  test("before it ran: the text to be written, fenced in the file's language", () => {
    expect(writeDiff({ file_path: "src/new.ts", content: "hello\n" }, {}, CWD, false)).toEqual([
      { type: "content", content: { type: "text", text: "```typescript\nhello\n```" } },
    ]);
  });

  test("create (no file_diff view): oldText null", () => {
    expect(writeDiff(TOOLS.writeCreate.input, {}, CWD, true)).toEqual([
      { type: "diff", path: `${CWD}/src/new.ts`, oldText: null, newText: "hello\n" },
    ]);
  });

  test("overwrite: the old text rebuilt from the view's hunks", () => {
    expect(writeDiff(TOOLS.writeUpdate.input, fileDiff([HUNK]), CWD, true)).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: ORIGINAL_TS, newText: EDITED_TS },
    ]);
  });

  test("hunks that do not fit the written text: the hunks alone; no usable hunks: the text", () => {
    const stray = { oldStart: 30, oldLines: 1, newStart: 30, newLines: 1, lines: ["-p", "+q"] };
    expect(writeDiff(TOOLS.writeUpdate.input, fileDiff([stray]), CWD, true)).toEqual([
      { type: "diff", path: `${CWD}/src/x.ts`, oldText: "p", newText: "q" },
    ]);
    expect(writeDiff({ file_path: "a.md", content: "# x" }, fileDiff([{ bogus: true }]), CWD, true)).toEqual([
      { type: "content", content: { type: "text", text: "```markdown\n# x\n```" } },
    ]);
  });

  test("no path or no content: undefined", () => {
    expect(writeDiff({ content: "x" }, {}, CWD, true)).toBeUndefined();
    expect(writeDiff({ file_path: "a" }, {}, CWD, true)).toBeUndefined();
  });
});
