// The shapes ZCodeApi's callers pass and get back (params and outcomes),
// apart from the API itself; re-exported by api.ts.
import type { RewindResult } from "./result-schemas.ts";
import type { Workspace } from "./schemas.ts";
import type { FileRewindOutcome } from "./v4/picks.ts";

/** An MCP server as session/create and session/resume take it (ZCode's schema is strict: nothing else). */
export type ZCodeMcpServer =
  | { name: string; command: string; args: string[]; env: Array<{ name: string; value: string }> }
  | { name: string; type: "http" | "sse"; url: string; headers: Array<{ name: string; value: string }> };

/** A point of the history to fork or rewind at. */
export type HistoryTarget = { kind: "latestCheckpoint" } | { kind: "checkpoint"; checkpointId: string };

export type GoalAction = "show" | "set" | "replace" | "clear" | "pause" | "resume";

/** What a file or image of a prompt is on the wire (`session/send.attachments`). */
export interface ZCodeAttachment {
  kind: "image" | "pdf" | "file";
  filename: string;
  mimeType: string;
  sizeBytes: number;
  dataBase64?: string;
  localPath?: string;
}

/** `session/setModel`'s model: a level-bearing model needs `options.reasoningLevel`. */
export interface ModelChoice {
  providerId: string;
  modelId: string;
  options?: { reasoningLevel: string };
}

/**
 * What `workspace` is on the wire. Callers may pass the absolute cwd (sent as
 * the same path twice) or a workspace object.
 */
export type WorkspaceArg = string | Workspace;

/** Exactly the two keys ZCode's strict schema requires, whatever the argument carried. */
export function workspaceOf(w: WorkspaceArg): { workspacePath: string; workspaceKey: string } {
  if (typeof w === "string") return { workspacePath: w, workspaceKey: w };
  return { workspacePath: w.workspacePath, workspaceKey: w.workspaceKey ?? w.workspacePath };
}

/** How /rewind went: v4 undoes the files of the last turn; a 0.15 CLI rewinds the conversation to its last checkpoint. */
export type RewindOutcome = FileRewindOutcome | { kind: "conversation"; result: RewindResult };

/** How a steer went in: into the running turn (v4 reports a guide's admission as "queue"), or as a new turn when none ran any more. */
export type SteerOutcome = { delivery: "guide" | "startNow"; inputId?: string };
