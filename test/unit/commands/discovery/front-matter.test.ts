import { describe, expect, test } from "bun:test";
import { flag, parseFrontMatter } from "../../../../src/commands/discovery/front-matter.ts";

describe("parseFrontMatter", () => {
  test("flat keys, quoted values unquoted, body after the header", () => {
    const fm = parseFrontMatter(`---\nname: review\ndescription: "Review: the diff"\nargument-hint: '<branch>'\n---\n# Body\ntext\n`);
    expect(fm.present).toBe(true);
    expect(fm.fields).toEqual({ name: "review", description: "Review: the diff", "argument-hint": "<branch>" });
    expect(fm.body).toBe("# Body\ntext\n");
  });

  test("a BOM and CRLF line ends read the same", () => {
    const fm = parseFrontMatter("\uFEFF---\r\nname: pdf\r\ndescription: Read PDFs\r\n---\r\nbody\r\n");
    expect(fm.fields).toEqual({ name: "pdf", description: "Read PDFs" });
    expect(fm.body.trim()).toBe("body");
  });

  test("folded and literal block scalars", () => {
    const fm = parseFrontMatter(
      [
        "---",
        "description: >",
        "  Use when the user",
        "  asks for a PDF.",
        "",
        "  Second paragraph.",
        "notes: |",
        "  line one",
        "  line two",
        "name: x",
        "---",
        "",
      ].join("\n"),
    );
    expect(fm.fields.description).toBe("Use when the user asks for a PDF.\nSecond paragraph.");
    expect(fm.fields.notes).toBe("line one\nline two");
    expect(fm.fields.name).toBe("x");
  });

  test("comments, nested and malformed lines are skipped", () => {
    const fm = parseFrontMatter("---\n# a comment\nname: a\nmetadata:\n  owner: me\nnot a field\n: empty key\ndescription: d\n---\n");
    expect(fm.fields).toEqual({ name: "a", metadata: "", description: "d" });
  });

  test("no header, or an opening line never closed, is all body", () => {
    expect(parseFrontMatter("# Title\nname: nope\n")).toEqual({ present: false, fields: {}, body: "# Title\nname: nope\n" });
    const open = parseFrontMatter("---\nname: a\ndescription: b\n");
    expect(open.present).toBe(false);
    expect(open.fields).toEqual({});
  });

  test("an empty file", () => {
    expect(parseFrontMatter("")).toEqual({ present: false, fields: {}, body: "" });
  });
});

describe("flag", () => {
  test("true/yes and false/no, anything else undefined", () => {
    expect(flag("true")).toBe(true);
    expect(flag(" Yes ")).toBe(true);
    expect(flag("false")).toBe(false);
    expect(flag("no")).toBe(false);
    expect(flag("maybe")).toBeUndefined();
    expect(flag(undefined)).toBeUndefined();
  });
});
