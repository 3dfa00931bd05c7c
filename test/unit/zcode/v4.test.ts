// The v4 command channel inside src/zcode: uuid v7 ids, which row each
// operation targets, how every ACK status is settled, reasonCodes in words,
// and the operations against the simulator (its strict validation refuses a
// bad frame with a `rejected` ACK, which the api would throw).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { defaultConfig } from "../../../src/config.ts";
import { en } from "../../../src/i18n/en/index.ts";
import { zh } from "../../../src/i18n/zh/index.ts";
import { ZCodeApi } from "../../../src/zcode/api.ts";
import { ZCodeConnection } from "../../../src/zcode/connection.ts";
import { settle, V4CommandError } from "../../../src/zcode/v4/channel.ts";
import { editTarget, fileRewindTarget, pickEdit, pickFileRewind, pickRetry, retryTarget } from "../../../src/zcode/v4/picks.ts";
import { reasonSay } from "../../../src/zcode/v4/reasons.ts";
import type { Row } from "../../../src/zcode/v4/schemas.ts";
import { uuidv7 } from "../../../src/zcode/v4/uuid7.ts";
import { ensureSimBuilt, SIM_BIN } from "../../simulator/sim-client.ts";

describe("uuid v7", () => {
  test("version 7, RFC variant, the time in the first 48 bits, ordered by time", () => {
    const a = uuidv7(1_796_285_105_506);
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(Number.parseInt(a.replaceAll("-", "").slice(0, 12), 16)).toBe(1_796_285_105_506);
    expect(uuidv7(1_796_285_105_507) > a).toBe(true);
    expect(uuidv7()).not.toBe(uuidv7());
  });
});

const row = (r: Partial<Row> & { rowId: number; kind: string }): Row => ({ turnId: "t1", entityId: `e${r.rowId}`, ...r }) as Row;

describe("targets", () => {
  test("file rewind: the last turn's header only, and only when ZCode offers it", () => {
    const older = row({ rowId: 1, kind: "turnHeader", turnId: "t1", actions: { canRewindFiles: true } });
    const last = row({ rowId: 5, kind: "turnHeader", turnId: "t2" });
    expect(pickFileRewind([older, last])).toBeUndefined();
    expect(pickFileRewind([older])).toEqual({ type: "applyFileRewind", target: { rowId: 1, entityId: "e1" } });
  });

  test("edit: the latest prompt ZCode lets the user edit; its files restored only when its turn has changes to restore", () => {
    const rows = [
      row({ rowId: 2, kind: "userInput", text: "a" }),
      row({ rowId: 5, kind: "turnHeader", turnId: "t2", fileChanges: { state: "active" } }),
      row({ rowId: 6, kind: "userInput", turnId: "t2", text: "b", actions: { canEdit: true } }),
    ];
    expect(pickEdit(rows, "c")).toEqual({
      type: "editUserQuery",
      target: { rowId: 6, entityId: "e6" },
      payload: { newText: "c", workspaceMode: "rewind" },
    });
    // fork-edit-retry.ts blocks "rewind" of a turn with nothing to restore (guard.workspaceRewindUnavailable).
    for (const header of [
      row({ rowId: 5, kind: "turnHeader", turnId: "t2" }),
      row({ rowId: 5, kind: "turnHeader", turnId: "t2", fileChanges: { state: "reverted" } }),
    ])
      expect(pickEdit([header, rows[2]!], "c")?.payload).toEqual({ newText: "c", workspaceMode: "preserve" });
  });

  test("enough rows: a target's rows must be read before it is picked (older pages otherwise)", () => {
    const prompt = row({ rowId: 6, kind: "userInput", turnId: "t2", text: "b", actions: { canEdit: true } });
    const header = row({ rowId: 5, kind: "turnHeader", turnId: "t2" });
    const tool = row({ rowId: 7, kind: "toolCall", turnId: "t2" });
    expect(editTarget("c").enough([tool])).toBe(false);
    expect(editTarget("c").enough([prompt, tool])).toBe(false);
    expect(editTarget("c").enough([header, prompt, tool])).toBe(true);
    expect(fileRewindTarget.enough([tool])).toBe(false);
    expect(fileRewindTarget.enough([header, tool])).toBe(true);
    expect(retryTarget("t2").enough([tool])).toBe(false);
    expect(retryTarget("t2").enough([prompt, tool])).toBe(true);
  });

  test("retry: retryTurn on the failed turn's own reply; never the previous turn's; else its prompt with the same text", () => {
    const prevReply = row({ rowId: 3, kind: "assistantText", turnId: "t1", actions: { canRetry: true } });
    const prompt = row({ rowId: 5, kind: "userInput", turnId: "t2", text: "again", actions: { canEdit: true } });
    expect(pickRetry([prevReply, row({ rowId: 4, kind: "turnHeader", turnId: "t2", state: "failed" }), prompt], "t2")).toEqual({
      type: "editUserQuery",
      target: { rowId: 5, entityId: "e5" },
      payload: { newText: "again" },
    });
    const ownReply = row({ rowId: 6, kind: "assistantText", turnId: "t2", actions: { canRetry: true } });
    expect(pickRetry([prevReply, prompt, ownReply], "t2")).toEqual({ type: "retryTurn", target: { rowId: 6, entityId: "e6" } });
    expect(pickRetry([prevReply], "t2")).toBeUndefined();
  });
});

