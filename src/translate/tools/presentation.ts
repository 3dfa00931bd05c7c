import type { ToolCallContent, ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import { editDiff, firstChangedLine, writeDiff } from "./diffs.ts";
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
  textContent,
  withoutReminders,
  type Input,
} from "./format.ts";
import { commandText, type ToolOutcome } from "./outcome.ts";

// How ZCode tools look in an ACP editor: a title a person can read, the kind
// that picks the icon, the files to follow, and the result content. Every tool
// is one row of TOOLS; code outside the table only reads fields and formats.
// What a finished tool came to (its ToolOutcome) is read in tool-outcome.ts;
// the helpers shared with the tracker and the diffs are in tool-format.ts.

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
  locations?: (input: Input, cwd: string, outcome?: ToolOutcome) => ToolCallLocation[];
  /** Shown while pending / in the permission prompt. */
  preview?: (input: Input, cwd: string) => ToolCallContent[];
  /** Content once the tool finished. */
  result?: (input: Input, outcome: ToolOutcome, cwd: string) => ToolCallContent[] | undefined;
  /** Its output is a command's output: streamed live (progress tails, terminal extension), exit codes apply. */
  command?: boolean;
  /**
   * rawOutput of a finished tool (docs/raw-output.md): what the user should
   * see, or undefined for nothing. Default: ZCode's text for the result.
   */
  raw?: (input: Input, outcome: ToolOutcome) => string | undefined;
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

/** Read's text is `N\tline` per line; the file itself is what a person wants to see. */
function fileText(text: string): string {
  const clean = withoutReminders(text);
  const lines = clean.split("\n");
  const numbered = lines.some((l) => /^\s*\d+\t/.test(l)) && lines.every((l) => l === "" || /^\s*\d+\t/.test(l));
  return numbered ? lines.map((l) => l.replace(/^\s*\d+\t/, "")).join("\n") : clean;
}

/** "No files found", "No matches found": a sentence, not a path or a match. */
const NOTHING_FOUND = /^No \w+ found/;

/** A list of paths one per line (after an optional `Found N files` line) as a list relative to cwd. */
function pathList(text: string, cwd: string): ToolCallContent[] | undefined {
  const lines = text.split("\n").filter((l) => l.trim().length > 0);
  if (lines.length === 0 || NOTHING_FOUND.test(lines[0]!)) return undefined;
  const header = /^Found \d+/.test(lines[0]!) ? lines.shift()! : undefined;
  const note = lines.length > 0 && lines[lines.length - 1]!.startsWith("(") ? lines.pop() : undefined;
  // Grep's content and count modes (`path:12:text`, `path:3`) are not lists of paths.
  if (!lines.every((l) => !l.includes("\t") && !/:\d+(?:[:-]|$)/.test(l))) return undefined;
  const files = lines.map((l) => displayPath(l, cwd));
  const body = listText(header ?? t().tools.foundFiles(files.length), files);
  return [textContent(note ? `${body}\n${note}` : body)];
}

function searchTitle(verb: "grep" | "find", input: Input, cwd: string): string {
  const pattern = str(input, "pattern", "query") ?? "";
  const path = str(input, "path");
  const glob = str(input, "glob", "include");
  // Quoted as typed: JSON escaping would double every backslash of a regex.
  return oneLine(t().tools[verb](pattern, path ? displayPath(path, cwd) : undefined, glob));
}

function questionsOf(input: Input): Array<{ question: string; header?: string }> {
  const qs = Array.isArray(input.questions) ? input.questions : [];
  return qs
    .map((q) => obj(q))
    .filter((q) => typeof q.question === "string")
    .map((q) => ({ question: q.question as string, header: str(q, "header") }));
}

const editLocations = (i: Input, cwd: string, o?: ToolOutcome): ToolCallLocation[] => {
  const p = str(i, "file_path", "path", "filePath") ?? (o ? str(o.display, "filePath") : undefined);
  if (!p) return [];
  const line = o ? firstChangedLine(o.display) : undefined;
  return [line !== undefined ? { path: absPath(p, cwd), line } : { path: absPath(p, cwd) }];
};

// ---- the table -----------------------------------------------------------------

const bash: ToolSpec = {
  kind: "execute",
  title: (i) => {
    const cmd = str(i, "command", "cmd");
    return cmd ? oneLine(cmd) : (str(i, "description") ?? t().tools.runCommand);
  },
  preview: (i) => {
    const d = str(i, "description");
    return d ? [textContent(d)] : [];
  },
  result: (_i, o) => {
    const output = commandOutputText(commandText(o), "", o.exitCode);
    // A command that could not run (timed out, refused) says why; its output, if any, first.
    const why = o.failed && o.error && o.error !== o.text ? o.error : undefined;
    const text = [output, why].filter(Boolean).join("\n\n");
    return [textContent(text || t().tools.noOutput)];
  },
  command: true,
};

