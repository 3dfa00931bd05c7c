import { DEFAULT_MAX_LINE_BYTES } from "./config.ts";

// Line splitting for the ZCode child's stdout (and anything else that speaks
// JSON lines). The hot path of the whole bridge: every event the CLI streams
// passes through here, so it avoids copies and repeated work:
// - each chunk is scanned with indexOf(10) (native memchr);
// - a line that lies inside one chunk is decoded straight from a subarray view;
// - a line spread over several chunks keeps those chunks as views and is copied
//   exactly once, when its newline arrives;
// - every line is decoded exactly once.
// Chunks from Bun pipes are fresh buffers, so holding views across reads is
// safe. A line longer than `maxLineBytes` is never buffered: its bytes are
// dropped as they arrive, it is reported once with its full size, and the
// lines after it still arrive.

export interface LineSplitterOptions {
  /** Longest accepted line in bytes, newline excluded (default: config.ts DEFAULT_MAX_LINE_BYTES). */
  maxLineBytes?: number;
  /**
   * Called once per skipped over-long line with its size in bytes, when its
   * end (newline or EOF) arrives, the first `overlongHeadBytes` of it, and
   * whether a reduced copy is delivered in its place.
   */
  onOverlong?: (bytes: number, head: Uint8Array, reduced: boolean) => void;
  /**
   * How much of the start of an over-long line to keep for onOverlong (a
   * copy, bounded: default 0). The editor side reads a request id there.
   */
  overlongHeadBytes?: number;
  /**
   * A reducer for an over-long line: it is fed the line's bytes as they pass
   * (none are buffered here) and may hand back a smaller line to deliver in
   * its place (ZCode's snapshots without their transcript).
   */
  reduceOverlong?: () => OverlongReducer;
}

/** Reads an over-long line as it streams by and may keep a reduced copy of it. */
export interface OverlongReducer {
  push(bytes: Uint8Array): void;
  /** The reduced line, or undefined when it could not be reduced. */
  finish(): string | undefined;
}

export type LineHandler = (line: string) => void;

const NL = 10;
const EMPTY: Uint8Array = new Uint8Array(0);
/** Longest line copied into the reusable join buffer. */
const SCRATCH_MAX = 4 * 1024 * 1024;
const CR = 13;

