import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { defaultConfig } from "../../src/config.ts";
import { ZCodeApi } from "../../src/zcode/api.ts";
import { ZCodeConnection, type ChildExit } from "../../src/zcode/connection.ts";
import { ZCodeError, ZCodeExitedError, ZCodeTimeoutError, ZCodeUnsupportedError } from "../../src/zcode/errors.ts";
import type { ZCodeLaunch } from "../../src/zcode/resolve.ts";
import type { RawEvent as ZCodeEvent } from "../../src/zcode/event-schemas.ts";
import { SnapshotSchema as ReadResultSchema } from "../../src/zcode/result-schemas.ts";
import { pollUntil } from "../support/poll.ts";

// The client against real child processes over real pipes: a small scriptable
// fake for the edge cases, and the compiled simulator for the real dialect.

const ROOT = resolve(import.meta.dir, "../..");
const FAKE = join(import.meta.dir, "wire-fake-child.ts");
const SIM = join(ROOT, "dist/zcode-sim");
const fakeLaunch: ZCodeLaunch = { command: [process.execPath, FAKE], entry: FAKE, source: "env" };

let tmp: string;
const open: ZCodeConnection[] = [];
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "wire-client-"));
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function fake(env: Record<string, string> = {}, opts: { defaultTimeoutMs?: number; killGraceMs?: number } = {}) {
  const c = new ZCodeConnection(defaultConfig({ env: { ...process.env, ...env } }), { launch: fakeLaunch, ...opts });
  open.push(c);
  return c;
}

function sim(env: Record<string, string> = {}) {
  if (!existsSync(SIM)) throw new Error(`${SIM} is missing: run \`bun run build --sim-only\` first`);
  const c = new ZCodeConnection(
    defaultConfig({
      zcodeBin: SIM,
      env: { ...process.env, ZCODE_SIM_STATE_DIR: join(tmp, "sim-state"), ZCODE_SIM_DELAY_MS: "1", ...env },
    }),
  );
  open.push(c);
  return c;
}

