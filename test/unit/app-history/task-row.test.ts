// The values a session becomes in the app's table, without a database.

import { describe, expect, test } from "bun:test";
import { appMode, modelPickerValue, SEARCH_TEXT_MAX_CHARS, taskRow } from "../../../src/app-history/task-row.ts";
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

  test("the search text is capped where the app caps it", () => {
    const r = taskRow({ sessionId: "s", cwd: "/p", title: "x".repeat(SEARCH_TEXT_MAX_CHARS + 10) }, 1)!;
    expect(r.searchable_text.length).toBe(SEARCH_TEXT_MAX_CHARS);
  });

  test("the app's index lives in ~/.zcode/v2", () => {
    expect(tasksIndexPath({ HOME: "/home/you" })).toBe("/home/you/.zcode/v2/tasks-index.sqlite");
  });
});
