// The `---` header of a SKILL.md or command .md, read the way ZCode reads it
// (adapters/src/skills/index.ts, adapters/src/commands/index.ts): flat
// `key: value` lines, quoted values unquoted, `>` and `|` block scalars
// gathered, indented and comment lines skipped. A BOM and CRLF line ends are
// fine; anything else malformed is skipped line by line, never thrown.

export interface FrontMatter {
  /** False when the file has no `---` header at all (ZCode then falls back to the directory name). */
  present: boolean;
  /** Top-level keys as written, values as plain strings. */
  fields: Record<string, string>;
  /** Everything after the header (the whole text when there is none). */
  body: string;
}

export function parseFrontMatter(text: string): FrontMatter {
  const normalized = text.replace(/^\uFEFF/, "");
  const lines = normalized.split(/\r?\n/);
  if (lines[0]?.trim() !== "---") return { present: false, fields: {}, body: normalized };
  const end = lines.findIndex((line, i) => i > 0 && line.trim() === "---");
  // An opening line with no closing one is not a header (ZCode reads it as body too).
  if (end < 0) return { present: false, fields: {}, body: normalized };
  return { present: true, fields: parseFields(lines.slice(1, end)), body: lines.slice(end + 1).join("\n") };
}

function parseFields(lines: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? "";
    if (!line.trim() || line.trim().startsWith("#") || /^\s/.test(line)) continue;
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    const key = line.slice(0, colon).trim();
    const value = line.slice(colon + 1).trim();
    const block = /^([>|])[+-]?$/.exec(value);
    if (block) {
      const { text, next } = readBlock(lines, i + 1, block[1] === ">" ? "folded" : "literal");
      fields[key] = text;
      i = next - 1;
    } else {
      fields[key] = unquote(value);
    }
  }
  return fields;
}

/** The indented lines after `key: >` or `key: |`, folded or kept as lines. */
function readBlock(lines: string[], start: number, style: "folded" | "literal"): { text: string; next: number } {
  let i = start;
  const raw: string[] = [];
  while (i < lines.length) {
    const line = lines[i] ?? "";
    if (line.trim() && !/^\s/.test(line)) break;
    raw.push(line);
    i++;
  }
  const indent = Math.min(...raw.filter((l) => l.trim()).map((l) => /^\s*/.exec(l)![0].length), Infinity);
  const content = raw.map((l) => (l.trim() ? l.slice(Number.isFinite(indent) ? indent : 0) : ""));
  if (style === "literal") return { text: content.join("\n").trim(), next: i };
  const paragraphs: string[] = [];
  let current: string[] = [];
  for (const l of content) {
    if (l.trim()) current.push(l.trim());
    else if (current.length) {
      paragraphs.push(current.join(" "));
      current = [];
    }
  }
  if (current.length) paragraphs.push(current.join(" "));
  return { text: paragraphs.join("\n").trim(), next: i };
}

function unquote(value: string): string {
  if (value.length >= 2 && ((value.startsWith('"') && value.endsWith('"')) || (value.startsWith("'") && value.endsWith("'")))) {
    return value.slice(1, -1).trim();
  }
  return value;
}

/** YAML-ish booleans as ZCode reads them (`true`/`yes`); undefined when absent or anything else. */
export function flag(value: string | undefined): boolean | undefined {
  const v = value?.trim().toLowerCase();
  if (v === "true" || v === "yes") return true;
  if (v === "false" || v === "no") return false;
  return undefined;
}
