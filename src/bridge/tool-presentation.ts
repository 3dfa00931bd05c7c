import { isAbsolute, relative, resolve, sep, extname, basename } from "node:path";
import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk/unstable";

// How ZCode tools look in an ACP editor: a title a person can read, the kind
// that picks the icon, the files to follow, and the result content. Every tool
// is one row of TOOLS; code outside the table only reads fields and formats.

export interface ToolPresentation {
  title: string;
  kind: ToolKind;
  locations: ToolCallLocation[];
  /** Content worth showing before the tool ran (the plan, a proposed edit). */
  content: ToolCallContent[];
}

interface ToolSpec {
  kind: ToolKind;
  title: (input: Input, cwd: string) => string;
  locations?: (input: Input, cwd: string, result?: Input) => ToolCallLocation[];
  /** Shown while pending / in the permission prompt. */
  preview?: (input: Input, cwd: string) => ToolCallContent[];
  /** Content once the tool finished; `output` is ZCode's human text, `result` the structured value. */
  result?: (input: Input, output: string | undefined, result: Input, cwd: string) => ToolCallContent[] | undefined;
  /** Its command output may be streamed live (progress tails, terminal extension). */
  streamsOutput?: boolean;
}

/** A tolerant view of an unknown JSON object: every field read is checked. */
type Input = Record<string, unknown>;

const TITLE_MAX = 120;
const TEXT_MAX = 200_000;
const LIST_MAX = 200;

// ---- small readers -------------------------------------------------------

function obj(v: unknown): Input {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Input) : {};
}

