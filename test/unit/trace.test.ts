import { describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { REDACTED } from "../../src/redact.ts";
import { openTrace, parseTrace } from "../../src/trace.ts";

const dir = mkdtempSync(join(tmpdir(), "trace-unit-"));

describe("openTrace", () => {
  test("writes {t, dir, msg} lines, redacted, mode 0600, batched per event-loop turn", async () => {
    const path = join(dir, "a.jsonl");
    const tr = openTrace(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    const before = Date.now();
    tr.line("editor->bridge", JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: { _meta: { token: "tok-123" } } }));
    tr.line("bridge->zcode", '{"id":1,"method":"session/create","params":{}}');
    tr.line("zcode->bridge", "this is not json password=hunter2");
    // Nothing hits the disk synchronously: the write is batched.
    expect(readFileSync(path, "utf8")).toBe("");
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
    const entries = parseTrace(readFileSync(path, "utf8"));
    expect(entries.length).toBe(3);
    expect(entries.map((e) => e.dir)).toEqual(["editor->bridge", "bridge->zcode", "zcode->bridge"]);
    expect(entries[0]!.t).toBeGreaterThanOrEqual(before);
    expect((entries[0]!.msg as any).params._meta.token).toBe(REDACTED);
    expect(entries[1]!.msg).toEqual({ id: 1, method: "session/create", params: {} });
    expect(entries[2]!.raw).toBe(`this is not json password=${REDACTED}`);
    expect(readFileSync(path, "utf8")).not.toContain("tok-123");
    expect(readFileSync(path, "utf8")).not.toContain("hunter2");
    await tr.close();
  });

  test("an existing world-readable file is truncated and tightened to 0600", async () => {
    const path = join(dir, "b.jsonl");
    writeFileSync(path, "old content\n");
    chmodSync(path, 0o644);
    const tr = openTrace(path);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    tr.line("bridge->editor", '{"jsonrpc":"2.0","id":0,"result":{}}');
    await tr.close();
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("old content");
    expect(parseTrace(text).length).toBe(1);
  });

  test("chunks are reassembled into lines per direction, UTF-8 split across chunks", async () => {
    const path = join(dir, "c.jsonl");
    const tr = openTrace(path);
    const bytes = new TextEncoder().encode('{"a":"日本"}\n{"b":2}\r\n{"c":');
    tr.chunk("bridge->editor", bytes.subarray(0, 7));
    tr.chunk("zcode->bridge", '{"z":1}\n');
    tr.chunk("bridge->editor", bytes.subarray(7));
    tr.chunk("bridge->editor", "3}\n");
    await tr.close();
    const entries = parseTrace(readFileSync(path, "utf8"));
    expect(entries.filter((e) => e.dir === "bridge->editor").map((e) => e.msg)).toEqual([{ a: "日本" }, { b: 2 }, { c: 3 }]);
    expect(entries.filter((e) => e.dir === "zcode->bridge").map((e) => e.msg)).toEqual([{ z: 1 }]);
  });

  test("records after close are dropped; close flushes a trailing partial line", async () => {
    const path = join(dir, "d.jsonl");
    const tr = openTrace(path);
    tr.chunk("editor->bridge", '{"last":true}');
    await tr.close();
    tr.line("editor->bridge", '{"late":true}');
    await new Promise((r) => setImmediate(r));
    expect(parseTrace(readFileSync(path, "utf8")).map((e) => e.msg)).toEqual([{ last: true }]);
  });

  test("recording is cheap: 200k frames recorded in well under a second", async () => {
    const path = join(dir, "e.jsonl");
    const tr = openTrace(path);
    const frame = JSON.stringify({
      method: "session/event",
      params: { sessionId: "s", seq: 1, type: "model.streaming", payload: { kind: "text_delta", text: "x".repeat(64) } },
    });
    // CPU time, not wall time: other processes on a busy machine must not count.
    const cpu0 = process.cpuUsage();
    for (let i = 0; i < 200_000; i++) tr.line("zcode->bridge", frame);
    const cpu = process.cpuUsage(cpu0);
    const recordMs = (cpu.user + cpu.system) / 1000;
    await tr.close();
    expect(recordMs).toBeLessThan(500);
    expect(readFileSync(path, "utf8").split("\n").filter(Boolean).length).toBe(200_000);
    // Writing the 200k lines at close takes seconds on a loaded machine: not what is measured here.
  }, 20_000);

  test("a line of 30 MB costs a bounded record: its structure kept, long strings cut with a note, secrets still redacted", async () => {
    const path = join(dir, "huge.jsonl");
    const tr = openTrace(path);
    const output = `${"x".repeat(30_000_000)} password=hunter2`;
    const frame = {
      method: "session/event",
      params: { seq: 7, sessionId: "s1", payload: { kind: "result", apiKey: "k-secret-1", output } },
    };
    tr.line("zcode->bridge", JSON.stringify(frame));
    tr.line("zcode->bridge", `not json ${"y".repeat(30_000_000)}`);
    tr.line("zcode->bridge", '{"id":2,"result":{}}');
    await tr.close();
    const text = readFileSync(path, "utf8");
    expect(text.length).toBeLessThan(1024 * 1024);
    const [big, raw, small] = parseTrace(text);
    const msg = big!.msg as typeof frame;
    expect(msg.method).toBe("session/event");
    expect(msg.params.seq).toBe(7);
    expect(msg.params.payload.apiKey).toBe(REDACTED);
    expect(msg.params.payload.output).toStartWith("xxxx");
    expect(msg.params.payload.output).toContain("more characters not traced]");
    expect(raw!.raw).toStartWith("not json yyy");
    expect(raw!.raw).toContain("more characters not traced]");
    expect(small!.msg).toEqual({ id: 2, result: {} });
    expect(text).not.toContain("hunter2");
  }, 15_000);

  test("cannot create: throws a clear error", () => {
    expect(() => openTrace(join(dir, "no/such/dir/t.jsonl"))).toThrow(/ENOENT|no such file/i);
  });
});
