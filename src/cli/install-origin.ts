import { realpathSync } from "node:fs";
import { HOMEBREW_FORMULA, HOMEBREW_TAP, NPM_PACKAGE } from "./distribution.ts";

// Who owns the binary at a path: the user (install.sh, install.ps1, a manual
// copy) or a package manager / editor that will replace it on its own
// schedule. `upgrade` must not overwrite a copy another tool tracks (npm would
// reinstall the old one, Homebrew's checksums and `brew upgrade` would break,
// an editor re-downloads from the registry), and `doctor` says which it is.

export type InstallOrigin =
  | { kind: "standalone" }
  | { kind: "npm"; how: string }
  | { kind: "homebrew"; how: string }
  | { kind: "editor-registry"; editor: "Zed" | "JetBrains"; how: string };

/** Path segments compared case-insensitively: macOS and Windows paths are. */
function segments(path: string): string[] {
  return path.split(/[\\/]+/).map((s) => s.toLowerCase());
}

export function installOriginOf(path: string): InstallOrigin {
  const parts = segments(path);
  if (parts.includes("node_modules")) {
    return {
      kind: "npm",
      how: `npm install -g ${NPM_PACKAGE}@latest (or, run through npx, npx -y ${NPM_PACKAGE}@latest)`,
    };
  }
  // Homebrew kegs live in <prefix>/Cellar/<formula>/<version>/ on macOS and Linux.
  const cellar = parts.indexOf("cellar");
  if (cellar !== -1 && parts[cellar + 1] === HOMEBREW_FORMULA) {
    return { kind: "homebrew", how: `brew upgrade ${HOMEBREW_TAP}/${HOMEBREW_FORMULA}` };
  }
  // Zed downloads registry agents under its data directory's external_agents
  // (~/.local/share/zed, ~/Library/Application Support/Zed, %LOCALAPPDATA%\Zed).
  const ext = parts.indexOf("external_agents");
  if (ext > 0 && parts[ext - 1] === "zed") {
    return {
      kind: "editor-registry",
      editor: "Zed",
      how: "Zed updates agents it installed from the ACP registry itself; nothing to do here",
    };
  }
  // Unconfirmed: where JetBrains IDEs unpack registry agents is not
  // documented; any copy under a JetBrains data or cache directory is
  // treated as theirs, since no installer of ours writes there.
  if (parts.includes("jetbrains")) {
    return {
      kind: "editor-registry",
      editor: "JetBrains",
      how: "the IDE updates agents it installed from the ACP registry (Settings | Tools | AI Assistant | Agents)",
    };
  }
  return { kind: "standalone" };
}

/** The binary's own path with symlinks resolved (Homebrew and npm link into bin directories). */
export function realPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

export function describeOrigin(o: InstallOrigin): string {
  switch (o.kind) {
    case "standalone":
      return "standalone (install.sh, install.ps1 or a copy)";
    case "npm":
      return `installed by npm (${NPM_PACKAGE})`;
    case "homebrew":
      return "installed by Homebrew";
    case "editor-registry":
      return `installed by ${o.editor} from the ACP registry`;
  }
}