describe("ACK statuses", () => {
  const ack = (status: string, reasonCode?: string) => ({ commandId: "c", status, reasonCode, revisionAtDecision: 1 }) as never;
  test("accepted, duplicate and noop pass; rejected, failed and stale throw with the reasonCode", () => {
    for (const s of ["accepted", "duplicate", "noop"]) expect(settle("stop", ack(s)).status).toBe(s as never);
    for (const s of ["rejected", "failed", "stale"]) {
      const e = (() => {
        try {
          settle("retryTurn", ack(s, "guard.actionUnavailable"));
        } catch (err) {
          return err;
        }
      })();
      expect(e).toBeInstanceOf(V4CommandError);
      expect((e as V4CommandError).reasonCode).toBe("guard.actionUnavailable");
      expect((e as V4CommandError).status).toBe(s as never);
    }
  });

  test("reasonCodes in words, in both languages; an unknown one says its code", () => {
    expect(reasonSay("guard.stopTargetChanged", "noop")(en.errors)).toBe("The turn had already ended; nothing was stopped.");
    expect(reasonSay("guard.stopTargetChanged", "noop")(zh.errors)).toBe("该轮已结束；未停止任何内容。");
    expect(reasonSay("guard.somethingNew", "rejected")(en.errors)).toBe("ZCode answered rejected (guard.somethingNew); nothing was done.");
  });

  test("every reasonCode ZCode 0.16.9 can answer the bridge's commands has its own words (audit §2.2), in en and zh", () => {
    const codes = [
      "restoreWarning",
      "activePrompt",
      "heldQueueDispositionRequired",
      "guard.heldQueueConfirmationStale",
      "fault.command.inputRejected",
      "fault.command.queryUnavailable",
      "proto.payloadTooLarge",
      "guard.workspaceRewindUnsafeFiles",
      "guard.workspaceRewindIgnoredFiles",
      "guard.workspaceRewindUnavailable",
      "guard.workspaceRewindApplyConflict",
    ];
    for (const lang of [en, zh])
      for (const c of codes) {
        const said = reasonSay(c, "failed")(lang.errors);
        expect({ c, said }).not.toEqual({ c, said: lang.errors.v4.other("failed", c) });
      }
  });

  test("stale: once for a command sent once, twice in a row only when it was re-read and sent again", () => {
    expect(reasonSay("proto.staleRevision", "stale")(en.errors)).toBe(en.errors.v4.staleOnce);
    expect(reasonSay("proto.staleRevision", "stale", { staleTwice: true })(en.errors)).toContain("twice in a row");
    expect(
      new V4CommandError("sendText", { commandId: "c", status: "stale", reasonCode: "proto.staleRevision" } as never).message,
    ).not.toContain("twice");
  });
});

