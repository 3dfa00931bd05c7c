// registry/agent.json must describe the archives the release actually
// publishes, for the version in package.json, with an icon the ACP registry
// accepts (16x16, currentColor only).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { assetName, DEFAULT_DOWNLOAD_BASE, RELEASE_TARGETS, targetId } from "../../src/cli/release-targets.ts";
import { ROOT } from "./cli-support.ts";

const agent = JSON.parse(readFileSync(join(ROOT, "registry/agent.json"), "utf8"));
const REGISTRY_PLATFORM: Record<string, string> = {
  "darwin-aarch64": "darwin-arm64",
  "darwin-x86_64": "darwin-x64",
  "linux-aarch64": "linux-arm64",
  "linux-x86_64": "linux-x64",
  "windows-x86_64": "windows-x64",
};

test("agent.json: version, ids and every archive URL match the release", () => {
  expect(agent.id).toMatch(/^[a-z][a-z0-9-]*$/);
  expect(agent.version).toBe(pkg.version);
  expect(agent.name).toBeString();
  expect(agent.description).toBeString();
  const binary = agent.distribution.binary as Record<string, { archive: string; cmd: string }>;
  expect(Object.keys(binary).sort()).toEqual(Object.keys(REGISTRY_PLATFORM).sort());
  for (const [platform, entry] of Object.entries(binary)) {
    const target = RELEASE_TARGETS.find((t) => targetId(t) === REGISTRY_PLATFORM[platform]);
    expect(target).toBeDefined();
    expect(entry.archive).toBe(`${DEFAULT_DOWNLOAD_BASE}/download/v${pkg.version}/${assetName(target!)}`);
    expect(entry.archive).not.toContain("/latest/");
    expect(entry.cmd).toBe(platform.startsWith("windows") ? "zcode-acp-server.exe" : "./zcode-acp-server");
  }
});

test("icon.svg is 16x16 and monochrome (currentColor)", () => {
  const svg = readFileSync(join(ROOT, "registry/icon.svg"), "utf8");
  expect(svg).toContain('width="16"');
  expect(svg).toContain('height="16"');
  for (const m of svg.matchAll(/(?:fill|stroke)="([^"]*)"/g)) {
    expect(["currentColor", "none", "inherit"]).toContain(m[1] ?? "");
  }
});
