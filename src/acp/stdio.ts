// Our own stdio as web streams for the ACP SDK, made right for Bun:
//
// stdout: a WritableStream over Bun.stdout.writer(). Writes made during one
// event-loop turn are joined into one write (every FileSink write is a system
// call; coalescing raises throughput several times). Backpressure is honoured:
// when too much is queued, write() waits for the flush, so a slow editor slows
// us down instead of growing our memory (Writable.toWeb(process.stdout) ignores
// backpressure under Bun). EPIPE (the editor closed our stdout) is caught and
// reported once through onGone: Bun does not die of SIGPIPE, it throws.
//
// stdin: Bun.stdin.stream(), but EOF is held back until the requests already
// read have been answered. The SDK closes the connection on EOF and drops any
// reply still in flight, so `printf '<initialize>\n' | zcode-acp-server` would
// otherwise print nothing.

export interface StdoutSinkOptions {
  onGone: () => void;
  /** Trace tap: each complete line written (without its newline). */
  onLine?: (line: string) => void;
  /** Queue size that makes write() wait for the flush (default 1 MiB). */
  highWaterBytes?: number;
  /** For tests: the sink to write to (default Bun.stdout.writer()). */
  writer?: ByteSink;
}

/** The part of Bun's FileSink we use. */
export interface ByteSink {
  write(chunk: Uint8Array): number | Promise<number>;
  flush(): number | Promise<number>;
}

const enc = new TextEncoder();
const NEWLINE = new Uint8Array([10]);

export function isBrokenPipe(e: unknown): boolean {
  const err = e as { code?: string; message?: string } | undefined;
  return err?.code === "EPIPE" || /EPIPE|broken pipe/i.test(err?.message ?? "");
}

export function createStdoutSink(opts: StdoutSinkOptions): WritableStream<Uint8Array> {
  const sink: ByteSink = opts.writer ?? Bun.stdout.writer();
  const highWater = opts.highWaterBytes ?? 1024 * 1024;
  const tap = opts.onLine ? lineTap(opts.onLine) : undefined;
  let queue: Uint8Array[] = [];
  let queued = 0;
  let scheduled = false;
  let gone = false;
  /** The flush in progress, if any. */
  let inFlight: Promise<void> | undefined;

  const markGone = (e: unknown) => {
    if (gone) return;
    gone = true;
    queue = [];
    queued = 0;
    if (!isBrokenPipe(e)) {
      try {
        process.stderr.write(`zcode-acp-server: stdout failed: ${(e as Error)?.message ?? e}\n`);
      } catch {
        // stderr gone as well
      }
    }
    opts.onGone();
  };

  const flushNow = async (): Promise<void> => {
    scheduled = false;
    if (gone || queued === 0) return;
    const parts = queue;
    const total = queued;
    queue = [];
    queued = 0;
    let buf: Uint8Array;
    if (parts.length === 1) buf = parts[0]!;
    else {
      buf = new Uint8Array(total);
      let off = 0;
      for (const p of parts) {
        buf.set(p, off);
        off += p.length;
      }
    }
    try {
      const w = sink.write(buf);
      if (w instanceof Promise) await w;
      const f = sink.flush();
      if (f instanceof Promise) await f;
    } catch (e) {
      markGone(e);
    }
  };

  /** Flushes serially: a flush never overtakes the one before it. */
  const drain = (): Promise<void> => {
    const run = async () => {
      while (inFlight) await inFlight;
      const p = flushNow();
      inFlight = p;
      try {
        await p;
      } finally {
        if (inFlight === p) inFlight = undefined;
      }
    };
    return run();
  };

  return new WritableStream<Uint8Array>({
    write(chunk) {
      if (gone) return;
      const bytes = typeof chunk === "string" ? enc.encode(chunk) : chunk;
      tap?.(bytes);
      queue.push(bytes);
      queued += bytes.length;
      if (queued >= highWater) return drain();
      if (!scheduled) {
        scheduled = true;
        // setImmediate runs after this turn's promise jobs: one write per turn.
        setImmediate(() => void drain());
      }
      // Below the high-water mark the write completes at once, so the stream
      // hands us the next chunk in the same turn and it joins the same write.
    },
    async close() {
      await drain();
    },
    async abort() {
      await drain().catch(() => {});
    },
  });
}

function lineTap(onLine: (line: string) => void): (bytes: Uint8Array) => void {
  const dec = new TextDecoder();
  let carry = "";
  return (bytes) => {
    try {
      const text = carry + dec.decode(bytes, { stream: true });
      const parts = text.split("\n");
      carry = parts.pop() ?? "";
      for (const p of parts) if (p) onLine(p);
    } catch {
      // a tap never breaks the protocol stream
    }
  };
}

export interface StdinSourceOptions {
  /** Resolves once every request read so far has been answered. */
  pendingRequests: () => Promise<void>;
  /** Trace tap: each complete line read (without its newline). */
  onLine?: (line: string) => void;
  /** For tests: the stream to read (default Bun.stdin.stream()). */
  input?: ReadableStream<Uint8Array>;
}

export function createStdinSource(opts: StdinSourceOptions): ReadableStream<Uint8Array> {
  const input = opts.input ?? Bun.stdin.stream();
  const tap = opts.onLine ? lineTap(opts.onLine) : undefined;
  type Reader = {
    read(): Promise<{ done: boolean; value?: Uint8Array }>;
    cancel(reason?: unknown): Promise<void>;
  };
  let reader: Reader | undefined;
  const getReader = () => (reader ??= input.getReader() as unknown as Reader);
  /** Last byte read (10 = newline, or nothing read yet). */
  let lastByte = 10;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      let r: { done: boolean; value?: Uint8Array };
      try {
        r = await getReader().read();
      } catch {
        r = { done: true };
      }
      if (!r.done && r.value) {
        if (r.value.length > 0) lastByte = r.value[r.value.length - 1]!;
        tap?.(r.value);
        controller.enqueue(r.value);
        return;
      }
      // A last message without its newline (`printf '{…}' | bridge`) is
      // still a message: the SDK only parses terminated lines.
      if (lastByte !== 10) {
        lastByte = 10;
        tap?.(NEWLINE);
        controller.enqueue(NEWLINE);
      }
      // Let the SDK parse and dispatch what it has just been given before we
      // ask what is still pending: two turns of the event loop.
      await new Promise((res) => setImmediate(res));
      await new Promise((res) => setImmediate(res));
      try {
        await opts.pendingRequests();
      } catch {
        // close anyway
      }
      controller.close();
    },
    cancel(reason) {
      return getReader().cancel(reason).catch(() => {});
    },
  });
}
