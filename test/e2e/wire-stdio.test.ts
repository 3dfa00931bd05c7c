import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { envAsShipped } from "../../scripts/allocator-env.ts";
import { createStdinSource, createStdoutSink, type ByteSink } from "../../src/acp/stdio.ts";

// Our own stdout and stdin under real pipes: coalescing, backpressure, EPIPE,
// and EOF held back until pending requests are answered.

const CHILD = join(import.meta.dir, "wire-stdio-child.ts");
const enc = new TextEncoder();

class RecordingSink implements ByteSink {
  writes: Uint8Array[] = [];
  flushes = 0;
  write(chunk: Uint8Array) {
    this.writes.push(chunk.slice());
    return chunk.length;
  }
  flush() {
    this.flushes++;
    return 0;
  }
}

describe("stdout sink", () => {
  test("the messages of one event-loop turn leave in one write, in order", async () => {
    const rec = new RecordingSink();
    const lines: string[] = [];
    const w = createStdoutSink({ onGone: () => {}, writer: rec, onLine: (l) => lines.push(l) }).getWriter();
    for (let i = 0; i < 100; i++) void w.write(enc.encode(`{"n":${i}}\n`));
    await Bun.sleep(5);
    expect(rec.writes.length).toBe(1);
    const text = new TextDecoder().decode(rec.writes[0]);
    expect(
      text
        .split("\n")
        .filter(Boolean)
        .map((l) => JSON.parse(l).n),
    ).toEqual([...Array(100).keys()]);
    expect(lines.length).toBe(100);
    void w.write(enc.encode('{"n":"next turn"}\n'));
    await Bun.sleep(5);
    expect(rec.writes.length).toBe(2);
  });

  test("a failing write is reported once through onGone and later writes are dropped", async () => {
    let gone = 0;
    const broken: ByteSink = {
      write() {
        throw Object.assign(new Error("write EPIPE"), { code: "EPIPE" });
      },
      flush: () => 0,
    };
    const w = createStdoutSink({ onGone: () => gone++, writer: broken }).getWriter();
    await w.write(enc.encode("a\n"));
    await Bun.sleep(5);
    await w.write(enc.encode("b\n"));
    await Bun.sleep(5);
    expect(gone).toBe(1);
  });

  test("a slow reader slows the writer down: all data arrives intact and memory stays bounded", async () => {
    const n = 50_000;
    const size = 2000; // 100 MB in total
    // Its RSS is measured: with the allocator as Bun ships it.
    const p = Bun.spawn([process.execPath, CHILD, "flood", String(n), String(size)], {
      stdout: "pipe",
      stderr: "pipe",
      env: envAsShipped(),
    });
    const reader = p.stdout.getReader();
    let bytes = 0;
    let next = 0;
    let carry = "";
    const dec = new TextDecoder();
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      bytes += r.value.length;
      carry += dec.decode(r.value, { stream: true });
      const parts = carry.split("\n");
      carry = parts.pop()!;
      for (const l of parts) {
        expect(Number(l.slice(0, 10))).toBe(next++);
        expect(l.length).toBe(size - 1);
      }
      if (next < 2000) await Bun.sleep(2); // read slowly at first
    }
    expect(await p.exited).toBe(0);
    expect(next).toBe(n);
    expect(bytes).toBe(n * size);
    const rss = Number(/rss (\d+)/.exec(await new Response(p.stderr).text())?.[1]);
    // Measured: ~80 MB with backpressure, ~140 MB when the queue is unbounded.
    expect(rss).toBeLessThan(110);
  });

  test("EPIPE (the editor closed our stdout) is caught and reported, not a crash", async () => {
    const p = Bun.spawn([process.execPath, CHILD, "epipe"], { stdout: "pipe", stderr: "pipe" });
    const reader = p.stdout.getReader();
    await reader.read();
    await reader.cancel();
    const code = await p.exited;
    const err = await new Response(p.stderr).text();
    expect(err).toContain("gone");
    expect(code).toBe(0);
  });
});

describe("stdin source", () => {
  test("a last message without its newline gets one before EOF (the SDK parses terminated lines only)", async () => {
    const read = async (chunks: string[]) => {
      const input = new ReadableStream<Uint8Array>({
        start(c) {
          for (const ch of chunks) c.enqueue(new TextEncoder().encode(ch));
          c.close();
        },
      });
      const lines: string[] = [];
      let text = "";
      for await (const chunk of createStdinSource({ pendingRequests: async () => {}, input, onLine: (l) => lines.push(l) }))
        text += new TextDecoder().decode(chunk);
      return { text, lines };
    };
    expect(await read(['{"id":1}\n{"id":', "2}"])).toEqual({ text: '{"id":1}\n{"id":2}\n', lines: ['{"id":1}', '{"id":2}'] });
    expect((await read(['{"id":1}\n'])).text).toBe('{"id":1}\n');
    expect((await read([])).text).toBe("");
  });

  test("EOF is delivered only after pendingRequests() resolves, even when data and EOF come together", async () => {
    const p = Bun.spawn([process.execPath, CHILD, "stdin", "300"], { stdin: "pipe", stdout: "ignore", stderr: "pipe" });
    p.stdin.write('{"jsonrpc":"2.0","id":0,"method":"initialize"}\n');
    p.stdin.end();
    expect(await p.exited).toBe(0);
    const err = await new Response(p.stderr).text();
    expect(err).toContain("data 47");
    const held = Number(/eof (\d+)/.exec(err)?.[1]);
    expect(held).toBeGreaterThanOrEqual(290);
  });
});
