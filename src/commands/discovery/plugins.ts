import path from "node:path";
import { log } from "../../log.ts";
import type { Probe } from "./probe.ts";
import { expandPath, obj, readJson, str, type Json, type ZCodeConfig } from "./zcode-config.ts";

// The plugins ZCode would load, and where their skills and commands are
// (adapters/src/plugins/index.ts `discoverPluginsSync`, bootstrap/src/plugins.ts).
//
// The store is <storage.dir>/cli/plugins (storage.dir defaults to ~/.zcode):
// - inline plugins: config `plugins.dirs` (marketplace "inline"), on by default;
// - official plugins: the roots named by marketplaces/zcode-plugins-official/
//   bundled-marketplace.json, else every cache/zcode-plugins-official/<name>/<version>;
//   on by default only for the content plugins ZCode ships enabled;
// - marketplace installs: installed_plugins.json, each at its installPath or
//   cache/<marketplace>/<name>/<version>; off by default.
// A plugin's id is `<manifest name>@<marketplace>`; `plugins.enabledPlugins[id]`
// overrides the default, `plugins.suppressedBuiltins` hides an official one,
// `plugins.enabled: false` turns them all off. The manifest is the first of
// .zcode-plugin/, .claude-plugin/, .codex-plugin/ plugin.json. The first root
// with a given id wins.

const logger = log.withTag("discovery");

const OFFICIAL = "zcode-plugins-official";
const INLINE = "inline";
const MANIFESTS = [".zcode-plugin", ".claude-plugin", ".codex-plugin"].map((d) => path.join(d, "plugin.json"));
const NAME = /^[a-z0-9][a-z0-9._-]{0,127}$/;

/**
 * Official plugins ZCode enables until the user says otherwise
 * (bootstrap/src/app/official-plugin-definitions.ts, `defaultEnabled: true`).
 * The heavy ones (computer-use, the emulators) stay off. A plugin missing
 * here only means it is not listed until enabled explicitly.
 */
const OFFICIAL_ON_BY_DEFAULT = new Set([
  "visualize",
  "browser-use",
  "documents",
  "pdf",
  "presentations",
  "spreadsheets",
  "image-search",
  "plugin-creator",
  "skill-creator",
  "zcode-guide",
]);

export interface EnabledPlugin {
  id: string;
  /** The manifest name: plugin skills are `<name>:<skill>`. */
  name: string;
  root: string;
  skillRoots: string[];
  commandRoots: string[];
}

interface Candidate {
  root: string;
  marketplace: string;
  source: "inline" | "official" | "installed";
}

/** <storage.dir>/cli/plugins, as ZCode's getPluginStorageRoot(getCliStorageRoot(storage.dir)). */
export function pluginStore(config: ZCodeConfig): string | undefined {
  const configured = str(obj(config.merged.storage).dir);
  const base = configured
    ? expandPath(configured, config.home, config.home ?? config.cwd)
    : config.home
      ? path.join(config.home, ".zcode")
      : undefined;
  if (!base) return undefined;
  return path.basename(base) === "cli" ? path.join(base, "plugins") : path.join(base, "cli", "plugins");
}

export function enabledPlugins(probe: Probe, config: ZCodeConfig): EnabledPlugin[] {
  const settings = obj(config.merged.plugins);
  if (settings.enabled === false) return [];
  const store = pluginStore(config);
  const enabled = obj(settings.enabledPlugins);
  const suppressed = new Set(
    Array.isArray(settings.suppressedBuiltins) ? settings.suppressedBuiltins.filter((s) => typeof s === "string") : [],
  );
  const seen = new Set<string>();
  const out: EnabledPlugin[] = [];
  for (const c of candidates(probe, config, settings, store)) {
    const manifest = readManifest(probe, c.root);
    if (!manifest) continue;
    const id = `${manifest.name}@${c.marketplace}`;
    if (c.source === "official" && suppressed.has(id)) continue;
    if (seen.has(id)) continue;
    seen.add(id);
    const byDefault = c.source === "inline" || (c.source === "official" && OFFICIAL_ON_BY_DEFAULT.has(manifest.name));
    const on = typeof enabled[id] === "boolean" ? (enabled[id] as boolean) : byDefault;
    if (!on) continue;
    out.push({
      id,
      name: manifest.name,
      root: c.root,
      skillRoots: componentRoots(probe, c.root, manifest.json.skills, "skills"),
      commandRoots: componentRoots(probe, c.root, manifest.json.commands, "commands"),
    });
  }
  return out;
}

function candidates(probe: Probe, config: ZCodeConfig, settings: Json, store: string | undefined): Candidate[] {
  const out: Candidate[] = [];
  for (const dir of Array.isArray(settings.dirs) ? settings.dirs : []) {
    const root = typeof dir === "string" && dir.trim() ? expandPath(dir.trim(), config.home, config.cwd) : undefined;
    if (root) out.push({ root, marketplace: INLINE, source: "inline" });
  }
  if (!store) return out;
  for (const root of officialRoots(probe, store)) out.push({ root, marketplace: OFFICIAL, source: "official" });
  for (const rec of installedRecords(probe, store)) out.push({ ...rec, source: "installed" });
  return out;
}

