// The SQL the bridge runs against the ZCode app's task index,
// ~/.zcode/v2/tasks-index.sqlite, so that sessions created in an editor show
// up in the app's history and search.
//
// What the app's public source says (paths are in ZCode's repository; read
// at jimpablo/ZCode@aac4755, xiyewuqiu/ZCode@183c5f3, yeyuan98/ZCode@8c5b8a6):
//
// * Location and ownership. packages/services/src/paths.ts
//   getTasksIndexDatabasePath() = <app config dir>/tasks-index.sqlite, i.e.
//   ~/.zcode/v2/. The app (not the CLI) creates and migrates it; we only
//   write to a file that already exists and never touch its schema.
// * Layout. packages/services/src/session/tasksDatabase/schema-v1.ts
//   (TASK_INDEX_SCHEMA) + migrations.ts (0001 adds searchable_text,
//   cron_automation_id, off_peak_task_id, and title_overridden/last_unread_at
//   to old tables) + task-storage-purge-v4.ts (0004: a purge tombstone whose
//   triggers silently drop inserts of a purged task). Primary key
//   (workspace_key, task_id). The verbatim DDL is in
//   test/fixtures/zcode-app/tasks-index.sql.
// * Connection. taskIndexRepo.ts initialize(): node:sqlite, busy_timeout
//   5000, journal_mode WAL, synchronous NORMAL, foreign_keys ON; several app
//   windows share the file. We never change journal mode or pragmas that
//   persist, only our own connection's busy_timeout.
// * Reading a task. taskIndexRepo.ts rowToMeta(): meta_json is parsed and
//   validated with zcodeTaskMetaSchema (@zcode/shared validation.ts) and wins
//   over the columns (title included); only `titleOverridden`, `unreadAt`,
//   taskId, workspacePath and identity come from the columns. If meta_json
//   fails the schema the app logs a warning and falls back to the columns.
//   So both must be right. Schema: taskId, traceId, workspacePath non-empty;
//   title string; createdAt/updatedAt non-negative integers (ms since the
//   epoch: writeRecord stores Date.now() values); mode in zcodeTaskModeSchema
//   (yolo, plan, edit, auto, autoEdit, build in every version; newer ones add
//   readonly); provider = "glm" only (zcode-agent-policy.ts
//   zcodeAgentProviderSchema); status optional, running|completed|error;
//   model optional, the picker string providerId/modelId[$level].
// * Listing. zcodeTaskServiceAdapter.ts listTasks → taskIndexRepo.ts
//   listTaskMetas: WHERE workspace_key = ? AND deleted = 0 AND provider =
//   'glm' AND pinned = 0 AND archived = 0 ORDER BY updated_at DESC. Search
//   (queryTaskList): LOWER(title) LIKE ? OR LOWER(searchable_text) LIKE ?.
//   The sidebar reads only this table ("the full list query still only reads
//   sqlite"); live session details are joined in the renderer when present.
// * workspace_key. resolveWorkspaceKey() = workspaceIdentity?.trim() ||
//   workspacePath. The bridge creates ZCode sessions with workspacePath = cwd
//   and no identity, so workspace_key = workspace_path = cwd and
//   workspace_identity is NULL, as the app writes for a local folder.
// * Titles. A user rename goes through updateTaskState({title,
//   titleOverridden: true}), which sets the column title_overridden = 1 and
//   meta_json.title. The app's own agent-title path (applyAgentPatch) takes a
//   title only while title_overridden != 1 and never for deleted rows; we do
//   exactly the same.
// * A row whose session the app cannot find. The list shows the row anyway
//   (it comes from this table alone); opening it resumes the session through
//   the CLI, which answers session-not-found. The app's clean-up
//   (repairSubagentTaskIndex) only deletes rows it has confirmed to be
//   sub-agent children: "missing records ... cannot be inferred as
//   deletable". So a row must only be written for a session the CLI has
//   stored: after session/create succeeded (the CLI stores a session at
//   create unless asked for persistence "deferred", which the bridge never
//   asks for).
// * When the app later opens the session it rewrites the row from the CLI's
//   snapshot (syncTaskMeta), keeping title_overridden, pin, archive and
//   delete: our row is a seed the app refines, never a competing truth.

import type { Database } from "bun:sqlite";
import path from "node:path";
import { homeDir, type Env } from "../zcode/host.ts";
import { appTitle, SEARCH_TEXT_MAX_CHARS, searchText, type TaskRowValues } from "./task-row.ts";

export function tasksIndexPath(env: Env): string | undefined {
  const home = homeDir(env);
  return home ? path.join(home, ".zcode", "v2", "tasks-index.sqlite") : undefined;
}

/** Every column the bridge writes or filters on; without one of them we write nothing. */
export const REQUIRED_COLUMNS = [
  "workspace_key",
  "workspace_path",
  "workspace_identity",
  "task_id",
  "title",
  "task_status",
  "provider",
  "mode",
  "model",
  "created_at",
  "updated_at",
  "pinned",
  "archived",
  "deleted",
  "title_overridden",
  "searchable_text",
  "meta_json",
] as const;

interface ColumnInfo {
  name: string;
  notnull: number;
  dflt_value: string | null;
  pk: number;
}

/**
 * Why the table is not one we know how to write, or undefined when it is. A
 * column we do not write that is NOT NULL without a default would make every
 * insert fail: a newer layout, so we stay away rather than guess.
 */
