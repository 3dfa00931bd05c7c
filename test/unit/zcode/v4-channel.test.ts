// The v4 channel's clocks and paging, on a fake connection: the command
// timeout outlasts ZCode's own (so its `failed` ACK arrives), rowsRange pages
// back until the target's rows are read, and the probe's unknown answers are
// tried again (bounded) while -32601 is final.
import { afterEach, beforeEach, describe, expect, jest, test } from "bun:test";
import { CliCapabilities } from "../../../src/zcode/capabilities.ts";
import { ZCODE_ERR, ZCodeError } from "../../../src/zcode/errors.ts";
import { PendingRequests } from "../../../src/zcode/pending-requests.ts";
import { type ProbeAnswer, V4_TIMEOUTS, V4Channel } from "../../../src/zcode/v4/channel.ts";
import { editTarget } from "../../../src/zcode/v4/picks.ts";
import { PROBE_BESIDE_MS, PROBE_RETRY_MS, V4Probe } from "../../../src/zcode/v4/probe.ts";
import type { Row } from "../../../src/zcode/v4/schemas.ts";

async function flush(): Promise<void> {
  for (let i = 0; i < 10; i++) await Promise.resolve();
}

describe("the command timeout (fake timers)", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  test("a failed ACK ZCode sends at its own 60 s limit (core.ts commandExecuteTimeoutMs) arrives, not a local timeout", async () => {
    const caps = new CliCapabilities("0.16.9");
    const pending = new PendingRequests(() => {});
    let id = 0;
    const conn = {
      request: (method: string, _p: unknown, opts: { timeoutMs: number; schema?: never }) => {
        id = pending.newId();
        return pending.wait(id, method, 1, opts.timeoutMs, opts.schema);
      },
    };
    const channel = new V4Channel(conn as never);
    const sent = channel.send({ commandId: "c1", clientId: "x", sessionId: "s", type: "retryTurn", payload: {}, issuedAt: 0 });
    const state: { ack?: unknown; error?: unknown } = {};
    sent.then(
      (a) => (state.ack = a),
      (e) => (state.error = e),
    );
    jest.advanceTimersByTime(60_000);
    await flush();
    expect(state).toEqual({});
    pending.settle(
      {
        kind: "response",
        id,
        result: { commandId: "c1", status: "failed", reasonCode: "fault.command.executionFailed", revisionAtDecision: 3 },
      },
      "{}",
      caps,
    );
    await flush();
    expect(state.ack).toMatchObject({ status: "failed", reasonCode: "fault.command.executionFailed" });
    expect(V4_TIMEOUTS.command).toBeGreaterThan(60_000);
  });
});

describe("rowsRange paging", () => {
  const rowsOf = (from: number, to: number, extra: (id: number) => Partial<Row> = () => ({})): Row[] =>
    Array.from(
      { length: to - from + 1 },
      (_, i) => ({ rowId: from + i, turnId: "t2", entityId: `e${from + i}`, kind: "toolCall", ...extra(from + i) }) as Row,
    );

  test("pages back with beforeRowId while hasMore until the prompt and its header are read; CAS from the newest page", async () => {
    // 450 rows: header 1, prompt 2 (editable), tools after; pages of 200 newest first.
    const all = rowsOf(1, 450, (id) =>
      id === 1 ? { kind: "turnHeader" } : id === 2 ? { kind: "userInput", text: "p", actions: { canEdit: true } } : {},
    );
    const asked: unknown[] = [];
    const conn = {
      request: async (_m: string, p: { beforeRowId?: number; limit: number }) => {
        asked.push(p.beforeRowId);
        const older = all.filter((r) => p.beforeRowId === undefined || r.rowId < p.beforeRowId);
        const page = older.slice(-p.limit);
        return {
          rows: page,
          atRevision: p.beforeRowId === undefined ? 7 : 8,
          atLogEpoch: "e",
          atSeq: 1,
          hasMore: older.length > page.length,
        };
      },
    };
    const range = await new V4Channel(conn as never).rowsUntil("s", editTarget("x").enough);
    expect(asked).toEqual([undefined, 251, 51]);
    expect(range.rows.map((r) => r.rowId)).toEqual(all.map((r) => r.rowId));
    expect(range.atRevision).toBe(7);
    expect(editTarget("x").pick(range.rows)).toMatchObject({ target: { rowId: 2 }, payload: { workspaceMode: "preserve" } });
  });

  test("bounded: at most 10 pages, even if ZCode says there is more", async () => {
    let n = 0;
    const conn = {
      request: async (_m: string, p: { beforeRowId?: number }) => {
        n++;
        const top = (p.beforeRowId ?? 1_000_000) - 1;
        return { rows: rowsOf(top - 199, top), atRevision: 1, atLogEpoch: "e", hasMore: true };
      },
    };
    await new V4Channel(conn as never).rowsUntil("s", () => false);
    expect(n).toBe(10);
  });
});

