import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { absPath, capped, fenced, languageOf, num, obj, str, strings, textContent, type Input } from "./format.ts";

// Diffs for Edit and Write, built from the tool's input (what the model asked
// for) and, where ZCode gave one, the `file_diff` view of the result (its
// jsdiff hunks), since ZCode's result text is only a status line.

interface Hunk {
  oldStart: number;
  newStart: number;
  lines: string[];
}

function hunks(v: unknown): Hunk[] {
  if (!Array.isArray(v)) return [];
  const out: Hunk[] = [];
  for (const h of v) {
    const o = obj(h);
    const lines = strings(o.lines);
    const oldStart = num(o, "oldStart");
    const newStart = num(o, "newStart");
    if (oldStart === undefined || newStart === undefined) continue;
    out.push({ oldStart, newStart, lines });
  }
  return out;
}

/** The hunks of a `{kind:"file_diff", structuredPatch}` view, if that is what `display` is. */
export function fileDiffPatch(display: Input): unknown {
  return display.kind === "file_diff" ? display.structuredPatch : undefined;
}

/** First changed line of a file_diff view (1-based, past the hunk's leading context), for the editor to jump to. */
export function firstChangedLine(display: Input): number | undefined {
  const h = hunks(fileDiffPatch(display))[0];
  if (!h) return undefined;
  const context = h.lines.findIndex((l) => l[0] === "+" || l[0] === "-");
  return Math.max(1, h.newStart + Math.max(0, context));
}

/**
 * Rebuilds the text before a change from the text after it and the hunks of
 * the change (each hunk's ` ` and `-` lines are the old side, ` ` and `+`
 * lines the new side). Returns undefined when the hunks do not fit the text.
 */
export function reversePatch(newText: string, patch: unknown): string | undefined {
  const hs = hunks(patch);
  if (hs.length === 0) return undefined;
  const lines = newText.split("\n");
  // Apply from the last hunk backwards so earlier line numbers stay valid.
  for (const h of [...hs].sort((a, b) => b.newStart - a.newStart)) {
    const oldSide: string[] = [];
    const newSide: string[] = [];
    for (const l of h.lines) {
      const tag = l[0];
      const body = l.slice(1);
      if (tag === "-") oldSide.push(body);
      else if (tag === "+") newSide.push(body);
      else if (tag === " " || tag === undefined) {
        oldSide.push(body);
        newSide.push(body);
      }
      // "\ No newline at end of file" and the like: not content.
    }
    const start = Math.max(0, h.newStart - 1);
    const current = lines.slice(start, start + newSide.length);
    if (current.join("\n") !== newSide.join("\n")) return undefined;
    lines.splice(start, newSide.length, ...oldSide);
  }
  return lines.join("\n");
}

/** The hunks alone, as old/new snippets, when the whole file is unknown. */
function hunkSnippets(patch: unknown): { oldText: string; newText: string } | undefined {
  const hs = hunks(patch);
  if (hs.length === 0) return undefined;
  const oldL: string[] = [];
  const newL: string[] = [];
  hs.forEach((h, i) => {
    if (i > 0) {
      oldL.push("…");
      newL.push("…");
    }
    for (const l of h.lines) {
      const tag = l[0];
      const body = l.slice(1);
      if (tag !== "+") oldL.push(body);
      if (tag !== "-") newL.push(body);
    }
  });
  return { oldText: oldL.join("\n"), newText: newL.join("\n") };
}

function pathOf(input: Input, display: Input): string | undefined {
  return str(input, "file_path", "path", "filePath") ?? str(display, "filePath");
}

/** Edit: what was replaced by what (the input's own strings), or ZCode's hunks when the input lacks them. */
export function editDiff(input: Input, display: Input, cwd: string): ToolCallContent[] | undefined {
  const path = pathOf(input, display);
  if (!path) return undefined;
  const abs = absPath(path, cwd);
  const old = typeof input.old_string === "string" ? input.old_string : undefined;
  const nw = typeof input.new_string === "string" ? input.new_string : undefined;
  if (old !== undefined && nw !== undefined) return [{ type: "diff", path: abs, oldText: old, newText: nw }];
  const snippet = hunkSnippets(fileDiffPatch(display));
  return snippet ? [{ type: "diff", path: abs, oldText: snippet.oldText, newText: snippet.newText }] : undefined;
}

/**
 * Write: a new file (no file_diff view: ZCode's create has no hunks) diffs
 * from nothing; an overwrite gets its old text back from the hunks.
 */
export function writeDiff(input: Input, display: Input, cwd: string, finished: boolean): ToolCallContent[] | undefined {
  const path = pathOf(input, display);
  const content = typeof input.content === "string" ? input.content : undefined;
  if (!path || content === undefined) return undefined;
  const abs = absPath(path, cwd);
  const patch = fileDiffPatch(display);
  // Before it ran we cannot tell a create from an overwrite: the preview shows the text.
  if (!finished) return [textContent(fenced(capped(content), languageOf(path)))];
  if (patch === undefined) return [{ type: "diff", path: abs, oldText: null, newText: content }];
  // A truncated view lacks hunks: rebuilding the old text from it would claim untouched lines.
  const original = display.truncated === true ? undefined : reversePatch(content, patch);
  if (original !== undefined) return [{ type: "diff", path: abs, oldText: original, newText: content }];
  const snippet = hunkSnippets(patch);
  if (snippet) return [{ type: "diff", path: abs, oldText: snippet.oldText, newText: snippet.newText }];
  return [textContent(fenced(capped(content), languageOf(path)))];
}
