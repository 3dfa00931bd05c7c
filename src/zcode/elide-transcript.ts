// ZCode puts a session's whole transcript into its snapshots (session/resume,
// session/read without messageLimit): a long conversation makes that one line
// bigger than the line limit, and the answer would be dropped (the request then
// fails on its timeout). Everything the bridge reads from a snapshot is small
// (session, settings, projection, todos); only `messages` is big. This scanner
// reads such a line as it streams by and keeps it without the transcript:
// `"messages":[…]` of the answer's result becomes `"messages":[],
// "messagesElided":true`, so the answer arrives and whoever reads the messages
// knows they were left out. Bounded: past `keepMax` kept bytes it gives up.

import type { OverlongReducer } from "../lines.ts";

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;
const OPEN_OBJ = 0x7b;
const CLOSE_OBJ = 0x7d;
const OPEN_ARR = 0x5b;
const CLOSE_ARR = 0x5d;
const KEY = new TextEncoder().encode("messages");
const ELIDED = new TextEncoder().encode('[],"messagesElided":true');

function isSpace(b: number): boolean {
  return b === 0x20 || b === 0x0a || b === 0x0d || b === 0x09;
}

/** The default bound on what is kept of a reduced line. */
export const ELIDED_KEEP_MAX = 8 * 1024 * 1024;

export class TranscriptEliding implements OverlongReducer {
  private readonly kept: Uint8Array[] = [];
  private keptBytes = 0;
  private failed = false;
  private elided = false;
  /** Nesting of objects and arrays outside the skipped value. */
  private depth = 0;
  private inString = false;
  private escape = false;
  /** The string being read at depth 2 matches "messages" so far (index into KEY), or -1. */
  private keyAt = -1;
  /** A "messages" string just closed at depth 2: a ':' next makes it the key. */
  private afterKey = false;
  /** Skipping the transcript's value: its own nesting (0: not skipping; waiting for its first byte: -1). */
  private skipDepth = 0;
  private skipInString = false;
  private skipEscape = false;

  constructor(private readonly keepMax = ELIDED_KEEP_MAX) {}

  push(bytes: Uint8Array): void {
    if (this.failed) return;
    let runStart = 0;
    for (let i = 0; i < bytes.length; i++) {
      const b = bytes[i]!;
      if (this.skipDepth !== 0) {
        if (this.skipDepth === -1) {
          if (isSpace(b)) continue;
          if (b !== OPEN_ARR && b !== OPEN_OBJ) {
            // Not an array or object (null): nothing big to leave out after all.
            this.fail();
            return;
          }
          this.skipDepth = 1;
          continue;
        }
        if (this.skipInString) {
          // The transcript is nearly all string bytes: jump to the next quote (native search).
          i = this.skipString(bytes, i) - 1;
          continue;
        }
        this.skipByte(b);
        if (this.skipDepth === 0) runStart = i + 1;
        continue;
      }
      if (this.inString) {
        if (this.escape) this.escape = false;
        else if (b === BACKSLASH) {
          this.escape = true;
          this.keyAt = -1;
        } else if (b === QUOTE) {
          this.inString = false;
          this.afterKey = this.keyAt === KEY.length;
          this.keyAt = -1;
        } else if (this.keyAt >= 0) this.keyAt = this.keyAt < KEY.length && KEY[this.keyAt] === b ? this.keyAt + 1 : -1;
        continue;
      }
      if (b === QUOTE) {
        this.inString = true;
        this.keyAt = this.depth === 2 && !this.elided ? 0 : -1;
        this.afterKey = false;
        continue;
      }
      if (isSpace(b)) continue;
      if (this.afterKey && b === COLON) {
        this.afterKey = false;
        // Keep up to and including the colon, then the placeholder instead of the value.
        this.keep(bytes.subarray(runStart, i + 1));
        this.keep(ELIDED);
        this.elided = true;
        this.skipDepth = -1;
        continue;
      }
      this.afterKey = false;
      if (b === OPEN_OBJ || b === OPEN_ARR) this.depth++;
      else if (b === CLOSE_OBJ || b === CLOSE_ARR) this.depth--;
    }
    if (this.skipDepth === 0 && runStart < bytes.length) this.keep(bytes.subarray(runStart));
  }

  finish(): string | undefined {
    if (this.failed || !this.elided || this.skipDepth !== 0) return undefined;
    const out = new Uint8Array(this.keptBytes);
    let off = 0;
    for (const k of this.kept) {
      out.set(k, off);
      off += k.length;
    }
    return new TextDecoder().decode(out);
  }

  /**
   * Inside a skipped string from `from`: the index after its closing quote,
   * or bytes.length when it goes on past this chunk. A quote is escaped
   * when an odd run of backslashes precedes it (the run may start in the
   * chunk before: skipEscape carries its parity).
   */
  private skipString(bytes: Uint8Array, from: number): number {
    let i = from;
    for (;;) {
      const q = bytes.indexOf(QUOTE, i);
      if (q < 0) {
        const run = backslashesBefore(bytes, bytes.length, i);
        this.skipEscape = (run === bytes.length - i ? run + (this.skipEscape ? 1 : 0) : run) % 2 === 1;
        return bytes.length;
      }
      const run = backslashesBefore(bytes, q, i);
      const escaped = (run === q - i ? run + (this.skipEscape ? 1 : 0) : run) % 2 === 1;
      this.skipEscape = false;
      if (!escaped) {
        this.skipInString = false;
        return q + 1;
      }
      i = q + 1;
    }
  }

  private skipByte(b: number): void {
    if (this.skipInString) {
      if (this.skipEscape) this.skipEscape = false;
      else if (b === BACKSLASH) this.skipEscape = true;
      else if (b === QUOTE) this.skipInString = false;
      return;
    }
    if (b === QUOTE) this.skipInString = true;
    else if (b === OPEN_ARR || b === OPEN_OBJ) this.skipDepth++;
    else if (b === CLOSE_ARR || b === CLOSE_OBJ) this.skipDepth--;
  }

  private keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    this.keptBytes += bytes.length;
    if (this.keptBytes > this.keepMax) return this.fail();
    // A copy: the splitter's chunks are not ours to hold.
    this.kept.push(bytes.slice());
  }

  private fail(): void {
    this.failed = true;
    this.kept.length = 0;
  }
}

/** How many backslashes come right before `end`, not looking before `start`. */
function backslashesBefore(bytes: Uint8Array, end: number, start: number): number {
  let n = 0;
  while (end - n - 1 >= start && bytes[end - n - 1] === BACKSLASH) n++;
  return n;
}