/** The official plugin roots: the bundled partition's list when valid, else the newest version of each cached plugin. */
function officialRoots(probe: Probe, store: string): string[] {
  const cache = path.join(store, "cache", OFFICIAL);
  const partition = readJson(probe, path.join(store, "marketplaces", OFFICIAL, "bundled-marketplace.json"));
  const listed = obj(partition.manifest).plugins;
  if (partition.version === 1 && Array.isArray(listed)) {
    return listed.flatMap((p) => {
      const name = str(obj(p).name);
      const cachePath = str(obj(p).cachePath);
      if (!name || !cachePath) return [];
      const root = path.resolve(cachePath);
      // ZCode only trusts a cachePath inside cache/zcode-plugins-official/<name>/.
      return root.startsWith(path.join(cache, name) + path.sep) ? [root] : [];
    });
  }
  return probe
    .readDir(cache)
    .filter((e) => e.isDirectory())
    .flatMap((e) => {
      const versions = probe
        .readDir(path.join(cache, e.name))
        .filter((v) => v.isDirectory())
        .map((v) => v.name)
        .sort(compareVersionNames);
      const newest = versions.at(-1);
      return newest ? [path.join(cache, e.name, newest)] : [];
    });
}

/** installed_plugins.json: `{plugins: {"<name>@<mkt>": [{installPath, version}]}}` or `{plugins: [{id, name, marketplace, version, installPath}]}`. */
function installedRecords(probe: Probe, store: string): Array<{ root: string; marketplace: string }> {
  const plugins = readJson(probe, path.join(store, "installed_plugins.json")).plugins;
  const records: Array<{ name?: string; marketplace?: string; version?: string; installPath?: string }> = [];
  if (Array.isArray(plugins)) {
    for (const p of plugins) {
      const r = obj(p);
      records.push({ name: str(r.name), marketplace: str(r.marketplace), version: str(r.version), installPath: str(r.installPath) });
    }
  } else {
    for (const [id, entry] of Object.entries(obj(plugins))) {
      const at = id.lastIndexOf("@");
      if (at <= 0 || at === id.length - 1) continue;
      for (const item of Array.isArray(entry) ? entry : [entry]) {
        const r = obj(item);
        records.push({ name: id.slice(0, at), marketplace: id.slice(at + 1), version: str(r.version), installPath: str(r.installPath) });
      }
    }
  }
  return records.flatMap((r) => {
    if (!r.marketplace || !r.name) return [];
    const root = r.installPath
      ? path.resolve(store, r.installPath)
      : path.join(store, "cache", ...[r.marketplace, r.name, r.version ?? "0.0.0"].map(sanitize));
    return [{ root, marketplace: r.marketplace }];
  });
}

function readManifest(probe: Probe, root: string): { name: string; json: Json } | undefined {
  if (!probe.isDir(root)) return undefined;
  for (const rel of MANIFESTS) {
    const file = path.join(root, rel);
    if (!probe.isFile(file)) continue;
    const json = readJson(probe, file);
    const name = str(json.name);
    if (name && NAME.test(name)) return { name, json };
    logger.debug(`plugin manifest without a valid name skipped: ${file}`);
    return undefined;
  }
  return undefined;
}

/** The plugin's `skills/` or `commands/` directory plus the manifest's own paths for that component, inside the root only. */
function componentRoots(probe: Probe, root: string, declared: unknown, key: "skills" | "commands"): string[] {
  const paths = typeof declared === "string" ? [declared] : Array.isArray(declared) ? declared.filter((d) => typeof d === "string") : [];
  const out: string[] = [];
  if (probe.isDir(path.join(root, key), false)) out.push(path.join(root, key));
  for (const p of paths) {
    if (path.isAbsolute(p)) continue;
    const abs = path.resolve(root, p);
    if (abs !== root && !abs.startsWith(root + path.sep)) continue;
    if (!out.includes(abs)) out.push(abs);
  }
  return out;
}

/** ZCode's sanitizePluginId, applied to each cache path segment. */
function sanitize(segment: string): string {
  return segment.replace(/[^a-zA-Z0-9_.@-]/g, "-");
}

/** "0.10.0" after "0.9.1"; non-numeric parts compare as text. */
function compareVersionNames(a: string, b: string): number {
  const pa = a.split(/[.-]/);
  const pb = b.split(/[.-]/);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const x = pa[i] ?? "";
    const y = pb[i] ?? "";
    const nx = Number(x);
    const ny = Number(y);
    const d = x !== "" && y !== "" && Number.isFinite(nx) && Number.isFinite(ny) ? nx - ny : x < y ? -1 : x > y ? 1 : 0;
    if (d !== 0) return d;
  }
  return 0;
}
