// The channels a release reaches users through, besides the GitHub release
// itself: the npm packages, the Homebrew tap and the ACP registry entry. Names
// derive from RELEASE_OWNER, so moving the project to another owner is one
// edit. scripts/release/ generates each channel's files from these; `upgrade`
// names them when it refuses to replace a copy a package manager owns.
import { RELEASE_OWNER, RELEASE_TARGETS, targetId, type ReleaseTarget } from "./release-targets.ts";

/** The npm package users install: `npm i -g @zcode-acp/server`, `npx -y @zcode-acp/server`. */
export const NPM_PACKAGE = `@${RELEASE_OWNER}/server`;

/** One npm package per release target holds that target's binary. */
export function npmPlatformPackage(t: ReleaseTarget): string {
  return `${NPM_PACKAGE}-${targetId(t)}`;
}

/** npm's `os`, `cpu` and `libc` for a target's package, so npm installs only the matching one. */
export function npmPlatformFields(t: ReleaseTarget): { os: string[]; cpu: string[]; libc?: string[] } {
  const os = t.os === "windows" ? "win32" : t.os;
  const fields: { os: string[]; cpu: string[]; libc?: string[] } = { os: [os], cpu: [t.arch] };
  // npm 9.4+ filters on libc; a glibc package must say so too, or musl
  // machines would get both (and older npm ignores the field).
  if (t.os === "linux") fields.libc = [t.musl ? "musl" : "glibc"];
  return fields;
}

/**
 * The optional dependencies of the main package: one per os/cpu/libc, the
 * default builds. Baseline twins share their os/cpu/libc, so listing them
 * too would make npm download both everywhere; the postinstall fetches a
 * baseline package only on a CPU without AVX2.
 */
export const NPM_OPTIONAL_TARGETS: readonly ReleaseTarget[] = RELEASE_TARGETS.filter((t) => !t.baseline);

/** `brew install zcode-acp/tap/zcode-acp-server` (the tap repository is github.com/zcode-acp/homebrew-tap). */
export const HOMEBREW_TAP = `${RELEASE_OWNER}/tap`;
export const HOMEBREW_TAP_REPO = `${RELEASE_OWNER}/homebrew-tap`;
export const HOMEBREW_FORMULA = "zcode-acp-server";

/** Intel entries use the baseline builds: a formula cannot ask the CPU before choosing its URL. */
export const HOMEBREW_TARGETS = {
  macos: { arm: "darwin-arm64", intel: "darwin-x64-baseline" },
  linux: { arm: "linux-arm64", intel: "linux-x64-baseline" },
} as const;

/** The entry's id and directory name in github.com/agentclientprotocol/registry. */
export const REGISTRY_AGENT_ID = "zcode-acp-server";

/**
 * ACP registry platform -> release target. The registry offers one x86_64
 * build per OS and cannot tell CPUs apart, so x86_64 points at the baseline
 * builds, the ones meant to start without AVX2; Linux is the glibc build
 * (the registry has no musl platform).
 */
export const REGISTRY_PLATFORMS: Readonly<Record<string, string>> = {
  "darwin-aarch64": "darwin-arm64",
  "darwin-x86_64": "darwin-x64-baseline",
  "linux-aarch64": "linux-arm64",
  "linux-x86_64": "linux-x64-baseline",
  "windows-aarch64": "windows-arm64",
  "windows-x86_64": "windows-x64-baseline",
};
