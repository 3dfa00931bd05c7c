// AppHistory against a real SQLite file with the ZCode app's layout
// (test/fixtures/zcode-app/tasks-index.sql), read back the way the app reads it.

import { Database } from "bun:sqlite";
import { afterEach, describe, expect, jest, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { AppHistory, type AppHistoryOptions } from "../../../src/app-history/app-history.ts";
import { appList, appMetaProblems, appSearch, memoryLogger, renameInApp, row, tempTasksIndex, type TempDb } from "./app-db.ts";

const CWD = "/home/you/project";
const T0 = 1_760_000_000_000;

let dbs: TempDb[] = [];
let histories: AppHistory[] = [];
afterEach(() => {
  for (const h of histories) h.close();
  for (const d of dbs) d.cleanup();
  dbs = [];
  histories = [];
});

function setup(opts: Partial<AppHistoryOptions> & { ddl?: string } = {}) {
  const db = tempTasksIndex(opts.ddl);
  dbs.push(db);
  const mem = memoryLogger();
  let now = T0;
  const history = AppHistory.open({}, { enabled: true, file: db.file, logger: mem.logger, now: () => now, ...opts });
  histories.push(history);
  return { db, history, mem, setNow: (t: number) => void (now = t), app: db.open() };
}

describe("recording a new session", () => {
  test("a new session appears in the app's list with the row the app needs", async () => {
    const { history, app, mem } = setup();
    await history.sessionCreated({
      sessionId: "sess_new1",
      cwd: CWD,
      title: "",
      mode: "yolo",
      model: { providerId: "zai", modelId: "GLM-5.2", options: { reasoningLevel: "high" } },
    });
    const r = row(app, "sess_new1");
    expect(r).toMatchObject({
      workspace_key: CWD,
      workspace_path: CWD,
      workspace_identity: null,
      task_id: "sess_new1",
      title: "",
      task_status: null,
      provider: "glm",
      mode: "yolo",
      model: "zai/GLM-5.2$high",
      created_at: T0,
      updated_at: T0,
      unread_at: null,
      last_unread_at: 0,
      pinned: 0,
      archived: 0,
      deleted: 0,
      title_overridden: 0,
      searchable_text: "",
    });
    expect(appMetaProblems(r!.meta_json)).toEqual([]);
    expect(JSON.parse(r!.meta_json)).toEqual({
      taskId: "sess_new1",
      traceId: "zcode-sess_new1",
      title: "",
      titleOverridden: false,
      workspacePath: CWD,
      createdAt: T0,
      updatedAt: T0,
      mode: "yolo",
      model: "zai/GLM-5.2$high",
      provider: "glm",
    });
    expect(appList(app, CWD).map((t) => t.task_id)).toEqual(["sess_new1"]);
    expect(mem.warns()).toEqual([]);
  });

  test("a mode the app does not know is written as build, and no model is written without its provider", async () => {
    const { history, app } = setup();
    await history.sessionCreated({ sessionId: "sess_g", cwd: CWD, mode: "guarded" });
    const r = row(app, "sess_g")!;
    expect(r.mode).toBe("build");
    expect(r.model).toBeNull();
    expect(appMetaProblems(r.meta_json)).toEqual([]);
    expect(JSON.parse(r.meta_json).model).toBeUndefined();
  });

  test("told twice about a session, the bridge still titles its own row", async () => {
    const { history, app } = setup();
    await history.sessionCreated({ sessionId: "sess_twice", cwd: CWD });
    await history.sessionCreated({ sessionId: "sess_twice", cwd: CWD, title: "ignored" });
    await history.titleKnown("sess_twice", "Named");
    expect(row(app, "sess_twice")!.title).toBe("Named");
    expect(app.query("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 1 });
  });

  test("a row the app already has for the session is left exactly as it is", async () => {
    const { history, app } = setup();
    app
      .query(
        `INSERT INTO tasks (workspace_key, workspace_path, task_id, title, provider, mode, created_at, updated_at, pinned, meta_json)
         VALUES (?, ?, 'sess_app', 'The app''s own', 'glm', 'plan', 5, 6, 1, '{"taskId":"sess_app"}')`,
      )
      .run(CWD, CWD);
    const before = row(app, "sess_app");
    await history.sessionCreated({ sessionId: "sess_app", cwd: CWD, title: "ours" });
    await history.titleKnown("sess_app", "a title from the agent");
    expect(row(app, "sess_app")).toEqual(before);
  });

  test("a session the user purged in the app is not brought back", async () => {
    const { history, app } = setup();
    app.query("INSERT INTO task_storage_purge (workspace_key, task_id) VALUES (?, 'sess_purged')").run(CWD);
    await history.sessionCreated({ sessionId: "sess_purged", cwd: CWD });
    await history.titleKnown("sess_purged", "title");
    expect(row(app, "sess_purged")).toBeNull();
  });
});

describe("deleting a session (ACP session/delete)", () => {
  test("its row leaves the app's list and search: deleted = 1, as the app marks one; the rest of the row stays", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_del", cwd: CWD, title: "to delete" });
    await history.sessionCreated({ sessionId: "sess_keep", cwd: CWD, title: "to keep" });
    const before = row(app, "sess_del")!;
    setNow(T0 + 5000);
    await history.sessionDeleted("sess_del");
    expect(appList(app, CWD).map((r) => r.task_id)).toEqual(["sess_keep"]);
    expect(row(app, "sess_del")).toEqual({ ...before, deleted: 1, updated_at: T0 + 5000 });
    // A later title for it changes nothing (the app never titles a deleted row either).
    await history.titleKnown("sess_del", "late title");
    expect(row(app, "sess_del")!.title).toBe(before.title);
  });

  test("the app's own row is marked too; a purged one stays purged; an unknown id changes nothing", async () => {
    const { history, app } = setup();
    app
      .query(
        `INSERT INTO tasks (workspace_key, workspace_path, task_id, title, provider, mode, created_at, updated_at, meta_json)
         VALUES (?, ?, 'sess_app', 'The app''s own', 'glm', 'plan', 5, 6, '{"taskId":"sess_app"}')`,
      )
      .run(CWD, CWD);
    app.query("INSERT INTO task_storage_purge (workspace_key, task_id) VALUES (?, 'sess_purged')").run(CWD);
    await history.sessionDeleted("sess_app");
    await history.sessionDeleted("sess_purged");
    await history.sessionDeleted("sess_nobody");
    expect(row(app, "sess_app")!.deleted).toBe(1);
    expect(row(app, "sess_purged")).toBeNull();
    expect(row(app, "sess_nobody")).toBeNull();
  });
});

describe("titles", () => {
  test("the title is written once known, in the column, meta_json and the search text", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_t", cwd: CWD });
    setNow(T0 + 5_000);
    await history.titleKnown("sess_t", "  Fix the flaky login test  ");
    const r = row(app, "sess_t")!;
    expect(r.title).toBe("Fix the flaky login test");
    expect(r.searchable_text).toBe("Fix the flaky login test");
    expect(r.updated_at).toBe(T0 + 5_000);
    expect(r.title_overridden).toBe(0);
    const meta = JSON.parse(r.meta_json);
    expect(meta.title).toBe("Fix the flaky login test");
    expect(meta.updatedAt).toBe(T0 + 5_000);
    expect(meta.createdAt).toBe(T0);
    expect(appMetaProblems(r.meta_json)).toEqual([]);
    expect(appSearch(app, CWD, "flaky LOGIN")).toEqual(["sess_t"]);
  });

  test("a newer title replaces ours while the user has not renamed it", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_t2", cwd: CWD, title: "first" });
    setNow(T0 + 1_000);
    await history.titleKnown("sess_t2", "second");
    setNow(T0 + 2_000);
    await history.titleKnown("sess_t2", "third");
    const r = row(app, "sess_t2")!;
    expect(r.title).toBe("third");
    expect(JSON.parse(r.meta_json).title).toBe("third");
    expect(r.searchable_text).toBe("third");
    expect(r.updated_at).toBe(T0 + 2_000);
  });

  test("after a title over 200,000 characters, the next title still becomes the search text", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_huge", cwd: CWD });
    setNow(T0 + 1_000);
    await history.titleKnown("sess_huge", "y".repeat(200_001));
    let r = row(app, "sess_huge")!;
    expect(r.title.length).toBeLessThanOrEqual(500);
    expect(r.searchable_text).toBe(r.title);
    setNow(T0 + 2_000);
    await history.titleKnown("sess_huge", "Short title");
    r = row(app, "sess_huge")!;
    expect(r.title).toBe("Short title");
    expect(r.searchable_text).toBe("Short title");
    expect(appSearch(app, CWD, "short title")).toEqual(["sess_huge"]);
  });

  test("a row an older bridge wrote with a huge title (search text cut) takes the next title's search text", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_old", cwd: CWD });
    const huge = "z".repeat(200_001);
    app.query("UPDATE tasks SET title = ?, searchable_text = ? WHERE task_id = 'sess_old'").run(huge, huge.slice(0, 200_000));
    setNow(T0 + 1_000);
    await history.titleKnown("sess_old", "Short title");
    expect(row(app, "sess_old")!.searchable_text).toBe("Short title");
  });

  test("a title the user renamed in the app is never overwritten", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_r", cwd: CWD });
    await history.titleKnown("sess_r", "agent title");
    renameInApp(app, CWD, "sess_r", "My name for it", T0 + 10_000);
    const renamed = row(app, "sess_r");
    setNow(T0 + 20_000);
    await history.titleKnown("sess_r", "a later agent title");
    expect(row(app, "sess_r")).toEqual(renamed);
    expect(renamed!.title).toBe("My name for it");
    expect(JSON.parse(renamed!.meta_json).title).toBe("My name for it");
  });

  test("the same title again changes nothing, so the app's order is kept", async () => {
    const { history, app, setNow } = setup();
    await history.sessionCreated({ sessionId: "sess_same", cwd: CWD, title: "Same" });
    const before = row(app, "sess_same");
    setNow(T0 + 60_000);
    await history.titleKnown("sess_same", "Same");
    expect(row(app, "sess_same")).toEqual(before);
  });

  test("the conversation text the app indexed is kept, and a deleted row is not touched", async () => {
    const { history, app } = setup();
    await history.sessionCreated({ sessionId: "sess_idx", cwd: CWD });
    await history.sessionCreated({ sessionId: "sess_del", cwd: CWD });
    app.query("UPDATE tasks SET searchable_text = 'the whole conversation' WHERE task_id = 'sess_idx'").run();
    app.query("UPDATE tasks SET deleted = 1 WHERE task_id = 'sess_del'").run();
    const deleted = row(app, "sess_del");
    await history.titleKnown("sess_idx", "A title");
    await history.titleKnown("sess_del", "A title");
    expect(row(app, "sess_idx")!.searchable_text).toBe("the whole conversation");
    expect(row(app, "sess_idx")!.title).toBe("A title");
    expect(row(app, "sess_del")).toEqual(deleted);
  });

  test("titles of sessions this bridge did not create are not written", async () => {
    const { history, app } = setup();
    await history.titleKnown("sess_unknown", "title");
    expect(app.query("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 0 });
  });
});

