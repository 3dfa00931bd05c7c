// What one traced line may cost. A line of tens of MB (a session snapshot, a
// huge tool output) used to be parsed, redacted (regular expressions over
// every string) and written whole, on the bridge's own thread: a 33 MB
// exchange took 38 s and wrote 435 MB. A line over MAX_TRACED_LINE keeps its
// structure (ids, methods, seqs: what a replay follows) with each long string
// cut to its head and a note of how much was left out; redaction then scans
// only what is kept. The cost of a line is bounded, whatever its size.

/** Lines up to this many characters are traced whole. */
export const MAX_TRACED_LINE = 256 * 1024;
/** In a longer line, strings keep this many characters. */
export const MAX_TRACED_STRING = 4 * 1024;

/** The note that replaces the cut end of a string. */
export function cutNote(left: number): string {
  return `…[${left} more characters not traced]`;
}

/** `v` with every string longer than MAX_TRACED_STRING cut (a copy; `v` is not changed). */
export function cutStrings(v: unknown, depth = 0): unknown {
  if (typeof v === "string")
    return v.length > MAX_TRACED_STRING ? v.slice(0, MAX_TRACED_STRING) + cutNote(v.length - MAX_TRACED_STRING) : v;
  if (typeof v !== "object" || v === null || depth > 64) return v;
  if (Array.isArray(v)) return v.map((x) => cutStrings(x, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v)) out[k] = cutStrings(x, depth + 1);
  return out;
}
