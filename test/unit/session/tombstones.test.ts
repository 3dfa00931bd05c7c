// The bridge's own record of deleted sessions: a small file in its state
// folder, read as if someone else wrote it (garbage, huge, a FIFO, a link).
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { MAX_FILE_BYTES, MAX_IDS, stateDirFor, Tombstones } from "../../../src/session/tombstones.ts";

let dir = "";
let file = "";
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "zcode-tombstones-"));
  file = join(dir, "state", "deleted-sessions");
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("where", () => {
  test("XDG_STATE_HOME, else LOCALAPPDATA on Windows, else ~/.local/state; relative bases are ignored", () => {
    expect(stateDirFor({ XDG_STATE_HOME: "/x/state", HOME: "/h" }, "linux")).toBe("/x/state/zcode-acp-server");
    expect(stateDirFor({ XDG_STATE_HOME: "rel", HOME: "/h" }, "linux")).toBe("/h/.local/state/zcode-acp-server");
    expect(stateDirFor({ LOCALAPPDATA: "/l", HOME: "/h" }, "win32")).toBe(join("/l", "zcode-acp-server"));
    expect(stateDirFor({ LOCALAPPDATA: "/l", HOME: "/h" }, "linux")).toBe("/h/.local/state/zcode-acp-server");
  });
});

describe("remembering", () => {
  test("kept across instances (a restart), written 0600 in a 0700 folder", () => {
    const a = Tombstones.open({}, { file });
    a.add("sess_1");
    a.add("sess_2");
    a.add("sess_1");
    expect(readFileSync(file, "utf8")).toBe("sess_1\nsess_2\n");
    if (process.platform !== "win32") {
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(statSync(join(dir, "state")).mode & 0o777).toBe(0o700);
    }
    const b = Tombstones.open({}, { file });
    expect(b.has("sess_1") && b.has("sess_2")).toBe(true);
    expect(b.has("sess_3")).toBe(false);
  });

  test("another bridge's delete is seen without a restart", () => {
    const a = Tombstones.open({}, { file });
    const b = Tombstones.open({}, { file });
    a.add("sess_other");
    expect(b.has("sess_other")).toBe(true);
  });

  test("an id that could break the file (a newline, a space, empty, too long) is not written", () => {
    const a = Tombstones.open({}, { file });
    for (const id of ["a\nb", "a b", "", "x".repeat(201)]) a.add(id);
    expect(existsSync(file)).toBe(false);
  });

  test(`bounded: past ${MAX_IDS} ids the file is rewritten with the newest`, () => {
    writeFileSync((mkdirSync(join(dir, "state")), file), Array.from({ length: MAX_IDS }, (_, i) => `sess_${i}\n`).join(""));
    const a = Tombstones.open({}, { file });
    a.add("sess_new");
    expect(a.has("sess_0")).toBe(false);
    expect(a.has("sess_1") && a.has("sess_new")).toBe(true);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(lines).toHaveLength(MAX_IDS);
    expect(lines.at(-1)).toBe("sess_new");
  });
});

describe("a file that is not what we wrote", () => {
  test("garbage lines are skipped, good ones kept", () => {
    mkdirSync(join(dir, "state"));
    writeFileSync(file, Buffer.concat([Buffer.from([0, 0xff, 0xfe, 10]), Buffer.from(`sess_ok\n${"y".repeat(9000)}\n \t\nsess two\n`)]));
    const a = Tombstones.open({}, { file });
    expect([...a.current()]).toEqual(["sess_ok"]);
  });

  test("a huge file: only its first MAX_FILE_BYTES are read, quickly", () => {
    mkdirSync(join(dir, "state"));
    const big = `sess_first\n${"z".repeat(64)}\n`.repeat(Math.ceil((MAX_FILE_BYTES * 3) / 76));
    writeFileSync(file, big);
    const t0 = performance.now();
    const a = Tombstones.open({}, { file });
    expect(a.has("sess_first")).toBe(true);
    expect(performance.now() - t0).toBeLessThan(2000);
    // Still writable.
    a.add("sess_after");
    expect(a.has("sess_after")).toBe(true);
  });

  test("a directory, a FIFO or a link in its place: nothing read, nothing blocks, the delete is kept in memory", () => {
    mkdirSync(join(dir, "state"));
    mkdirSync(file);
    const d = Tombstones.open({}, { file });
    d.add("sess_d");
    expect(d.has("sess_d")).toBe(true);
    rmSync(file, { recursive: true });
    if (process.platform === "win32") return;
    spawnSync("mkfifo", [file]);
    const f = Tombstones.open({}, { file });
    f.add("sess_f");
    expect(f.has("sess_f")).toBe(true);
    rmSync(file);
    const target = join(dir, "elsewhere");
    writeFileSync(target, "sess_planted\n");
    symlinkSync(target, file);
    const l = Tombstones.open({}, { file });
    expect(l.has("sess_planted")).toBe(false);
    l.add("sess_l");
    expect(readFileSync(target, "utf8")).toBe("sess_planted\n");
  });
});
