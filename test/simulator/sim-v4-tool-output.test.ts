// projection-rows.ts buildToolOutput, as the simulator copies it (v4-tool-output.ts).
import { describe, expect, test } from "bun:test";
import { buildToolOutput, toolRowResult } from "./v4-tool-output.ts";

describe("buildToolOutput", () => {
  test("up to 64 KiB: the content whole, its display beside it", () => {
    const d = { kind: "bash_output", output: "x", truncated: false };
    expect(buildToolOutput("x", d, "c1")).toEqual({ text: "x", display: d });
    expect(buildToolOutput("a".repeat(64 * 1024), undefined, "c1")).toEqual({ text: "a".repeat(64 * 1024) });
  });

  test("longer: 32 KiB head, an ellipsis line, 32 KiB tail, and truncated {totalBytes, ref}", () => {
    const text = `${"h".repeat(40_000)}${"t".repeat(40_000)}`;
    const out = buildToolOutput(text, undefined, "c2");
    expect(out.text).toBe(`${"h".repeat(32 * 1024)}\n…\n${"t".repeat(32 * 1024)}`);
    expect(out.truncated).toEqual({ totalBytes: 80_000, ref: "tool-output/c2" });
  });

  test("node_repl_images leaves output.display for the row's display; other kinds stay in output only", () => {
    const images = { kind: "node_repl_images", images: [{ base64: "AA", mimeType: "image/png" }] };
    const state = (display: unknown) =>
      ({ status: "completed", input: {}, output: "o", title: "T", metadata: { display }, startedAt: 1, completedAt: 2 }) as const;
    expect(toolRowResult(state(images), "c3")).toEqual({ output: { text: "o" }, display: images });
    const diff = { kind: "file_diff", filePath: "/a", additions: 0, deletions: 0, structuredPatch: [] };
    expect(toolRowResult(state(diff), "c3")).toEqual({ output: { text: "o", display: diff } });
    expect(toolRowResult({ status: "error", input: {}, error: "e", startedAt: 1, completedAt: 2 }, "c3")).toEqual({});
  });
});