describe("operations against the simulator (0.16.9)", () => {
  let conn: ZCodeConnection;
  let api: ZCodeApi;
  const ws = mkdtempSync(join(tmpdir(), "zcode-v4-ws-"));
  beforeAll(async () => {
    await ensureSimBuilt();
    const env = { PATH: process.env.PATH, HOME: ws, ZCODE_SIM_STATE_DIR: join(ws, "state"), ZCODE_SIM_DELAY_MS: "1" };
    conn = new ZCodeConnection(defaultConfig({ env }), {
      launch: { command: [SIM_BIN], entry: SIM_BIN, source: "env" },
      killGraceMs: 500,
      defaultTimeoutMs: 5000,
    });
    api = new ZCodeApi(conn);
  }, 60_000);
  afterAll(() => conn.close());

  async function turn(sessionId: string, content: string): Promise<void> {
    const ended = new Promise<void>((resolve) => {
      const off = conn.onEvent(sessionId, (e) => {
        if (e.type === "turn.completed" || e.type === "turn.failed") {
          off();
          resolve();
        }
      });
    });
    await api.send({ sessionId, content });
    await ended;
    // Idle once ZCode says so (its rows offer actions only then).
    for (let i = 0; i < 200 && (await api.read(sessionId)).projection?.status === "running"; i++) await Bun.sleep(5);
  }

  test("probe, file rewind, rewrite blocked, delete: each frame passes the strict validation", async () => {
    const s = await api.create({ workspace: ws });
    const id = s.session.sessionId;
    expect(await api.hasV4()).toBe(true);
    expect(api.capabilities()?.supports("op:steer")).toBe(true);
    await api.subscribe({ sessionId: id });
    await turn(id, "#scenario:edit");
    const rewound = await api.rewindLastTurn({ sessionId: id });
    expect(rewound).toMatchObject({ kind: "applied", files: [{ action: "restore" }] });
    expect(await api.rewindLastTurn({ sessionId: id })).toEqual({ kind: "nothing" });
    await turn(id, "#scenario:edit unsafe=1");
    expect(await api.rewritePrompt({ sessionId: id, text: "x" })).toMatchObject({
      kind: "blocked",
      reasonCode: "guard.workspaceRewindUnsafeFiles",
    });
    expect(await api.retryTurn({ sessionId: id, turnId: "turn_unknown" })).toBeUndefined();
    // A late stop naming an execution that is over: ZCode's noop, no error.
    await api.stopV4Turn({ sessionId: id, foregroundExecutionId: "runtime_command_1" });
    expect(await api.deleteSession(id)).toBe(true);
    // ZCode's deleteSession is a close (session-mgmt.ts:164-181): still listed, no longer live.
    expect((await api.list()).sessions.map((x) => x.sessionId)).toContain(id);
    const again = await api.stopV4Turn({ sessionId: id }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(again).toBeInstanceOf(V4CommandError);
    expect((again as V4CommandError).reasonCode).toBe("proto.sessionNotFound");
  }, 30_000);
});

describe("operations against the simulator (0.15.3, no v4)", () => {
  let conn: ZCodeConnection;
  let api: ZCodeApi;
  const ws = mkdtempSync(join(tmpdir(), "zcode-v4-legacy-ws-"));
  beforeAll(async () => {
    await ensureSimBuilt();
    const env = {
      PATH: process.env.PATH,
      HOME: ws,
      ZCODE_SIM_STATE_DIR: join(ws, "state"),
      ZCODE_SIM_DELAY_MS: "1",
      ZCODE_SIM_VERSION: "0.15.3",
    };
    conn = new ZCodeConnection(defaultConfig({ env }), {
      launch: { command: [SIM_BIN], entry: SIM_BIN, source: "env" },
      killGraceMs: 500,
      defaultTimeoutMs: 5000,
    });
    api = new ZCodeApi(conn);
  }, 60_000);
  afterAll(() => conn.close());

  test("no v4: steer and rewind keep their legacy methods in the menu; delete is session/close; rewrite and retry say they cannot", async () => {
    const s = await api.create({ workspace: ws });
    const id = s.session.sessionId;
    expect(await api.hasV4()).toBe(false);
    expect(api.capabilities()?.supports("op:steer")).toBe(true);
    expect(api.capabilities()?.supports("op:rewind")).toBe(true);
    expect(await api.rewritePrompt({ sessionId: id, text: "x" })).toBeUndefined();
    expect(await api.retryTurn({ sessionId: id, turnId: "turn_x" })).toBeUndefined();
    expect(await api.deleteSession(id)).toBe(true);
    // Legacy session/close keeps the conversation too (server-operations.ts closeSession).
    expect((await api.list()).sessions.map((x) => x.sessionId)).toContain(id);
    expect(await api.read(id).catch((e: Error) => e.message)).toContain("not active");
  }, 30_000);
});