/** For `.then(unexpected, (e) => e)`: a promise that should have failed. */
function unexpected(v: unknown): any {
  throw new Error(`expected a failure, got ${JSON.stringify(v)}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function waitUntil(cond: () => boolean, ms: number): Promise<boolean> {
  return pollUntil(cond, ms, 20);
}

function pgidOf(pid: number): number {
  const stat = require("node:fs").readFileSync(`/proc/${pid}/stat`, "utf8") as string;
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]);
}

describe("requests and responses", () => {
  test("the child starts lazily, once, in its own process group", async () => {
    const c = fake();
    expect(c.generation).toBe(0);
    const [a, b] = await Promise.all([c.start(), c.start()]);
    expect(a).toBe(b);
    expect(a.generation).toBe(1);
    expect(a.version).toBe("0.15.3");
    expect(a.capabilities.supports("session/steer")).toBe(true);
    expect(alive(a.pid)).toBe(true);
    if (process.platform === "linux") {
      expect(pgidOf(a.pid)).toBe(a.pid);
      expect(pgidOf(a.pid)).not.toBe(pgidOf(process.pid));
    }
  });

  test("correlates many concurrent requests answered out of order", async () => {
    const c = fake();
    const ms = Array.from({ length: 40 }, (_, i) => (i * 7) % 23);
    const results = await Promise.all(ms.map((m) => c.request<{ slept: number }>("slow", { ms: m })));
    expect(results.map((r) => r.slept)).toEqual(ms);
  });

  test("a response that echoes its method is still a response to our id", async () => {
    const c = fake();
    expect(await c.request("echo-with-method", { x: 1 })).toEqual({ x: 1 });
  });

  test("error answers become ZCodeError with the CLI's code, message and method", async () => {
    const c = fake();
    const err = await c.request("fail", {}).then(unexpected, (e: any) => e);
    expect(err).toBeInstanceOf(ZCodeError);
    expect(err.code).toBe(1308);
    expect(err.message).toBe("prompt is running");
    expect(err.method).toBe("fail");
  });

  test("a -32601 answer marks the method unsupported in the capabilities", async () => {
    const c = fake();
    const info = await c.start();
    let changed = 0;
    info.capabilities.onChange(() => changed++);
    const err = await c.request("unknown", {}).then(unexpected, (e: any) => e);
    expect(err.code).toBe(-32601);
    expect(info.capabilities.supports("unknown")).toBe(false);
    expect(changed).toBe(1);
  });

  test("results are validated with the given schema", async () => {
    const c = fake();
    expect(await c.request("echo", { session: { sessionId: "s" } }, { schema: ReadResultSchema })).toEqual({
      session: { sessionId: "s" },
    });
    const err = await c.request("echo", { session: { title: 3 } }, { schema: ReadResultSchema }).then(unexpected, (e: any) => e);
    expect(err).toBeInstanceOf(ZCodeError);
    expect(err.message).toContain("unexpected shape");
  });

  test("timeouts reject with ZCodeTimeoutError; a late answer is ignored", async () => {
    const c = fake();
    let lateAnswer = false;
    c.onWire = (dir, line) => {
      if (dir === "from-zcode" && line.includes('"slept"')) lateAnswer = true;
    };
    const err = await c.request("slow", { ms: 300 }, { timeoutMs: 80 }).then(unexpected, (e: any) => e);
    expect(err).toBeInstanceOf(ZCodeTimeoutError);
    expect(err.method).toBe("slow");
    // Rejected on our timeout, before the child's answer; then that answer comes, and is ignored.
    expect(lateAnswer).toBe(false);
    expect(await waitUntil(() => lateAnswer, 5000)).toBe(true);
    expect(await c.request("echo", { still: "fine" })).toEqual({ still: "fine" });
  });

  test("junk lines and answers to unknown ids are skipped; the stream continues", async () => {
    const c = fake();
    expect(await c.request("junk", {})).toEqual({ after: "junk" });
  });

  test("what we send never carries a jsonrpc field", async () => {
    const c = fake();
    const sent: string[] = [];
    c.onWire = (dir, line) => {
      if (dir === "to-zcode") sent.push(line);
    };
    await c.request("echo", { a: 1 });
    c.notify("note", { b: 2 });
    expect(sent.length).toBe(2);
    for (const l of sent) expect(JSON.parse(l).jsonrpc).toBeUndefined();
  });
});

describe("requests from the child", () => {
  test("unknown methods are answered -32601 at once; runtime preferences automatically", async () => {
    const c = fake();
    const r = await c.request<{ answers: unknown[] }>("ask", { method: "mystery/thing", params: {} });
    expect(r.answers).toEqual([{ id: 1, error: { code: -32601, message: "Method not found: mystery/thing" } }]);
    const p = await c.request<{ answers: unknown[] }>("ask", { method: "session/requestRuntimePreferences", params: {} });
    expect(p.answers).toEqual([
      {
        id: 2,
        result: { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false },
      },
    ]);
  });

  test("handlers answer each request exactly once, errors become error answers, string ids kept", async () => {
    const c = fake();
    const seen: unknown[] = [];
    c.onRequest("interaction/requestPermission", async (params) => {
      seen.push(params);
      await Bun.sleep(5);
      return { decision: "allow" };
    });
    c.onRequest("interaction/requestUserInput", () => {
      throw Object.assign(new Error("no editor"), { code: -32000 });
    });
    const r = await c.request<{ answers: unknown[] }>("ask", {
      method: "interaction/requestPermission",
      params: { requestId: "r1" },
      times: 2,
      ids: ["p-1", "p-2"],
    });
    expect(r.answers).toEqual([
      { id: "p-1", result: { decision: "allow" } },
      { id: "p-2", result: { decision: "allow" } },
    ]);
    expect(seen).toEqual([{ requestId: "r1" }, { requestId: "r1" }]);
    const u = await c.request<{ answers: unknown[] }>("ask", { method: "interaction/requestUserInput", params: {} });
    expect(u.answers).toEqual([{ id: 1, error: { code: -32000, message: "no editor" } }]);
  });
});

describe("events", () => {
  const ev = (sessionId: string, seq: number, delta: string) => ({
    sessionId,
    seq,
    type: "model.streaming",
    payload: { kind: "text_delta", delta },
  });

  test("routed by sessionId, every envelope (unknown types and odd payloads take their seq too); bad envelopes skipped; unsubscribe works", async () => {
    const c = fake();
    const a: ZCodeEvent[] = [];
    const b: ZCodeEvent[] = [];
    const offA = c.onEvent("A", (e) => a.push(e));
    c.onEvent("B", (e) => b.push(e));
    c.onEvent("B", () => {
      throw new Error("a broken listener does not stop the others");
    });
    await c.request("events", {
      events: [
        ev("A", 1, "a1"),
        ev("B", 1, "b1"),
        { sessionId: "A", seq: 2, type: "model.streaming", payload: { kind: "text_delta" } },
        { sessionId: "A", seq: 3, type: "brand.new", payload: {} },
        { sessionId: "A", seq: "x", type: "model.streaming", payload: {} },
        { seq: 9, type: "model.streaming", payload: {} },
        ev("C", 1, "nobody listens"),
        ev("A", 4, "a4"),
      ],
    });
    // The session reads the payloads; routing only needs a session and a seq.
    expect(a.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    expect(b.map((e) => e.seq)).toEqual([1]);
    offA();
    await c.request("events", { events: [ev("A", 5, "a5"), ev("B", 2, "b2")] });
    expect(a.length).toBe(4);
    expect(b.length).toBe(2);
  });
});

describe("child death and restart", () => {
  test("pending requests fail at once with exit code and last stderr lines; next request starts generation 2", async () => {
    const c = fake();
    const exits: ChildExit[] = [];
    c.onExit((e) => exits.push(e));
    const first = await c.start();
    // Failed by the exit (ZCodeExitedError below), not by its 20 s timeout.
    const hanging = c.request("never", {}, { timeoutMs: 20_000 }).then(unexpected, (e: any) => e);
    const crash = await c.request("crash", { code: 3 }).then(unexpected, (e: any) => e);
    const hung = await hanging;
    for (const err of [crash, hung]) {
      expect(err).toBeInstanceOf(ZCodeExitedError);
      expect(err.exitCode).toBe(3);
      expect(err.message).toContain("exited with code 3");
      expect(err.message).toContain("fatal: exploded");
      expect(err.stderrTail.length).toBe(20);
      expect(err.stderrTail.at(-1)).toBe("fatal: exploded");
    }
    expect(hung.method).toBe("never");
    expect(exits).toEqual([{ generation: 1, code: 3, signal: null, stderrTail: crash.stderrTail }]);
    expect(c.capabilities).toBeUndefined();

    const r = await c.request<{ pid: number }>("pid", {});
    expect(c.generation).toBe(2);
    expect(r.pid).not.toBe(first.pid);
    expect((await c.start()).generation).toBe(2);
  });

  test("a child killed by a signal names the signal", async () => {
    const c = fake();
    const info = await c.start();
    const pending = c.request("never", {}).then(unexpected, (e: any) => e);
    process.kill(info.pid, "SIGKILL");
    const err = await pending;
    expect(err).toBeInstanceOf(ZCodeExitedError);
    expect(err.signal).toBe("SIGKILL");
    expect(err.message).toContain("killed by SIGKILL");
  });
});

describe("close", () => {
  test("leaves no process behind and fails what was pending", async () => {
    const c = fake();
    const info = await c.start();
    const pending = c.request("never", {}).then(unexpected, (e: any) => e);
    await c.close();
    expect(alive(info.pid)).toBe(false);
    expect(await pending).toBeInstanceOf(ZCodeExitedError);
    await expect(c.request("echo", {})).rejects.toThrow(/closed/);
  });

  test("a child that ignores stdin EOF and SIGTERM is killed after the grace", async () => {
    const c = fake({ FAKE_IGNORE_EOF: "1", FAKE_IGNORE_TERM: "1" }, { killGraceMs: 300 });
    const info = await c.start();
    await c.request("echo", {}); // its SIGTERM handler is installed by now
    const t0 = Date.now();
    await c.close();
    expect(alive(info.pid)).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
    expect(Date.now() - t0).toBeLessThan(3000);
  });
});

describe("when the bridge is SIGKILLed the child does not outlive it", () => {
  // A stand-in bridge: a process that owns a ZCodeConnection, prints the
  // child's pid, then waits to be killed.
  function holderScript(launchJson: string, env: Record<string, string>): string {
    const file = join(tmp, `holder-${Math.random().toString(36).slice(2)}.ts`);
    writeFileSync(
      file,
      `import { defaultConfig } from ${JSON.stringify(join(ROOT, "src/config.ts"))};
import { ZCodeConnection } from ${JSON.stringify(join(ROOT, "src/zcode/connection.ts"))};
const c = new ZCodeConnection(defaultConfig({ env: { ...process.env, ...${JSON.stringify(env)} } }), { launch: ${launchJson}, killGraceMs: 500 });
const info = await c.start();
process.stdout.write(JSON.stringify({ pid: info.pid }) + "\\n");
setInterval(() => {}, 1000);
`,
    );
    return file;
  }

  async function killHolderAndWatch(file: string): Promise<{ childPid: number; goneAfterMs: number }> {
    const holder = Bun.spawn([process.execPath, file], { stdout: "pipe", stderr: "inherit", stdin: "ignore" });
    const reader = holder.stdout.getReader();
    let text = "";
    while (!text.includes("\n")) {
      const r = await reader.read();
      if (r.done) break;
      text += new TextDecoder().decode(r.value);
    }
    const { pid } = JSON.parse(text) as { pid: number };
    expect(alive(pid)).toBe(true);
    const t0 = Date.now();
    holder.kill("SIGKILL");
    await holder.exited;
    const gone = await waitUntil(() => !alive(pid), 5000);
    if (!gone) process.kill(-pid, "SIGKILL");
    expect(gone).toBe(true);
    return { childPid: pid, goneAfterMs: Date.now() - t0 };
  }

  test("the simulator (exits on stdin EOF)", async () => {
    if (!existsSync(SIM)) throw new Error(`${SIM} is missing: run \`bun run build --sim-only\` first`);
    const launch: ZCodeLaunch = { command: [SIM], entry: SIM, source: "env" };
    const r = await killHolderAndWatch(holderScript(JSON.stringify(launch), { ZCODE_SIM_STATE_DIR: join(tmp, "s2") }));
    expect(r.goneAfterMs).toBeLessThan(3000);
  });

  test("a child that ignores stdin EOF and SIGTERM: the watchdog ends its group", async () => {
    if (process.platform === "win32") return;
    const r = await killHolderAndWatch(holderScript(JSON.stringify(fakeLaunch), { FAKE_IGNORE_EOF: "1", FAKE_IGNORE_TERM: "1" }));
    expect(r.goneAfterMs).toBeLessThan(4000);
  });
});

