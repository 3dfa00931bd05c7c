// The npm packages of a release, one directory each under dist/npm/:
//   server/              @zcode-acp/server: the command, its postinstall, and
//                        one optional dependency per os/cpu/libc
//   server-<target>/     @zcode-acp/server-<target>: that target's binary
// The main package has no binary of its own: its postinstall
// (scripts/npm/postinstall.cjs) puts the platform package's binary in place
// of the command's placeholder. Publish the platform packages first.
import { copyFileSync, chmodSync, linkSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { binaryName, RELEASE_REPO, targetId, type ReleaseTarget } from "../../src/cli/release-targets.ts";
import { NPM_OPTIONAL_TARGETS, NPM_PACKAGE, npmPlatformFields, npmPlatformPackage } from "../../src/cli/distribution.ts";

const ROOT = resolve(import.meta.dir, "../..");

// A POSIX sh script with a `#!/bin/sh` line, so that a client that execs the
// command directly (Python's subprocess, Node's spawn without a shell) gets
// its message rather than "Exec format error", with or without Node. npm's
// Windows shims for a file with a `#!` line run it through that interpreter;
// the postinstall rewrites them to start the native .exe directly once it is
// in place (rewriteWindowsShims in scripts/npm/postinstall.cjs).
export const PLACEHOLDER = `#!/bin/sh
echo "zcode-acp-server: this is a placeholder. The postinstall of ${NPM_PACKAGE} replaces it with the native binary; reinstall without --ignore-scripts, or use the standalone installer (https://github.com/${RELEASE_REPO}#install)." >&2
exit 1
`;

function common(version: string) {
  return {
    version,
    license: "MIT",
    author: "The zcode-acp-server authors",
    homepage: `https://github.com/${RELEASE_REPO}#readme`,
    repository: { type: "git", url: `git+https://github.com/${RELEASE_REPO}.git` },
    bugs: { url: `https://github.com/${RELEASE_REPO}/issues` },
  };
}

/** Directory name under dist/npm/ for a package name: the name without its scope. */
export function npmDirName(name: string): string {
  return name.replace(/^@[^/]+\//, "");
}

export function mainPackageJson(version: string): Record<string, unknown> {
  return {
    name: NPM_PACKAGE,
    ...common(version),
    description: "Community ACP bridge for the ZCode CLI: one native binary for Zed, JetBrains, Neovim, Emacs and any ACP client",
    keywords: ["acp", "agent-client-protocol", "zcode", "zed", "jetbrains", "codecompanion", "agent-shell"],
    bin: { "zcode-acp-server": "bin/zcode-acp-server.exe" },
    scripts: { postinstall: "node install.js" },
    optionalDependencies: Object.fromEntries(NPM_OPTIONAL_TARGETS.map((t) => [npmPlatformPackage(t), version])),
    os: ["darwin", "linux", "win32"],
    cpu: ["x64", "arm64"],
    engines: { node: ">=18" },
    files: ["bin/", "install.js"],
  };
}

export function platformPackageJson(t: ReleaseTarget, version: string): Record<string, unknown> {
  return {
    name: npmPlatformPackage(t),
    ...common(version),
    description: `The ${targetId(t)} binary of ${NPM_PACKAGE} (installed by it; not meant to be installed on its own)`,
    ...npmPlatformFields(t),
    files: ["bin/"],
    // Yarn and pnpm: keep the binary a real file on disk.
    preferUnplugged: true,
  };
}

function mainReadme(version: string): string {
  return `# ${NPM_PACKAGE}

Community [Agent Client Protocol](https://agentclientprotocol.com) bridge for
the ZCode coding agent, as one native binary (built with Bun; no Node process
per launch).

\`\`\`sh
npx -y ${NPM_PACKAGE}@${version} --version
npm install -g ${NPM_PACKAGE}      # then: zcode-acp-server doctor
\`\`\`

The postinstall script puts the binary for your platform in place of the
\`zcode-acp-server\` command; installs with \`--ignore-scripts\` get a
placeholder that says so. Editor setup, other installers (curl, PowerShell,
Homebrew, the ACP registry): https://github.com/${RELEASE_REPO}#readme
`;
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * Write the main package and one package per built target (`binaries`:
 * target id -> built executable). Returns the directories written.
 */
export function writeNpmPackages(
  outDir: string,
  version: string,
  binaries: Map<string, { target: ReleaseTarget; path: string }>,
): string[] {
  rmSync(outDir, { recursive: true, force: true });
  const written: string[] = [];
  const license = join(ROOT, "LICENSE");

  const main = join(outDir, npmDirName(NPM_PACKAGE));
  mkdirSync(join(main, "bin"), { recursive: true });
  writeJson(join(main, "package.json"), mainPackageJson(version));
  copyFileSync(join(ROOT, "scripts/npm/postinstall.cjs"), join(main, "install.js"));
  writeFileSync(join(main, "bin", "zcode-acp-server.exe"), PLACEHOLDER, { mode: 0o755 });
  writeFileSync(join(main, "README.md"), mainReadme(version));
  copyFileSync(license, join(main, "LICENSE"));
  written.push(main);

  for (const { target, path } of binaries.values()) {
    const dir = join(outDir, npmDirName(npmPlatformPackage(target)));
    mkdirSync(join(dir, "bin"), { recursive: true });
    writeJson(join(dir, "package.json"), platformPackageJson(target, version));
    const bin = join(dir, "bin", binaryName(target));
    // A hard link: the same bytes as the archived binary, without another 100 MB copy.
    try {
      linkSync(path, bin);
    } catch {
      copyFileSync(path, bin);
    }
    chmodSync(bin, 0o755);
    writeFileSync(
      join(dir, "README.md"),
      `# ${npmPlatformPackage(target)}\n\nThe ${targetId(target)} binary of [${NPM_PACKAGE}](https://www.npmjs.com/package/${NPM_PACKAGE}). Install that package instead.\n`,
    );
    copyFileSync(license, join(dir, "LICENSE"));
    written.push(dir);
  }
  return written;
}