describe("the app's file", () => {
  test("a missing file is never created, nor its directory", async () => {
    const { db } = setup();
    const dir = join(db.dir, "v2");
    const file = join(dir, "tasks-index.sqlite");
    const mem = memoryLogger();
    const history = AppHistory.open({}, { enabled: true, file, logger: mem.logger });
    histories.push(history);
    await history.sessionCreated({ sessionId: "sess_x", cwd: CWD });
    await history.titleKnown("sess_x", "title");
    expect(existsSync(dir)).toBe(false);
    mkdirSync(dir);
    await history.sessionCreated({ sessionId: "sess_y", cwd: CWD });
    expect(readdirSync(dir)).toEqual([]);
    expect(mem.warns()).toEqual([]);
  });

  test("the default file is ~/.zcode/v2/tasks-index.sqlite, used once the app has created it", async () => {
    const { db } = setup();
    const home = join(db.dir, "home");
    mkdirSync(home);
    const history = AppHistory.open({ HOME: home, USERPROFILE: "" }, { enabled: true, logger: memoryLogger().logger });
    histories.push(history);
    await history.sessionCreated({ sessionId: "sess_home1", cwd: CWD });
    expect(readdirSync(home)).toEqual([]);

    // The app runs for the first time and creates its index.
    mkdirSync(join(home, ".zcode", "v2"), { recursive: true });
    const file = join(home, ".zcode", "v2", "tasks-index.sqlite");
    writeFileSync(file, readFileSync(db.file));
    await history.sessionCreated({ sessionId: "sess_home2", cwd: CWD });
    history.close();
    const check = new Database(file, { readonly: true });
    expect(row(check, "sess_home2")?.task_id).toBe("sess_home2");
    expect(row(check, "sess_home1")).toBeNull();
    check.close();
  });

  test("turned off, nothing is opened or written", async () => {
    const { db, app } = setup();
    const history = AppHistory.open({}, { enabled: false, file: db.file, logger: memoryLogger().logger });
    histories.push(history);
    await history.sessionCreated({ sessionId: "sess_off", cwd: CWD });
    await history.titleKnown("sess_off", "title");
    expect(history.isOpen).toBe(false);
    expect(row(app, "sess_off")).toBeNull();
  });

  test("the handle is closed when idle and opened again for the next write", async () => {
    const { history, app } = setup({ idleCloseMs: 30 });
    // On fake time: open until idleCloseMs has passed, closed at it.
    jest.useFakeTimers();
    try {
      await history.sessionCreated({ sessionId: "sess_i1", cwd: CWD });
      expect(history.isOpen).toBe(true);
      jest.advanceTimersByTime(29);
      expect(history.isOpen).toBe(true);
      jest.advanceTimersByTime(1);
      expect(history.isOpen).toBe(false);
    } finally {
      jest.useRealTimers();
    }
    await history.titleKnown("sess_i1", "again");
    expect(row(app, "sess_i1")!.title).toBe("again");
  });

  test("after close() nothing is written", async () => {
    const { history, app } = setup();
    await history.sessionCreated({ sessionId: "sess_c1", cwd: CWD });
    history.close();
    expect(history.isOpen).toBe(false);
    await history.titleKnown("sess_c1", "late title");
    await history.sessionCreated({ sessionId: "sess_c2", cwd: CWD });
    expect(row(app, "sess_c1")!.title).toBe("");
    expect(row(app, "sess_c2")).toBeNull();
  });
});

