// ACP prompt content → ZCode's session/send: one text (typed text, @mentions,
// context blocks) and attachments (images and PDFs inline, other files staged
// and sent by path), within limits.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RequestError, type ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { stageFile } from "../../../src/session/attachment-staging.ts";
import { PROMPT_LIMITS, promptToInput, type StageFile } from "../../../src/translate/prompt-content.ts";

const CWD = "/home/dev/project";
const root = mkdtempSync(path.join(tmpdir(), "prompt-content-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

let n = 0;
const stagingDir = () => path.join(root, `staging-${n}`);
const freshStaging = () => {
  n++;
  return stagingDir;
};

const stageInto =
  (dir: () => string): StageFile =>
  (name, bytes) =>
    stageFile(dir(), name, bytes);

const b64 = (text: string) => Buffer.from(text).toString("base64");
const text = (blocks: ContentBlock[], cwd?: string) => promptToInput(blocks, cwd ? { cwd } : {}).text;

function refusal(blocks: ContentBlock[], opts: Parameters<typeof promptToInput>[1] = {}): RequestError {
  try {
    promptToInput(blocks, opts);
  } catch (e) {
    return e as RequestError;
  }
  throw new Error("expected promptToInput to refuse");
}

describe("the text", () => {
  test("text is passed as is", () => {
    expect(text([{ type: "text", text: "  fix the bug\n\nplease  " }])).toBe("  fix the bug\n\nplease  ");
    expect(
      text([
        { type: "text", text: "a" },
        { type: "text", text: "b" },
      ]),
    ).toBe("ab");
    expect(promptToInput([])).toEqual({ text: "", typed: "", attachments: [] });
  });

  test("file links become @path mentions (relative inside cwd), spaced from the words around them", () => {
    const blocks: ContentBlock[] = [
      { type: "text", text: "look at" },
      { type: "resource_link", uri: `file://${CWD}/src/x.ts`, name: "x.ts" },
      { type: "text", text: "and" },
      { type: "resource_link", uri: "file:///etc/hosts", name: "hosts" },
      { type: "text", text: " now" },
    ];
    expect(text(blocks, CWD)).toBe("look at @src/x.ts and @/etc/hosts now");
    expect(text(blocks)).toBe(`look at @${CWD}/src/x.ts and @/etc/hosts now`);
  });

  test("percent-encoded and spaced paths; non-file links as markdown links", () => {
    expect(text([{ type: "resource_link", uri: "file:///tmp/a%20b.txt", name: "a b.txt" }])).toBe("[a b.txt](file:///tmp/a%20b.txt)");
    expect(text([{ type: "resource_link", uri: "file:///tmp/%C3%A9.txt", name: "é" }])).toBe("@/tmp/é.txt");
    expect(text([{ type: "resource_link", uri: "https://example.com/x", name: "docs" }])).toBe("[docs](https://example.com/x)");
  });

  test("embedded text resources become delimited context blocks with their URI", () => {
    const t = text([
      { type: "text", text: "explain this:" },
      { type: "resource", resource: { uri: `file://${CWD}/a.ts`, text: "const a = 1;", mimeType: "text/x-typescript" } },
      { type: "text", text: "thanks" },
    ]);
    expect(t).toBe(`explain this:\n\n<context uri="file://${CWD}/a.ts">\nconst a = 1;\n</context>\n\nthanks`);
    expect(text([{ type: "resource", resource: { uri: 'x"y', text: "t\n" } }])).toBe('<context uri="x&quot;y">\nt\n</context>');
  });

  test("`typed` is what the user typed alone (a slash command is never read from a link or a file)", () => {
    const r = promptToInput([
      { type: "resource", resource: { uri: "file:///notes.md", text: "/fork" } },
      { type: "text", text: "summarize " },
      { type: "resource_link", uri: "file:///x", name: "x" },
      { type: "text", text: "please" },
    ]);
    expect(r.typed).toBe("summarize please");
    expect(r.text).toContain("/fork");
  });
});

describe("attachments", () => {
  test("an image block: inline, named from its uri or image-N.<ext>, the data without whitespace", () => {
    const r = promptToInput([
      { type: "text", text: "what is this?" },
      { type: "image", data: "iVBO\nRw0K", mimeType: "image/png" },
      { type: "image", data: "/9j/4AAQ", mimeType: "IMAGE/JPEG; q=1", uri: "file:///home/dev/shot.jpeg" },
    ]);
    expect(r.text).toBe("what is this?");
    expect(r.attachments).toEqual([
      { kind: "image", filename: "image-1.png", mimeType: "image/png", sizeBytes: 6, dataBase64: "iVBORw0K" },
      { kind: "image", filename: "shot.jpeg", mimeType: "image/jpeg", sizeBytes: 6, dataBase64: "/9j/4AAQ" },
    ]);
  });

  test("image and PDF resources are inline too; a PDF is named from its uri", () => {
    const r = promptToInput([
      { type: "resource", resource: { uri: "file:///w/diagram.webp", blob: b64("RIFFxxxxWEBP"), mimeType: "image/webp" } },
      { type: "resource", resource: { uri: "file:///w/spec.pdf", blob: b64("%PDF-1.7"), mimeType: "application/pdf" } },
      { type: "resource", resource: { uri: "zed://buffer?id=3", blob: b64("%PDF"), mimeType: "application/pdf" } },
    ]);
    expect(r.attachments).toEqual([
      { kind: "image", filename: "diagram.webp", mimeType: "image/webp", sizeBytes: 12, dataBase64: b64("RIFFxxxxWEBP") },
      { kind: "pdf", filename: "spec.pdf", mimeType: "application/pdf", sizeBytes: 8, dataBase64: b64("%PDF-1.7") },
      { kind: "pdf", filename: "buffer", mimeType: "application/pdf", sizeBytes: 4, dataBase64: b64("%PDF") },
    ]);
  });

  test("another file is staged privately and sent by path", () => {
    const dir = freshStaging();
    const r = promptToInput(
      [{ type: "resource", resource: { uri: "file:///w/data.csv", blob: b64("a,b\n1,2\n"), mimeType: "text/csv" } }],
      { stage: stageInto(dir) },
    );
    expect(r.attachments).toHaveLength(1);
    const a = r.attachments[0]!;
    expect(a).toMatchObject({ kind: "file", filename: "data.csv", mimeType: "text/csv", sizeBytes: 8 });
    expect(a.dataBase64).toBeUndefined();
    expect(path.dirname(a.localPath!)).toBe(dir());
    expect(path.basename(a.localPath!)).toEndWith("-data.csv");
    expect(readFileSync(a.localPath!, "utf8")).toBe("a,b\n1,2\n");
    expect(statSync(a.localPath!).mode & 0o777).toBe(0o600);
    // No mime type: a generic binary file.
    const untyped = promptToInput([{ type: "resource", resource: { uri: "file:///w/blob", blob: b64("x") } }], {
      stage: stageInto(freshStaging()),
    });
    expect(untyped.attachments[0]).toMatchObject({ kind: "file", mimeType: "application/octet-stream" });
  });

  test("nothing is staged when the prompt is refused afterwards", () => {
    const dir = freshStaging();
    const e = refusal(
      [
        { type: "resource", resource: { uri: "file:///w/data.bin", blob: b64("x"), mimeType: "application/zip" } },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
      ],
      { stage: stageInto(dir) },
    );
    expect(e.code).toBe(-32602);
    let files: string[] = [];
    try {
      files = readdirSync(dir());
    } catch {
      // never created: nothing staged either
    }
    expect(files).toEqual([]);
  });
});

describe("refusals (-32602, with a reason)", () => {
  const cases: Array<[string, ContentBlock[], Parameters<typeof promptToInput>[1], string]> = [
    ["audio", [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }], {}, "audio"],
    ["an unknown block type", [{ type: "mystery" } as unknown as ContentBlock], {}, "mystery"],
    ["an image type models do not take", [{ type: "image", data: "AAAA", mimeType: "image/tiff" }], {}, "PNG, JPEG, WebP or GIF"],
    ["broken base64", [{ type: "image", data: "not base64!", mimeType: "image/png" }], {}, "not valid base64"],
    ["base64 of the wrong length", [{ type: "image", data: "AAA", mimeType: "image/png" }], {}, "not valid base64"],
    [
      "a binary file with nowhere to stage it",
      [{ type: "resource", resource: { uri: "file:///a.bin", blob: "AAAA", mimeType: "application/zip" } }],
      {},
      "cannot be attached",
    ],
    ["a resource with neither text nor data", [{ type: "resource", resource: { uri: "file:///a" } as never }], {}, "neither text nor data"],
    [
      "too many blocks",
      Array.from({ length: PROMPT_LIMITS.blocks + 1 }, () => ({ type: "text", text: "x" }) as ContentBlock),
      {},
      "at most 100 content blocks",
    ],
  ];
  for (const [what, blocks, opts, word] of cases) {
    test(what, () => {
      const withText: ContentBlock[] = [{ type: "text", text: "hi" }, ...blocks];
      const e = refusal(withText.slice(0, Math.max(blocks.length, 2)), opts);
      expect(e).toBeInstanceOf(RequestError);
      expect(e.code).toBe(-32602);
      expect(e.message).toContain(word);
    });
  }

  test("an image over 10 MiB", () => {
    const big = "A".repeat(Math.ceil((PROMPT_LIMITS.imageBytes + 1) / 3) * 4);
    expect(refusal([{ type: "image", data: big, mimeType: "image/png" }]).message).toContain("at most 10 MiB each");
    const fits = "A".repeat(Math.floor(PROMPT_LIMITS.imageBytes / 3) * 4);
    expect(promptToInput([{ type: "image", data: fits, mimeType: "image/png" }]).attachments[0]!.sizeBytes).toBeLessThanOrEqual(
      PROMPT_LIMITS.imageBytes,
    );
  });

  test("a prompt's attachments over 50 MiB in all", () => {
    const pdf = (i: number): ContentBlock => ({
      type: "resource",
      resource: {
        uri: `file:///w/${i}.pdf`,
        blob: "A".repeat(Math.ceil(PROMPT_LIMITS.promptBytes / 2 / 3) * 4),
        mimeType: "application/pdf",
      },
    });
    expect(promptToInput([pdf(1)]).attachments).toHaveLength(1);
    expect(refusal([pdf(1), pdf(2)]).message).toContain("at most 50 MiB in all");
  });
});
