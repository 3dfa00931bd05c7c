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
// At exit, what is still queued for the editor is flushed within a grace
// (settle); what is not yet in the pipe then is dropped whole. The write
// already handed to the pipe cannot be taken back: exiting before it is done
// would leave the editor half a line, so exit waits for it, however late the
// editor reads, until it is done or the pipe breaks.
//
// stdin: Bun.stdin.stream(), but EOF is held back until the requests already
// read have been answered. The SDK closes the connection on EOF and drops any
// reply still in flight, so `printf '<initialize>\n' | zcode-acp-server` would
// otherwise print nothing.
//
// openAcpStdio puts both together with our line codec (ndjson-stream.ts) into
// the stream the SDK's connection runs on.

import type * as acp from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import type { Trace } from "../trace.ts";
import { ndJsonMessageStream } from "./ndjson-stream.ts";

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

export interface StdoutSink {
  writable: WritableStream<Uint8Array>;
  /**
   * Flushes everything queued, waiting for a slow editor until `deadline`
   * (epoch ms; default STDOUT_SETTLE_MS from now). Lines not yet handed to
   * the pipe by then are dropped whole; the write already in the pipe cannot
   * be taken back, so it is waited for until it is done or the pipe breaks
   * (never a cut line, whenever the editor reads). Resolves true when
   * everything was written.
   */
  settle(deadline?: number): Promise<boolean>;
}

/** How long exit waits for a slow editor to take what is queued for it. */
export const STDOUT_SETTLE_MS = 3000;

export function createStdoutSink(opts: StdoutSinkOptions): WritableStream<Uint8Array> {
  return openStdoutSink(opts).writable;
}

export function openStdoutSink(opts: StdoutSinkOptions): StdoutSink {
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
    // Through the logger like every other line (level, format, log file);
    // it never throws, even with stderr gone.
    if (!isBrokenPipe(e)) log.error(`stdout failed: ${(e as Error)?.message ?? e}`);
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

  const settle = async (deadline = Date.now() + STDOUT_SETTLE_MS): Promise<boolean> => {
    const pending = () => !gone && (queued > 0 || inFlight !== undefined);
    const started = Date.now();
    while (pending() && Date.now() < deadline) await within(drain(), deadline - Date.now());
    if (!pending()) return !gone;
    const dropped = queue.length;
    queue = [];
    queued = 0;
    const partial = inFlight;
    log.warn(
      `the editor did not read our output for ${((Date.now() - started) / 1000).toFixed(1)} s at exit: ` +
        `${dropped} message(s) not sent${partial ? "; waiting for it to take the rest of the last one sent (a line is never cut)" : ""}`,
    );
    // Resolves when the pipe took it all, or broke (the editor closed it).
    if (partial) await partial;
    return dropped === 0 && !gone;
  };

  const writable = new WritableStream<Uint8Array>({
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
  return { writable, settle };
}

/** Waits for `p`, but no longer than `ms` (and leaves no timer behind). */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    await Promise.race([p, new Promise<void>((r) => (timer = setTimeout(r, Math.max(1, ms))))]);
  } finally {
    clearTimeout(timer);
  }
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
      return getReader()
        .cancel(reason)
        .catch(() => {});
    },
  });
}

export interface AcpStdioOptions {
  /** stdout is gone (EPIPE): the editor left. */
  onGone: () => void;
  /** Resolves once every request read so far has been answered (EOF waits for it). */
  pendingRequests: () => Promise<void>;
  /** Longest line accepted from the editor, in bytes. */
  maxMessageBytes: number;
  /** What to read instead of Bun.stdin (the CLI's hand-off, tests). */
  input?: ReadableStream<Uint8Array>;
  /** --trace: both directions are recorded. */
  trace?: Pick<Trace, "tap">;
  /** Whether JSON-RPC batches are taken (an ACP v2 connection) or refused. */
  batches?: () => boolean;
}

export interface AcpStdio {
  /** The stream the SDK's connection runs on. */
  stream: acp.Stream;
  /** Before exit: flush what is queued for the editor (see StdoutSink.settle). */
  settle(): Promise<boolean>;
  /** Resolves once the answers given so far are in stdout's queue (not necessarily in the pipe). */
  handed(): Promise<void>;
}

/** Our stdin and stdout as the ACP message stream the SDK's connection runs on. */
export function openAcpStdio(opts: AcpStdioOptions): AcpStdio {
  // One grace for the whole way out, from stdin's EOF (or the exit, if that
  // comes first): a slow editor gets STDOUT_SETTLE_MS to take our answers.
  let deadline: number | undefined;
  const shutdownDeadline = () => (deadline ??= Date.now() + STDOUT_SETTLE_MS);
  const stdout = openStdoutSink({ onGone: opts.onGone, onLine: opts.trace?.tap("bridge->editor") });
  const stdin = createStdinSource({
    input: opts.input,
    pendingRequests: async () => {
      const until = shutdownDeadline();
      await opts.pendingRequests();
      // The answers are given but may still be on their way out: the SDK
      // writes one message at a time, at the pace the editor reads, and EOF
      // closes the connection, which drops whatever it has not written yet.
      await messages.settled(until);
    },
  });
  // The editor->bridge tap sits after line splitting (one call per line, and
  // never a skipped over-long line), not on the raw bytes.
  const messages = ndJsonMessageStream(stdout.writable, stdin, {
    maxMessageBytes: opts.maxMessageBytes,
    onLine: opts.trace?.tap("editor->bridge"),
    batches: opts.batches,
  });
  const settle = async () => {
    const until = shutdownDeadline();
    // Our own replies may still wait in the codec's queue, behind the sink.
    await messages.settled(until);
    return stdout.settle(until);
  };
  return { stream: messages, settle, handed: () => messages.settled(shutdownDeadline()) };
}