export function layoutProblem(db: Database): string | undefined {
  const columns = db.query<ColumnInfo, []>("PRAGMA table_info(tasks)").all();
  if (columns.length === 0) return "no tasks table";
  const names = new Set(columns.map((c) => c.name));
  const missing = REQUIRED_COLUMNS.filter((c) => !names.has(c));
  if (missing.length) return `the tasks table has no ${missing.join(", ")}`;
  const written = new Set<string>(REQUIRED_COLUMNS);
  const unfillable = columns.filter((c) => !written.has(c.name) && c.notnull === 1 && c.dflt_value === null);
  if (unfillable.length) return `the tasks table needs ${unfillable.map((c) => c.name).join(", ")}, which the bridge does not know`;
  return undefined;
}

/**
 * A new row, unless the app already has one for this session (its own, or a
 * purge tombstone's trigger drops it): INSERT OR IGNORE never changes a row
 * that exists. Returns whether a row was added.
 */
export function insertTask(db: Database, row: TaskRowValues): boolean {
  const result = db
    .query(
      `INSERT OR IGNORE INTO tasks (
         workspace_key, workspace_path, workspace_identity, task_id, title, task_status,
         provider, mode, model, created_at, updated_at, pinned, archived, deleted,
         title_overridden, searchable_text, meta_json
       ) VALUES (
         $workspace_key, $workspace_path, NULL, $task_id, $title, NULL,
         $provider, $mode, $model, $created_at, $updated_at, 0, 0, 0,
         0, $searchable_text, $meta_json
       )`,
    )
    .run({
      $workspace_key: row.workspace_key,
      $workspace_path: row.workspace_path,
      $task_id: row.task_id,
      $title: row.title,
      $provider: row.provider,
      $mode: row.mode,
      $model: row.model,
      $created_at: row.created_at,
      $updated_at: row.updated_at,
      $searchable_text: row.searchable_text,
      $meta_json: row.meta_json,
    });
  return result.changes > 0;
}

/**
 * The agent's title for a session, as the app's applyAgentPatch would take it:
 * never over a title the user renamed (title_overridden = 1), never on a
 * deleted row, and not at all when it is already the title (so opening a
 * session in the editor does not move it to the top of the app's list).
 *
 * One statement, so the app cannot slip a rename in between a read and our
 * write. meta_json is patched in place with json_set (only title and
 * updatedAt; everything else the app keeps there stays), and left alone if
 * it is not valid JSON. searchable_text is replaced only while it holds
 * nothing or just the old title: once the app has indexed the conversation,
 * its text is richer than ours (a row written with a title longer than the
 * search text's cap holds that title cut, which counts as just the title).
 * The title is bounded (appTitle). updated_at never goes backwards.
 * Returns whether the row changed.
 */
export function updateTitle(db: Database, p: { workspaceKey: string; sessionId: string; title: string; now: number }): boolean {
  const title = appTitle(p.title);
  const result = db
    .query(
      `UPDATE tasks SET
         title = $title,
         updated_at = MAX(updated_at, $now),
         searchable_text = CASE
           WHEN searchable_text = '' OR searchable_text = title
             OR searchable_text = substr(title, 1, ${SEARCH_TEXT_MAX_CHARS}) THEN $search
           ELSE searchable_text END,
         meta_json = CASE
           WHEN json_valid(meta_json) THEN json_set(meta_json, '$.title', $title, '$.updatedAt', MAX(updated_at, $now))
           ELSE meta_json END
       WHERE workspace_key = $workspace_key AND task_id = $task_id
         AND title_overridden = 0 AND deleted = 0 AND title <> $title`,
    )
    .run({
      $title: title,
      $now: p.now,
      $search: searchText(title),
      $workspace_key: p.workspaceKey,
      $task_id: p.sessionId,
    });
  return result.changes > 0;
}

/**
 * The user deleted the session (ACP session/delete): its row is marked
 * deleted as the app marks one (deleted = 1; every list and search of the
 * app filters on deleted = 0), whoever wrote it. The row stays: the app's
 * own clean-up owns removing rows. Returns whether a row changed.
 */
export function markDeleted(db: Database, p: { sessionId: string; now: number }): boolean {
  const result = db
    .query(`UPDATE tasks SET deleted = 1, updated_at = MAX(updated_at, $now) WHERE task_id = $task_id AND deleted = 0`)
    .run({ $now: p.now, $task_id: p.sessionId });
  return result.changes > 0;
}

/** Rows per query of `deletedAmong` (SQLite's default bound on parameters is 999 on old builds). */
const IDS_PER_QUERY = 500;

/**
 * Which of `ids` the app marks deleted (its user deleted them there, or ACP
 * session/delete did): ZCode's own session/list still returns them.
 */
export function deletedAmong(db: Database, ids: readonly string[]): Set<string> {
  const out = new Set<string>();
  for (let i = 0; i < ids.length; i += IDS_PER_QUERY) {
    const chunk = ids.slice(i, i + IDS_PER_QUERY);
    const rows = db
      .query(`SELECT task_id FROM tasks WHERE deleted = 1 AND task_id IN (${chunk.map(() => "?").join(", ")})`)
      .all(...chunk) as { task_id: unknown }[];
    for (const r of rows) if (typeof r.task_id === "string") out.add(r.task_id);
  }
  return out;
}
