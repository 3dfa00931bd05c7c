import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { enabledPlugins, pluginStore } from "../../../../src/commands/discovery/plugins.ts";
import { Probe } from "../../../../src/commands/discovery/probe.ts";
import { loadZCodeConfig } from "../../../../src/commands/discovery/zcode-config.ts";
import { tempDir, writeTree } from "../../support/file-tree.ts";

function load(home: string, env: Record<string, string | undefined> = {}) {
  const probe = new Probe();
  const config = loadZCodeConfig(probe, { home, cwd: join(home, "ws"), env });
  return { probe, config };
}

const plugins = (home: string) => {
  const { probe, config } = load(home);
  return enabledPlugins(probe, config);
};

describe("pluginStore", () => {
  test("~/.zcode/cli/plugins by default; storage.dir (with or without its cli/) otherwise", () => {
    const home = tempDir();
    expect(pluginStore(load(home).config)).toBe(join(home, ".zcode/cli/plugins"));
    expect(pluginStore(load(home, { ZCODE_STORAGE_DIR: "/data/z" }).config)).toBe("/data/z/cli/plugins");
    expect(pluginStore(load(home, { ZCODE_STORAGE_DIR: "/data/z/cli" }).config)).toBe("/data/z/cli/plugins");
    writeTree(home, { ".zcode/cli/config.json": { storage: { dir: "~/elsewhere" } } });
    expect(pluginStore(load(home).config)).toBe(join(home, "elsewhere/cli/plugins"));
  });
});

describe("enabledPlugins", () => {
  test("the .zcode-plugin manifest before .claude-plugin; an invalid name drops the plugin", () => {
    const home = tempDir();
    writeTree(home, {
      ".zcode/cli/config.json": { plugins: { dirs: [join(home, "p1"), join(home, "p2"), join(home, "p3")] } },
      "p1/.zcode-plugin/plugin.json": { name: "native" },
      "p1/.claude-plugin/plugin.json": { name: "claude-name" },
      "p2/.claude-plugin/plugin.json": { name: "Bad Name" },
      "p3/.codex-plugin/plugin.json": "not json",
    });
    expect(plugins(home).map((p) => p.id)).toEqual(["native@inline"]);
  });

  test("component roots: skills/ and commands/, plus declared paths inside the plugin only", () => {
    const home = tempDir();
    const root = join(home, "p");
    writeTree(home, {
      ".zcode/cli/config.json": { plugins: { dirs: [root] } },
      "p/.zcode-plugin/plugin.json": { name: "p", skills: ["extra", "../outside", "/etc"], commands: "cmds" },
      "p/skills/a/SKILL.md": "x",
      "p/extra/b/SKILL.md": "x",
      "p/cmds/c.md": "x",
      "outside/d/SKILL.md": "x",
    });
    expect(plugins(home)).toEqual([
      { id: "p@inline", name: "p", root, skillRoots: [join(root, "skills"), join(root, "extra")], commandRoots: [join(root, "cmds")] },
    ]);
  });

  test("the first root of an id wins; installPath may be relative to the store", () => {
    const home = tempDir();
    const store = join(home, ".zcode/cli/plugins");
    writeTree(home, {
      ".zcode/cli/config.json": { plugins: { enabledPlugins: { "tools@m": true } } },
      ".zcode/cli/plugins/installed_plugins.json": {
        plugins: [
          { id: "tools@m", name: "tools", marketplace: "m", version: "2", installPath: "custom/tools", installedAt: "x", scope: "user" },
          { id: "tools@m", name: "tools", marketplace: "m", version: "1", installPath: "", installedAt: "x", scope: "user" },
        ],
      },
      ".zcode/cli/plugins/custom/tools/.zcode-plugin/plugin.json": { name: "tools" },
      ".zcode/cli/plugins/cache/m/tools/1/.zcode-plugin/plugin.json": { name: "tools" },
    });
    expect(plugins(home).map((p) => p.root)).toEqual([join(store, "custom/tools")]);
  });
});