describe("against the ZCode simulator", () => {
  test("create (runtime preferences answered), subscribe, send, stream a turn to completion", async () => {
    const c = sim();
    const api = new ZCodeApi(c);
    const created = await api.create({ workspace: tmp });
    const sessionId = created.session.sessionId;
    expect(sessionId).toBeString();
    const events: ZCodeEvent[] = [];
    const done = new Promise<void>((res) =>
      c.onEvent(sessionId, (e) => {
        events.push(e);
        if (e.type === "turn.completed" || e.type === "turn.failed") res();
      }),
    );
    await api.subscribe({ sessionId });
    expect((await api.send({ sessionId, content: "hello wire" })).accepted).toBe(true);
    await done;
    // ZCode names the session from the first input before the turn starts.
    const types = events.map((e) => e.type);
    expect(types[0]).toBe("session.titleUpdated");
    expect(types.indexOf("session.titleUpdated")).toBeLessThan(types.indexOf("turn.started"));
    expect(events.filter((e) => e.type === "turn.completed").length).toBe(1);
    const text = events
      .map((e) => {
        const p = e.payload as { kind?: string; delta?: string };
        return e.type === "model.streaming" && p.kind === "text_delta" ? p.delta : "";
      })
      .join("");
    expect(text).toContain("hello wire");
    const seqs = events.map((e) => e.seq);
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const read = await api.read(sessionId);
    expect(read.projection?.status).toBe("idle");
    expect(api.capabilities()?.version).toBe("0.16.9");
  });

  test("sending while a turn runs answers -32010; the turn then completes", async () => {
    const c = sim({});
    const api = new ZCodeApi(c);
    const { session } = await api.create({ workspace: tmp });
    const done = new Promise<void>((res) =>
      c.onEvent(session.sessionId, (e) => {
        if (e.type === "turn.completed") res();
      }),
    );
    // The turn waits on its permission request until the busy send has its answer: a turn that
    // ended first (a loaded machine) would accept the second send.
    let busyAnswered!: () => void;
    const held = new Promise<void>((res) => (busyAnswered = res));
    const asked = new Promise<void>((res) =>
      c.onRequest("interaction/requestPermission", async () => {
        res();
        await held;
        return { decision: "deny" };
      }),
    );
    await api.subscribe({ sessionId: session.sessionId });
    await api.send({ sessionId: session.sessionId, content: "#scenario:permission" });
    await asked;
    const busy = await api.send({ sessionId: session.sessionId, content: "again" }).then(unexpected, (e: any) => e);
    busyAnswered();
    expect(busy).toBeInstanceOf(ZCodeError);
    expect(busy.code).toBe(-32010);
    expect(busy.message).toBe("A prompt is already running for this session");
    await done;
  });

  test("an unknown request mid-turn is answered -32601 and the turn completes", async () => {
    const c = sim({ ZCODE_SIM_RECORD: join(tmp, "record.jsonl") });
    const api = new ZCodeApi(c);
    const { session } = await api.create({ workspace: tmp });
    const done = new Promise<void>((res) =>
      c.onEvent(session.sessionId, (e) => {
        if (e.type === "turn.completed") res();
      }),
    );
    await api.subscribe({ sessionId: session.sessionId });
    await api.send({ sessionId: session.sessionId, content: "#scenario:unknown-request" });
    await done;
    const recorded = (await Bun.file(join(tmp, "record.jsonl")).text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(JSON.parse(l).line));
    expect(recorded.some((f) => f.error?.code === -32601)).toBe(true);
    expect(recorded.every((f) => f.jsonrpc === undefined)).toBe(true);
  });

  test("a crash mid-turn fails pending requests with the simulator's stderr; the next request restarts it", async () => {
    const c = sim({ ZCODE_SIM_SCENARIO: "default" });
    const api = new ZCodeApi(c);
    const { session } = await api.create({ workspace: tmp });
    const exited = new Promise<ChildExit>((res) => c.onExit(res));
    await api.subscribe({ sessionId: session.sessionId });
    await api.send({ sessionId: session.sessionId, content: "#scenario:crash" });
    const exit = await exited;
    expect(exit.code).toBe(3);
    expect(exit.stderrTail.length).toBeGreaterThan(0);
    const again = await api.list({ workspace: tmp });
    expect(c.generation).toBe(2);
    expect(again.sessions.some((s) => s.sessionId === session.sessionId)).toBe(true);
  });

  test("a CLI older than 0.14.8 is refused with a clear error, and its version is recorded", async () => {
    const c = sim({ ZCODE_SIM_VERSION: "0.14.7" });
    const err = await c.start().then(unexpected, (e: any) => e);
    expect(err).toBeInstanceOf(ZCodeUnsupportedError);
    expect(err.message).toContain("0.14.7");
    expect(err.message).toContain("0.14.8");
    expect(c.detectedVersion).toBe("0.14.7");
    expect(c.generation).toBe(0);
  });

  test("0.16 personality: steer is unsupported by the table and by its -32601 answer", async () => {
    const c = sim({ ZCODE_SIM_VERSION: "0.16.2" });
    const api = new ZCodeApi(c);
    const { session } = await api.create({ workspace: tmp });
    const caps = api.capabilities()!;
    expect(caps.supports("session/steer")).toBe(false);
    expect(caps.supports("session/fork")).toBe(true);
    const err = await api.steer({ sessionId: session.sessionId, content: "x" }).then(unexpected, (e: any) => e);
    expect(err.code).toBe(-32601);
  });
});
