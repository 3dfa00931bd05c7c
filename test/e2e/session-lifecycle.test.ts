// Delete, close, load and busy against a ZCode that, like the real one, has
// no delete: its deleteSession (and session/close) only closes the live
// session, and session/list keeps returning the conversation
// (jimpablo/ZCode@aac4755 session-mgmt.ts:164-181). What the editor deleted
// stays deleted all the same (here, after a restart, with or without the
// app); nothing queued or written with a delete reaches ZCode; a close or a
// delete wins over a load under way; a ZCode that says idle while its
// prompt lock is still held is not hammered with sends.
import { Database } from "bun:sqlite";
import { expect, test } from "bun:test";
import * as acp from "@agentclientprotocol/sdk/unstable";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ROOT, withBridge, type Harness } from "../support/acp-harness.ts";

const m = acp.methods.agent.session;

type Frame = ReturnType<Harness["simFrames"]>[number];

/** Requests to ZCode about `sessionId`: legacy methods by name, v4 commands as `v4:<type>`. */
function aboutSession(frames: Frame[], sessionId: string, from = 0): string[] {
  return frames
    .slice(from)
    .filter((f) => typeof f.method === "string" && f.params?.sessionId === sessionId)
    .map((f) => (f.method === "v4/command" ? `v4:${f.params.type}` : f.method!));
}

async function listed(h: Harness, cwd?: string): Promise<string[]> {
  const r = await h.agent.request(m.list, cwd ? { cwd } : {});
  return r.sessions.map((s) => s.sessionId);
}

/** The answer of a request, or its error code. */
function outcome<T>(p: Promise<T>): Promise<{ ok: true; v: T } | { ok: false; code: number | undefined }> {
  return p.then(
    (v) => ({ ok: true as const, v }),
    (e: { code?: number }) => ({ ok: false as const, code: e?.code }),
  );
}

function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "zcode-lifecycle-e2e-"));
}

