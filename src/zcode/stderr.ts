import type { ConsolaInstance } from "consola/core";
import { LogLimiter } from "./log-limit.ts";

// The ZCode child's stderr: every line goes to our log (a chatty or crashing
// CLI must not flood it, hence the rate limit), and the last lines are kept to
// quote when the child dies.

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
    const line = raw.length > this.maxChars ? `${raw.slice(0, this.maxChars)}…` : raw;
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
