import { describe, expect, test } from "bun:test";
import { RequestError, type ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { promptToText } from "../../../src/bridge/prompt-content.ts";

const CWD = "/home/dev/project";

function refusal(blocks: ContentBlock[]): RequestError {
  try {
    promptToText(blocks);
  } catch (e) {
    return e as RequestError;
  }
  throw new Error("expected promptToText to refuse");
}

describe("promptToText", () => {
  test("text is passed as is", () => {
    expect(promptToText([{ type: "text", text: "  fix the bug\n\nplease  " }])).toBe("  fix the bug\n\nplease  ");
    expect(promptToText([{ type: "text", text: "a" }, { type: "text", text: "b" }])).toBe("ab");
    expect(promptToText([])).toBe("");
  });

  test("file links become @path mentions (relative inside cwd), spaced from the words around them", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: "look at" },
      { type: "resource_link", uri: `file://${CWD}/src/x.ts`, name: "x.ts" },
      { type: "text", text: "and" },
      { type: "resource_link", uri: "file:///etc/hosts", name: "hosts" },
      { type: "text", text: " now" },
    ];
    expect(promptToText(blocks, { cwd: CWD })).toBe("look at @src/x.ts and @/etc/hosts now");
    expect(promptToText(blocks)).toBe(`look at @${CWD}/src/x.ts and @/etc/hosts now`);
  });

  test("percent-encoded and spaced paths; non-file links as markdown links", () => {
    expect(promptToText([{ type: "resource_link", uri: "file:///tmp/a%20b.txt", name: "a b.txt" }])).toBe("[a b.txt](file:///tmp/a%20b.txt)");
    expect(promptToText([{ type: "resource_link", uri: "file:///tmp/%C3%A9.txt", name: "é" }])).toBe("@/tmp/é.txt");
    expect(promptToText([{ type: "resource_link", uri: "https://example.com/x", name: "docs" }])).toBe("[docs](https://example.com/x)");
  });

  test("embedded text resources become delimited context blocks with their URI", () => {
    const text = promptToText([
      { type: "text", text: "explain this:" },
      { type: "resource", resource: { uri: `file://${CWD}/a.ts`, text: "const a = 1;", mimeType: "text/x-typescript" } },
      { type: "text", text: "thanks" },
    ]);
    expect(text).toBe(`explain this:\n\n<context uri="file://${CWD}/a.ts">\nconst a = 1;\n</context>\n\nthanks`);
    expect(promptToText([{ type: "resource", resource: { uri: 'x"y', text: "t\n" } }])).toBe('<context uri="x&quot;y">\nt\n</context>');
  });

  test("images, audio and binary resources are refused with -32602 and a reason", () => {
    const cases: Array<[ContentBlock, string]> = [
      [{ type: "image", data: "AAAA", mimeType: "image/png" }, "images"],
      [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }, "audio"],
      [{ type: "resource", resource: { uri: "file:///a.bin", blob: "AAAA" } }, "binary resources"],
      [{ type: "mystery" } as unknown as ContentBlock, "mystery"],
    ];
    for (const [block, word] of cases) {
      const e = refusal([{ type: "text", text: "hi" }, block]);
      expect(e).toBeInstanceOf(RequestError);
      expect(e.code).toBe(-32602);
      expect(e.message).toContain("ZCode cannot take");
      expect(e.message).toContain(word);
    }
  });
});
