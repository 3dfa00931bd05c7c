// The simulator's own share of a load: the requests a bridge sent it
// (recorded with ZCODE_SIM_RECORD) sent again, one at a time, to a fresh
// simulator on the same state, straight over its pipes. For each request:
// the time until the first byte of its answer (the simulator's work: it
// writes an answer once it is built) and until its last byte (plus the
// transfer). Answers are never parsed beyond their first bytes, so a 200 MB
// one costs this client nothing; the simulator's own requests are answered
// as the bridge answers them. Lines are ZCode's own: no `jsonrpc` key (ZCode refuses one).
import { readFileSync } from "node:fs";
import { SIM_BIN } from "./raw-acp-client.ts";

export interface Recorded {
  id?: number | string;
  method?: string;
  params?: unknown;
}

/**
 * The requests (not answers, not notifications) a simulator received, in
 * order, from a ZCODE_SIM_RECORD file, each with the wall-clock time it came.
 */
export function recordedRequests(file: string): Array<Recorded & { t: number }> {
  const out: Array<Recorded & { t: number }> = [];
  for (const l of readFileSync(file, "utf8").split("\n")) {
    if (!l) continue;
    try {
      const rec = JSON.parse(l) as { t: number; line: string };
      const f = JSON.parse(rec.line) as Recorded;
      if (typeof f.method === "string" && f.id !== undefined) out.push({ ...f, t: rec.t });
    } catch {
      /* a torn last line */
    }
  }
  return out;
}

export interface SimTiming {
  /** Per request: method, ms to the answer's first byte, ms to its last byte, its size. */
  calls: Array<{ method: string; firstByteMs: number; lastByteMs: number; bytes: number }>;
  firstByteMs: number;
  lastByteMs: number;
}

/** No answer within this long is a failure, never a hang. */
const ANSWER_MS = 600_000;

/** Lines up to this size are parsed whole; larger ones (answers only) are read for their id. */
const SMALL = 1 << 20;

/** Answers to the simulator's own requests, as the bridge gives them. */
function answerOf(method: string): unknown {
  if (method === "session/requestRuntimePreferences")
    return { result: { nativeSearchEnhancementsEnabled: false, memoryEnabled: false, askUserQuestionAutoResolutionEnabled: false } };
  return { error: { code: -32601, message: `Method not found: ${method}` } };
}

/**
 * Sends `warmup` (untimed: what the bridge sent before the load) then
 * `timed`, each after the previous one was answered, to a simulator started
 * with `env`; resolves with the timings of `timed`.
 */
export async function simTiming(env: Record<string, string>, warmup: Recorded[], timed: Recorded[]): Promise<SimTiming> {
  const proc = Bun.spawn([SIM_BIN, "app-server", "--stdio"], {
    stdin: "pipe",
    stdout: "pipe",
    stderr: "ignore",
    env: { ...(process.env as Record<string, string>), ...env },
  });
  // The line being read: when its first byte came, its text while small, its size.
  let lineStart = 0;
  let text = "";
  let size = 0;
  const waiting = new Map<string, (firstByte: number, lastByte: number, bytes: number) => void>();
  const dec = new TextDecoder();
  const lineDone = (end: number) => {
    let id: unknown;
    let method: unknown;
    if (size <= SMALL) {
      try {
        ({ id, method } = JSON.parse(text) as { id?: unknown; method?: unknown });
      } catch {
        /* not JSON: nothing to do with it */
      }
    } else {
      // Only answers are this large, and the simulator writes their id first ({id, result}: server.ts).
      id = /^\{"id":"([^"]*)"/.exec(text)?.[1];
    }
    if (typeof method === "string" && id !== undefined) {
      // A request of the simulator's own: answer it.
      proc.stdin.write(`${JSON.stringify({ id, ...(answerOf(method) as object) })}\n`);
    } else if (typeof id === "string" && method === undefined) waiting.get(id)?.(lineStart, end, size);
    text = "";
    size = 0;
  };
  const reading = (async () => {
    for await (const chunk of proc.stdout) {
      const now = performance.now();
      let from = 0;
      while (from < chunk.length) {
        if (size === 0) lineStart = now;
        const nl = chunk.indexOf(10, from);
        const end = nl < 0 ? chunk.length : nl;
        if (size + (end - from) <= SMALL) text += dec.decode(chunk.subarray(from, end), { stream: true });
        else if (size <= SMALL) text = (text + dec.decode(chunk.subarray(from, Math.min(end, from + 512)))).slice(0, 512);
        size += end - from;
        if (nl < 0) break;
        lineDone(now);
        from = nl + 1;
      }
    }
  })();
  const send = (r: Recorded, n: number) =>
    new Promise<{ firstByteMs: number; lastByteMs: number; bytes: number }>((resolve, reject) => {
      const id = `t${n}`;
      const sent = performance.now();
      const timer = setTimeout(() => reject(new Error(`the simulator did not answer ${r.method} within ${ANSWER_MS} ms`)), ANSWER_MS);
      waiting.set(id, (first, last, bytes) => {
        clearTimeout(timer);
        waiting.delete(id);
        resolve({ firstByteMs: first - sent, lastByteMs: last - sent, bytes });
      });
      proc.stdin.write(`${JSON.stringify({ id, method: r.method, params: r.params })}\n`);
      proc.stdin.flush();
    });
  try {
    let n = 0;
    for (const r of warmup) await send(r, n++);
    const calls: SimTiming["calls"] = [];
    for (const r of timed) calls.push({ method: r.method!, ...(await send(r, n++)) });
    return {
      calls,
      firstByteMs: calls.reduce((a, c) => a + c.firstByteMs, 0),
      lastByteMs: calls.reduce((a, c) => a + c.lastByteMs, 0),
    };
  } finally {
    proc.stdin.end();
    proc.kill();
    await reading.catch(() => {});
    await proc.exited;
  }
}
