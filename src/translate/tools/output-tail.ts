// ZCode reports a running command's output as cumulative tails (the END of
// stdout/stderr so far, bounded). The editor wants only what is new: these
// functions find it, and mark a discontinuity rather than lose or invent text.

/** Shown where a tail did not continue what was seen before (see `tailDelta`). */
export const OUTPUT_GAP_MARKER = "[… output skipped …]\n";
/** Overlap needed before a moved tail counts as a continuation of the last one. */
const MIN_OVERLAP = 32;

/** Length of the longest suffix of `prev` that is a prefix of `next` (KMP, linear). */
export function suffixPrefixOverlap(prev: string, next: string): number {
  const m = Math.min(next.length, prev.length);
  if (m === 0) return 0;
  const pat = next.slice(0, m);
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pat[i] !== pat[k]) k = fail[k - 1]!;
    if (pat[i] === pat[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = prev.length - m; i < prev.length; i++) {
    while (k > 0 && (k === m || prev[i] !== pat[k])) k = fail[k - 1]!;
    if (prev[i] === pat[k]) k++;
  }
  return k;
}

/**
 * Fast path for a window that slid: the longest suffix of `prev` that is a
 * prefix of `next`, found with native indexOf/startsWith from the first
 * MIN_OVERLAP characters of `next` (the earliest match in `prev` that
 * continues to its end is the longest overlap). 0 when there is no overlap
 * of at least MIN_OVERLAP (tailDelta treats a shorter one as a gap anyway);
 * undefined when repetitive text makes the candidates many, and then the
 * linear KMP decides.
 */
function slidOverlap(prev: string, next: string): number | undefined {
  if (next.length < MIN_OVERLAP || prev.length < MIN_OVERLAP) return undefined;
  const head = next.slice(0, MIN_OVERLAP);
  // An overlap of k <= next.length characters starts at prev.length - k.
  let at = prev.indexOf(head, Math.max(0, prev.length - next.length));
  for (let tries = 0; tries < 8; tries++) {
    if (at < 0) return 0; // no overlap of MIN_OVERLAP or more: a gap either way
    if (next.startsWith(prev.slice(at))) return prev.length - at;
    at = prev.indexOf(head, at + 1);
  }
  return undefined;
}

/**
 * What is new in `next`, a cumulative output tail, given the tail seen before.
 *
 * A tail is the END of the output so far, possibly bounded: while it grows,
 * `next` starts with `prev` and the new part is the rest. Once the bound is
 * reached the window slides: the start of `next` is then the end of `prev`,
 * found as the longest suffix of `prev` that is a prefix of `next` — accepted
 * only from MIN_OVERLAP characters on, because a short overlap is as likely to
 * be chance. Anything else (the tail shrank, was replaced, or slid further
 * than its own length between two events) is a discontinuity: the whole new
 * tail is sent after a marker, so nothing is lost; at worst some text shows
 * twice after the marker. Tails carry no offsets, so repetitive output (the
 * same line over and over) cannot be told apart from no output; that case
 * errs on the side of sending less.
 */
export function tailDelta(prev: string, next: string): { data: string; gap: boolean } {
  if (next === prev) return { data: "", gap: false };
  if (prev === "" || next.startsWith(prev)) return { data: next.slice(prev.length), gap: false };
  const k = slidOverlap(prev, next) ?? suffixPrefixOverlap(prev, next);
  if (k >= MIN_OVERLAP) return { data: next.slice(k), gap: false };
  return { data: next, gap: true };
}

/**
 * What the complete output in a tool's result adds to the last tail seen.
 * The usual case is that the last tail already ended the output; otherwise
 * the tail is located in the full text (its last occurrence, the most recent).
 */
export function finalDelta(prev: string, full: string): { data: string; gap: boolean } {
  if (prev === "") return { data: full, gap: false };
  if (full.endsWith(prev)) return { data: "", gap: false };
  if (full.startsWith(prev)) return { data: full.slice(prev.length), gap: false };
  const at = full.lastIndexOf(prev);
  if (at >= 0) return { data: full.slice(at + prev.length), gap: false };
  return tailDelta(prev, full);
}

// ---- per-stream state --------------------------------------------------------
//
// The tracker keeps one of these per stream (stdout, stderr) of a running
// command. The tail is what the next tail is compared with; `shown` is what
// the editor has been shown so far when output is fenced text (without the
// terminal extension every update must resend all of it).

/** Live (fenced) output kept per stream; the final result replaces it anyway. */
const LIVE_MAX = 64 * 1024;

export interface StreamState {
  /** The last tail ZCode sent (what the next tail is compared with). */
  tail: string;
  /** Everything shown so far in fenced mode (capped to LIVE_MAX). */
  shown: string;
}

export function emptyStream(): StreamState {
  return { tail: "", shown: "" };
}

function keepLast(text: string, max: number): string {
  return text.length <= max ? text : `[…]\n${text.slice(text.length - max)}`;
}

/** Moves a stream to its new tail; returns the new data (with a gap marker if needed). */
export function advanceStream(st: StreamState, next: string): string {
  const prev = st.tail;
  const d = tailDelta(prev, next);
  st.tail = next;
  let data = d.data;
  if (d.gap && data) {
    // The marker goes on a line of its own.
    data = `${prev === "" || prev.endsWith("\n") ? "" : "\n"}${OUTPUT_GAP_MARKER}${data}`;
  }
  if (data) st.shown = keepLast(st.shown + data, LIVE_MAX);
  return data;
}

/**
 * What a command's complete output adds to what its streams already showed.
 * The result joins stdout and stderr; the live tails came per stream, so the
 * stream whose tail ends the output is the one to continue from.
 */
export function restAfterStreams(out: StreamState, err: StreamState, full: string): string {
  if (out.shown === "" && err.shown === "") return full;
  // ZCode trims the end of each stream before joining them, so a tail is
  // looked for as sent and without its trailing whitespace; the shortest
  // continuation wins.
  let best: string | undefined;
  for (const tail of [out.tail, err.tail]) {
    for (const [prev, text] of [
      [tail, full],
      [tail.trimEnd(), full.trimEnd()],
    ] as const) {
      if (prev === "") continue;
      const d = finalDelta(prev, text);
      if (!d.gap && (best === undefined || d.data.length < best.length)) best = d.data;
    }
  }
  return best ?? "";
}
