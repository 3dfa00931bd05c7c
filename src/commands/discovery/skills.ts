import path from "node:path";
import { log } from "../../log.ts";
import { flag, parseFrontMatter } from "./front-matter.ts";
import type { Probe } from "./probe.ts";

// Skills as ZCode finds them (adapters/src/skills/scan.ts and index.ts): a
// root's own SKILL.md, then `<root>/<dir>/SKILL.md` one level down, skipping
// dot directories (but `.system`) and node_modules. The name is the front
// matter's `name`, or the directory's name when the file has no front matter;
// a front matter without a name or description, or with a description over
// 1024 characters, makes ZCode reject the skill, so it is not listed either.
// ZCode does not follow links inside plugins.

const logger = log.withTag("discovery");

const SKIP_DIRS = new Set(["node_modules", "__pycache__"]);
const MAX_DESCRIPTION = 1024;

export interface FoundSkill {
  /** What the user types after `/`: the skill's name, `<plugin>:<name>` for a plugin's skill. */
  name: string;
  description: string;
  argumentHint?: string;
  /** The SKILL.md, as found (the key of ZCode's per-skill enable switch). */
  file: string;
}

export interface SkillRoot {
  dir: string;
  /** The plugin's manifest name for a plugin's skills (ZCode lists them as `<plugin>:<skill>`). */
  plugin?: string;
}

/** The skills of `roots` in order, minus those switched off in `disabled` (by path or real path). */
export function scanSkills(probe: Probe, roots: readonly SkillRoot[], disabled: ReadonlySet<string>): FoundSkill[] {
  const out: FoundSkill[] = [];
  const files = new Set<string>();
  for (const root of roots) {
    for (const file of skillFiles(probe, root)) {
      if (files.has(file)) continue;
      files.add(file);
      if (disabled.has(file) || disabled.has(probe.realpath(file))) continue;
      const skill = readSkill(probe, file, root.plugin);
      if (skill) out.push(skill);
    }
  }
  return out;
}

function skillFiles(probe: Probe, root: SkillRoot): string[] {
  const follow = root.plugin === undefined;
  if (!probe.isDir(root.dir, follow)) return [];
  const files: string[] = [];
  const own = path.join(root.dir, "SKILL.md");
  if (probe.isFile(own, follow)) files.push(own);
  for (const entry of probe.readDir(root.dir)) {
    if (entry.name.startsWith(".") && entry.name !== ".system") continue;
    if (SKIP_DIRS.has(entry.name)) continue;
    if (!(entry.isDirectory() || (follow && entry.isSymbolicLink()))) continue;
    const file = path.join(root.dir, entry.name, "SKILL.md");
    if (probe.isFile(file, follow)) files.push(file);
  }
  return files;
}

function readSkill(probe: Probe, file: string, plugin: string | undefined): FoundSkill | undefined {
  const text = probe.readText(file, plugin === undefined);
  if (text === undefined) {
    logger.debug(`unreadable skill skipped: ${file}`);
    return undefined;
  }
  const fm = parseFrontMatter(text);
  const name = fm.fields.name?.trim() || (fm.present ? undefined : path.basename(path.dirname(file)));
  const description = fm.fields.description?.trim() ?? "";
  if (!name || (fm.present && !description) || description.length > MAX_DESCRIPTION) {
    logger.debug(`skill ZCode would reject skipped (name, description): ${file}`);
    return undefined;
  }
  // Not a ZCode field, but the Agent Skills convention for "not for the / menu".
  if (flag(fm.fields["user-invocable"]) === false) return undefined;
  const hint = fm.fields["argument-hint"]?.trim();
  return { name: plugin ? `${plugin}:${name}` : name, description, ...(hint ? { argumentHint: hint } : {}), file };
}
