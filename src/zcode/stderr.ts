import type { ConsolaInstance } from "consola/core";
import { redactLine } from "../redact.ts";
import { LogLimiter } from "./log-limit.ts";

// The ZCode child's stderr: every line goes to our log (a chatty or crashing
// CLI must not flood it, hence the rate limit), and the last lines are kept to
// quote when the child dies.
//
// Lines are redacted here, as they come in: the tail is quoted in errors that
// go to the editor (and so into --trace files and the editor's own logs),
// which the log's redaction never sees.

export interface StderrOptions {
  /** Lines kept for error messages. */
  tailLines?: number;
  /** Lines per second that reach the log; the rest are counted and summarised. */
  linesPerSecond?: number;
  /** Longest kept/logged line, in characters. */
  maxLineChars?: number;
  now?: () => number;
}

const LOUD = /\b(error|fatal|panic|exception|uncaught|unhandled)\b/i;

export class StderrCollector {
  private readonly tail: string[] = [];
  private readonly tailMax: number;
  private readonly perSecond: number;
  private readonly maxChars: number;
  private readonly limiter: LogLimiter;

  constructor(
    private readonly log: ConsolaInstance,
    opts: StderrOptions = {},
  ) {
    this.tailMax = opts.tailLines ?? 20;
    this.perSecond = opts.linesPerSecond ?? 20;
    this.maxChars = opts.maxLineChars ?? 500;
    this.limiter = new LogLimiter(
      this.perSecond,
      (n) => this.log.warn(`stderr: suppressed ${n} lines (more than ${this.perSecond}/s)`),
      opts.now,
    );
  }

  line(raw: string): void {
    // Redacted before the final cut, so a secret across the cut is still
    // hidden whole; cut roughly first, so a huge line costs no more than a
    // short one (what lies past 2x the cut is dropped anyway).
    const clean = redactLine(raw.length > 2 * this.maxChars ? raw.slice(0, 2 * this.maxChars) : raw);
    const line = clean.length > this.maxChars ? `${clean.slice(0, this.maxChars)}…` : clean;
    this.tail.push(line);
    if (this.tail.length > this.tailMax) this.tail.shift();

    if (!this.limiter.allow()) return;
    if (LOUD.test(line)) this.log.warn(`stderr: ${line}`);
    else this.log.debug(`stderr: ${line}`);
  }

  /** Says how many lines the rate limit swallowed, if any. */
  flushSuppressed(): void {
    this.limiter.flush();
  }

  lastLines(): string[] {
    return [...this.tail];
  }
}
