// The name an attachment goes to ZCode under (and the model and the user see):
// it comes from the editor's uri, so anyone who can name a file chooses it.
// Only what reads as it is stays: no controls (C0, DEL, C1 such as NEL), no
// line or paragraph separators, no bidi overrides, isolates or marks, no
// invisible format characters, and a bounded length that keeps the extension.

/** Longest name, in characters (code points), extension included. */
export const MAX_ATTACHMENT_NAME_CHARS = 120;
/** An extension longer than this is not kept apart when a name is shortened. */
const MAX_EXT_CHARS = 16;

// Cc: C0, DEL, C1 (NEL among them); Cf: bidi controls, zero-width and other
// invisible format characters; Zl/Zp: LS, PS; Cs/Co/Cn: lone surrogates,
// private use, unassigned.
const UNREADABLE = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}\p{Co}\p{Cn}]/gu;

/** `name` made readable and bounded; "" when nothing readable is left. */
export function readableName(name: string): string {
  const clean = name
    // Breaks and tabs (NEL, LS, PS among them) part words: a space, not nothing.
    .replace(/[\t\n\v\f\r\u0085\u2028\u2029]/g, " ")
    .replace(UNREADABLE, "")
    .replace(/[/\\]/g, "_")
    .replace(/\s+/gu, " ")
    .trim();
  if (clean === "." || clean === "..") return "";
  const chars = Array.from(clean);
  if (chars.length <= MAX_ATTACHMENT_NAME_CHARS) return clean;
  const dot = clean.lastIndexOf(".");
  const ext = dot > 0 ? Array.from(clean.slice(dot)) : [];
  const keep = ext.length > 1 && ext.length <= MAX_EXT_CHARS ? ext : [];
  const stem = chars
    .slice(0, MAX_ATTACHMENT_NAME_CHARS - keep.length - 1)
    .join("")
    .trimEnd();
  return `${stem}…${keep.join("")}`;
}