test("session/delete stays deleted though ZCode keeps the conversation: not listed, load and resume refused, after a restart too", async () => {
  const dir = tempDir();
  try {
    let gone = "";
    let kept = "";
    await withBridge({ stateDir: dir, record: true, args: ["--no-app-history"] }, async (h) => {
      kept = (await h.newSession()).sessionId;
      gone = (await h.newSession()).sessionId;
      await h.prompt(kept, "hello");
      await h.prompt(gone, "hello");
      await h.agent.request(m.delete, { sessionId: gone });
      // ZCode was asked once; it only closes the live session (the simulator, like ZCode, keeps it listed).
      expect(aboutSession(h.simFrames(), gone).filter((x) => x === "v4:deleteSession")).toHaveLength(1);
      expect(await listed(h)).toEqual([kept]);
      expect(await listed(h, dir)).toEqual([kept]);
      expect(await outcome(h.agent.request(m.load, { sessionId: gone, cwd: dir, mcpServers: [] }))).toEqual({ ok: false, code: -32002 });
      expect(await outcome(h.agent.request(m.resume, { sessionId: gone, cwd: dir, mcpServers: [] }))).toEqual({ ok: false, code: -32002 });
      // Deleted once: a second delete finds nothing (-32002 on the wire; the SDK's client reads it as "already gone").
      await h.agent.request(m.delete, { sessionId: gone });
      expect(h.received.messages.at(-1)).toMatchObject({ error: { code: -32002, data: { sessionId: gone } } });
      // Neither the refused load nor resume reached ZCode.
      expect(aboutSession(h.simFrames(), gone).filter((x) => x === "session/resume")).toEqual([]);
    });
    // A new bridge (and a new ZCode) on the same machine: still deleted.
    await withBridge({ stateDir: dir, record: true, args: ["--no-app-history"] }, async (h) => {
      expect(await listed(h)).toEqual([kept]);
      expect(await outcome(h.agent.request(m.load, { sessionId: gone, cwd: dir, mcpServers: [] }))).toEqual({ ok: false, code: -32002 });
      expect(h.simMethods()).not.toContain("session/resume");
      // The other conversation opens as ever.
      await h.agent.request(m.load, { sessionId: kept, cwd: dir, mcpServers: [] });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

test("a session the app marks deleted is not listed nor opened; a broken tombstone file hides nothing it should not and breaks nothing", async () => {
  const dir = tempDir();
  try {
    const v2 = join(dir, "home/.zcode/v2");
    mkdirSync(v2, { recursive: true });
    const file = join(v2, "tasks-index.sqlite");
    const db = new Database(file, { create: true, readwrite: true });
    db.exec(readFileSync(join(ROOT, "test/fixtures/zcode-app/tasks-index.sql"), "utf8"));
    db.close();
    // A tombstone file of garbage: binary, over-long lines, blanks.
    mkdirSync(join(dir, "state/zcode-acp-server"), { recursive: true });
    writeFileSync(join(dir, "state/zcode-acp-server/deleted-sessions"), `\0\0\xff\n${"x".repeat(5000)}\n\n  \n`);
    await withBridge({ stateDir: dir }, async (h) => {
      const a = (await h.newSession()).sessionId;
      const b = (await h.newSession()).sessionId;
      await h.prompt(a, "hello");
      await h.prompt(b, "hello");
      await h.waitFor(() => rowOf(file, b) !== undefined, "the app's row of b");
      expect((await listed(h)).sort()).toEqual([a, b].sort());
      // The user deletes b in the ZCode app.
      const w = new Database(file, { readwrite: true });
      w.query("UPDATE tasks SET deleted = 1 WHERE task_id = ?").run(b);
      w.close();
      expect(await listed(h)).toEqual([a]);
      await h.agent.request(m.close, { sessionId: b });
      expect(await outcome(h.agent.request(m.load, { sessionId: b, cwd: dir, mcpServers: [] }))).toEqual({ ok: false, code: -32002 });
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}, 60_000);

function rowOf(file: string, id: string): number | undefined {
  const db = new Database(file, { readonly: true });
  try {
    return (db.query("SELECT deleted FROM tasks WHERE task_id = ?").get(id) as { deleted: number } | null)?.deleted;
  } finally {
    db.close();
  }
}

test("session/delete: a prompt queued behind the running turn, or written with the delete, never reaches ZCode; the deleted session is never resumed", async () => {
  await withBridge({ record: true, env: { ZCODE_ACP_STALL_MS: "40" } }, async (h) => {
    for (let round = 0; round < 3; round++) {
      const { sessionId } = await h.newSession();
      const running = outcome(h.prompt(sessionId, "#scenario:slow n=400"));
      await h.waitFor(() => h.updates(sessionId).some((u) => u.sessionUpdate === "agent_message_chunk"), "the turn to stream");
      // One queued behind the turn (a round trip after it: it is in the session's queue by then),
      // then the delete and one right after it, written back to back.
      const queued = outcome(h.prompt(sessionId, "queued behind the turn"));
      await listed(h);
      const deleted = outcome(h.agent.request(m.delete, { sessionId }));
      const after = outcome(h.prompt(sessionId, "written with the delete"));
      const [r, q, d, a] = await Promise.all([running, queued, deleted, after]);
      expect(d.ok).toBe(true);
      for (const p of [r, q]) expect(p).toEqual({ ok: true, v: { stopReason: "cancelled" } });
      // The prompt behind the delete: cancelled, or the session is already gone.
      expect(a.ok ? a.v.stopReason : a.code).toBeOneOf(["cancelled", -32002]);
      // A busy other session gives anything left of the deleted one every chance to reach ZCode.
      const other = await h.newSession();
      expect((await h.prompt(other.sessionId, "#scenario:slow n=60")).stopReason).toBe("end_turn");
      const asked = aboutSession(h.simFrames(), sessionId);
      expect(asked.filter((x) => x === "session/send")).toHaveLength(1);
      const del = asked.indexOf("v4:deleteSession");
      expect(del).toBeGreaterThan(asked.indexOf("session/send"));
      // After ZCode's delete: nothing at all (no send, no resume, no read).
      expect(asked.slice(del + 1)).toEqual([]);
    }
  });
}, 90_000);

/** A stored session made live without session/resume (no MCP servers, the same cwd, a CLI with v4). */
const OPENED_QUIETLY = ["v4/conversation/rowsRange", "session/read"];

for (const how of ["close", "delete"] as const) {
  test(`${how} during a first session/load wins: answered, nothing replayed, ZCode opened it once`, async () => {
    const dir = tempDir();
    try {
      let sessionId = "";
      await withBridge({ stateDir: dir }, async (h) => {
        sessionId = (await h.newSession()).sessionId;
        for (let i = 0; i < 3; i++) await h.prompt(sessionId, `turn ${i}`);
      });
      await withBridge({ stateDir: dir, record: true, args: ["--no-app-history"] }, async (h) => {
        // Written back to back, as an editor closing a tab it is opening does.
        const load = outcome(h.agent.request(m.load, { sessionId, cwd: dir, mcpServers: [] }));
        const ended = outcome(h.agent.request(how === "close" ? m.close : m.delete, { sessionId }));
        const [l, e] = await Promise.all([load, ended]);
        expect(e.ok).toBe(true);
        expect(l).toEqual({ ok: false, code: -32002 });
        // Nothing of the conversation was replayed.
        expect(h.updates(sessionId).filter((u) => u.sessionUpdate.endsWith("_message_chunk"))).toEqual([]);
        const asked = aboutSession(h.simFrames(), sessionId);
        // Opened once: on a CLI with v4 by a one-row v4 read and session/read, without session/resume's transcript (reads.ts openStored).
        expect(asked.slice(0, 2)).toEqual(OPENED_QUIETLY);
        expect(asked.filter((x) => x === "session/resume" || x === "v4/conversation/rowsRange")).toHaveLength(1);
        expect(asked).not.toContain("session/messages");
        if (how === "delete") expect(asked.at(-1)).toBe("v4:deleteSession");
        else expect(asked).toEqual(OPENED_QUIETLY);
        expect(await listed(h)).toEqual(how === "close" ? [sessionId] : []);
        // Closed, it opens again; deleted, it does not.
        const again = await outcome(h.agent.request(m.load, { sessionId, cwd: dir, mcpServers: [] }));
        expect(again.ok).toBe(how === "close");
      });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
}

test("ZCode says idle while its prompt lock is still held: the next prompt is sent again at a growing pause, not in a loop", async () => {
  // ZCODE_SIM_BUSY_TAIL_MS: the lock is released that long after turn.completed; session/read says idle meanwhile.
  await withBridge({ record: true, env: { ZCODE_SIM_BUSY_TAIL_MS: "1500" } }, async (h) => {
    const { sessionId } = await h.newSession();
    expect((await h.prompt(sessionId, "first")).stopReason).toBe("end_turn");
    const from = h.simFrames().length;
    expect((await h.prompt(sessionId, "second")).stopReason).toBe("end_turn");
    const asked = aboutSession(h.simFrames(), sessionId, from);
    const sends = asked.filter((x) => x === "session/send").length;
    // Pauses of 100, 200, 400, 800 ms (then 1 s) cover the 1.5 s window in about five sends; a loop makes thousands.
    expect(sends).toBeGreaterThan(1);
    expect(sends).toBeLessThanOrEqual(8);
    expect(asked.filter((x) => x === "session/read").length).toBeLessThanOrEqual(20);
  });
}, 60_000);
