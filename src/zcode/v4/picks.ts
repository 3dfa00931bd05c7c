import * as v from "valibot";
import type { Pick, Targeting } from "./channel.ts";
import { targetOf } from "./channel.ts";
import { EditResultSchema, FileRewindResultSchema, type FileEntry, type Row } from "./schemas.ts";

// Which row each bridge operation targets (ZCODE-V4.md §3, §5), and what the
// ACK's result says happened. Pure: the rows are ZCode's projection, read
// just before the command; `actions` are what ZCode offers on each row now.

function latest(rows: readonly Row[], ok: (r: Row) => boolean): Row | undefined {
  let best: Row | undefined;
  for (const r of rows) if (ok(r) && (!best || r.rowId > best.rowId)) best = r;
  return best;
}

/** The last turn's header, if ZCode offers to rewind its files (undefined: the last turn changed none, or they are rewound). */
export function pickFileRewind(rows: readonly Row[]): Pick {
  const header = latest(rows, (r) => r.kind === "turnHeader");
  const target = header?.actions?.canRewindFiles ? targetOf(header) : undefined;
  return target ? { type: "applyFileRewind", target } : undefined;
}

/** /rewind: the last turn's header must be among the rows read. */
export const fileRewindTarget: Targeting = {
  pick: pickFileRewind,
  enough: (rows) => rows.some((r) => r.kind === "turnHeader"),
};

const editable = (r: Row) => r.kind === "userInput" && r.actions?.canEdit === true;
const headerOf = (rows: readonly Row[], turnId: string | undefined) =>
  turnId === undefined ? undefined : latest(rows, (r) => r.kind === "turnHeader" && r.turnId === turnId);

/**
 * The latest user message ZCode lets the user edit, rewritten as `newText`.
 * Its turn's files are restored too ("rewind") only when that turn has
 * changes to restore: ZCode blocks a rewind of a turn without any
 * (fork-edit-retry.ts editUserQuery: `guard.workspaceRewindUnavailable` when
 * the preview has no safe file), so such a turn is edited with "preserve".
 */
export function pickEdit(rows: readonly Row[], newText: string): Pick {
  const row = latest(rows, editable);
  const target = row ? targetOf(row) : undefined;
  if (!target) return undefined;
  const workspaceMode = headerOf(rows, row?.turnId)?.fileChanges?.state === "active" ? "rewind" : "preserve";
  return { type: "editUserQuery", target, payload: { newText, workspaceMode } };
}

/** /rewind <new prompt>: the prompt ZCode lets the user edit, and its turn's header (whether it changed files). */
export function editTarget(newText: string): Targeting {
  return {
    pick: (rows) => pickEdit(rows, newText),
    enough: (rows) => {
      const prompt = latest(rows, editable);
      return prompt !== undefined && headerOf(rows, prompt.turnId) !== undefined;
    },
  };
}

/**
 * A retry of the failed turn `turnId`: `retryTurn` on its own reply when
 * ZCode offers it there; a turn that failed before any complete reply has
 * none (the flag may sit on the previous turn's reply: never used), so its
 * own prompt is edited to the same text instead (§5.4). Either way ZCode's
 * history keeps one copy of the prompt.
 */
export function pickRetry(rows: readonly Row[], turnId: string): Pick {
  const mine = (r: Row) => r.turnId === turnId;
  const reply = latest(rows, (r) => r.kind === "assistantText" && r.actions?.canRetry === true && mine(r));
  const replyTarget = reply ? targetOf(reply) : undefined;
  if (replyTarget) return { type: "retryTurn", target: replyTarget };
  const prompt = latest(rows, (r) => editable(r) && mine(r));
  const promptTarget = prompt ? targetOf(prompt) : undefined;
  if (promptTarget && prompt?.text !== undefined) return { type: "editUserQuery", target: promptTarget, payload: { newText: prompt.text } };
  return undefined;
}

/** A retry: the turn's own prompt must be among the rows read (unless its reply already offers the retry). */
export function retryTarget(turnId: string): Targeting {
  return {
    pick: (rows) => pickRetry(rows, turnId),
    enough: (rows) => pickRetry(rows, turnId) !== undefined || rows.some((r) => r.kind === "userInput" && r.turnId === turnId),
  };
}

export type FileRewindOutcome =
  | { kind: "applied"; files: FileEntry[] }
  | { kind: "unsafe"; files: FileEntry[]; ignored: FileEntry[] }
  | { kind: "nothing" };

export function fileRewindOutcome(result: unknown): FileRewindOutcome {
  const r = v.safeParse(FileRewindResultSchema, result);
  if (!r.success) return { kind: "nothing" };
  const preview = r.output.preview;
  if (r.output.applied) return { kind: "applied", files: preview?.safeFiles ?? [] };
  return { kind: "unsafe", files: preview?.unsafeFiles ?? [], ignored: preview?.ignoredFiles ?? [] };
}

export type EditOutcome =
  | { kind: "rerun"; commandId: string; workspaceMode: "preserve" | "rewind" }
  | { kind: "blocked"; reasonCode?: string; files: FileEntry[]; ignored: FileEntry[] }
  | { kind: "nothing" };

export function editOutcome(result: unknown, commandId: string, workspaceMode: "preserve" | "rewind"): EditOutcome {
  const r = v.safeParse(EditResultSchema, result);
  if (r.success && r.output.disposition === "blocked") {
    return {
      kind: "blocked",
      reasonCode: r.output.reasonCode,
      files: r.output.preview?.unsafeFiles ?? [],
      ignored: r.output.preview?.ignoredFiles ?? [],
    };
  }
  return { kind: "rerun", commandId, workspaceMode };
}
