// The ACP registry entry of a release: registry/agent.json (the maintained
// text: id, name, authors, license, description) with the version, one
// archive URL per registry platform and each archive's sha256 from
// SHA256SUMS. Builds are not bit-reproducible, so the checksums exist only
// for a given build: the committed registry/agent.json has none, the
// generated copy under dist/registry/ has them.
import { assetName, DEFAULT_DOWNLOAD_BASE, downloadUrl, parseTargetId, binaryName } from "../../src/cli/release-targets.ts";
import { REGISTRY_PLATFORMS } from "../../src/cli/distribution.ts";

export interface RegistryBinaryTarget {
  archive: string;
  sha256?: string;
  cmd: string;
  args: string[];
}

export interface RegistryEntry {
  id: string;
  name: string;
  version: string;
  description: string;
  distribution: { binary: Record<string, RegistryBinaryTarget> };
  [field: string]: unknown;
}

/**
 * The entry for `version`. With `sums`, every archive must have a checksum
 * (a partial entry would send some platforms an unverified download).
 */
export function registryEntry(template: RegistryEntry, version: string, sums?: Map<string, string>): RegistryEntry {
  const binary: Record<string, RegistryBinaryTarget> = {};
  for (const [platform, id] of Object.entries(REGISTRY_PLATFORMS)) {
    const t = parseTargetId(id);
    if (!t) throw new Error(`registry platform ${platform} maps to unknown target ${id}`);
    const asset = assetName(t);
    const entry: RegistryBinaryTarget = { archive: downloadUrl(DEFAULT_DOWNLOAD_BASE, `v${version}`, asset), cmd: "", args: [] };
    if (sums) {
      const sha = sums.get(asset);
      if (!sha) throw new Error(`SHA256SUMS has no ${asset} (registry platform ${platform})`);
      entry.sha256 = sha;
    }
    // The registry runs cmd relative to the unpacked archive on Unix; on
    // Windows the bare file name is what the registry's own entries use.
    entry.cmd = t.os === "windows" ? binaryName(t) : `./${binaryName(t)}`;
    entry.args = [];
    binary[platform] = entry;
  }
  return { ...template, version, distribution: { ...(template.distribution ?? {}), binary } };
}

export function entryText(entry: RegistryEntry): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}
