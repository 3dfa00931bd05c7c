// --help laid out for the screen it is read on. citty pads every row of its
// two-column tables to the longest description (over 200 columns here), so
// every line wrapped in a terminal. Here each row is cut to its text and a
// long description is wrapped under its own column.

/** The terminal's width when stdout is one, else 80 (a pipe, a file, a pager). */
export function helpWidth(stdout: { isTTY?: boolean; columns?: number }): number {
  const cols = stdout.isTTY ? stdout.columns : undefined;
  return cols && cols >= 40 ? cols : 80;
}

/** Columns a string takes on screen: CJK and other wide characters count twice. */
export function displayWidth(text: string): number {
  return Bun.stringWidth(text);
}

const ROW = /^(\s*\S.*?\S?)( {2,})(\S.*)$/;
/** A description narrower than this goes on the lines under its name instead. */
const MIN_DESCRIPTION_WIDTH = 28;
const UNDER_INDENT = "      ";

/**
 * Wrap `text` (already free of colour escapes) to `width` columns. Lines that
 * fit are only stripped of trailing blanks; a table row that does not fit
 * keeps its name column and wraps its description under itself.
 */
export function layOutHelp(text: string, width: number): string {
  const out: string[] = [];
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (displayWidth(line) <= width) {
      out.push(line);
      continue;
    }
    const row = ROW.exec(line);
    if (!row) {
      out.push(...wrap(line, width).map((l, i) => (i === 0 ? l : `${UNDER_INDENT}${l}`)));
      continue;
    }
    const [, name, gap, description] = row as unknown as [string, string, string, string];
    const column = displayWidth(name) + gap.length;
    if (width - column >= MIN_DESCRIPTION_WIDTH) {
      const lines = wrap(description, width - column);
      out.push(`${name}${gap}${lines[0] ?? ""}`, ...lines.slice(1).map((l) => `${" ".repeat(column)}${l}`));
    } else {
      out.push(name, ...wrap(description, width - UNDER_INDENT.length).map((l) => `${UNDER_INDENT}${l}`));
    }
  }
  return out.join("\n");
}

/**
 * Greedy wrap at spaces and between wide characters (Chinese has no spaces
 * between words). A single word longer than the width stays whole.
 */
export function wrap(text: string, width: number): string[] {
  // Tokens with whether a space came before each.
  const tokens: Array<{ text: string; spaced: boolean }> = [];
  let spaced = false;
  for (const ch of text) {
    if (ch === " ") {
      spaced = true;
      continue;
    }
    const wide = displayWidth(ch) > 1;
    const last = tokens[tokens.length - 1];
    // Closing punctuation stays with what it closes, opening with what it opens.
    const glued = last && !spaced && (CLOSING.test(ch) || OPENING.test(last.text.slice(-1)));
    if (last && (glued || (!spaced && !wide && !isWide(last.text)))) last.text += ch;
    else tokens.push({ text: ch, spaced });
    spaced = false;
  }
  const lines: string[] = [];
  let current = "";
  for (const tok of tokens) {
    const sep = current && tok.spaced ? " " : "";
    if (current && displayWidth(current + sep + tok.text) > width) {
      lines.push(current);
      current = tok.text;
    } else {
      current += sep + tok.text;
    }
  }
  if (current) lines.push(current);
  return lines;
}

function isWide(token: string): boolean {
  const last = [...token].pop() ?? "";
  return displayWidth(last) > 1;
}

/** Full-width punctuation that must not start a line, and that must not end one. */
const CLOSING = /[，。；）、：！？」』]/;
const OPENING = /[（「『]/;
