// registry/agent.json must be the entry the release script generates for the
// version in package.json (minus the per-build checksums), valid under the
// ACP registry's schema, with an id and name that cannot be mistaken for the
// vendor's agent or another ZCode bridge, a license backed by LICENSE, and an
// icon the registry accepts (16x16, currentColor only). The generated entry
// of a real build is checked in install-release.test.ts.
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { REGISTRY_AGENT_ID, REGISTRY_PLATFORMS } from "../../src/cli/distribution.ts";
import { assetName, DEFAULT_DOWNLOAD_BASE, parseTargetId } from "../../src/cli/release-targets.ts";
import { registryEntry, type RegistryEntry } from "../../scripts/release/registry-entry.ts";
import { registrySchemaErrors } from "../support/registry-schema.ts";
import { ROOT } from "./cli-support.ts";

const text = readFileSync(join(ROOT, "registry/agent.json"), "utf8");
const agent = JSON.parse(text) as RegistryEntry;

test("agent.json is valid under the registry's schema", () => {
  expect(registrySchemaErrors(agent)).toEqual([]);
  // The schema check must be able to fail: a wrong platform and a bad id are refused.
  expect(registrySchemaErrors({ ...agent, id: "Bad Id" }).length).toBeGreaterThan(0);
  const bad = structuredClone(agent);
  (bad.distribution.binary as Record<string, unknown>)["linux-x64"] = { archive: "https://x/y.tar.gz", cmd: "./y" };
  expect(registrySchemaErrors(bad).length).toBeGreaterThan(0);
});

test("agent.json is exactly what the release script generates for this version (no checksums)", () => {
  expect(agent.version).toBe(pkg.version);
  expect(text).toBe(`${JSON.stringify(registryEntry(agent, pkg.version), null, 2)}\n`);
  for (const [platform, entry] of Object.entries(agent.distribution.binary)) {
    const target = parseTargetId(REGISTRY_PLATFORMS[platform] ?? "");
    expect(target).toBeDefined();
    expect(entry.archive).toBe(`${DEFAULT_DOWNLOAD_BASE}/download/v${pkg.version}/${assetName(target!)}`);
    expect(entry.archive).not.toContain("/latest/");
    expect(entry.sha256).toBeUndefined();
  }
  // x86_64 gets builds that start on every x64 CPU.
  for (const p of ["linux-x86_64", "darwin-x86_64", "windows-x86_64"]) {
    expect(agent.distribution.binary[p]!.archive).toContain("-baseline.");
  }
  expect(Object.keys(agent.distribution.binary).sort()).toEqual(Object.keys(REGISTRY_PLATFORMS).sort());
});

test("id and name say community bridge, not the vendor's agent or the other ZCode bridge", () => {
  expect(agent.id).toBe(REGISTRY_AGENT_ID);
  // Taken in the registry by another bridge (zcode-acp, named "ZCode").
  expect(agent.id).not.toBe("zcode-acp");
  expect(agent.name).not.toBe("ZCode");
  expect(agent.name.toLowerCase()).toContain("community");
  expect(agent.description.toLowerCase()).toContain("unofficial");
});

test("license is MIT, as package.json says, backed by the LICENSE file; authors are named", () => {
  expect(agent.license).toBe(pkg.license);
  expect(pkg.license).toBe("MIT");
  const license = readFileSync(join(ROOT, "LICENSE"), "utf8");
  expect(license).toStartWith("MIT License");
  expect(license).toContain("Copyright (c) 2026 The zcode-acp-server authors");
  expect(agent.authors).toEqual(["The zcode-acp-server authors"]);
  expect(agent.license_url).toBe(`https://github.com/${DEFAULT_DOWNLOAD_BASE.split("/").slice(3, 5).join("/")}/blob/main/LICENSE`);
});

test("icon.svg is 16x16 and monochrome (currentColor)", () => {
  const svg = readFileSync(join(ROOT, "registry/icon.svg"), "utf8");
  expect(svg).toContain('width="16"');
  expect(svg).toContain('height="16"');
  for (const m of svg.matchAll(/(?:fill|stroke)="([^"]*)"/g)) {
    expect(["currentColor", "none", "inherit"]).toContain(m[1] ?? "");
  }
});
