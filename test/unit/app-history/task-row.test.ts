// The values a session becomes in the app's table, without a database.

import { describe, expect, test } from "bun:test";
import { appMode, appTitle, modelPickerValue, TITLE_MAX_CHARS, taskRow } from "../../../src/app-history/task-row.ts";
import { tasksIndexPath } from "../../../src/app-history/tasks-index.ts";
import { appMetaProblems } from "./app-db.ts";

describe("task rows", () => {
  test("ZCode's modes the app knows are kept; the others become the app's fallback, build", () => {
    for (const m of ["build", "plan", "edit", "yolo", "auto", "autoEdit"]) expect(appMode(m)).toBe(m);
    for (const m of ["guarded", "readonly", "", undefined, "YOLO"]) expect(appMode(m)).toBe("build");
  });

  test("the model is the app's picker string, or nothing when it cannot be named fully", () => {
    expect(modelPickerValue({ providerId: "zai", modelId: "GLM-5.2" })).toBe("zai/GLM-5.2");
    expect(modelPickerValue({ providerId: "zai", modelId: "GLM-5.2", options: { reasoningLevel: "max" } })).toBe("zai/GLM-5.2$max");
    expect(modelPickerValue({ providerId: "", modelId: "GLM-5.2" })).toBeUndefined();
    expect(modelPickerValue({ providerId: "zai", modelId: " " })).toBeUndefined();
    expect(modelPickerValue(undefined)).toBeUndefined();
  });

  test("a row needs a session id and a workspace path; the path is kept as ZCode was given it", () => {
    expect(taskRow({ sessionId: "", cwd: "/p" }, 1)).toBeUndefined();
    expect(taskRow({ sessionId: "s", cwd: "  " }, 1)).toBeUndefined();
    const r = taskRow({ sessionId: "s", cwd: "C:\\Users\\you\\proj", title: " T ", createdAt: 7 }, 99)!;
    expect(r.workspace_key).toBe("C:\\Users\\you\\proj");
    expect(r.workspace_path).toBe("C:\\Users\\you\\proj");
    expect(r.title).toBe("T");
    expect(r.created_at).toBe(7);
    expect(appMetaProblems(r.meta_json)).toEqual([]);
  });

  test("a huge title is bounded before it reaches the row; the search text is the title", () => {
    const r = taskRow({ sessionId: "s", cwd: "/p", title: "x".repeat(200_010) }, 1)!;
    expect(r.title).toBe(`${"x".repeat(TITLE_MAX_CHARS - 1)}…`);
    expect(r.searchable_text).toBe(r.title);
    expect(JSON.parse(r.meta_json).title).toBe(r.title);
  });

  test("appTitle: trimmed, cut on a character boundary (never half a surrogate pair), short titles unchanged", () => {
    expect(TITLE_MAX_CHARS).toBe(500);
    expect(appTitle("  Fix it  ")).toBe("Fix it");
    expect(appTitle(undefined)).toBe("");
    const exact = "😀".repeat(TITLE_MAX_CHARS);
    // 1000 UTF-16 units but 500 characters: kept whole.
    expect(appTitle(exact)).toBe(exact);
    const cut = appTitle(`a${"😀".repeat(TITLE_MAX_CHARS)}`);
    expect(Array.from(cut)).toHaveLength(TITLE_MAX_CHARS);
    expect(cut).toBe(`a${"😀".repeat(TITLE_MAX_CHARS - 2)}…`);
    expect(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])/.test(cut)).toBe(false);
    expect(appTitle(`${"a".repeat(TITLE_MAX_CHARS - 2)}  ${"b".repeat(10)}`)).toBe(`${"a".repeat(TITLE_MAX_CHARS - 2)}…`);
  });

  test("the app's index lives in ~/.zcode/v2", () => {
    expect(tasksIndexPath({ HOME: "/home/you" })).toBe("/home/you/.zcode/v2/tasks-index.sqlite");
  });
});
