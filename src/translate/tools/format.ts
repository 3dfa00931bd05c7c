import { basename, extname, isAbsolute, relative, resolve, sep } from "node:path";
import type { ToolCallContent } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
// Type only: the outcome reader builds on these helpers, not the other way round.

// Small formatting helpers shared by the tool table, the diffs, the tracker
// and the history replay: titles on one line, paths as a person reads them,
// fenced blocks that cannot be broken by the text inside, tolerant readers.

/** A tolerant view of an unknown JSON object: every field read is checked. */
export type Input = Record<string, unknown>;

export const TITLE_MAX = 120;
const TEXT_MAX = 200_000;
const LIST_MAX = 200;

export function obj(v: unknown): Input {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Input) : {};
}

/** The first non-empty string among `keys`. */
export function str(o: Input, ...keys: string[]): string | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "string" && v.length > 0) return v;
  }
  return undefined;
}

export function num(o: Input, ...keys: string[]): number | undefined {
  for (const k of keys) {
    const v = o[k];
    if (typeof v === "number" && Number.isFinite(v)) return v;
  }
  return undefined;
}

export function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === "string") : [];
}

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

export function capped(text: string, max = TEXT_MAX): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}\n${t().tools.moreCharacters(text.length - max)}`;
}

const LANG_BY_EXT: Record<string, string> = {
  ts: "typescript",
  mts: "typescript",
  cts: "typescript",
  tsx: "tsx",
  js: "javascript",
  mjs: "javascript",
  cjs: "javascript",
  jsx: "jsx",
  py: "python",
  rs: "rust",
  go: "go",
  rb: "ruby",
  java: "java",
  kt: "kotlin",
  kts: "kotlin",
  swift: "swift",
  c: "c",
  h: "c",
  cc: "cpp",
  cpp: "cpp",
  cxx: "cpp",
  hpp: "cpp",
  cs: "csharp",
  php: "php",
  lua: "lua",
  sh: "bash",
  bash: "bash",
  zsh: "zsh",
  fish: "fish",
  ps1: "powershell",
  json: "json",
  jsonc: "jsonc",
  yaml: "yaml",
  yml: "yaml",
  toml: "toml",
  ini: "ini",
  md: "markdown",
  html: "html",
  htm: "html",
  css: "css",
  scss: "scss",
  less: "less",
  sql: "sql",
  xml: "xml",
  svg: "xml",
  vue: "vue",
  svelte: "svelte",
  dart: "dart",
  scala: "scala",
  ex: "elixir",
  exs: "elixir",
  erl: "erlang",
  hs: "haskell",
  ml: "ocaml",
  zig: "zig",
  nix: "nix",
  tf: "hcl",
  graphql: "graphql",
  proto: "protobuf",
  diff: "diff",
  patch: "diff",
};
const LANG_BY_NAME: Record<string, string> = { Dockerfile: "dockerfile", Makefile: "makefile", makefile: "makefile" };

export function languageOf(path: string): string {
  return LANG_BY_NAME[basename(path)] ?? LANG_BY_EXT[extname(path).slice(1).toLowerCase()] ?? "";
}

/** The line ZCode puts before the output of a command it judged failed: `Exit code N`. */
export const EXIT_LINE = /^Exit code (-?\d+)(?:\r?\n|$)/;

/** Output of a command as a console block, with the exit code when known. */
export function commandOutputText(stdout: string, stderr: string, exitCode?: number | null, note?: string): string {
  const parts = [stdout, stderr].filter((s) => s.length > 0);
  const joined = parts.map((s) => (s.endsWith("\n") ? s : `${s}\n`)).join("");
  const lines: string[] = [];
  if (joined.length > 0) lines.push(fenced(capped(joined), "console"));
  if (note) lines.push(note);
  if (exitCode !== undefined && exitCode !== null) lines.push(t().tools.exitCode(exitCode));
  return lines.join("\n");
}

export function listText(header: string, items: string[], truncated = false): string {
  const shown = items.slice(0, LIST_MAX).map((i) => `- ${i}`);
  const rest = items.length - shown.length;
  if (rest > 0) shown.push(`- ${t().tools.moreItems(rest)}`);
  if (truncated) shown.push(`- ${t().tools.resultsTruncated}`);
  return [header, ...shown].join("\n");
}

/** Text worth showing as is, or nothing. */
export function outputText(output: string | undefined): ToolCallContent[] | undefined {
  return output && output.trim().length > 0 ? [textContent(capped(output))] : undefined;
}

/** ZCode wraps notes meant for the model in <system-reminder> tags; a person does not need them. */
export function withoutReminders(text: string): string {
  return text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>\s*/g, "");
}