describe("a busy database", () => {
  test("a write held by the app is retried, then given up without throwing and without blocking the bridge", async () => {
    const { history, app, mem } = setup({ busyTimeoutMs: 50, retryDelaysMs: [150, 300] });
    app.exec("BEGIN IMMEDIATE");
    app.query("INSERT INTO task_groups (group_id, title, created_at, updated_at) VALUES ('g', 'held', 1, 1)").run();

    // The event loop must keep turning while we wait: measure its longest stall.
    let last = performance.now();
    let longestStall = 0;
    const ticker = setInterval(() => {
      const t = performance.now();
      longestStall = Math.max(longestStall, t - last);
      last = t;
    }, 5);
    const started = performance.now();
    await history.sessionCreated({ sessionId: "sess_busy", cwd: CWD, title: "while busy" });
    const elapsed = performance.now() - started;
    clearInterval(ticker);

    expect(elapsed).toBeGreaterThanOrEqual(450); // 3 attempts: 150 + 300 ms asleep plus 3 × 50 ms waits
    expect(elapsed).toBeLessThan(1_500);
    expect(longestStall).toBeLessThan(200); // one 50 ms SQLite wait at a time, never the whole second
    expect(mem.warns().join("\n")).toContain("busy");

    app.exec("COMMIT");
    expect(row(app, "sess_busy")).toBeNull();
    // The session is not lost: once the app lets go, its title records it.
    await history.titleKnown("sess_busy", "recorded late");
    expect(row(app, "sess_busy")?.title).toBe("recorded late");
    expect(appMetaProblems(row(app, "sess_busy")!.meta_json)).toEqual([]);
  });

  test("a lock the app releases during the retries is waited out", async () => {
    const { history, app, mem } = setup({ busyTimeoutMs: 20, retryDelaysMs: [100, 300] });
    app.exec("BEGIN IMMEDIATE");
    app.query("INSERT INTO task_groups (group_id, title, created_at, updated_at) VALUES ('g', 'held', 1, 1)").run();
    setTimeout(() => app.exec("COMMIT"), 60);
    await history.sessionCreated({ sessionId: "sess_wait", cwd: CWD });
    expect(row(app, "sess_wait")?.task_id).toBe("sess_wait");
    expect(mem.warns()).toEqual([]);
  });
});