/**
 * Push API: feed chunks with `push()`, call `end()` at EOF; complete lines go
 * to the handler synchronously. This is the fast path (no promise per line).
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder("utf-8", { fatal: false });
  private readonly max: number;
  private readonly onOverlong: ((bytes: number, head: Uint8Array, reduced: boolean) => void) | undefined;
  private readonly headMax: number;
  /** Start of the over-long line being skipped (at most headMax bytes). */
  private head: Uint8Array = EMPTY;
  /** Views of the current partial line, oldest first. */
  private tail: Uint8Array[] = [];
  private tailBytes = 0;
  /** > 0 while dropping an over-long line: bytes seen of it so far. */
  private skipping = 0;
  private readonly reduceOverlong: (() => OverlongReducer) | undefined;
  /** The reducer fed the over-long line being dropped, if any. */
  private reducer: OverlongReducer | undefined;
  private scratch = new Uint8Array(0);

  constructor(
    private readonly onLine: LineHandler,
    opts: LineSplitterOptions = {},
  ) {
    this.max = opts.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES;
    this.onOverlong = opts.onOverlong;
    this.headMax = opts.overlongHeadBytes ?? 0;
    this.reduceOverlong = opts.reduceOverlong;
  }

  push(chunk: Uint8Array): void {
    const len = chunk.length;
    if (len === 0) return;
    let start = 0;

    if (this.skipping > 0) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        this.skipping += len;
        this.reducer?.push(chunk);
        return;
      }
      this.reducer?.push(chunk.subarray(0, nl));
      this.reportOverlong(this.skipping + nl, this.head);
      this.skipping = 0;
      this.head = EMPTY;
      start = nl + 1;
    } else if (this.tailBytes > 0) {
      const nl = chunk.indexOf(NL);
      if (nl < 0) {
        const total = this.tailBytes + len;
        if (total > this.max) this.startSkipping(total, this.headOf(this.tail, chunk), [...this.tail, chunk]);
        else {
          this.tail.push(chunk);
          this.tailBytes = total;
        }
        return;
      }
      const total = this.tailBytes + nl;
      if (total > this.max) {
        const head = this.headOf(this.tail, chunk.subarray(0, nl));
        this.reducer = this.newReducer([...this.tail, chunk.subarray(0, nl)]);
        this.tail = [];
        this.tailBytes = 0;
        this.reportOverlong(total, head);
      } else {
        this.emitJoined(chunk, nl, total);
      }
      start = nl + 1;
    }

    const last = chunk.lastIndexOf(NL);
    if (last >= start) {
      if (last - start <= this.max) {
        // No line in this region can exceed the cap: decode it in one go.
        if (last > start) this.emitRegion(chunk, start, last);
      } else {
        this.emitEach(chunk, start, last);
      }
      start = last + 1;
    }

    if (start < len) {
      const rest = len - start;
      if (rest > this.max) this.startSkipping(rest, this.headOf([], chunk.subarray(start)), [chunk.subarray(start)]);
      else {
        this.tail.push(start === 0 ? chunk : chunk.subarray(start));
        this.tailBytes = rest;
      }
    }
  }

  /** EOF: a final line without a newline is still a line. */
  end(): void {
    if (this.skipping > 0) {
      this.reportOverlong(this.skipping, this.head);
      this.skipping = 0;
      this.head = EMPTY;
      return;
    }
    if (this.tailBytes > 0) {
      const total = this.tailBytes;
      const buf = this.joinTail(total);
      this.tail = [];
      this.tailBytes = 0;
      this.emit(buf, 0, total);
    }
  }

  private startSkipping(bytesSoFar: number, head: Uint8Array, seen: Uint8Array[]): void {
    this.reducer = this.newReducer(seen);
    this.tail = [];
    this.tailBytes = 0;
    this.skipping = bytesSoFar;
    this.head = head;
  }

  /** A reducer already fed `seen` (the start of the over-long line), when one is configured. */
  private newReducer(seen: Uint8Array[]): OverlongReducer | undefined {
    if (!this.reduceOverlong) return undefined;
    const r = this.reduceOverlong();
    for (const part of seen) r.push(part);
    return r;
  }

  /** An over-long line ended: reported, and its reduced copy (if any) delivered in its place. */
  private reportOverlong(bytes: number, head: Uint8Array): void {
    const reducer = this.reducer;
    this.reducer = undefined;
    const reduced = reducer?.finish();
    this.onOverlong?.(bytes, head, reduced !== undefined);
    if (reduced !== undefined) this.onLine(reduced);
  }

  /** A copy of the first headMax bytes of `parts` then `last` (views must not be kept: they are dropped). */
  private headOf(parts: Uint8Array[], last: Uint8Array): Uint8Array {
    if (this.headMax === 0) return EMPTY;
    const out = new Uint8Array(this.headMax);
    let off = 0;
    for (const p of [...parts, last]) {
      if (off >= this.headMax) break;
      const n = Math.min(p.length, this.headMax - off);
      out.set(p.subarray(0, n), off);
      off += n;
    }
    return out.subarray(0, off);
  }

  private emit(buf: Uint8Array, start: number, end: number): void {
    if (buf[end - 1] === CR) {
      end--;
      if (end === start) return;
    }
    this.onLine(this.decoder.decode(buf.subarray(start, end)));
  }

  /**
   * Complete lines inside one chunk, [start, end) ending just before a
   * newline. One decoder call for the whole region is much cheaper than one
   * per line (Bun's TextDecoder has a fixed cost per call); splitting the
   * string afterwards is a native scan plus cheap substrings. Every byte is
   * still decoded exactly once.
   */
  private emitRegion(buf: Uint8Array, start: number, end: number): void {
    const text = this.decoder.decode(buf.subarray(start, end));
    const onLine = this.onLine;
    let s = 0;
    let nl = text.indexOf("\n");
    while (nl >= 0) {
      this.emitText(text, s, nl, onLine);
      s = nl + 1;
      nl = text.indexOf("\n", s);
    }
    this.emitText(text, s, text.length, onLine);
  }

  private emitText(text: string, s: number, e: number, onLine: LineHandler): void {
    if (e > s && text.charCodeAt(e - 1) === CR) e--;
    if (e > s) onLine(s === 0 && e === text.length ? text : text.slice(s, e));
  }

  /** Slow path for a region longer than the cap: check each line's size. */
  private emitEach(chunk: Uint8Array, start: number, last: number): void {
    const max = this.max;
    let nl = chunk.indexOf(NL, start);
    while (nl >= 0 && nl <= last) {
      if (nl > start) {
        if (nl - start > max) {
          this.reducer = this.newReducer([chunk.subarray(start, nl)]);
          this.reportOverlong(nl - start, this.headOf([], chunk.subarray(start, nl)));
        } else this.emit(chunk, start, nl);
      }
      start = nl + 1;
      nl = chunk.indexOf(NL, start);
    }
  }

  /** The one copy of a line that spans chunks. */
  private emitJoined(last: Uint8Array, nl: number, total: number): void {
    const buf = this.joinBuffer(total);
    let off = 0;
    for (const part of this.tail) {
      buf.set(part, off);
      off += part.length;
    }
    if (nl > 0) buf.set(last.subarray(0, nl), off);
    this.tail = [];
    this.tailBytes = 0;
    if (total > 0) this.emit(buf, 0, total);
  }

  /**
   * Where a line spanning chunks is copied to. Lines up to SCRATCH_MAX reuse
   * one buffer (the decoded string does not point into it), which spares an
   * allocation, its zeroing and GC work per long line; longer ones get their
   * own buffer so we never keep tens of MiB alive.
   */
  private joinBuffer(total: number): Uint8Array {
    if (total > SCRATCH_MAX) return new Uint8Array(total);
    if (this.scratch.length < total) {
      let size = Math.max(this.scratch.length, 64 * 1024);
      while (size < total) size *= 2;
      this.scratch = new Uint8Array(Math.min(size, SCRATCH_MAX));
    }
    return this.scratch;
  }

  private joinTail(total: number): Uint8Array {
    if (this.tail.length === 1) return this.tail[0]!;
    const buf = new Uint8Array(total);
    let off = 0;
    for (const part of this.tail) {
      buf.set(part, off);
      off += part.length;
    }
    return buf;
  }
}

