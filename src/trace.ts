// A wire trace: both wires (editor <-> bridge, bridge <-> ZCode) as redacted
// JSON lines `{t, dir, msg}`, so a user can hand in a trace and the simulator
// can replay its ZCode side as a regression test (ZCODE_SIM_REPLAY).
//
// Recording sits on the hot path of every frame, so `record` only pushes the
// raw line and its time; parsing, redaction and the write happen once per
// event-loop turn for everything recorded in it, and what one line costs is
// bounded (trace-cap.ts).
import { closeSync, fchmodSync, openSync, writeSync } from "node:fs";
import { log } from "./log.ts";
import { redact, redactLine } from "./redact.ts";
import { cutNote, cutStrings, MAX_TRACED_LINE } from "./trace-cap.ts";

export type TraceDirection = "editor->bridge" | "bridge->editor" | "bridge->zcode" | "zcode->bridge";

/** One line of a trace file. A line that was not JSON on the wire has `raw` instead of `msg`. */
export interface TraceEntry {
  t: number;
  dir: TraceDirection;
  msg?: unknown;
  raw?: string;
}

export interface Trace {
  readonly path: string;
  /** Records one wire line (without its newline). */
  line(dir: TraceDirection, line: string): void;
  /**
   * Records raw bytes or text of a stream that may hold several lines or part
   * of one; lines are reassembled per direction.
   */
  chunk(dir: TraceDirection, chunk: Uint8Array | string): void;
  /** A `(line) => void` bound to one direction, for taps and `onWire` hooks. */
  tap(dir: TraceDirection): (line: string) => void;
  /** Writes everything recorded so far, synchronously. */
  flush(): void;
  /** Flushes and closes the file; later records are dropped. */
  close(): Promise<void>;
}

const tlog = log.withTag("trace");

class FileTrace implements Trace {
  private fd: number | undefined;
  private times: number[] = [];
  private dirs: TraceDirection[] = [];
  private lines: string[] = [];
  private scheduled = false;
  private readonly partial = new Map<TraceDirection, string>();
  private readonly decoders = new Map<TraceDirection, TextDecoder>();
  private readonly onExit = () => this.flush();

  constructor(readonly path: string) {
    // "w": a trace is one run, so a replay of it sees one run.
    this.fd = openSync(path, "w", 0o600);
    // The mode of openSync only applies to a new file; an existing trace
    // (maybe world-readable) is tightened before anything is written to it.
    fchmodSync(this.fd, 0o600);
    process.on("exit", this.onExit);
  }

  line(dir: TraceDirection, line: string): void {
    if (this.fd === undefined) return;
    this.times.push(Date.now());
    this.dirs.push(dir);
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flush();
      });
    }
  }

  chunk(dir: TraceDirection, chunk: Uint8Array | string): void {
    if (this.fd === undefined) return;
    let text: string;
    if (typeof chunk === "string") {
      text = chunk;
    } else {
      let dec = this.decoders.get(dir);
      if (!dec) this.decoders.set(dir, (dec = new TextDecoder()));
      text = dec.decode(chunk, { stream: true });
    }
    const prev = this.partial.get(dir);
    if (prev) text = prev + text;
    let start = 0;
    for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
      const end = nl > start && text.charCodeAt(nl - 1) === 13 ? nl - 1 : nl;
      if (end > start) this.line(dir, text.slice(start, end));
      start = nl + 1;
    }
    if (start < text.length) this.partial.set(dir, text.slice(start));
    else if (prev) this.partial.delete(dir);
  }

  tap(dir: TraceDirection): (line: string) => void {
    return (line) => this.line(dir, line);
  }

  flush(): void {
    const fd = this.fd;
    const n = this.lines.length;
    if (fd === undefined || n === 0) return;
    const { times, dirs, lines } = this;
    this.times = [];
    this.dirs = [];
    this.lines = [];
    let out = "";
    for (let i = 0; i < n; i++) out += `${serialize(times[i]!, dirs[i]!, lines[i]!)}\n`;
    try {
      writeSync(fd, out);
    } catch (e) {
      // A full disk must not take the bridge down; the trace just stops.
      tlog.warn(`cannot write trace ${this.path}, tracing stopped:`, e);
      this.closeFd();
    }
  }

  async close(): Promise<void> {
    for (const [dir, rest] of this.partial) if (rest) this.line(dir, rest);
    this.partial.clear();
    this.flush();
    this.closeFd();
  }

  private closeFd(): void {
    process.off("exit", this.onExit);
    if (this.fd === undefined) return;
    try {
      closeSync(this.fd);
    } catch {
      // Already closed.
    }
    this.fd = undefined;
  }
}

function serialize(t: number, dir: TraceDirection, line: string): string {
  const long = line.length > MAX_TRACED_LINE;
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    if (!long) return JSON.stringify({ t, dir, raw: redactLine(line) });
    return JSON.stringify({ t, dir, raw: redactLine(line.slice(0, MAX_TRACED_LINE)) + cutNote(line.length - MAX_TRACED_LINE) });
  }
  // A long line: its structure, with long strings cut (trace-cap.ts).
  if (long) msg = cutStrings(msg);
  const clean = redact(msg);
  // Nothing to hide: the wire line is already the JSON of `msg`, so it is
  // spliced in as is instead of being serialised a second time.
  const body = clean === msg && !long ? line : JSON.stringify(clean);
  // Still too long (a flood of short strings): its head, as text.
  if (body.length > MAX_TRACED_LINE * 4) {
    return JSON.stringify({ t, dir, raw: body.slice(0, MAX_TRACED_LINE) + cutNote(body.length - MAX_TRACED_LINE) });
  }
  return `{"t":${t},"dir":"${dir}","msg":${body}}`;
}

/**
 * Opens (truncating) a trace file with mode 0600. Throws if it cannot be
 * created: the user asked for a trace, so silently running without one would
 * be worse.
 */
export function openTrace(path: string): Trace {
  return new FileTrace(path);
}

/** Parses a trace file's text into entries (for tests and the replay). */
export function parseTrace(text: string): TraceEntry[] {
  const out: TraceEntry[] = [];
  for (const l of text.split("\n")) if (l.trim()) out.push(JSON.parse(l) as TraceEntry);
  return out;
}

/**
 * The trace asked for by `--trace` / ZCODE_ACP_TRACE, or undefined when none
 * was asked for or it cannot be created (logged: a bad trace path must not
 * keep the editor from working).
 */
export function openConfiguredTrace(path: string | undefined): Trace | undefined {
  if (!path) return undefined;
  try {
    return openTrace(path);
  } catch (e) {
    tlog.error(`cannot create the trace file ${path}; running without a trace:`, e);
    return undefined;
  }
}

/** Maps the ZCode connection's `onWire` directions onto trace directions. */
export function zcodeWireTap(trace: Trace): (direction: "to-zcode" | "from-zcode", line: string) => void {
  return (direction, line) => trace.line(direction === "to-zcode" ? "bridge->zcode" : "zcode->bridge", line);
}