const read: ToolSpec = {
  kind: "read",
  title: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    if (!p) return t().tools.readFile;
    const { from, to } = readRange(i);
    return t().tools.read(displayPath(p, cwd), from, to);
  },
  locations: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    if (!p) return [];
    const start = readRange(i).from;
    return [start !== undefined ? { path: absPath(p, cwd), line: Math.max(1, start) } : { path: absPath(p, cwd) }];
  },
  result: (i, o) => {
    if (o.text === undefined) return undefined;
    const path = str(i, "file_path", "path") ?? "";
    return [textContent(fenced(capped(fileText(o.text)), languageOf(path)))];
  },
  raw: (_i, o) => (o.failed ? o.error : o.text === undefined ? undefined : fileText(o.text)),
};

const edit: ToolSpec = {
  kind: "edit",
  title: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    return p ? t().tools.edit(displayPath(p, cwd)) : t().tools.editFile;
  },
  locations: editLocations,
  preview: (i, cwd) => editDiff(i, {}, cwd) ?? [],
  result: (i, o, cwd) => editDiff(i, o.display, cwd) ?? outputText(o.text),
  // ZCode's confirmation ("… no need to Read it back") is written for the model; the diff says it all.
  raw: (_i, o) => (o.failed ? o.error : undefined),
};

const write: ToolSpec = {
  kind: "edit",
  title: (i, cwd) => {
    const p = str(i, "file_path", "path", "filePath");
    return p ? t().tools.write(displayPath(p, cwd)) : t().tools.writeFile;
  },
  locations: editLocations,
  preview: (i, cwd) => writeDiff(i, {}, cwd, false) ?? [],
  result: (i, o, cwd) => writeDiff(i, o.display, cwd, true) ?? outputText(o.text),
  raw: (_i, o) => (o.failed ? o.error : undefined),
};

const grep: ToolSpec = {
  kind: "search",
  title: (i, cwd) => searchTitle("grep", i, cwd),
  locations: pathLocation("path"),
  result: (_i, o, cwd) => {
    if (!o.text) return undefined;
    if (NOTHING_FOUND.test(o.text)) return outputText(o.text);
    return pathList(o.text, cwd) ?? [textContent(fenced(capped(o.text)))];
  },
};

const glob: ToolSpec = {
  kind: "search",
  title: (i, cwd) => searchTitle("find", i, cwd),
  locations: pathLocation("path"),
  result: (_i, o, cwd) => (o.text ? (pathList(o.text, cwd) ?? outputText(o.text)) : undefined),
};

const webFetch: ToolSpec = {
  kind: "fetch",
  title: (i) => {
    const url = str(i, "url");
    return url ? oneLine(t().tools.fetch(url)) : t().tools.fetchNoUrl;
  },
  preview: (i) => {
    const p = str(i, "prompt");
    return p ? [textContent(p)] : [];
  },
  result: (_i, o) => outputText(o.text),
};

const webSearch: ToolSpec = {
  kind: "fetch",
  title: (i) => {
    const q = str(i, "query");
    return q ? oneLine(t().tools.webSearch(q)) : t().tools.webSearchNoQuery;
  },
  result: (_i, o) => outputText(o.text),
};

const agent: ToolSpec = {
  kind: "think",
  title: (i) => {
    const d = str(i, "description");
    const type = str(i, "subagent_type");
    if (d) return oneLine(type ? `${d} (${type})` : d);
    return type ? t().tools.runAgent(type) : t().tools.runSubagent;
  },
  preview: (i) => {
    const p = str(i, "prompt");
    return p ? [textContent(capped(p))] : [];
  },
  // The agent's report, without the bookkeeping ZCode appends for the model.
  result: (_i, o) => outputText(agentReport(o.text)),
  raw: (_i, o) => (o.failed ? o.error : agentReport(o.text)),
};

function agentReport(text: string | undefined): string | undefined {
  return text
    ?.replace(/\n?agentId: [^\n]*/g, "")
    .replace(/<usage>[\s\S]*?<\/usage>/g, "")
    .trim();
}

