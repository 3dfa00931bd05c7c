// Files of a prompt staged for ZCode to read by path: a private directory,
// new files only, nothing planted followed.
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { RequestError } from "@agentclientprotocol/sdk/unstable";
import { stageFile, stagingDirFor } from "../../../src/session/attachment-staging.ts";

const root = mkdtempSync(path.join(tmpdir(), "staging-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const uid = typeof process.getuid === "function" ? process.getuid() : "user";

describe("stagingDirFor", () => {
  test("under an absolute XDG_CACHE_HOME, else the temp dir, per user", () => {
    expect(stagingDirFor({ XDG_CACHE_HOME: "/home/dev/.cache" })).toBe(`/home/dev/.cache/zcode-acp-server-${uid}/attachments`);
    expect(stagingDirFor({ XDG_CACHE_HOME: "relative/cache" })).toBe(path.join(tmpdir(), `zcode-acp-server-${uid}`, "attachments"));
    expect(stagingDirFor({})).toBe(path.join(tmpdir(), `zcode-acp-server-${uid}`, "attachments"));
  });
});

describe("stageFile", () => {
  test("a new 0600 file in a 0700 directory it creates, with the bytes", () => {
    const dir = path.join(root, "a", "attachments");
    const file = stageFile(dir, "report.csv", new TextEncoder().encode("a,b\n"));
    expect(path.dirname(file)).toBe(dir);
    expect(path.basename(file)).toMatch(/^[0-9a-f-]{36}-report\.csv$/);
    expect(readFileSync(file, "utf8")).toBe("a,b\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(dir).mode & 0o777).toBe(0o700);
  });

  test("each call a new file; names made safe and short", () => {
    const dir = path.join(root, "b");
    const one = stageFile(dir, "x.txt", new Uint8Array([1]));
    const two = stageFile(dir, "x.txt", new Uint8Array([2]));
    expect(one).not.toBe(two);
    const tricky = stageFile(dir, "../../etc/pass wd", new Uint8Array());
    expect(path.dirname(tricky)).toBe(dir);
    expect(path.basename(tricky)).toMatch(/-\.\._\.\._etc_pass_wd$/);
    expect(path.basename(stageFile(dir, "", new Uint8Array()))).toMatch(/-file$/);
    const long = path.basename(stageFile(dir, `${"n".repeat(300)}.txt`, new Uint8Array()));
    expect(long.length).toBe(36 + 1 + 100);
    expect(long.endsWith(".txt")).toBe(true);
  });

  test("a directory others can read is refused", () => {
    const dir = path.join(root, "open");
    mkdirSync(dir, { recursive: true });
    chmodSync(dir, 0o755);
    let err: unknown;
    try {
      stageFile(dir, "x", new Uint8Array());
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(RequestError);
    expect((err as Error).message).toContain("not private");
  });

  test("a symlink in the directory's place, or a file, is refused", () => {
    const target = path.join(root, "elsewhere");
    mkdirSync(target, { recursive: true, mode: 0o700 });
    const link = path.join(root, "link");
    symlinkSync(target, link);
    expect(() => stageFile(link, "x", new Uint8Array())).toThrow("not private");
    const file = path.join(root, "plain-file");
    writeFileSync(file, "");
    expect(() => stageFile(file, "x", new Uint8Array())).toThrow();
  });
});
