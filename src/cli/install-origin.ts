import { realpathSync } from "node:fs";
import { t } from "../i18n/index.ts";
import { HOMEBREW_FORMULA, HOMEBREW_TAP, NPM_PACKAGE } from "./distribution.ts";

// Who owns the binary at a path: the user (install.sh, install.ps1, a manual
// copy) or a package manager / editor that will replace it on its own
// schedule. `upgrade` must not overwrite a copy another tool tracks (npm would
// reinstall the old one, Homebrew's checksums and `brew upgrade` would break,
// an editor re-downloads from the registry), and `doctor` says which it is.
// The words (origin, how to update) are the language table's: see
// describeOrigin and howToUpdate.

export type InstallOrigin =
  | { kind: "standalone" }
  | { kind: "npm" }
  | { kind: "homebrew" }
  | { kind: "editor-registry"; editor: "Zed" | "JetBrains" };

/** Path segments compared case-insensitively: macOS and Windows paths are. */
function segments(path: string): string[] {
  return path.split(/[\\/]+/).map((s) => s.toLowerCase());
}

export function installOriginOf(path: string): InstallOrigin {
  const parts = segments(path);
  if (parts.includes("node_modules")) {
    return { kind: "npm" };
  }
  // Homebrew kegs live in <prefix>/Cellar/<formula>/<version>/ on macOS and Linux.
  const cellar = parts.indexOf("cellar");
  if (cellar !== -1 && parts[cellar + 1] === HOMEBREW_FORMULA) {
    return { kind: "homebrew" };
  }
  // Zed downloads registry agents under its data directory's external_agents
  // (~/.local/share/zed, ~/Library/Application Support/Zed, %LOCALAPPDATA%\Zed).
  const ext = parts.indexOf("external_agents");
  if (ext > 0 && parts[ext - 1] === "zed") {
    return { kind: "editor-registry", editor: "Zed" };
  }
  // Unconfirmed: where JetBrains IDEs unpack registry agents is not
  // documented; any copy under a JetBrains data or cache directory is
  // treated as theirs, since no installer of ours writes there.
  if (parts.includes("jetbrains")) {
    return { kind: "editor-registry", editor: "JetBrains" };
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
  const say = t().cli.doctor.origins;
  switch (o.kind) {
    case "standalone":
      return say.standalone;
    case "npm":
      return say.npm(NPM_PACKAGE);
    case "homebrew":
      return say.homebrew;
    case "editor-registry":
      return say.editorRegistry(o.editor);
  }
}

/** How the tool that owns a copy updates it: the command to run, or that the editor does it itself. */
export function howToUpdate(o: Exclude<InstallOrigin, { kind: "standalone" }>): string {
  const say = t().cli.upgrade.how;
  switch (o.kind) {
    case "npm":
      return say.npm(NPM_PACKAGE);
    case "homebrew":
      return say.homebrew(`${HOMEBREW_TAP}/${HOMEBREW_FORMULA}`);
    case "editor-registry":
      return o.editor === "Zed" ? say.zed : say.jetbrains;
  }
}
