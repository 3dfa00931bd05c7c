import path from "node:path";
import { expandPath, obj, type ZCodeConfig } from "./zcode-config.ts";

// Where ZCode looks for skills and custom commands outside plugins, in its
// priority order (adapters/src/skills/roots.ts, adapters/src/commands/roots.ts):
// configured `skills.roots` first (skills only), then the user's
// ~/.zcode/<kind> and ~/.agents/<kind>, then `.zcode/<kind>` and
// `.agents/<kind>` of the cwd and each ancestor up to the git worktree root,
// cwd first. Plugin roots come after all of these. The first of two
// same-named entries wins.

export type Kind = "skills" | "commands";

export function baseRoots(config: ZCodeConfig, kind: Kind): string[] {
  const roots: string[] = [];
  if (kind === "skills") {
    const configured = obj(config.merged.skills).roots;
    for (const r of Array.isArray(configured) ? configured : []) {
      const p = typeof r === "string" && r.trim() ? expandPath(r.trim(), config.home, config.cwd) : undefined;
      if (p) roots.push(p);
    }
  }
  if (config.home) roots.push(path.join(config.home, ".zcode", kind), path.join(config.home, ".agents", kind));
  for (const dir of config.projectDirs) roots.push(path.join(dir, ".zcode", kind), path.join(dir, ".agents", kind));
  return [...new Set(roots)];
}
