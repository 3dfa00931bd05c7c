// Area: tools. Titles and texts the bridge composes around ZCode's tool
// calls. Paths, commands, patterns, URLs and ZCode's own output are passed in
// as they are and never translated.

export const tools = {
  /** A tool ZCode did not name. */
  tool: "Tool",
  /** A subagent's child session that ZCode gave no description or type. */
  subagent: "Subagent",
  runCommand: "Run command",
  readFile: "Read file",
  /** Read, with the 1-based line range when the call has one. */
  read: (path: string, from?: number, to?: number) =>
    `Read ${path}${to !== undefined ? ` (lines ${from}–${to})` : from !== undefined ? ` (from line ${from})` : ""}`,
  editFile: "Edit file",
  edit: (path: string) => `Edit ${path}`,
  writeFile: "Write file",
  write: (path: string) => `Write ${path}`,
  /** Grep; `pattern` is quoted as typed, `where` is a path, `glob` a file filter. */
  grep: (pattern: string, where?: string, glob?: string) => `grep "${pattern}"${where ? ` in ${where}` : ""}${glob ? ` (${glob})` : ""}`,
  /** Glob. */
  find: (pattern: string, where?: string, glob?: string) => `Find "${pattern}"${where ? ` in ${where}` : ""}${glob ? ` (${glob})` : ""}`,
  fetch: (url: string) => `Fetch ${url}`,
  fetchNoUrl: "Fetch",
  webSearch: (query: string) => `Search the web for "${query}"`,
  webSearchNoQuery: "Search the web",
  /** A subagent of a named type (the type is ZCode's id). */
  runAgent: (type: string) => `Run ${type} agent`,
  runSubagent: "Run subagent",
  /** ExitPlanMode, and the permission prompt that approves a plan. */
  readyToCode: "Ready to code?",
  planApproved: "Plan approved.",
  planNotApproved: "Plan not approved.",
  /** EnterPlanMode. */
  planFirst: "Plan first",
  updatePlan: "Update plan",
  readPlan: "Read plan",
  askUser: "Ask the user",
  /** AskUserQuestion; `what` is the questions' headers as ZCode wrote them. */
  ask: (what: string) => `Ask: ${what}`,

  /** A finished command that printed nothing. */
  noOutput: "(no output)",
  exitCode: (code: number) => `exit code ${code}`,
  /** Under a text cut short. */
  moreCharacters: (count: number) => `… (${count} more characters not shown)`,
  /** The last item of a list cut short. */
  moreItems: (count: number) => `… and ${count} more`,
  resultsTruncated: "… (results truncated)",
  /** Header of a list of paths, when ZCode gave none. */
  foundFiles: (count: number) => `Found ${count} file${count === 1 ? "" : "s"}`,

  /** Why a tool failed, when ZCode said nothing more. */
  failed: "Tool failed",
  /** The user denied the tool's permission. */
  rejected: "Denied",
  /** Denied by ZCode's rules; `reason` is ZCode's. */
  denied: (reason: string) => `Denied: ${reason}`,
  cancelled: "Cancelled",
  turnEnded: "The turn ended before this tool finished",
  turnFailed: "The turn failed",
  didNotRun: "The tool did not run",
};
