// The stdout sink at exit (settle) and when stdout fails, with a fake pipe.
import { expect, test } from "bun:test";
import { captureStderr } from "../support/captured-stderr.ts";
import { openStdoutSink, type ByteSink } from "../../../src/acp/stdio.ts";
import { setLogLevel } from "../../../src/log.ts";

const enc = new TextEncoder();

/**
 * A pipe whose reader can stop: written bytes reach the reader (`text`) only
 * while it reads; until then flush() hangs.
 */
class StallingPipe implements ByteSink {
  text = "";
  private held = "";
  private paused = true;
  private wake: (() => void) | undefined;
  write(chunk: Uint8Array) {
    this.held += new TextDecoder().decode(chunk);
    return chunk.length;
  }
  flush(): number | Promise<number> {
    if (!this.paused) return this.take();
    return new Promise<number>((r) => (this.wake = () => r(this.take())));
  }
  resume() {
    this.paused = false;
    this.wake?.();
  }
  private take(): number {
    const n = this.held.length;
    this.text += this.held;
    this.held = "";
    return n;
  }
}

const turn = () => new Promise((r) => setImmediate(r));

const stderr = captureStderr();

test("settle waits for a reader that comes back within the grace: everything arrives", async () => {
  const pipe = new StallingPipe();
  const sink = openStdoutSink({ onGone: () => {}, writer: pipe });
  const w = sink.writable.getWriter();
  // One flush goes out and stalls; the next lines wait in the sink's queue.
  for (let i = 0; i < 10; i++) void w.write(enc.encode(`{"n":${i}}\n`));
  await turn();
  await turn();
  for (let i = 10; i < 20; i++) void w.write(enc.encode(`{"n":${i}}\n`));
  await turn();
  setTimeout(() => pipe.resume(), 150);
  expect(await sink.settle(Date.now() + 3000)).toBe(true);
  expect(
    pipe.text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).n),
  ).toEqual([...Array(20).keys()]);
});

test("settle past the deadline: queued lines dropped whole, the write in the pipe finished whenever the reader comes back, and it says so", async () => {
  const pipe = new StallingPipe();
  const sink = openStdoutSink({ onGone: () => {}, writer: pipe });
  const w = sink.writable.getWriter();
  for (let i = 0; i < 10; i++) void w.write(enc.encode(`{"n":${i}}\n`));
  await turn();
  await turn();
  for (let i = 10; i < 20; i++) void w.write(enc.encode(`{"n":${i}}\n`));
  await turn();
  let settled = false;
  const done = sink.settle(Date.now() + 100).then((all) => {
    settled = true;
    return all;
  });
  // The grace is spent: the bridge says so, and still waits for the line it began.
  while (!stderr.lines.join("").includes("did not read our output")) await new Promise((r) => setTimeout(r, 10));
  expect(stderr.lines.join("")).toMatch(
    /did not read our output for [\d.]+ s at exit: 10 message\(s\) not sent; waiting for it to take the rest of the last one sent/,
  );
  expect(settled).toBe(false);
  pipe.resume();
  expect(await done).toBe(false);
  // Whole lines only: the first flush complete, the queued ones not at all.
  expect(
    pipe.text
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l).n),
  ).toEqual([...Array(10).keys()]);
  expect(pipe.text.endsWith("\n")).toBe(true);
});

test("a stdout failure is a log line (it obeys --log-level), not a raw stderr write", async () => {
  setLogLevel("silent");
  let gone = 0;
  const broken: ByteSink = {
    write() {
      throw new Error("EIO: i/o error");
    },
    flush: () => 0,
  };
  const w = openStdoutSink({ onGone: () => gone++, writer: broken }).writable.getWriter();
  await w.write(enc.encode("a\n"));
  await Bun.sleep(10);
  expect(gone).toBe(1);
  expect(stderr.lines).toEqual([]);
  setLogLevel("warn");
  const w2 = openStdoutSink({ onGone: () => {}, writer: broken }).writable.getWriter();
  await w2.write(enc.encode("a\n"));
  await Bun.sleep(10);
  expect(stderr.lines.join("")).toMatch(/^\S+Z ERROR stdout failed: EIO/);
});