describe("the v4 probe", () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function setup(answers: ProbeAnswer[]) {
    const caps = new CliCapabilities("0.16.9");
    let calls = 0;
    const probe = new V4Probe({ probe: async () => answers[calls++] ?? "yes" }, () => caps);
    return { caps, probe, calls: () => calls };
  }

  test("an unknown answer (error, timeout, garbage) is tried again later: v4 comes back, the menu with it", async () => {
    const { caps, probe, calls } = setup(["unknown"]);
    const heard: (boolean | undefined)[] = [];
    caps.onChange(() => heard.push(caps.v4));
    expect(await probe.ask(caps)).toBe(false);
    jest.advanceTimersByTime(PROBE_RETRY_MS[0] - 1);
    await flush();
    expect(calls()).toBe(1);
    jest.advanceTimersByTime(1);
    await flush();
    expect(calls()).toBe(2);
    expect(heard).toEqual([false, true]);
    expect(await probe.ask(caps)).toBe(true);
    expect(calls()).toBe(2);
  });

  test("bounded: after every retry said nothing, v4 stays off and is not asked again", async () => {
    const { caps, probe, calls } = setup(["unknown", "unknown", "unknown", "unknown"]);
    await probe.ask(caps);
    for (const wait of PROBE_RETRY_MS) {
      jest.advanceTimersByTime(wait);
      await flush();
    }
    jest.advanceTimersByTime(600_000);
    await flush();
    expect(calls()).toBe(PROBE_RETRY_MS.length + 1);
    expect(await probe.ask(caps)).toBe(false);
    expect(calls()).toBe(PROBE_RETRY_MS.length + 1);
  });

  test("-32601 (no v4) is final: never asked again", async () => {
    const { caps, probe, calls } = setup(["no"]);
    expect(await probe.ask(caps)).toBe(false);
    jest.advanceTimersByTime(600_000);
    await flush();
    expect(await probe.ask(caps)).toBe(false);
    expect(calls()).toBe(1);
  });

  test("a session's first request waits for a slow probe only PROBE_BESIDE_MS", async () => {
    let done = false;
    const never = new Promise<boolean>(() => {});
    const probe = new V4Probe({ probe: async () => "yes" }, () => undefined);
    void probe.briefly(never).then(() => (done = true));
    jest.advanceTimersByTime(PROBE_BESIDE_MS - 1);
    await flush();
    expect(done).toBe(false);
    jest.advanceTimersByTime(1);
    await flush();
    expect(done).toBe(true);
  });

  test("the channel: -32601 is no, any other failure unknown", async () => {
    const fail = (err: unknown) => new V4Channel({ request: async () => Promise.reject(err) } as never).probe();
    expect(await fail(new ZCodeError("Method not found", { code: ZCODE_ERR.methodNotFound }))).toBe("no");
    expect(await fail(new ZCodeError("boom", { code: -32603 }))).toBe("unknown");
    expect(await new V4Channel({ request: async () => ({ results: [] }) } as never).probe()).toBe("yes");
  });
});
