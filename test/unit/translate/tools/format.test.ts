import { describe, expect, test } from "bun:test";
import {
  absPath,
  capped,
  commandOutputText,
  displayPath,
  fenced,
  languageOf,
  listText,
  num,
  obj,
  oneLine,
  outputText,
  str,
  strings,
  textContent,
  TITLE_MAX,
  withoutReminders,
} from "../../../../src/translate/tools/format.ts";
import { CWD } from "../../support/bridge-fixtures.ts";

describe("tolerant readers", () => {
  test("obj: only plain objects", () => {
    expect(obj({ a: 1 })).toEqual({ a: 1 });
    for (const x of [null, undefined, 3, "s", [1]]) expect(obj(x)).toEqual({});
  });

  test("str and num: the first usable key", () => {
    const o = { a: "", b: "B", c: 3, d: Number.NaN, e: Infinity, f: 0 };
    expect(str(o, "a", "b")).toBe("B");
    expect(str(o, "c")).toBeUndefined();
    expect(num(o, "d", "e", "f")).toBe(0);
    expect(num(o, "b")).toBeUndefined();
    expect(strings(["a", 1, "b", null])).toEqual(["a", "b"]);
    expect(strings("a")).toEqual([]);
  });
});

describe("titles", () => {
  test("oneLine: whitespace collapsed, long text cut with …, more lines marked", () => {
    expect(oneLine("  a   b  ")).toBe("a b");
    expect(oneLine("set -e\nmake all")).toBe("set -e …");
    const long = oneLine(`echo ${"x".repeat(300)}`);
    expect(long.length).toBe(TITLE_MAX);
    expect(long.endsWith("…")).toBe(true);
    expect(oneLine("short", 3)).toBe("sh…");
  });
});

describe("paths", () => {
  test("absPath: relative ones are under cwd", () => {
    expect(absPath("src/a.ts", CWD)).toBe(`${CWD}/src/a.ts`);
    expect(absPath("/etc/hosts", CWD)).toBe("/etc/hosts");
  });

  test("displayPath: inside cwd relative, outside absolute", () => {
    expect(displayPath(`${CWD}/a/b`, CWD)).toBe("a/b");
    expect(displayPath("a/b", CWD)).toBe("a/b");
    expect(displayPath(CWD, CWD)).toBe(".");
    expect(displayPath("/etc/x", CWD)).toBe("/etc/x");
    // A sibling that merely shares the prefix is outside.
    expect(displayPath("/home/dev/projectX/y", CWD)).toBe("/home/dev/projectX/y");
    expect(displayPath("../other/z", CWD)).toBe("/home/dev/other/z");
  });
});

describe("blocks", () => {
  test("fenced: a fence longer than any backtick run inside, the language, a closing newline", () => {
    expect(fenced("a")).toBe("```\na\n```");
    expect(fenced("a\n", "ts")).toBe("```ts\na\n```");
    const f = fenced("a ``` b ```` c");
    expect(f.startsWith("`````\n")).toBe(true);
    expect(f.endsWith("\n`````")).toBe(true);
  });

  test("textContent is ACP text content", () => {
    expect(textContent("x")).toEqual({ type: "content", content: { type: "text", text: "x" } });
  });

  test("capped: long text cut with a count of what was left out", () => {
    expect(capped("abc", 5)).toBe("abc");
    expect(capped("abcdefgh", 5)).toBe("abcde\n… (3 more characters not shown)");
  });

  test("languageOf: by extension or well-known name", () => {
    expect(languageOf("src/x.ts")).toBe("typescript");
    expect(languageOf("a/B.PY")).toBe("python");
    expect(languageOf("a/Dockerfile")).toBe("dockerfile");
    expect(languageOf("Makefile")).toBe("makefile");
    expect(languageOf("x.unknownext")).toBe("");
    expect(languageOf("noext")).toBe("");
  });

  test("commandOutputText: stdout and stderr in one console block, a note, the exit code", () => {
    expect(commandOutputText("out", "err")).toBe("```console\nout\nerr\n```");
    expect(commandOutputText("out\n", "", 0)).toBe("```console\nout\n```\nexit code 0");
    expect(commandOutputText("", "", 3, "timed out")).toBe("timed out\nexit code 3");
    expect(commandOutputText("", "", null)).toBe("");
  });

  test("listText: a header and at most 200 items", () => {
    expect(listText("Found 2 files", ["a", "b"])).toBe("Found 2 files\n- a\n- b");
    expect(listText("H", ["a"], true)).toBe("H\n- a\n- … (results truncated)");
    const many = listText(
      "H",
      Array.from({ length: 250 }, (_, i) => `f${i}`),
    );
    expect(many).toContain("- f199");
    expect(many).not.toContain("- f200");
    expect(many.endsWith("- … and 50 more")).toBe(true);
  });

  test("outputText: nothing for blank text", () => {
    expect(outputText("hi")).toEqual([textContent("hi")]);
    expect(outputText("  \n")).toBeUndefined();
    expect(outputText(undefined)).toBeUndefined();
  });

  test("withoutReminders: ZCode's notes for the model are dropped, with the blank lines after them", () => {
    expect(withoutReminders("<system-reminder>x\ny</system-reminder>\n\nfix it")).toBe("fix it");
    expect(withoutReminders("a <system-reminder>r</system-reminder> b")).toBe("a b");
    expect(withoutReminders("no reminder")).toBe("no reminder");
  });
});