function str(o: Input, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

function num(o: Input, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return undefined;
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

// ---- formatting helpers (exported for the tracker and history) -----------

/** Keeps a title on one line and short enough for a tool header. */
export function oneLine(text: string, max = TITLE_MAX): string {
  const lines = text.trim().split(/\r?\n/);
  let first = (lines[0] ?? "").replace(/\s+/g, " ").trim();
  const more = lines.length > 1;
  if (first.length > max) first = `${first.slice(0, max - 1)}…`;
  else if (more) first = `${first} …`;
  return first;
}

/** Absolute path of a tool's path argument (relative ones are relative to cwd). */
export function absPath(p: string, cwd: string): string {
  return isAbsolute(p) ? p : resolve(cwd, p);
}

/** The path as a person wants to read it: relative to cwd when inside it. */
export function displayPath(p: string, cwd: string): string {
  const abs = absPath(p, cwd);
  const rel = relative(cwd, abs);
  if (rel === "") return ".";
  if (rel.startsWith(`..${sep}`) || rel === ".." || isAbsolute(rel)) return abs;
  return rel;
}

/** A fenced block whose fence cannot be closed by backticks inside the text. */
export function fenced(text: string, lang = ""): string {
  let longest = 0;
  // Most output has no backtick at all: a native scan settles it (this runs
  // on every progress event of a command's output).
  if (text.includes("`")) for (const m of text.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = "`".repeat(Math.max(3, longest + 1));
  const body = text.endsWith("\n") ? text : `${text}\n`;
  return `${fence}${lang}\n${body}${fence}`;
}

export function textContent(text: string): ToolCallContent {
  return { type: "content", content: { type: "text", text } };
}

function capped(text: string, max = TEXT_MAX): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n… (${text.length - max} more characters not shown)`;
}

const LANG_BY_EXT: Record<string, string> = {
  ts: "typescript", mts: "typescript", cts: "typescript", tsx: "tsx", js: "javascript", mjs: "javascript",
  cjs: "javascript", jsx: "jsx", py: "python", rs: "rust", go: "go", rb: "ruby", java: "java",
  kt: "kotlin", kts: "kotlin", swift: "swift", c: "c", h: "c", cc: "cpp", cpp: "cpp", cxx: "cpp",
  hpp: "cpp", cs: "csharp", php: "php", lua: "lua", sh: "bash", bash: "bash", zsh: "zsh", fish: "fish",
  ps1: "powershell", json: "json", jsonc: "jsonc", yaml: "yaml", yml: "yaml", toml: "toml", ini: "ini",
  md: "markdown", html: "html", htm: "html", css: "css", scss: "scss", less: "less", sql: "sql",
  xml: "xml", svg: "xml", vue: "vue", svelte: "svelte", dart: "dart", scala: "scala", ex: "elixir",
  exs: "elixir", erl: "erlang", hs: "haskell", ml: "ocaml", zig: "zig", nix: "nix", tf: "hcl",
  graphql: "graphql", proto: "protobuf", diff: "diff", patch: "diff",
};
const LANG_BY_NAME: Record<string, string> = { Dockerfile: "dockerfile", Makefile: "makefile", makefile: "makefile" };

export function languageOf(path: string): string {
  return LANG_BY_NAME[basename(path)] ?? LANG_BY_EXT[extname(path).slice(1).toLowerCase()] ?? "";
}

/** Output of a command as a console block, with the exit code when known. */
export function commandOutputText(stdout: string, stderr: string, exitCode?: number | null, note?: string): string {
  const parts = [stdout, stderr].filter((s) => s.length > 0);
  const joined = parts.map((s) => (s.endsWith("\n") ? s : `${s}\n`)).join("");
  const lines: string[] = [];
  if (joined.length > 0) lines.push(fenced(capped(joined), "console"));
  if (note) lines.push(note);
  if (exitCode !== undefined && exitCode !== null) lines.push(`exit code ${exitCode}`);
  return lines.join("\n");
}

function listText(header: string, items: string[], truncated = false): string {
  const shown = items.slice(0, LIST_MAX).map((i) => `- ${i}`);
  const rest = items.length - shown.length;
  if (rest > 0) shown.push(`- … and ${rest} more`);
  if (truncated) shown.push("- … (results truncated)");
  return [header, ...shown].join("\n");
}

// ---- text reconstruction for diffs ---------------------------------------

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

function replaceText(text: string, from: string, to: string, all: boolean): string | undefined {
  if (from === "") return undefined;
  if (!text.includes(from)) return undefined;
  return all ? text.split(from).join(to) : text.replace(from, () => to);
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
function hunkSnippets(patch: unknown): { oldText: string; newText: string; line: number } | undefined {
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
  return { oldText: oldL.join("\n"), newText: newL.join("\n"), line: hs[0]!.newStart };
}

interface EditOp {
  old: string;
  new: string;
  all: boolean;
}

function editOps(input: Input, result: Input): EditOp[] {
  const single = (o: Input): EditOp | undefined => {
    const old = typeof o.old_string === "string" ? o.old_string : typeof o.oldString === "string" ? o.oldString : undefined;
    const nw = typeof o.new_string === "string" ? o.new_string : typeof o.newString === "string" ? o.newString : undefined;
    if (old === undefined || nw === undefined) return undefined;
    return { old, new: nw, all: o.replace_all === true || o.replaceAll === true };
  };
  if (Array.isArray(input.edits)) {
    return input.edits.map((e) => single(obj(e))).filter((e): e is EditOp => e !== undefined);
  }
  // The result's strings are what ZCode actually applied (it may normalise
  // quotes); replace_all only exists on the input.
  const op = single(result) ?? single(input);
  if (!op) return [];
  return [{ ...op, all: input.replace_all === true || op.all }];
}

function editDiff(input: Input, result: Input, cwd: string): ToolCallContent[] | undefined {
  const path = str(result, "filePath") ?? str(input, "file_path", "path", "filePath");
  if (!path) return undefined;
  const abs = absPath(path, cwd);
  const ops = editOps(input, result);
  const original = typeof result.originalFile === "string" ? result.originalFile : undefined;
  if (original !== undefined && ops.length > 0) {
    let text: string | undefined = original;
    for (const op of ops) {
      text = text === undefined ? undefined : replaceText(text, op.old, op.new, op.all);
    }
    if (text !== undefined) return [{ type: "diff", path: abs, oldText: original, newText: text }];
  }
  const snippet = hunkSnippets(result.structuredPatch);
  if (snippet) return [{ type: "diff", path: abs, oldText: snippet.oldText, newText: snippet.newText }];
  if (ops.length > 0) {
    return ops.map((op) => ({ type: "diff", path: abs, oldText: op.old, newText: op.new }) as ToolCallContent);
  }
  return undefined;
}

function writeDiff(input: Input, result: Input, cwd: string): ToolCallContent[] | undefined {
  const path = str(result, "filePath") ?? str(input, "file_path", "path", "filePath");
  const content = typeof result.content === "string" ? result.content : typeof input.content === "string" ? input.content : undefined;
  if (!path || content === undefined) return undefined;
  const abs = absPath(path, cwd);
  if (result.type === "create") return [{ type: "diff", path: abs, oldText: null, newText: content }];
  const original = typeof result.originalFile === "string" ? result.originalFile : reversePatch(content, result.structuredPatch);
  if (original !== undefined) return [{ type: "diff", path: abs, oldText: original, newText: content }];
  const snippet = hunkSnippets(result.structuredPatch);
  if (snippet) return [{ type: "diff", path: abs, oldText: snippet.oldText, newText: snippet.newText }];
  // An update whose old text is unknown: a diff would have to claim an empty
  // or missing old file, so the new text is shown as a file excerpt instead.
  return [textContent(fenced(capped(content), languageOf(path)))];
}

// ---- per-tool pieces -------------------------------------------------------

function pathLocation(...keys: string[]) {
  return (input: Input, cwd: string): ToolCallLocation[] => {
    const p = str(input, ...keys);
    return p ? [{ path: absPath(p, cwd) }] : [];
  };
}

function readRange(input: Input): { from?: number; to?: number } {
  const offset = num(input, "offset");
  const limit = num(input, "limit");
  // ZCode's Read offset is the 1-based line to start at (0 means the start).
  const from = offset !== undefined && offset > 0 ? offset : undefined;
  if (limit !== undefined && limit > 0) {
    const start = from ?? 1;
    return { from: start, to: start + limit - 1 };
  }
  return { from };
}

function editLine(result: Input): number | undefined {
  const h = hunks(result.structuredPatch)[0];
  return h ? Math.max(1, h.newStart) : undefined;
}

function outputText(output: string | undefined): ToolCallContent[] | undefined {
  return output && output.trim().length > 0 ? [textContent(capped(output))] : undefined;
}

function questionsOf(input: Input): Array<{ question: string; header?: string }> {
  const qs = Array.isArray(input.questions) ? input.questions : [];
  return qs
    .map((q) => obj(q))
    .filter((q) => typeof q.question === "string")
    .map((q) => ({ question: q.question as string, header: str(q, "header") }));
}

function searchTitle(verb: string, input: Input, cwd: string): string {
  const pattern = str(input, "pattern", "query") ?? "";
  const path = str(input, "path");
  const glob = str(input, "glob", "include");
  // Quoted as typed: JSON escaping would double every backslash of a regex.
  let t = `${verb} "${pattern}"`;
  if (path) t += ` in ${displayPath(path, cwd)}`;
  if (glob) t += ` (${glob})`;
  return oneLine(t);
}

const bash: ToolSpec = {
  kind: "execute",
  title: (i) => {
    const cmd = str(i, "command", "cmd");
    return cmd ? oneLine(cmd) : (str(i, "description") ?? "Run command");
  },
  preview: (i) => {
    const d = str(i, "description");
    return d ? [textContent(d)] : [];
  },
  result: (_i, output, r) => {
    const stdout = typeof r.stdout === "string" ? r.stdout : undefined;
    const stderr = typeof r.stderr === "string" ? r.stderr : "";
    const code = num(r, "exitCode", "exit_code");
    if (stdout === undefined && !stderr && code === undefined) {
      return output !== undefined ? [textContent(commandOutputText(output, ""))] : undefined;
    }
    const note = r.interrupted === true ? "(interrupted)" : undefined;
    return [textContent(commandOutputText(stdout ?? "", stderr, code, note) || "(no output)")];
  },
  streamsOutput: true,
};

const read: ToolSpec = {
  kind: "read",
  title: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    if (!p) return "Read file";
    const { from, to } = readRange(i);
    const range = to !== undefined ? ` (lines ${from}–${to})` : from !== undefined ? ` (from line ${from})` : "";
    return `Read ${displayPath(p, cwd)}${range}`;
  },
  locations: (i, cwd, r) => {
    const p = str(i, "file_path", "path", "filePath");
    if (!p) return [];
    const start = num(obj(r?.file), "startLine") ?? readRange(i).from;
    return [start !== undefined ? { path: absPath(p, cwd), line: Math.max(1, start) } : { path: absPath(p, cwd) }];
  },
  result: (i, output, r, cwd) => {
    const file = obj(r.file);
    const content = typeof file.content === "string" ? file.content : undefined;
    const path = str(file, "filePath") ?? str(i, "file_path", "path") ?? "";
    if (content !== undefined) return [textContent(fenced(capped(content), languageOf(path)))];
    return outputText(output);
  },
};

const edit: ToolSpec = {
  kind: "edit",
  title: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    return p ? `Edit ${displayPath(p, cwd)}` : "Edit file";
  },
  locations: (i, cwd, r) => {
    const p = str(obj(r), "filePath") ?? str(i, "file_path", "path", "filePath");
    if (!p) return [];
    const line = r ? editLine(r) : undefined;
    return [line !== undefined ? { path: absPath(p, cwd), line } : { path: absPath(p, cwd) }];
  },
  preview: (i, cwd) => editDiff(i, {}, cwd) ?? [],
  result: (i, output, r, cwd) => editDiff(i, r, cwd) ?? outputText(output),
};

const write: ToolSpec = {
  kind: "edit",
  title: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    return p ? `Write ${displayPath(p, cwd)}` : "Write file";
  },
  locations: edit.locations,
  result: (i, output, r, cwd) => writeDiff(i, r, cwd) ?? outputText(output),
};

const grep: ToolSpec = {
  kind: "search",
  title: (i, cwd) => searchTitle("grep", i, cwd),
  locations: pathLocation("path"),
  result: (_i, output, r, cwd) => {
    if (typeof r.content === "string" && r.content.length > 0) return [textContent(fenced(capped(r.content)))];
    const files = strings(r.filenames);
    if (Array.isArray(r.filenames)) {
      const n = num(r, "numFiles") ?? files.length;
      return [textContent(listText(`Found ${n} file${n === 1 ? "" : "s"}`, files.map((f) => displayPath(f, cwd))))];
    }
    return outputText(output);
  },
};

const glob: ToolSpec = {
  kind: "search",
  title: (i, cwd) => searchTitle("Find", i, cwd),
  locations: pathLocation("path"),
  result: (_i, output, r, cwd) => {
    if (!Array.isArray(r.filenames)) return outputText(output);
    const files = strings(r.filenames);
    const n = num(r, "numFiles") ?? files.length;
    return [textContent(listText(`Found ${n} file${n === 1 ? "" : "s"}`, files.map((f) => displayPath(f, cwd)), r.truncated === true))];
  },
};

const ls: ToolSpec = {
  kind: "search",
  title: (i, cwd) => {
    const p = str(i, "path");
    return p ? `List ${displayPath(p, cwd)}` : "List directory";
  },
  locations: pathLocation("path"),
  result: (_i, output) => (output ? [textContent(fenced(capped(output)))] : undefined),
};

const webFetch: ToolSpec = {
  kind: "fetch",
  title: (i) => {
    const url = str(i, "url");
    return url ? oneLine(`Fetch ${url}`) : "Fetch";
  },
  preview: (i) => {
    const p = str(i, "prompt");
    return p ? [textContent(p)] : [];
  },
  result: (_i, output, r) => {
    const summary = str(r, "result");
    if (!summary) return outputText(output);
    const code = num(r, "code");
    const bytes = num(r, "bytes");
    const head = [code !== undefined ? `HTTP ${code}` : "", bytes !== undefined ? `${bytes} bytes` : ""].filter(Boolean).join(", ");
    return [textContent(head ? `${head}\n\n${capped(summary)}` : capped(summary))];
  },
};

const webSearch: ToolSpec = {
  kind: "fetch",
  title: (i) => {
    const q = str(i, "query");
    return q ? oneLine(`Search the web for "${q}"`) : "Search the web";
  },
  result: (_i, output) => outputText(output),
};

const task: ToolSpec = {
  kind: "think",
  title: (i) => {
    const d = str(i, "description");
    const type = str(i, "subagent_type");
    if (d) return oneLine(type ? `${d} (${type})` : d);
    return type ? `Run ${type} agent` : "Run subagent";
  },
  preview: (i) => {
    const p = str(i, "prompt");
    return p ? [textContent(capped(p))] : [];
  },
  result: (_i, output) => outputText(output),
};

const exitPlanMode: ToolSpec = {
  kind: "switch_mode",
  title: () => "Ready to code?",
  preview: (i) => {
    const plan = str(i, "plan");
    return plan ? [textContent(plan)] : [];
  },
  result: (i, output, r) => {
    const plan = str(i, "plan");
    const verdict = r.approved === true ? "Plan approved." : r.approved === false ? "Plan not approved." : undefined;
    const parts = [plan, verdict ?? output].filter((p): p is string => !!p && p.trim().length > 0);
    return parts.length > 0 ? parts.map((p) => textContent(p)) : undefined;
  },
};

const todoWrite: ToolSpec = {
  kind: "think",
  title: () => "Update plan",
  result: (i, output) => {
    const todos = Array.isArray(i.todos) ? i.todos.map(obj) : [];
    if (todos.length === 0) return outputText(output);
    const mark = (s: unknown) => (s === "completed" ? "[x]" : s === "in_progress" ? "[~]" : "[ ]");
    return [textContent(todos.map((t) => `- ${mark(t.status)} ${str(t, "content") ?? ""}`).join("\n"))];
  },
};

const askUserQuestion: ToolSpec = {
  kind: "other",
  title: (i) => {
    const qs = questionsOf(i);
    if (qs.length === 0) return "Ask the user";
    return oneLine(`Ask: ${qs.map((q) => q.header ?? q.question).join(", ")}`);
  },
  result: (i, output, r) => {
    const answers = obj(r.answers);
    const keys = Object.keys(answers);
    if (keys.length === 0) return outputText(output);
    const fmt = (v: unknown) => (Array.isArray(v) ? v.map(String).join(", ") : String(v));
    return [textContent(keys.map((k) => `${k}: ${fmt(answers[k])}`).join("\n"))];
  },
};

/**
 * Tool name → presentation. Names are matched exactly first, then
 * case-insensitively, so `bash` or `read` from another CLI build still work.
 */
const TOOLS: Record<string, ToolSpec> = {
  Bash: bash,
  Read: read,
  NotebookRead: read,
  Edit: edit,
  MultiEdit: edit,
  NotebookEdit: { ...edit, preview: undefined, result: (_i, output) => outputText(output) },
  Write: write,
  Grep: grep,
  Glob: glob,
  LS: ls,
  WebFetch: webFetch,
  WebSearch: webSearch,
  Task: task,
  Agent: task,
  ExitPlanMode: exitPlanMode,
  TodoWrite: todoWrite,
  AskUserQuestion: askUserQuestion,
};

const TOOLS_LOWER: Record<string, ToolSpec> = Object.fromEntries(
  Object.entries(TOOLS).map(([k, v]) => [k.toLowerCase(), v]),
);

function unknownTool(name: string): ToolSpec {
  return {
    kind: "other",
    title: () => name || "Tool",
    result: (_i, output, r) => {
      const text = outputText(output);
      if (text) return text;
      if (r && Object.keys(r).length > 0) return [textContent(fenced(capped(JSON.stringify(r, null, 2)), "json"))];
      return undefined;
    },
  };
}

function specOf(name: string): ToolSpec {
  return TOOLS[name] ?? TOOLS_LOWER[name.toLowerCase()] ?? unknownTool(name);
}

/** Whether a tool's output is a command's output (live tails, terminal extension). */
export function streamsOutput(name: string): boolean {
  return specOf(name).streamsOutput === true;
}

export function presentTool(name: string, input: unknown, cwd: string): ToolPresentation {
  const spec = specOf(name);
  const i = obj(input);
  return {
    title: spec.title(i, cwd) || name || "Tool",
    kind: spec.kind,
    locations: spec.locations?.(i, cwd) ?? [],
    content: spec.preview?.(i, cwd) ?? [],
  };
}

/** Locations once the result is known (an edit's first changed line, a read's start line). */
export function resultLocations(name: string, input: unknown, result: unknown, cwd: string): ToolCallLocation[] {
  return specOf(name).locations?.(obj(input), cwd, obj(result)) ?? [];
}

/**
 * Content of a finished tool: diffs for edits, command output, file excerpts,
 * lists for searches, else ZCode's own output text. Empty when there is
 * nothing to show.
 */
export function resultContent(
  name: string,
  input: unknown,
  output: string | undefined,
  result: unknown,
  cwd: string,
): ToolCallContent[] {
  const spec = specOf(name);
  const r = obj(result);
  const out = typeof output === "string" ? output : undefined;
  const content = spec.result?.(obj(input), out, r, cwd) ?? outputText(out);
  if (content && content.length > 0) return content;
  // A string result with no output text: still worth showing.
  if (typeof result === "string" && result.trim()) return [textContent(capped(result))];
  return [];
}