describe("a layout we do not know", () => {
  test("a tasks table without the columns we write is left alone, and said once", async () => {
    const old = `CREATE TABLE tasks (
      workspace_key TEXT NOT NULL, workspace_path TEXT NOT NULL, task_id TEXT NOT NULL,
      title TEXT NOT NULL DEFAULT '', created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL,
      meta_json TEXT NOT NULL DEFAULT '{}', PRIMARY KEY (workspace_key, task_id))`;
    const { history, app, mem } = setup({ ddl: old });
    const schema = app.query("SELECT sql FROM sqlite_master").all();
    await history.sessionCreated({ sessionId: "sess_old1", cwd: CWD });
    await history.sessionCreated({ sessionId: "sess_old2", cwd: CWD });
    await history.titleKnown("sess_old1", "title");
    expect(app.query("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 0 });
    expect(app.query("SELECT sql FROM sqlite_master").all()).toEqual(schema);
    const warns = mem.warns();
    expect(warns.length).toBe(1);
    expect(warns[0]).toContain("searchable_text");
  });

  test("a newer table with a required column we do not know is left alone", async () => {
    // SQLite cannot ADD a NOT NULL column without a default: such a table is a new CREATE.
    const newer = `CREATE TABLE tasks (
      workspace_key TEXT NOT NULL, workspace_path TEXT NOT NULL, workspace_identity TEXT, task_id TEXT NOT NULL,
      title TEXT NOT NULL DEFAULT '', task_status TEXT, provider TEXT, mode TEXT NOT NULL DEFAULT 'build', model TEXT,
      created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL, pinned INTEGER NOT NULL DEFAULT 0,
      archived INTEGER NOT NULL DEFAULT 0, deleted INTEGER NOT NULL DEFAULT 0,
      title_overridden INTEGER NOT NULL DEFAULT 0, searchable_text TEXT NOT NULL DEFAULT '',
      meta_json TEXT NOT NULL DEFAULT '{}', owner_id TEXT NOT NULL, PRIMARY KEY (workspace_key, task_id))`;
    const { history, app, mem } = setup({ ddl: newer });
    await history.sessionCreated({ sessionId: "sess_new_layout", cwd: CWD });
    expect(app.query("SELECT COUNT(*) AS n FROM tasks").get()).toEqual({ n: 0 });
    expect(mem.warns().join("\n")).toContain("owner_id");
  });
});

describe("nothing ever throws out of the API", () => {
  test("a FIFO in the database's place is not opened (SQLite would block on it): said once, nothing written", async () => {
    const { db } = setup();
    const fifo = join(db.dir, "fifo.sqlite");
    expect(Bun.spawnSync(["mkfifo", fifo]).exitCode).toBe(0);
    const mem = memoryLogger();
    const onFifo = AppHistory.open({}, { enabled: true, file: fifo, logger: mem.logger, retryDelaysMs: [] });
    histories.push(onFifo);
    await expect(onFifo.sessionCreated({ sessionId: "s", cwd: CWD })).resolves.toBeUndefined();
    await expect(onFifo.titleKnown("s", "t")).resolves.toBeUndefined();
    expect(mem.warns()).toEqual([expect.stringContaining("is not a regular file")]);
  });

  test("bad arguments, a file that is not a database, a directory in its place", async () => {
    const { db, history, app } = setup();
    const calls: unknown[] = [
      history.sessionCreated(null as never),
      history.sessionCreated({} as never),
      history.sessionCreated({ sessionId: 42, cwd: CWD } as never),
      history.sessionCreated({ sessionId: "sess_nocwd", cwd: "" }),
      history.sessionCreated({ sessionId: "sess_badmodel", cwd: CWD, model: {} as never, createdAt: -5 }),
      history.titleKnown(undefined as never, undefined as never),
      history.titleKnown("sess_badmodel", 7 as never),
    ];
    for (const c of calls) await expect(c as Promise<void>).resolves.toBeUndefined();
    const r = row(app, "sess_badmodel")!;
    expect(r.model).toBeNull();
    expect(r.created_at).toBe(T0);
    expect(row(app, "sess_nocwd")).toBeNull();

    const garbage = join(db.dir, "garbage.sqlite");
    writeFileSync(garbage, "this is not a database, and it is the user's");
    const mem = memoryLogger();
    const onGarbage = AppHistory.open({}, { enabled: true, file: garbage, logger: mem.logger, retryDelaysMs: [] });
    histories.push(onGarbage);
    await expect(onGarbage.sessionCreated({ sessionId: "s", cwd: CWD })).resolves.toBeUndefined();
    await expect(onGarbage.titleKnown("s", "t")).resolves.toBeUndefined();
    expect(readFileSync(garbage, "utf8")).toBe("this is not a database, and it is the user's");
    expect(mem.warns().length).toBeGreaterThan(0);

    const asDir = join(db.dir, "a-directory.sqlite");
    mkdirSync(asDir);
    const onDir = AppHistory.open({}, { enabled: true, file: asDir, logger: memoryLogger().logger, retryDelaysMs: [] });
    histories.push(onDir);
    await expect(onDir.sessionCreated({ sessionId: "s", cwd: CWD })).resolves.toBeUndefined();
    expect(() => onDir.close()).not.toThrow();
    expect(() => onDir.close()).not.toThrow();
  });
});
