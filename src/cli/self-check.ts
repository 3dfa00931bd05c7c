import { accessSync, constants, statSync } from "node:fs";
import { delimiter, join } from "node:path";
import { t } from "../i18n/index.ts";
import { VERSION } from "../version.ts";
import { describeOrigin, installOriginOf, realPath } from "./install-origin.ts";
import { isCompiledBinary } from "./self.ts";

// `doctor`'s view of the bridge itself: which binary is running, who
// installed it, and whether typing `zcode-acp-server` (what an editor
// configured by name runs) would start a different program or version —
// the usual leftover of installing through two channels.

export interface SelfCheck {
  ok: boolean;
  warn?: boolean;
  label: string;
  detail: string;
  fix?: string;
}

type Env = Record<string, string | undefined>;

const VERSION_TIMEOUT_MS = 5_000;

export function selfChecks(env: Env): SelfCheck[] {
  const say = t().cli.doctor;
  const self = isCompiledBinary() ? realPath(process.execPath) : undefined;
  const checks: SelfCheck[] = [
    {
      ok: true,
      label: say.labels.self,
      detail: self ? say.selfBinary(self, VERSION, describeOrigin(installOriginOf(self))) : say.selfFromSource(VERSION),
    },
  ];

  const onPath = findAllOnPath("zcode-acp-server", env);
  const ownIndex = self ? onPath.findIndex((p) => realPath(p) === self) : -1;
  // Ahead of our own entry, or, when we are not on PATH, the one a bare
  // `zcode-acp-server` resolves to.
  const ahead = ownIndex === -1 ? onPath.slice(0, 1) : onPath.slice(0, ownIndex);
  for (const other of ahead) {
    if (self && realPath(other) === self) continue;
    const printed = versionOf(other, env);
    if (printed === VERSION) continue;
    const what =
      printed === undefined
        ? say.otherProgramFailed
        : /^\d+\.\d+\.\d+\S*$/.test(printed)
          ? say.otherVersion(printed, VERSION)
          : say.otherProgramPrinted(JSON.stringify(printed.slice(0, 80)));
    checks.push({
      ok: true,
      warn: true,
      label: say.labels.path,
      detail: say.pathAhead(other, ownIndex === -1, what),
      fix: self ? say.pathFixUsePath(other, self) : say.pathFix(other),
    });
  }
  return checks;
}

/** Every executable called `name` on PATH, in PATH order (Windows: with PATHEXT's extensions). */
export function findAllOnPath(name: string, env: Env, platform: NodeJS.Platform = process.platform): string[] {
  const pathVar = env.PATH ?? env.Path ?? "";
  const exts =
    platform === "win32"
      ? (env.PATHEXT ?? ".EXE;.CMD;.BAT")
          .split(";")
          .filter(Boolean)
          .map((e) => e.toLowerCase())
      : [""];
  const found: string[] = [];
  const seen = new Set<string>();
  for (const dir of pathVar.split(platform === "win32" ? ";" : delimiter)) {
    if (!dir) continue;
    for (const ext of exts) {
      const candidate = join(dir, name + ext);
      if (seen.has(candidate) || !isExecutableFile(candidate, platform)) continue;
      seen.add(candidate);
      found.push(candidate);
    }
  }
  return found;
}

function isExecutableFile(p: string, platform: NodeJS.Platform): boolean {
  try {
    if (!statSync(p).isFile()) return false;
    if (platform !== "win32") accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

function versionOf(path: string, env: Env): string | undefined {
  try {
    const p = Bun.spawnSync([path, "--version"], {
      stdin: "ignore",
      stdout: "pipe",
      stderr: "ignore",
      env: { PATH: env.PATH ?? env.Path ?? "" },
      timeout: VERSION_TIMEOUT_MS,
    });
    if (p.exitCode !== 0) return undefined;
    return p.stdout.toString().trim().split("\n")[0]?.trim();
  } catch {
    return undefined;
  }
}
