// ACP session/delete, close and load racing each other, over a scripted
// ZCode: what reaches ZCode and what the editor is answered.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fakeSession, tick, zcodeError } from "../support/session-fakes.ts";

let stateDir = "";
beforeEach(() => {
  stateDir = mkdtempSync(join(tmpdir(), "zcode-lifecycle-unit-"));
});
afterEach(() => rmSync(stateDir, { recursive: true, force: true }));

test("a delete ZCode answers noop deleted nothing: the editor gets an error saying so, and the session stays open and usable", async () => {
  const f = await fakeSession({ stateDir });
  f.zcode.answers.deleteSession = false;
  const err = (await f.bridge.delete("s1").catch((e: unknown) => e)) as { code?: number; message?: string };
  expect(err.code).toBe(-32603);
  expect(err.message).toContain("did not delete session s1");
  expect(f.bridge.session("s1")).toBe(f.s);
  // Listed, loadable and prompting as before.
  f.zcode.answers["session/list"] = { sessions: [{ sessionId: "s1", workspace: { workspacePath: "/w", workspaceKey: "/w" } }] };
  expect((await f.bridge.list(undefined)).sessions.map((x) => x.sessionId)).toEqual(["s1"]);
  const answer = f.s.prompt([{ type: "text", text: "still here" }], new AbortController().signal);
  await tick(5);
  expect(f.zcode.calls.filter((c) => c.method === "session/send")).toHaveLength(1);
  f.zcode.emit("turn.started");
  f.zcode.emit("turn.completed", { resultType: "success" });
  expect((await answer).stopReason).toBe("end_turn");
});

test("a delete ZCode refuses (an error) leaves the session open too", async () => {
  const f = await fakeSession({ stateDir });
  f.zcode.answers.deleteSession = new Error("boom");
  await expect(f.bridge.delete("s1")).rejects.toThrow("boom");
  expect(f.bridge.session("s1").winding).toBe(false);
});

test("deleted: a late read that finds the session evicted never resumes it", async () => {
  const f = await fakeSession({ stateDir });
  // ZCode answers every read as "not active" from now on (it closed the session).
  const notActive = zcodeError(-32004, "Session is not active: s1", "session/read");
  await f.bridge.delete("s1");
  f.zcode.answers["session/read"] = notActive;
  await f.s.withActive(() => f.zcode.api.read("s1")).catch(() => undefined);
  expect(f.zcode.calls.filter((c) => c.method === "session/resume")).toEqual([]);
  expect(() => f.bridge.session("s1")).toThrow();
});

test("two deletes of one session at once: ZCode is asked once, both are answered", async () => {
  const f = await fakeSession({ stateDir });
  await Promise.all([f.bridge.delete("s1"), f.bridge.delete("s1")]);
  expect(f.zcode.calls.filter((c) => c.method === "deleteSession")).toHaveLength(1);
  // Remembered in the state folder: a new bridge (a restart) refuses it.
  const g = await fakeSession({ stateDir });
  g.zcode.answers["session/list"] = { sessions: [{ sessionId: "s1", workspace: { workspacePath: "/w", workspaceKey: "/w" } }] };
  expect((await g.bridge.list(undefined)).sessions).toEqual([]);
  await expect(g.bridge.resume("s1", "/w", undefined)).rejects.toMatchObject({ code: -32002 });
});

test("a steer written with the delete never reaches ZCode: answered cancelled", async () => {
  const f = await fakeSession({ stateDir });
  let release!: (v: boolean) => void;
  f.zcode.answers.deleteSession = () => new Promise<boolean>((r) => (release = r));
  const deleted = f.bridge.delete("s1");
  const steer = await f.s.prompt([{ type: "text", text: "/steer look at the tests too" }], new AbortController().signal);
  expect(steer).toEqual({ stopReason: "cancelled" });
  await tick(5);
  release(true);
  await deleted;
  expect(f.zcode.calls.map((c) => c.method)).toEqual(["deleteSession"]);
});

test("while a delete runs the session is not found for new requests; a close waits for the delete and answers", async () => {
  const f = await fakeSession({ stateDir });
  let release!: (v: boolean) => void;
  f.zcode.answers.deleteSession = () => new Promise<boolean>((r) => (release = r));
  const deleted = f.bridge.delete("s1");
  expect(() => f.bridge.session("s1")).toThrow();
  let closed = false;
  const close = f.bridge.close("s1").then(() => (closed = true));
  await tick(5);
  expect(closed).toBe(false);
  release(true);
  await Promise.all([deleted, close]);
  await expect(f.bridge.fork("s1", "/w", undefined)).rejects.toMatchObject({ code: -32002 });
  expect(f.zcode.calls.map((c) => c.method)).toEqual(["deleteSession"]);
});

test("a close while load reads the history: nothing replayed after it, and the load answers not-found", async () => {
  const f = await fakeSession({ stateDir });
  await f.bridge.close("s1");
  let release!: () => void;
  const text = (id: string, role: string, t: string) => ({
    info: { id, role, sessionId: "s1", time: { created: 1 } },
    parts: [{ id: `${id}p`, type: "text", text: t, messageId: id, sessionId: "s1" }],
  });
  f.zcode.answers["session/messages"] = () =>
    new Promise((r) => (release = () => r({ messages: [text("m1", "user", "hello"), text("m2", "assistant", "hi")] })));
  const load = f.bridge.load("s1", "/w", undefined).then(
    () => 0,
    (e: { code?: number }) => e.code,
  );
  await tick(5);
  expect(f.zcode.calls.some((c) => c.method === "session/messages")).toBe(true);
  const before = f.editor.sent.length;
  await f.bridge.close("s1");
  release();
  expect(await load).toBe(-32002);
  expect(f.editor.sent.slice(before).filter((n) => n.update.sessionUpdate.endsWith("_message_chunk"))).toEqual([]);
});
