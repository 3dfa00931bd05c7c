import { describe, expect, test } from "bun:test";
import { MAX_ATTACHMENT_NAME_CHARS, readableName } from "../../../src/translate/attachment-name.ts";
import { promptWireLimit } from "../../../src/config.ts";

describe("readableName", () => {
  test("controls, separators, bidi and invisible characters are dropped", () => {
    expect(readableName("a\u202Eb\u2066c\u2069\u200E\u200Bd\u007F\u0085\u2028\u2029e\u0000\tf.png")).toBe("abcd e f.png");
    expect(readableName("dir/sub\\name.txt")).toBe("dir_sub_name.txt");
    expect(readableName("\u202E\u200B")).toBe("");
    expect(readableName("..")).toBe("");
    expect(readableName("  spaced   out  ")).toBe("spaced out");
  });

  test("a long name is cut to the bound, keeping its extension and whole characters", () => {
    const long = readableName(`${"日本".repeat(500)}🚀🚀.tar.gz`);
    expect(Array.from(long)).toHaveLength(MAX_ATTACHMENT_NAME_CHARS);
    expect(long.endsWith("….gz")).toBe(true);
    expect(long).not.toContain("\uFFFD");
    const noExt = readableName("x".repeat(1000));
    expect(Array.from(noExt)).toHaveLength(MAX_ATTACHMENT_NAME_CHARS);
    expect(noExt.endsWith("…")).toBe(true);
  });
});

describe("promptWireLimit", () => {
  const MiB = 1024 * 1024;
  test("what the editor may send, less what ZCode's echo of it leaves room for", () => {
    expect(promptWireLimit({ maxMessageBytes: 80 * MiB, maxLineBytes: 96 * MiB })).toBe(80 * MiB);
    expect(promptWireLimit({ maxMessageBytes: 80 * MiB, maxLineBytes: 32 * MiB })).toBe(31 * MiB);
    expect(promptWireLimit({ maxMessageBytes: 4 * MiB, maxLineBytes: 2 * MiB })).toBe(2 * MiB - MiB / 4);
  });
});
