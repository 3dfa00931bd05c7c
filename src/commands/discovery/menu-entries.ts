import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import type { FoundCommand } from "./custom-commands.ts";
import { ZCODE_RESERVED_NAMES } from "./reserved.ts";
import type { FoundSkill } from "./skills.ts";

// Found skills and commands as menu entries. The name is exactly what the
// user types after `/`, and the typed text goes to ZCode unchanged, so an
// entry is only listed when ZCode would act on that text:
// - one name, one entry: custom commands first (ZCode expands a command
//   before the model sees the text), then skills, each in ZCode's priority order,
//   names compared without case (`/Foo` and `/foo` side by side only confuse);
// - names ZCode keeps for its built-ins are left out;
// - a skill name must be typeable as one word (no spaces, no leading dash).
// Descriptions are one line, capped: editors show them beside the name. The
// list is capped too: a menu of thousands helps nobody and costs every update.

export const MAX_DESCRIPTION = 100;
export const MAX_ENTRIES = 200;
const SKILL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/;

export function menuEntries(commands: readonly FoundCommand[], skills: readonly FoundSkill[]): AvailableCommand[] {
  const used = new Set<string>();
  const out: AvailableCommand[] = [];
  const add = (name: string, description: string, hint: string | undefined) => {
    const key = name.toLowerCase();
    if (out.length >= MAX_ENTRIES || used.has(key) || ZCODE_RESERVED_NAMES.has(key)) return;
    used.add(key);
    out.push({ name, description: oneLine(description), ...(hint ? { input: { hint: oneLine(hint) } } : {}) });
  };
  for (const c of commands) add(c.name, c.description, c.argumentHint);
  // What follows a skill's name is the request it works on.
  const fallback = t().commands.discovered;
  for (const s of skills) {
    if (SKILL_NAME.test(s.name)) add(s.name, s.description || fallback.skillDescription, s.argumentHint ?? fallback.skillHint);
  }
  return out;
}

function oneLine(text: string): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > MAX_DESCRIPTION ? `${flat.slice(0, MAX_DESCRIPTION - 1).trimEnd()}…` : flat;
}
