// The installers attached to release vX install vX when given no version:
// `curl …/releases/download/v0.2.0/install.sh | sh` must not silently install
// whatever is latest by then. The repository's copies stay unpinned (latest).
import { readFileSync, writeFileSync } from "node:fs";

const MARKERS: Record<string, { from: string; to: (v: string) => string }> = {
  "install.sh": { from: 'PINNED_VERSION=""', to: (v) => `PINNED_VERSION="${v}"` },
  "install.ps1": { from: '$PinnedVersion = ""', to: (v) => `$PinnedVersion = "${v}"` },
};

/** The installer's text with `version` stamped in; fails unless its marker occurs exactly once. */
export function stampInstaller(name: string, text: string, version: string): string {
  const m = MARKERS[name];
  if (!m) throw new Error(`no version marker is known for ${name}`);
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(version)) throw new Error(`'${version}' is not a version`);
  const count = text.split(m.from).length - 1;
  if (count !== 1) throw new Error(`${name}: expected the line ${m.from} once, found it ${count} times`);
  return text.replace(m.from, m.to(version));
}

export function writeStampedInstaller(src: string, dest: string, name: string, version: string): void {
  writeFileSync(dest, stampInstaller(name, readFileSync(src, "utf8"), version), { mode: name.endsWith(".sh") ? 0o755 : 0o644 });
}