export interface ReadLinesOptions extends LineSplitterOptions {
  /**
   * Asked before every read: a promise holds reading until it resolves
   * (backpressure from whoever consumes the lines: unread data stays in the
   * pipe and slows the writer down instead of growing our memory).
   */
  beforeRead?: () => Promise<void> | undefined;
}

/**
 * Reads `stream` to its end, handing each line to `onLine` synchronously.
 * Resolves at EOF, rejects if the stream errors. The client uses this one.
 */
export async function readLines(stream: ReadableStream<Uint8Array>, onLine: LineHandler, opts: ReadLinesOptions = {}): Promise<void> {
  const splitter = new LineSplitter(onLine, opts);
  const reader = stream.getReader();
  const beforeRead = opts.beforeRead;
  try {
    for (;;) {
      if (beforeRead) {
        const wait = beforeRead();
        if (wait) await wait;
      }
      const r = await reader.read();
      if (r.done) break;
      splitter.push(r.value);
    }
    splitter.end();
  } finally {
    reader.releaseLock();
  }
}

/**
 * Async-iterator API over the same splitter. A hand-written iterator rather
 * than an async generator: lines already split are handed out from a batch
 * with one resolved promise each, without the generator's extra awaits.
 * The push API (readLines) is still faster: no promise per line at all.
 */
export function lines(stream: ReadableStream<Uint8Array>, opts: LineSplitterOptions = {}): AsyncIterableIterator<string> {
  let batch: string[] = [];
  let index = 0;
  let done = false;
  const splitter = new LineSplitter((l) => batch.push(l), opts);
  const reader = stream.getReader();

  const finish = (): IteratorResult<string> => {
    if (!done) {
      done = true;
      reader.releaseLock();
    }
    return { value: undefined, done: true };
  };

  const refill = async (): Promise<IteratorResult<string>> => {
    batch = [];
    index = 0;
    while (batch.length === 0) {
      let r: { done: boolean; value?: Uint8Array };
      try {
        r = await reader.read();
      } catch (e) {
        finish();
        throw e;
      }
      if (r.done || !r.value) {
        splitter.end();
        if (batch.length === 0) return finish();
        break;
      }
      splitter.push(r.value);
    }
    return { value: batch[index++]!, done: false };
  };

  const it: AsyncIterableIterator<string> = {
    next() {
      if (index < batch.length) return Promise.resolve({ value: batch[index++]!, done: false });
      if (done) return Promise.resolve({ value: undefined, done: true });
      return refill();
    },
    return() {
      if (!done) void reader.cancel().catch(() => {});
      return Promise.resolve(finish());
    },
    [Symbol.asyncIterator]() {
      return it;
    },
  };
  return it;
}
