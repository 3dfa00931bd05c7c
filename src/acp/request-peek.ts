import type { JsonRpcId } from "./initialize.ts";

// What a message the bridge cannot take (too large, not JSON) was, read from
// the start of its line without parsing the whole of it: its top-level `id`,
// and whether it is a request (it has a `method`) or a response (`result` or
// `error`). The editor waits on the id of every request it sent, so an error
// answer must carry it whenever it can be read; a response must never be
// answered (its id is one of ours, and the editor would match the error to a
// request of its own with the same number).
//
// Clients write `{"jsonrpc","id","method","params"}` in that order (the SDK,
// serde), so the id sits in the first few bytes; a key that comes after a
// value too long for `text` is simply not found.

export interface PeekedMessage {
  /** The top-level id, when it was read and is one JSON-RPC allows (string or finite number). */
  id?: JsonRpcId;
  /** A top-level `method` key was seen. */
  hasMethod: boolean;
  /** A top-level `result` or `error` key was seen. */
  isResponse: boolean;
}

/** Most of a line looked at (the id is near its start, or out of reach). */
export const PEEK_CHARS = 64 * 1024;

/**
 * Reads the top-level keys of the JSON object at the start of `text`, until
 * the object ends, the text ends or something is not JSON. `complete` says
 * that `text` is the whole line: a number at its very end is then whole, not cut.
 */
export function peekMessage(text: string, complete: boolean): PeekedMessage {
  const out: PeekedMessage = { hasMethod: false, isResponse: false };
  let s = text;
  if (s.length > PEEK_CHARS) {
    s = s.slice(0, PEEK_CHARS);
    complete = false;
  }
  let i = skipSpace(s, 0);
  if (s.charCodeAt(i) !== 123 /* { */) return out;
  i++;
  for (;;) {
    i = skipSpace(s, i);
    if (s.charCodeAt(i) !== 34 /* " */) return out;
    const keyEnd = stringEnd(s, i);
    if (keyEnd < 0) return out;
    let key: unknown;
    try {
      key = JSON.parse(s.slice(i, keyEnd));
    } catch {
      return out;
    }
    i = skipSpace(s, keyEnd);
    if (s.charCodeAt(i) !== 58 /* : */) return out;
    i = skipSpace(s, i + 1);
    if (key === "method") out.hasMethod = true;
    else if (key === "result" || key === "error") out.isResponse = true;
    const end = valueEnd(s, i, complete);
    if (end < 0) return out;
    if (key === "id") {
      // Last one wins, as in JSON.parse.
      out.id = undefined;
      try {
        const id: unknown = JSON.parse(s.slice(i, end));
        if (typeof id === "string" || (typeof id === "number" && Number.isFinite(id))) out.id = id;
      } catch {
        // not a value after all
      }
    }
    i = skipSpace(s, end);
    if (s.charCodeAt(i) !== 44 /* , */) return out;
    i++;
  }
}

/** The id to answer a message with: a request's readable id; undefined for a response or when none was read. */
export function answerableId(p: PeekedMessage): JsonRpcId | undefined {
  return p.hasMethod && !p.isResponse ? p.id : undefined;
}

function skipSpace(s: string, i: number): number {
  for (;;) {
    const c = s.charCodeAt(i);
    // JSON whitespace, plus the BOM (String.prototype.trim drops it too, as the SDK does).
    if (c === 32 || c === 9 || c === 10 || c === 13 || c === 0xfeff) i++;
    else return i;
  }
}

/** Index just past the string starting at `i` (a quote), or -1 when it does not end in `s`. */
function stringEnd(s: string, i: number): number {
  let j = i;
  for (;;) {
    j = s.indexOf('"', j + 1);
    if (j < 0) return -1;
    let backslashes = 0;
    for (let k = j - 1; s.charCodeAt(k) === 92; k--) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
  }
}

const SCALAR = /-?\d[\d.eE+-]*|true|false|null/y;
const STRUCTURE = /["{}[\]]/g;

/** Index just past the value starting at `i`, or -1 when it is not whole in `s`. */
function valueEnd(s: string, i: number, complete: boolean): number {
  const c = s.charCodeAt(i);
  if (c === 34) return stringEnd(s, i);
  if (c === 123 || c === 91) {
    let depth = 0;
    STRUCTURE.lastIndex = i;
    for (let m = STRUCTURE.exec(s); m; m = STRUCTURE.exec(s)) {
      const ch = m[0];
      if (ch === '"') {
        const e = stringEnd(s, m.index);
        if (e < 0) return -1;
        STRUCTURE.lastIndex = e;
      } else if (ch === "{" || ch === "[") depth++;
      else if (--depth === 0) return m.index + 1;
    }
    return -1;
  }
  SCALAR.lastIndex = i;
  const m = SCALAR.exec(s);
  if (!m) return -1;
  const end = i + m[0].length;
  // `"id":12` at the end of a cut text may be the start of 123.
  return end === s.length && !complete ? -1 : end;
}
