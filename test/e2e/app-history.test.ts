// Sessions started in the editor appear in the ZCode app's history: the
// compiled bridge writes into a tasks-index.sqlite with the app's real layout
// under the HOME it runs with, after session/create and once ZCode titles
// the session; --no-app-history writes nothing.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, withBridge } from "../support/acp-harness.ts";

/** A state dir whose HOME (the harness puts it at <dir>/home) holds the app's empty task index. */
function withAppDatabase(): { dir: string; file: string } {
  const dir = mkdtempSync(join(tmpdir(), "zcode-app-history-e2e-"));
  const v2 = join(dir, "home/.zcode/v2");
  mkdirSync(v2, { recursive: true });
  const file = join(v2, "tasks-index.sqlite");
  const db = new Database(file, { create: true, readwrite: true });
  db.exec("PRAGMA journal_mode = WAL");
  db.exec(readFileSync(join(ROOT, "test/fixtures/zcode-app/tasks-index.sql"), "utf8"));
  db.close();
  return { dir, file };
}

function rows(file: string): Array<{ task_id: string; workspace_path: string; title: string; provider: string; deleted: number }> {
  const db = new Database(file, { readonly: true });
  try {
    return db.query("SELECT task_id, workspace_path, title, provider, deleted FROM tasks").all() as never;
  } finally {
    db.close();
  }
}

test("a session started in the editor is in the app's history, titled once ZCode titles it", async () => {
  const { dir, file } = withAppDatabase();
  try {
    await withBridge({ stateDir: dir, args: [] }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.waitFor(() => rows(file).some((r) => r.task_id === sessionId), "the row");
      expect(rows(file)).toEqual([{ task_id: sessionId, workspace_path: h.stateDir, title: "", provider: "glm", deleted: 0 }]);
      await h.prompt(sessionId, "Fix the login page");
      await h.waitFor(() => rows(file)[0]?.title !== "", "the title");
      expect(rows(file)[0]!.title).toBe(h.updatesOfKind(sessionId, "session_info_update").at(-1)!.title!);
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("--no-app-history: nothing is written", async () => {
  const { dir, file } = withAppDatabase();
  try {
    await withBridge({ stateDir: dir, args: ["--no-app-history"] }, async (h) => {
      const { sessionId } = await h.newSession();
      await h.prompt(sessionId, "Fix the login page");
      // The title is what the app's history would have been told last; the bridge then exits.
      await h.waitFor(() => h.updatesOfKind(sessionId, "session_info_update").some((u) => !!u.title), "the title");
    });
    expect(rows(file)).toEqual([]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
