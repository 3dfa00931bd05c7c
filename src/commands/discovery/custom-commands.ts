import path from "node:path";
import { log } from "../../log.ts";
import { flag, parseFrontMatter } from "./front-matter.ts";
import type { Probe } from "./probe.ts";

// Custom commands as ZCode finds them (adapters/src/commands/index.ts): every
// `.md` under a commands root, its name the path below the root without `.md`,
// directories joined by `:` and lower-cased (`commands/git/commit.md` is
// `/git:commit`), valid only as [a-z0-9][a-z0-9_:-]{0,63}. The description is
// the front matter's, else the body's first non-empty line; with neither ZCode
// drops the command. `argument-hint` is what goes after the name. ZCode's own
// catalog leaves out `disable-noninteractive: true` commands. A plugin's
// commands are not prefixed with the plugin's name.

const logger = log.withTag("discovery");

const NAME = /^[a-z0-9][a-z0-9_:-]{0,63}$/;
const MAX_DEPTH = 4;

export interface FoundCommand {
  name: string;
  description: string;
  argumentHint?: string;
  file: string;
}

export interface CommandRoot {
  dir: string;
  /** Plugin content: links are not followed. */
  plugin?: boolean;
}

/** The commands of `roots` in order, minus those switched off in `disabled` (by path or real path). */
export function scanCommands(probe: Probe, roots: readonly CommandRoot[], disabled: ReadonlySet<string>): FoundCommand[] {
  const out: FoundCommand[] = [];
  for (const root of roots) {
    for (const file of markdownFiles(probe, root.dir, root.plugin !== true, 0, new Set())) {
      if (disabled.has(file) || disabled.has(probe.realpath(file))) continue;
      const command = readCommand(probe, root.dir, file, root.plugin !== true);
      if (command) out.push(command);
    }
  }
  return out;
}

/**
 * The .md files under `dir`. Each real directory is entered once per root
 * (`visited` holds real paths): a link back to an ancestor (`loop -> .`)
 * would otherwise list every command again under `loop:`, `loop:loop:`, …
 */
function markdownFiles(probe: Probe, dir: string, follow: boolean, depth: number, visited: Set<string>): string[] {
  if (depth > MAX_DEPTH || !probe.isDir(dir, follow)) return [];
  const real = probe.realpath(dir);
  if (visited.has(real)) return [];
  visited.add(real);
  const files: string[] = [];
  for (const entry of probe.readDir(dir)) {
    const p = path.join(dir, entry.name);
    const link = entry.isSymbolicLink();
    if (link && !follow) continue;
    const st = link ? probe.stat(p) : undefined;
    if (entry.isDirectory() || st?.isDirectory()) files.push(...markdownFiles(probe, p, follow, depth + 1, visited));
    else if ((entry.isFile() || st?.isFile()) && entry.name.toLowerCase().endsWith(".md")) files.push(p);
  }
  return files;
}

function readCommand(probe: Probe, root: string, file: string, follow: boolean): FoundCommand | undefined {
  const name = path
    .relative(root, file)
    .slice(0, -".md".length)
    .split(/[\\/]+/)
    .join(":")
    .trim()
    .toLowerCase();
  if (!NAME.test(name)) {
    logger.debug(`command with a name ZCode refuses skipped: ${file}`);
    return undefined;
  }
  const text = probe.readText(file, follow);
  if (text === undefined) {
    logger.debug(`unreadable command skipped: ${file}`);
    return undefined;
  }
  const fm = parseFrontMatter(text);
  if (flag(fm.fields["disable-noninteractive"]) === true) return undefined;
  const description = fm.fields.description?.trim() || firstLine(fm.body);
  if (!description) {
    logger.debug(`command without a description or body skipped: ${file}`);
    return undefined;
  }
  const hint = fm.fields["argument-hint"]?.trim();
  return { name, description, ...(hint ? { argumentHint: hint } : {}), file };
}

/** The body's first non-empty line, heading and list markers removed (ZCode's fallback description). */
function firstLine(body: string): string | undefined {
  for (const line of body.split(/\r?\n/)) {
    const text = line
      .replace(/^#+\s*/, "")
      .replace(/^[-*]\s*/, "")
      .trim();
    if (text) return text;
  }
  return undefined;
}