const exitPlanMode: ToolSpec = {
  kind: "switch_mode",
  title: () => t().tools.readyToCode,
  preview: (i) => {
    const plan = str(i, "plan");
    return plan ? [textContent(plan)] : [];
  },
  result: (i, o) => {
    const plan = str(i, "plan");
    const verdict = o.failed ? t().tools.planNotApproved : t().tools.planApproved;
    return [plan, verdict].filter((p): p is string => !!p).map((p) => textContent(p));
  },
  // ZCode's result repeats the plan for the model ("User has approved your plan … ## Approved Plan").
  raw: (_i, o) => (o.failed ? t().tools.planNotApproved : t().tools.planApproved),
};

const enterPlanMode: ToolSpec = { kind: "switch_mode", title: () => t().tools.planFirst, result: () => undefined, raw: () => undefined };

// The todo list reaches the editor once, as the session's plan (translate/events.ts).
const todoWrite: ToolSpec = {
  kind: "think",
  title: () => t().tools.updatePlan,
  result: (i, o) => (Array.isArray(i.todos) ? [] : outputText(o.text)),
  raw: () => undefined,
};

const askUserQuestion: ToolSpec = {
  kind: "other",
  title: (i) => {
    const qs = questionsOf(i);
    if (qs.length === 0) return t().tools.askUser;
    return oneLine(t().tools.ask(qs.map((q) => q.header ?? q.question).join(", ")));
  },
  result: (_i, o) => outputText(o.text),
};

/**
 * Tool name → presentation (ZCode's built-in tools). Names are matched
 * exactly first, then case-insensitively.
 */
const TOOLS: Record<string, ToolSpec> = {
  Bash: bash,
  Read: read,
  Edit: edit,
  Write: write,
  Grep: grep,
  Glob: glob,
  WebFetch: webFetch,
  WebSearch: webSearch,
  Agent: agent,
  Task: agent,
  ExitPlanMode: exitPlanMode,
  EnterPlanMode: enterPlanMode,
  TodoWrite: todoWrite,
  TodoRead: { kind: "think", title: () => t().tools.readPlan, result: () => undefined, raw: () => undefined },
  AskUserQuestion: askUserQuestion,
};

const TOOLS_LOWER: Record<string, ToolSpec> = Object.fromEntries(Object.entries(TOOLS).map(([k, v]) => [k.toLowerCase(), v]));

function unknownTool(name: string): ToolSpec {
  return { kind: "other", title: () => name || t().tools.tool, result: (_i, o) => outputText(o.text) };
}

function specOf(name: string): ToolSpec {
  return TOOLS[name] ?? TOOLS_LOWER[name.toLowerCase()] ?? unknownTool(name);
}

/** Whether a tool's output is a command's output (live tails, terminal extension). */
export function streamsOutput(name: string): boolean {
  return specOf(name).command === true;
}

export function presentTool(name: string, input: unknown, cwd: string): ToolPresentation {
  const spec = specOf(name);
  const i = obj(input);
  return {
    title: spec.title(i, cwd) || name || t().tools.tool,
    kind: spec.kind,
    locations: spec.locations?.(i, cwd) ?? [],
    content: spec.preview?.(i, cwd) ?? [],
  };
}

/** Locations once the outcome is known (an edit's first changed line). */
export function resultLocations(name: string, input: unknown, outcome: ToolOutcome, cwd: string): ToolCallLocation[] {
  return specOf(name).locations?.(obj(input), cwd, outcome) ?? [];
}

/**
 * Content of a finished tool: diffs for edits, command output, file text,
 * lists for searches, else ZCode's own text; a failure shows why. Empty when
 * there is nothing to show.
 */
export function resultContent(name: string, input: unknown, outcome: ToolOutcome, cwd: string): ToolCallContent[] {
  const spec = specOf(name);
  if (outcome.failed && !spec.command) return [textContent(capped(outcome.error || outcome.text || t().tools.failed))];
  return spec.result?.(obj(input), outcome, cwd) ?? outputText(outcome.text) ?? [];
}

/** Past this, rawOutput is cut with a note (it is a copy of what content shows, never the whole of a huge output). */
const RAW_MAX = 64 * 1024;

/**
 * rawOutput of a finished tool: the text the user should see (a command's
 * output, the file read, the matches, why it failed), or undefined when
 * there is nothing worth repeating (docs/raw-output.md). Never ZCode's
 * result object (perf figures, display payloads, text written for the model).
 */
export function rawResult(name: string, input: unknown, outcome: ToolOutcome): string | undefined {
  const spec = specOf(name);
  let text: string | undefined;
  if (spec.raw) text = spec.raw(obj(input), outcome);
  else if (outcome.failed) text = outcome.error || outcome.text || t().tools.failed;
  else if (spec.command) text = commandText(outcome);
  else text = outcome.text === undefined ? undefined : withoutReminders(outcome.text);
  return text && text.trim().length > 0 ? capped(text, RAW_MAX) : undefined;
}
