import { readdirSync } from "node:fs";
import path from "node:path";
import { compareVersions, extractVersion } from "./capabilities.ts";
import { NodeMissingError, renderPlaces, type CliSource, type Searched } from "./errors.ts";
import { inHome, isFile, which, type Env } from "./host.ts";

// The Node.js that runs a ZCode CLI shipped as a JavaScript entry. It needs
// Node >= 22 (node:sqlite, node:sea; Bun cannot run it), and is looked for
// explicitly because editors started from a GUI often have no node on PATH:
// the explicit setting, then the usual install places (Homebrew, Volta, nvm,
// fnm, the system), then PATH.

export const MIN_NODE_MAJOR = 22;

export interface NodeFound {
  path: string;
  version: string;
}

export interface NodeSearch {
  env: Env;
  platform: NodeJS.Platform;
  /** Absolute, or undefined: then nothing is looked for under it. */
  home: string | undefined;
  /** ZCODE_NODE / --zcode-node: the only Node tried when set. */
  explicit: string | undefined;
}

function nodeCandidates(s: NodeSearch): string[] {
  const home = s.home;
  const exe = s.platform === "win32" ? "node.exe" : "node";
  const out: string[] = [];
  if (s.platform === "win32") {
    if (s.env.ProgramFiles) out.push(path.join(s.env.ProgramFiles, "nodejs", exe));
    if (s.env.LOCALAPPDATA) out.push(path.join(s.env.LOCALAPPDATA, "Volta", "bin", exe));
  } else {
    out.push("/opt/homebrew/bin/node", "/usr/local/bin/node", ...inHome(home, ".volta/bin/node"));
    for (const nvmRoot of inHome(home, ".nvm/versions/node")) out.push(...versionDirs(nvmRoot, "bin/node"));
    for (const fnmRoot of [
      ...inHome(home, ".local/share/fnm/node-versions"),
      ...inHome(home, "Library/Application Support/fnm/node-versions"),
      ...inHome(home, ".fnm/node-versions"),
    ])
      out.push(...versionDirs(fnmRoot, "installation/bin/node"));
    out.push("/usr/bin/node");
  }
  return out;
}

/** `<root>/<version>/<rel>` for every version dir, newest version first. */
function versionDirs(root: string, rel: string): string[] {
  let names: string[];
  try {
    names = readdirSync(root);
  } catch {
    return [];
  }
  return names
    .filter((n) => extractVersion(n))
    .sort((a, b) => compareVersions(b, a))
    .map((n) => path.join(root, n, rel));
}

/** Runs `<node> --version`; undefined when it does not run. */
export function nodeVersionOf(node: string, env: Env): string | undefined {
  try {
    const r = Bun.spawnSync([node, "--version"], {
      env: env as Record<string, string>,
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      timeout: 5000,
    });
    if (r.exitCode !== 0) return undefined;
    return extractVersion(r.stdout.toString());
  } catch {
    return undefined;
  }
}

function majorOf(version: string): number {
  return Number(version.split(".")[0]);
}

/**
 * The Node that runs the JS entry `cli.entry`: explicit setting, then common
 * install paths, then PATH. Throws NodeMissingError (naming the CLI, which
 * was found) when none is usable.
 */
export function findNode(s: NodeSearch, cli: { entry: string; source: CliSource }): NodeFound {
  if (s.explicit) {
    const p = path.resolve(s.explicit);
    const version = isFile(p) ? nodeVersionOf(p, s.env) : undefined;
    const explicit = s.explicit;
    if (!version) throw new NodeMissingError(cli, "not-found", (e) => e.nodeNotWorking(explicit), [`ZCODE_NODE=${explicit}`]);
    if (majorOf(version) < MIN_NODE_MAJOR) throw nodeTooOld(cli, [(e) => e.nodeTried(p, version)]);
    return { path: p, version };
  }
  const tried: Searched[] = [];
  const seen = new Set<string>();
  const candidates = nodeCandidates(s);
  const onPath = which("node", s);
  if (onPath) candidates.push(onPath);
  for (const c of candidates) {
    if (seen.has(c) || !isFile(c)) continue;
    seen.add(c);
    const version = nodeVersionOf(c, s.env);
    if (!version) {
      tried.push((e) => e.nodeTried(c));
      continue;
    }
    if (majorOf(version) >= MIN_NODE_MAJOR) return { path: c, version };
    tried.push((e) => e.nodeTried(c, version));
  }
  if (tried.length) throw nodeTooOld(cli, tried);
  throw new NodeMissingError(cli, "not-found", (e) => e.nodeMissing(cli.entry, MIN_NODE_MAJOR), [
    ...candidates.filter((c, i) => candidates.indexOf(c) === i),
    (e) => e.nodeOnPath,
  ]);
}

function nodeTooOld(cli: { entry: string; source: CliSource }, tried: Searched[]): NodeMissingError {
  return new NodeMissingError(cli, "too-old", (e) => e.nodeTooOld(cli.entry, MIN_NODE_MAJOR, renderPlaces(tried, e)), tried);
}
