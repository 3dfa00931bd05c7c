// The simulator's own stdio framing: one JSON object per line, no `jsonrpc`
// field. Deliberately independent of src/zcode so a bug there is not mirrored
// here.
import { appendFileSync } from "node:fs";

export function log(msg: string): void {
  process.stderr.write(`[zcode-sim] ${msg}\n`);
}

/** Yields each line of a byte stream (trailing `\r` removed). */
export async function* readLines(stream: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  const dec = new TextDecoder();
  let tail = "";
  for await (const chunk of stream) {
    // Only the new text is searched: a line of many MiB costs its length, not its length squared.
    const from = tail.length;
    tail += dec.decode(chunk, { stream: true });
    let nl = tail.indexOf("\n", from);
    if (nl < 0) continue;
    let start = 0;
    while (nl >= 0) {
      let line = tail.slice(start, nl);
      if (line.endsWith("\r")) line = line.slice(0, -1);
      yield line;
      start = nl + 1;
      nl = tail.indexOf("\n", start);
    }
    tail = tail.slice(start);
  }
  tail += dec.decode();
  if (tail.length > 0) yield tail.endsWith("\r") ? tail.slice(0, -1) : tail;
}

/** Appends each received line as `{t, line}` (ZCODE_SIM_RECORD). Synchronous so a
 * test can read the file the moment it sees the answer. */
export function recorder(path: string | undefined): (line: string) => void {
  if (!path) return () => {};
  return (line) => {
    try {
      appendFileSync(path, `${JSON.stringify({ t: Date.now(), line })}\n`);
    } catch (e) {
      log(`cannot record to ${path}: ${(e as Error).message}`);
    }
  };
}

const FLUSH_BYTES = 1 << 16;

/**
 * Buffered stdout: frames written in one event-loop turn go out in one write;
 * `ready()` resolves once the pipe has drained, so floods are paced by the reader.
 */
export class Out {
  private buf: string[] = [];
  private size = 0;
  private scheduled = false;
  private draining: Promise<void> | undefined;
  private gone = false;
  private corked: { until: (line: string) => boolean; timer: ReturnType<typeof setTimeout> } | undefined;
  onGone: () => void = () => {};
  /** Runs before each write (the store makes events durable before the bridge sees them). */
  beforeWrite: () => void = () => {};

  constructor(private readonly stream: NodeJS.WriteStream = process.stdout) {
    stream.on("error", () => this.markGone());
  }

  private markGone(): void {
    if (this.gone) return;
    this.gone = true;
    this.onGone();
  }

  frame(obj: unknown): void {
    this.raw(JSON.stringify(obj));
  }

  /** Writes one line verbatim (may be invalid JSON on purpose). */
  raw(line: string): void {
    if (this.gone) return;
    this.buf.push(line, "\n");
    this.size += line.length + 1;
    if (this.corked) {
      if (this.corked.until(line)) this.uncork();
      return;
    }
    if (this.size >= FLUSH_BYTES) this.flush();
    else if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
  }

  /** Writes raw bytes (possibly not UTF-8) as one line, after everything queued. */
  bytes(b: Uint8Array): void {
    if (this.gone) return;
    this.uncork();
    this.flush();
    const line = new Uint8Array(b.length + 1);
    line.set(b);
    line[b.length] = 10;
    try {
      if (!this.stream.write(line) && !this.draining) this.waitDrain();
    } catch {
      this.markGone();
    }
  }

  private waitDrain(): void {
    this.draining = new Promise((resolve) => {
      this.stream.once("drain", () => {
        this.draining = undefined;
        resolve();
      });
    });
  }

  /**
   * ZCODE_SIM_ACK_WITH_FIRST_TEXT (main.ts): nothing is written until a line
   * `until` accepts has been queued (or `maxMs` passed); then all of it goes
   * out in one write, as a pipe read by a busy reader delivers it anyway.
   */
  cork(until: (line: string) => boolean, maxMs: number): void {
    if (this.corked) return;
    this.corked = { until, timer: setTimeout(() => this.uncork(), maxMs) };
  }

  private uncork(): void {
    if (!this.corked) return;
    clearTimeout(this.corked.timer);
    this.corked = undefined;
    this.flush();
  }

  flush(): void {
    this.scheduled = false;
    if (this.corked || this.size === 0 || this.gone) return;
    this.beforeWrite();
    const data = this.buf.join("");
    this.buf = [];
    this.size = 0;
    let ok = true;
    try {
      ok = this.stream.write(data);
    } catch {
      this.markGone();
      return;
    }
    if (!ok && !this.draining) this.waitDrain();
  }

  /** Resolves when the consumer has caught up (or at once when it has). */
  ready(): Promise<void> | undefined {
    return this.draining;
  }

  /** Flushes everything and waits until the OS took it. */
  async drain(): Promise<void> {
    this.flush();
    if (this.gone) return;
    await new Promise<void>((resolve) => {
      try {
        this.stream.write("", () => resolve());
      } catch {
        resolve();
      }
    });
  }
}
