import { t } from "../../i18n/index.ts";
import type { ToolResult } from "../../zcode/event-schemas.ts";
import { EXIT_LINE, num, obj, str, type Input } from "./format.ts";

// What a finished tool came to, read the same way from a live `tool.updated`
// result and from a tool part of a history message, so that a replayed
// session shows what the live one showed. Commands (the tools whose output
// streams, per the tool table) also get an exit code and ZCode's own verdict;
// the caller says which tools those are, so this reader needs no tool table.

/**
 * A finished tool, from a live result or a history part. ZCode reports a
 * command that exited non-zero as a success whose text starts with
 * `Exit code N`; for a person that is a failed command.
 */
export interface ToolOutcome {
  /** ZCode's text for the result: command output, file text, a match list, a status line. */
  text?: string;
  /** ZCode's richer view of the result (`file_diff`, `bash_output`), or {}. */
  display: Input;
  /** A command's exit code, when known. */
  exitCode?: number;
  failed: boolean;
  /** Why it failed, when it did. */
  error?: string;
}

const FAILED_COMMAND_STATUS = new Set(["timed_out", "spawn_error"]);

function exitLine(text: string | undefined): number | undefined {
  const m = text ? EXIT_LINE.exec(text) : null;
  return m ? Number(m[1]) : undefined;
}

function commandOutcome(text: string | undefined, exitCode: number | undefined, status: string | undefined) {
  const reported = exitLine(text);
  const code = exitCode ?? reported;
  // ZCode writes the `Exit code N` line exactly when it judged the command failed
  // (a grep that found nothing exits 1 without it).
  const failed = (reported !== undefined && reported !== 0) || (status !== undefined && FAILED_COMMAND_STATUS.has(status));
  return { exitCode: code, failed };
}

/** A live `tool.updated` result. */
export function outcomeOfResult(command: boolean, result: ToolResult | undefined): ToolOutcome {
  const r = result ?? {};
  const text = typeof r.content === "string" ? r.content : undefined;
  const display = obj(r.display);
  const out: ToolOutcome = { text, display, failed: r.success === false };
  if (command) {
    const perf = obj(r.perf);
    const cmd = obj(obj(perf.detail).command);
    const c = commandOutcome(text, num(cmd, "exitCode") ?? num(perf, "exitCode"), str(cmd, "status"));
    out.exitCode = c.exitCode;
    out.failed ||= c.failed;
  }
  if (out.failed) {
    const why = r.error?.message ?? text;
    out.error = why === undefined ? undefined : denialOr(why);
  }
  return out;
}

/** A tool part of a history message (`state.output` is the same text as a live result's content). */
export function outcomeOfPart(
  command: boolean,
  state: { status: string; output?: string; error?: string; metadata?: { display?: unknown } },
): ToolOutcome {
  // A denied tool is stored with ZCode's words to the model as its error.
  if (state.status === "error") return { display: {}, failed: true, error: state.error ? denialOr(state.error) : t().tools.failed };
  const text = state.output;
  const out: ToolOutcome = { text, display: obj(state.metadata?.display), failed: false };
  if (command) {
    const c = commandOutcome(text, undefined, undefined);
    out.exitCode = c.exitCode;
    out.failed = c.failed;
  }
  return out;
}

/**
 * A command's output without ZCode's `Exit code N` line and no-output
 * placeholder (the code is shown apart); `bash_output` display preferred.
 */
export function commandText(o: ToolOutcome): string {
  const full = o.display.kind === "bash_output" && typeof o.display.output === "string" ? o.display.output : (o.text ?? "");
  const body = full.replace(EXIT_LINE, "");
  return /^\(\w+ completed with no output\)$/.test(body.trim()) ? "" : body;
}

/** How ZCode's text for a tool the user denied begins. */
const DENIED_BY_USER = "The user doesn't want to proceed";
const USER_SAID = /To tell you how to proceed, the user said:\s*([\s\S]*)$/;

/**
 * rawOutput (and text) of a tool the user denied: "Denied", plus what the
 * user wrote when ZCode passes it on. ZCode's reason is addressed to the
 * model ("… STOP what you are doing …"); only the user's own words are kept.
 * A reason that is not that text (one of ZCode's rules) is shown as it is.
 */
export function denialText(reason: string | undefined): string {
  if (!reason) return t().tools.rejected;
  if (reason.startsWith(DENIED_BY_USER)) {
    const said = USER_SAID.exec(reason)?.[1]?.trim();
    return said ? t().tools.denied(said) : t().tools.rejected;
  }
  return t().tools.denied(reason);
}

/** ZCode's error text for a tool, or the denial it stands for. */
export function denialOr(error: string): string {
  return error.startsWith(DENIED_BY_USER) ? denialText(error) : error;
}
