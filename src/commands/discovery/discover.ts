import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import path from "node:path";
import { log } from "../../log.ts";
import { homeDir, type Env } from "../../zcode/host.ts";
import { scanCommands, type CommandRoot } from "./custom-commands.ts";
import { menuEntries } from "./menu-entries.ts";
import { enabledPlugins } from "./plugins.ts";
import { Probe, type Stamp } from "./probe.ts";
import { baseRoots } from "./roots.ts";
import { scanSkills, type SkillRoot } from "./skills.ts";
import { disabledPaths, loadZCodeConfig, obj } from "./zcode-config.ts";

// The user's ZCode skills and custom commands (their own, the workspace's
// and enabled plugins') as `/` menu entries for one cwd. ZCode's app-server
// catalog (workspace/readPresentation `slashCommands`) has no skills and the
// 0.16 session snapshots carry no catalog, so the files are read directly,
// the way ZCode reads them. A scan is kept per cwd and reused while nothing it
// looked at changed (see Probe). Never throws: the menu is a convenience.

const logger = log.withTag("discovery");

export interface Where {
  cwd: string;
  env: Env;
}

interface Cached {
  fingerprint: ReadonlyMap<string, Stamp>;
  entries: AvailableCommand[];
}

const CACHE_SIZE = 16;
const cache = new Map<string, Cached>();

/**
 * The discovered entries for `where`, minus names `taken` says are the
 * bridge's own (asked lower-cased).
 */
export function discoveredCommands(where: Where, taken: (lowerCaseName: string) => boolean = () => false): AvailableCommand[] {
  if (!path.isAbsolute(where.cwd)) return [];
  try {
    const home = homeDir(where.env);
    const key = JSON.stringify([where.cwd, home ?? "", where.env.ZCODE_STORAGE_DIR ?? ""]);
    const hit = cache.get(key);
    let found: AvailableCommand[];
    if (hit && Probe.unchanged(hit.fingerprint)) {
      // Most recently used last, so the least recently used goes first when the cache is full.
      cache.delete(key);
      cache.set(key, hit);
      found = hit.entries;
    } else {
      found = scanFresh(key, where.cwd, home, where.env);
    }
    return found.filter((e) => !taken(e.name.toLowerCase()));
  } catch (err) {
    logger.debug("skill and command discovery failed:", err);
    return [];
  }
}

function scanFresh(key: string, cwd: string, home: string | undefined, env: Env): AvailableCommand[] {
  const probe = new Probe();
  const config = loadZCodeConfig(probe, { home, cwd, env });
  const plugins = enabledPlugins(probe, config);

  const commandRoots: CommandRoot[] = [
    ...baseRoots(config, "commands").map((dir) => ({ dir })),
    ...plugins.flatMap((p) => p.commandRoots.map((dir) => ({ dir, plugin: true }))),
  ];
  const commands = scanCommands(probe, commandRoots, disabledPaths(config.merged.command));

  const skillsOn = obj(config.merged.features).skill !== false && obj(config.merged.skills).enabled !== false;
  const skillRoots: SkillRoot[] = skillsOn
    ? [
        ...baseRoots(config, "skills").map((dir) => ({ dir })),
        ...plugins.flatMap((p) => p.skillRoots.map((dir) => ({ dir, plugin: p.name }))),
      ]
    : [];
  const skills = scanSkills(probe, skillRoots, disabledPaths(config.merged.skills, config.merged.skill));

  const entries = menuEntries(commands, skills);
  if (probe.exhausted) {
    // Too much to look at to keep a faithful fingerprint: answer, but rescan next time.
    logger.debug(`discovery stopped early for ${cwd}: too many files`);
    return entries;
  }
  cache.delete(key);
  cache.set(key, { fingerprint: probe.fingerprint(), entries });
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value!);
  return entries;
}

/** Forgets every cached scan (tests). */
export function clearDiscoveryCache(): void {
  cache.clear();
}
