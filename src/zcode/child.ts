import { TranscriptEliding } from "./elide-transcript.ts";
import { log as rootLog } from "../log.ts";
import type { ExitInfo } from "./errors.ts";
import { readLines } from "../lines.ts";
import { SilenceWatch } from "./frozen-child.ts";
import type { SpawnedChild } from "./process.ts";
import { StderrCollector } from "./stderr.ts";

// One ZCode process as the connection sees it: its stdout read line by line
// (held back while the editor is behind), its stderr collected for the log
// and for the error its exit gives, its exit judged once the last output is
// in, and its stop. Kept apart from connection.ts because a child exists
// before it serves: it is spawned while its version is still being asked,
// and one that turns out too old is stopped without ever being sent a line.

const log = rootLog.withTag("zcode");

/** How long after the child's exit we wait for the rest of its stdout/stderr. */
const DRAIN_MS = 250;

export interface Child<Info = unknown> {
  /** Set once its version is known and supported: from then on it serves. */
  info?: Info;
  spawned: SpawnedChild;
  stderr: StderrCollector;
  exited: boolean;
  /** How it ended, once it has. */
  exit?: ExitInfo;
  /** How long it has owed answers without writing anything (the connection's frozen-child check). */
  silence: SilenceWatch;
  /** We hold its stdout back (a slow editor): its silence says nothing then. */
  gated: boolean;
  /** Killed as frozen: nothing more is sent to it, the next request waits for its end and starts a new one. */
  condemned: boolean;
  /** Resolves once the exit has been fully handled (pending failed, listeners told). */
  gone: Promise<void>;
}

export interface ChildWatch {
  onLine(line: string): void;
  /** A sign of life other than a stdout line: a stderr line, a stdout line too long to keep, or its stdout read again after being held back. */
  onAlive(): void;
  /** A promise while stdout must not be read (the editor is behind). */
  readGate(): Promise<void> | undefined;
  maxLineBytes: number;
  stderrLinesPerSecond: number;
  /** The exit, once its last output is in (child.exit is set by then). */
  onExit(exit: ExitInfo): void;
}

/** Reads a new child's output and handles its exit. */
export function watchChild<Info>(spawned: SpawnedChild, watch: ChildWatch): Child<Info> {
  const stderr = new StderrCollector(log, { linesPerSecond: watch.stderrLinesPerSecond });
  let markGone!: () => void;
  const child: Child<Info> = {
    spawned,
    stderr,
    exited: false,
    silence: new SilenceWatch(),
    gated: false,
    condemned: false,
    gone: new Promise<void>((r) => (markGone = r)),
  };

  const stdoutDone = readLines(spawned.proc.stdout, (line) => watch.onLine(line), {
    beforeRead: () => {
      const gate = watch.readGate();
      if (!gate) return undefined;
      child.gated = true;
      return gate.finally(() => {
        child.gated = false;
        // Held back, it may have written plenty: its silence counts from now.
        watch.onAlive();
      });
    },
    maxLineBytes: watch.maxLineBytes,
    onOverlong: (bytes, _head, reduced) => {
      if (reduced)
        log.info(`a snapshot of ${bytes} bytes from ZCode is over the ${watch.maxLineBytes}-byte limit: read without its transcript`);
      else log.warn(`skipped a line of ${bytes} bytes from ZCode (longer than the ${watch.maxLineBytes}-byte limit)`);
      // Dropped or reduced, but written: a child that writes is not frozen.
      watch.onAlive();
    },
    // A snapshot of a long conversation: its answer still arrives, without the transcript.
    reduceOverlong: () => new TranscriptEliding(),
  }).catch((e) => log.debug(`ZCode stdout ended with an error: ${(e as Error).message}`));
  const stderrDone = readLines(
    spawned.proc.stderr,
    (line) => {
      stderr.line(line);
      watch.onAlive();
    },
    {
      maxLineBytes: 64 * 1024,
      onOverlong: (bytes) => stderr.line(`<${bytes}-byte line skipped>`),
    },
  ).catch(() => {});

  void spawned.proc.exited.then(async (code) => {
    // Let the last frames and stderr lines in before judging the exit.
    await Promise.race([Promise.all([stdoutDone, stderrDone]), Bun.sleep(DRAIN_MS)]);
    child.exited = true;
    spawned.disarm();
    endQuietly(child);
    stderr.flushSuppressed();
    child.exit = {
      code: spawned.proc.signalCode ? null : code,
      signal: spawned.proc.signalCode ? String(spawned.proc.signalCode) : null,
      stderrTail: stderr.lastLines(),
    };
    watch.onExit(child.exit);
    markGone();
  });
  return child;
}

/** Ends the child: stdin closed, SIGTERM to its process group, SIGKILL after the grace. */
export async function stopChild(child: Child<unknown>, killGraceMs: number): Promise<void> {
  if (child.exited) return;
  // A well-behaved CLI exits on stdin EOF; the signal is for the rest.
  endQuietly(child);
  child.spawned.signalGroup("SIGTERM");
  const killer = setTimeout(() => child.spawned.signalGroup("SIGKILL"), killGraceMs);
  await child.gone;
  clearTimeout(killer);
  // Grandchildren that ignored SIGTERM may still sit in the group.
  child.spawned.signalGroup("SIGKILL");
}

export function how(exit: ExitInfo): string {
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

/** Closes the child's stdin; a dead child's pipe may refuse, which is fine. */
function endQuietly(child: Child<unknown>): void {
  try {
    const r = child.spawned.proc.stdin.end();
    if (r instanceof Promise) r.catch(() => {});
  } catch {
    // already closed
  }
}
