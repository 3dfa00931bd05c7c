// A temporary tasks-index.sqlite built from the app's real DDL
// (test/fixtures/zcode-app/tasks-index.sql), and the app's own reads of it,
// so the tests check rows the way the ZCode app will see them.

import { Database } from "bun:sqlite";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const FIXTURE = join(import.meta.dir, "../../fixtures/zcode-app/tasks-index.sql");

export interface TempDb {
  dir: string;
  file: string;
  /** A connection of our own, as the app would have one. */
  open(): Database;
  cleanup(): void;
}

/** The app's layout in a fresh file (WAL, as the app sets it). `ddl` replaces the real one. */
export function tempTasksIndex(ddl: string = readFileSync(FIXTURE, "utf8")): TempDb {
  const dir = mkdtempSync(join(tmpdir(), "zcode-acp-app-history-"));
  const file = join(dir, "tasks-index.sqlite");
  const db = new Database(file, { create: true, readwrite: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(ddl);
  db.close();
  const opened: Database[] = [];
  return {
    dir,
    file,
    open() {
      const d = new Database(file, { readwrite: true, create: false });
      opened.push(d);
      return d;
    },
    cleanup() {
      for (const d of opened) {
        try {
          d.close();
        } catch {}
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TaskRowRead {
  workspace_key: string;
  workspace_path: string;
  workspace_identity: string | null;
  task_id: string;
  title: string;
  task_status: string | null;
  provider: string | null;
  mode: string;
  model: string | null;
  created_at: number;
  updated_at: number;
  unread_at: number | null;
  last_unread_at: number;
  pinned: number;
  archived: number;
  deleted: number;
  title_overridden: number;
  searchable_text: string;
  meta_json: string;
}

export function row(db: Database, taskId: string): TaskRowRead | null {
  return db.query<TaskRowRead, [string]>("SELECT * FROM tasks WHERE task_id = ?").get(taskId);
}

/**
 * The app's sidebar list for a workspace: zcodeTaskServiceAdapter.ts listTasks
 * → taskIndexRepo.ts listTaskMetas({workspacePath, provider: "glm", pinned:
 * false, archived: false}).
 */
export function appList(db: Database, workspacePath: string): TaskRowRead[] {
  return db
    .query<TaskRowRead, [string]>(
      `SELECT * FROM tasks
       WHERE workspace_key = ? AND deleted = 0 AND provider = 'glm' AND pinned = 0 AND archived = 0
       ORDER BY updated_at DESC, created_at DESC, task_id DESC`,
    )
    .all(workspacePath);
}

/** The app's search (taskIndexRepo.ts queryTaskList): title or indexed text, case-insensitive. */
export function appSearch(db: Database, workspacePath: string, text: string): string[] {
  const like = `%${text.toLocaleLowerCase()}%`;
  return db
    .query<{ task_id: string }, [string, string, string]>(
      `SELECT task_id FROM tasks
       WHERE deleted = 0 AND workspace_key = ? AND provider = 'glm' AND pinned = 0 AND archived = 0
         AND (LOWER(title) LIKE ? OR LOWER(searchable_text) LIKE ?)`,
    )
    .all(workspacePath, like, like)
    .map((r) => r.task_id);
}

/**
 * Why the app would reject this meta_json (and fall back to the bare columns
 * with a warning), or [] when it accepts it. The rules of zcodeTaskMetaSchema
 * (@zcode/shared validation.ts) for the fields a fresh task has; mode is the
 * set every published zcodeTaskModeSchema accepts, provider the app's only
 * one (zcodeAgentProviderSchema), model the picker string the app parses
 * back on resume (parseModelPickerValue needs `provider/model`).
 */
export function appMetaProblems(metaJson: string): string[] {
  let m: Record<string, unknown>;
  try {
    m = JSON.parse(metaJson) as Record<string, unknown>;
  } catch {
    return ["not JSON"];
  }
  const problems: string[] = [];
  const nonEmpty = (k: string) => {
    if (typeof m[k] !== "string" || !(m[k] as string).trim()) problems.push(`${k} must be a non-empty string`);
  };
  const ms = (k: string) => {
    if (typeof m[k] !== "number" || !Number.isInteger(m[k]) || (m[k] as number) < 0) problems.push(`${k} must be a non-negative integer`);
  };
  nonEmpty("taskId");
  nonEmpty("traceId");
  nonEmpty("workspacePath");
  if (typeof m.title !== "string") problems.push("title must be a string");
  if (m.titleOverridden !== undefined && typeof m.titleOverridden !== "boolean") problems.push("titleOverridden must be boolean");
  ms("createdAt");
  ms("updatedAt");
  if (!["yolo", "plan", "edit", "auto", "autoEdit", "build"].includes(m.mode as string))
    problems.push(`mode ${String(m.mode)} is not an app mode`);
  if (m.provider !== undefined && m.provider !== "glm") problems.push("provider must be glm");
  if (m.model !== undefined && (typeof m.model !== "string" || !/^[^/]+\/.+/.test(m.model))) problems.push("model must be provider/model");
  if (m.status !== undefined && !["running", "completed", "error"].includes(m.status as string)) problems.push("bad status");
  return problems;
}

/** A rename in the app (taskIndexRepo.ts updateTaskState with {title, titleOverridden: true}). */
export function renameInApp(db: Database, workspaceKey: string, taskId: string, title: string, now: number): void {
  const r = row(db, taskId)!;
  const meta = { ...JSON.parse(r.meta_json), title, titleOverridden: true, updatedAt: now };
  db.query(
    `UPDATE tasks SET title = ?, title_overridden = 1, updated_at = ?, meta_json = ?
     WHERE workspace_key = ? AND task_id = ?`,
  ).run(title, now, JSON.stringify(meta), workspaceKey, taskId);
}

/** A logger that keeps what it was told. */
export function memoryLogger() {
  const lines: { level: "warn" | "debug"; text: string }[] = [];
  const fmt = (args: unknown[]) => args.map((a) => (a instanceof Error ? a.message : String(a))).join(" ");
  return {
    lines,
    warns: () => lines.filter((l) => l.level === "warn").map((l) => l.text),
    logger: {
      warn: (...args: unknown[]) => void lines.push({ level: "warn", text: fmt(args) }),
      debug: (...args: unknown[]) => void lines.push({ level: "debug", text: fmt(args) }),
    },
  };
}
