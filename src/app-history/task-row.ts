// What a session created through the bridge looks like as a row of the ZCode
// app's `tasks` table, in the values the app itself would write for a fresh
// session (zcodeTaskServiceAdapter.ts snapshotToMeta → taskIndexRepo.ts
// writeRecord). Pure: no database here; the SQL is in tasks-index.ts, which
// also lists the sources these rules come from.

/** ZCode's model selection, as session/create and session/read report it. */
export interface ModelRef {
  providerId: string;
  modelId: string;
  options?: { reasoningLevel?: string | undefined } | undefined;
}

export interface SessionCreatedInfo {
  sessionId: string;
  /** The workspacePath the session was created with (the ACP cwd), unchanged. */
  cwd: string;
  /** ZCode's title at creation; usually empty until the first turn. */
  title?: string | undefined;
  /** ZCode's mode id (plan, build, edit, yolo, guarded, auto, …). */
  mode?: string | undefined;
  model?: ModelRef | undefined;
  /** Milliseconds since the epoch; defaults to now. */
  createdAt?: number | undefined;
}

/** The one provider the app lists for ZCode Agent tasks (ZCODE_AGENT_PROVIDER). */
export const APP_PROVIDER = "glm";

/**
 * Modes every published version of the app's zcodeTaskModeSchema accepts. A
 * meta_json whose mode fails that schema is thrown away by the app's reader
 * (it falls back to the bare columns and logs a warning), so anything else
 * (e.g. the CLI's `guarded`) is written as `build`, the app's own fallback
 * for a mode it does not know (normalizeAvailableZCodeMode) and the column's
 * default.
 */
const APP_MODES = new Set(["build", "plan", "edit", "yolo", "auto", "autoEdit"]);

export function appMode(mode: string | undefined): string {
  return mode && APP_MODES.has(mode) ? mode : "build";
}

/**
 * The app's picker string `providerId/modelId[$reasoningLevel]`
 * (formatModelPickerValue). The app parses it back when it resumes the task
 * and rejects a value without a provider, so a model we cannot name fully is
 * left out rather than written half.
 */
export function modelPickerValue(model: ModelRef | undefined): string | undefined {
  const provider = model?.providerId?.trim();
  const id = model?.modelId?.trim();
  if (!provider || !id) return undefined;
  const level = model?.options?.reasoningLevel?.trim();
  return level ? `${provider}/${id}$${level}` : `${provider}/${id}`;
}

/** The app caps what it indexes for search (TASK_SEARCH_TEXT_MAX_CHARS). */
export const SEARCH_TEXT_MAX_CHARS = 200_000;

export function searchText(title: string): string {
  return title.slice(0, SEARCH_TEXT_MAX_CHARS);
}

/**
 * Longest title written to the app's row, in characters (code points). A
 * title is a line in a list; and a title cut for the search text would no
 * longer equal it, so the next title would leave that text stale (the row's
 * search text is only replaced while it is the title; see updateTitle).
 */
export const TITLE_MAX_CHARS = 500;

/** The title as the app's row gets it: trimmed, at most TITLE_MAX_CHARS code points (cut ones end in `…`). */
export function appTitle(title: unknown): string {
  const t = typeof title === "string" ? title.trim() : "";
  // Only a long string needs counting by code point (a surrogate pair is one character).
  if (t.length <= TITLE_MAX_CHARS) return t;
  const chars = Array.from(t.slice(0, TITLE_MAX_CHARS * 2));
  if (chars.length <= TITLE_MAX_CHARS) return t;
  return `${chars
    .slice(0, TITLE_MAX_CHARS - 1)
    .join("")
    .trimEnd()}…`;
}

/** Column values of a new row, named as the table's columns. */
export interface TaskRowValues {
  workspace_key: string;
  workspace_path: string;
  task_id: string;
  title: string;
  mode: string;
  model: string | null;
  provider: string;
  created_at: number;
  updated_at: number;
  searchable_text: string;
  meta_json: string;
}

/**
 * The row for a session, or undefined when the info cannot make a row the app
 * would accept (its schema wants non-empty ids and paths).
 */
export function taskRow(info: SessionCreatedInfo, now: number): TaskRowValues | undefined {
  const sessionId = typeof info.sessionId === "string" ? info.sessionId.trim() : "";
  const cwd = typeof info.cwd === "string" ? info.cwd : "";
  if (!sessionId || !cwd.trim()) return undefined;
  const title = appTitle(info.title);
  const createdAt =
    typeof info.createdAt === "number" && Number.isSafeInteger(info.createdAt) && info.createdAt >= 0 ? info.createdAt : now;
  const mode = appMode(info.mode);
  const model = modelPickerValue(info.model);
  // The app reads meta_json first and validates it (zcodeTaskMetaSchema); the
  // columns are only its fallback. So meta_json must be complete and valid:
  // non-empty taskId/traceId/workspacePath, integer ms timestamps, a known
  // mode, provider "glm". `status` is left out as the app leaves it out for a
  // session that has not run a turn yet (deriveZCodeTaskStatusFromSessionSnapshot
  // gives undefined for an idle session), and `traceId` is the app's own
  // fallback for a task it knows no trace of (rowToMeta: `zcode-${task_id}`).
  const meta = {
    taskId: sessionId,
    traceId: `zcode-${sessionId}`,
    title,
    titleOverridden: false,
    workspacePath: cwd,
    createdAt,
    updatedAt: createdAt,
    mode,
    ...(model ? { model } : {}),
    provider: APP_PROVIDER,
  };
  return {
    // A local workspace's key is its path (resolveWorkspaceKey: identity || path);
    // the bridge never sends ZCode a workspaceIdentity.
    workspace_key: cwd,
    workspace_path: cwd,
    task_id: sessionId,
    title,
    mode,
    model: model ?? null,
    provider: APP_PROVIDER,
    created_at: createdAt,
    updated_at: createdAt,
    searchable_text: searchText(title),
    meta_json: JSON.stringify(meta),
  };
}
