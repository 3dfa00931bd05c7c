import { describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { discoveredCommands } from "../../../../src/commands/discovery/discover.ts";
import { checkSessionUpdate } from "../../../support/schema.ts";
import { skillMd, tempDir, writeTree } from "../../support/file-tree.ts";

const STORE = ".zcode/cli/plugins";
const OFFICIAL = `${STORE}/cache/zcode-plugins-official`;

/** A home with user skills and commands, two marketplace plugins and two official ones; a workspace in a git repo. */
function fixture(config: object = {}) {
  const root = tempDir();
  const home = writeTree(join(root, "home"), {
    ".zcode/skills/pdf-tools/SKILL.md": skillMd({ name: "pdf-tools", description: "Fill and read PDF forms" }),
    ".agents/skills/shared/SKILL.md": skillMd({ name: "shared", description: "From ~/.agents", "argument-hint": "<topic>" }),
    ".zcode/commands/review.md": "---\ndescription: Review the diff\nargument-hint: <focus>\n---\nReview $ARGUMENTS\n",
    ".zcode/cli/config.json": config,
    [`${STORE}/installed_plugins.json`]: {
      version: 1,
      plugins: {
        "git-tools@acme": [{ installPath: join(root, "home", STORE, "cache/acme/git-tools/1.0.0"), version: "1.0.0", scope: "user" }],
        "quiet@acme": [{ version: "2.0.0", scope: "user" }],
      },
    },
    [`${STORE}/cache/acme/git-tools/1.0.0/.claude-plugin/plugin.json`]: { name: "git-tools", version: "1.0.0" },
    [`${STORE}/cache/acme/git-tools/1.0.0/commands/commit.md`]: "---\ndescription: Commit with a good message\n---\nbody\n",
    [`${STORE}/cache/acme/git-tools/1.0.0/skills/changelog/SKILL.md`]: skillMd({ name: "changelog", description: "Write the changelog" }),
    // No installPath: cache/<marketplace>/<name>/<version>.
    [`${STORE}/cache/acme/quiet/2.0.0/.zcode-plugin/plugin.json`]: { name: "quiet" },
    [`${STORE}/cache/acme/quiet/2.0.0/commands/hush.md`]: "# Hush\n",
    [`${OFFICIAL}/zcode-guide/0.2.0/.zcode-plugin/plugin.json`]: { name: "zcode-guide" },
    [`${OFFICIAL}/zcode-guide/0.2.0/skills/old-guide/SKILL.md`]: skillMd({ name: "old-guide", description: "Old version" }),
    [`${OFFICIAL}/zcode-guide/0.10.0/.zcode-plugin/plugin.json`]: { name: "zcode-guide" },
    [`${OFFICIAL}/zcode-guide/0.10.0/skills/zcode-configuration-guide/SKILL.md`]: skillMd({
      name: "zcode-configuration-guide",
      description: "Configure ZCode",
    }),
    [`${OFFICIAL}/computer-use/0.6.4/.zcode-plugin/plugin.json`]: { name: "computer-use" },
    [`${OFFICIAL}/computer-use/0.6.4/skills/computer-use/SKILL.md`]: skillMd({ name: "computer-use", description: "Drive the desktop" }),
  });
  const ws = writeTree(join(root, "ws"), {
    ".git/HEAD": "ref: refs/heads/main\n",
    ".agents/skills/deploy/SKILL.md": skillMd({ name: "deploy", description: "Deploy this repo" }),
    "pkg/.zcode/skills/local/SKILL.md": skillMd({ name: "local", description: "Only in pkg" }),
    "pkg/.zcode/commands/lint.md": "---\ndescription: Lint the package\n---\n",
  });
  const cwd = join(ws, "pkg");
  return { root, home, ws, cwd, env: { HOME: home } as Record<string, string | undefined> };
}

const names = (f: { cwd: string; env: Record<string, string | undefined> }, taken?: (n: string) => boolean) =>
  discoveredCommands({ cwd: f.cwd, env: f.env }, taken).map((c) => c.name);

describe("discoveredCommands", () => {
  test("the user's, the workspace's and enabled plugins' commands, then skills, in ZCode's order", () => {
    const f = fixture({ plugins: { enabledPlugins: { "git-tools@acme": true } } });
    const list = discoveredCommands({ cwd: f.cwd, env: f.env });
    expect(list.map((c) => c.name)).toEqual([
      "review",
      "lint",
      "commit",
      "pdf-tools",
      "shared",
      "local",
      "deploy",
      // Official plugins come before marketplace installs, as ZCode orders its candidates.
      "zcode-guide:zcode-configuration-guide",
      "git-tools:changelog",
    ]);
    expect(list.find((c) => c.name === "review")).toEqual({ name: "review", description: "Review the diff", input: { hint: "<focus>" } });
    expect(list.find((c) => c.name === "commit")).toEqual({ name: "commit", description: "Commit with a good message" });
    expect(list.find((c) => c.name === "shared")?.input).toEqual({ hint: "<topic>" });
    expect(list.find((c) => c.name === "pdf-tools")).toEqual({
      name: "pdf-tools",
      description: "Fill and read PDF forms",
      input: { hint: "[task]" },
    });
    expect(checkSessionUpdate({ sessionUpdate: "available_commands_update", availableCommands: list })).toEqual([]);
  });

  test("FIFOs and devices in place of ZCode's files are skipped at once; the rest is listed", () => {
    const f = fixture({ plugins: { enabledPlugins: { "git-tools@acme": true } } });
    const mkfifo = (p: string) => expect(Bun.spawnSync(["mkfifo", p]).exitCode).toBe(0);
    mkfifo(join(f.home, ".zcode/commands/fifo.md"));
    mkfifo(join(f.ws, "zcode.json"));
    mkdirSync(join(f.home, ".zcode/skills/piped"), { recursive: true });
    mkfifo(join(f.home, ".zcode/skills/piped/SKILL.md"));
    symlinkSync("/dev/zero", join(f.home, ".zcode/commands/zero.md"));
    symlinkSync("/dev/zero", join(f.cwd, "zcode.json"));
    expect(names(f)).toEqual([
      "review",
      "lint",
      "commit",
      "pdf-tools",
      "shared",
      "local",
      "deploy",
      "zcode-guide:zcode-configuration-guide",
      "git-tools:changelog",
    ]);
  });

  test("a JSON file over 64 KiB (a long plugin list) is read whole, up to 1 MiB", () => {
    const f = fixture({ plugins: { enabledPlugins: { "git-tools@acme": true } } });
    const file = join(f.home, STORE, "installed_plugins.json");
    const json = JSON.parse(readFileSync(file, "utf8"));
    json.padding = "x".repeat(100 * 1024);
    writeFileSync(file, JSON.stringify(json));
    expect(names(f)).toContain("git-tools:changelog");
    json.padding = "x".repeat(1024 * 1024);
    writeFileSync(file, JSON.stringify(json));
    expect(names(f)).not.toContain("git-tools:changelog");
  });

  test("plugins: off by default unless official content ones, switched by enabledPlugins, hidden when suppressed or all off", () => {
    expect(names(fixture())).not.toContain("commit");
    expect(names(fixture())).toContain("zcode-guide:zcode-configuration-guide");
    expect(names(fixture())).not.toContain("computer-use:computer-use");
    // The newest cached version of an official plugin, not an old one.
    expect(names(fixture())).not.toContain("zcode-guide:old-guide");

    const on = names(fixture({ plugins: { enabledPlugins: { "quiet@acme": true, "computer-use@zcode-plugins-official": true } } }));
    expect(on).toContain("hush");
    expect(on).toContain("computer-use:computer-use");

    const off = names(fixture({ plugins: { enabledPlugins: { "zcode-guide@zcode-plugins-official": false } } }));
    expect(off).not.toContain("zcode-guide:zcode-configuration-guide");
    const suppressed = names(fixture({ plugins: { suppressedBuiltins: ["zcode-guide@zcode-plugins-official"] } }));
    expect(suppressed).not.toContain("zcode-guide:zcode-configuration-guide");
    const none = names(fixture({ plugins: { enabled: false, enabledPlugins: { "git-tools@acme": true } } }));
    expect(none).toEqual(["review", "lint", "pdf-tools", "shared", "local", "deploy"]);
  });

  test("skills and commands switched off in the user's config are not listed", () => {
    const f = fixture();
    writeFileSync(
      join(f.home, ".zcode/cli/config.json"),
      JSON.stringify({
        skills: { [join(f.home, ".zcode/skills/pdf-tools/SKILL.md")]: { enable: false }, roots: [] },
        skill: { [join(f.ws, ".agents/skills/deploy/SKILL.md")]: { enable: false }, "relative/SKILL.md": { enable: false } },
        command: { [join(f.home, ".zcode/commands/review.md")]: { enable: false } },
      }),
    );
    const list = names(f);
    expect(list).not.toContain("pdf-tools");
    expect(list).not.toContain("deploy");
    expect(list).not.toContain("review");
    expect(list).toEqual(["lint", "shared", "local", "zcode-guide:zcode-configuration-guide"]);
  });

  test("the workspace's config (zcode.json, .zcode/config.json) is layered over the user's", () => {
    const f = fixture({ plugins: { enabledPlugins: { "git-tools@acme": true } } });
    writeTree(f.ws, {
      "zcode.json": { plugins: { enabledPlugins: { "git-tools@acme": false } } },
      "pkg/.zcode/config.json": { skills: { [join(f.cwd, ".zcode/skills/local/SKILL.md")]: { enable: false } } },
    });
    const list = names(f);
    expect(list).not.toContain("commit");
    expect(list).not.toContain("local");
    expect(list).toContain("deploy");
  });

  test("configured skills.roots come first: ~/ from home, relative from the cwd", () => {
    const f = fixture();
    writeTree(f.home, { "team/pdf/SKILL.md": skillMd({ name: "pdf-tools", description: "The team's version" }) });
    writeTree(f.cwd, { "tools/skills/gen/SKILL.md": skillMd({ name: "gen", description: "Generate code" }) });
    writeFileSync(join(f.home, ".zcode/cli/config.json"), JSON.stringify({ skills: { roots: ["~/team", "tools/skills", 7] } }));
    const list = discoveredCommands({ cwd: f.cwd, env: f.env });
    expect(list.map((c) => c.name).slice(2, 5)).toEqual(["pdf-tools", "gen", "shared"]);
    expect(list.find((c) => c.name === "pdf-tools")?.description).toBe("The team's version");
  });

  test("skills turned off altogether: skills.enabled or features.skill false", () => {
    for (const config of [{ skills: { enabled: false } }, { features: { skill: false } }]) {
      expect(names(fixture(config))).toEqual(["review", "lint"]);
    }
  });

  test("names: ours and ZCode's built-ins left out, commands before skills, the first of a name wins, case aside", () => {
    const f = fixture();
    writeTree(f.home, {
      ".zcode/commands/thought.md": "# shadowed by ours\n",
      ".zcode/commands/init.md": "# ZCode keeps /init\n",
      ".zcode/skills/model/SKILL.md": skillMd({ name: "model", description: "ZCode keeps /model" }),
      ".zcode/skills/Review/SKILL.md": skillMd({ name: "Review", description: "same name as a command" }),
      ".agents/skills/pdf2/SKILL.md": skillMd({ name: "pdf-tools", description: "second of that name" }),
      ".zcode/skills/with space/SKILL.md": skillMd({ name: "with space", description: "cannot be typed" }),
    });
    const list = discoveredCommands({ cwd: f.cwd, env: f.env }, (n) => n === "thought");
    expect(list.map((c) => c.name)).toEqual([
      "review",
      "lint",
      "pdf-tools",
      "shared",
      "local",
      "deploy",
      "zcode-guide:zcode-configuration-guide",
    ]);
    expect(list.find((c) => c.name === "pdf-tools")?.description).toBe("Fill and read PDF forms");
  });

  test("descriptions are one line of at most 100 characters", () => {
    const f = fixture();
    writeTree(f.home, {
      ".zcode/skills/long/SKILL.md": `---\nname: long\ndescription: >\n  ${"word ".repeat(60)}\n  end\n---\n`,
    });
    const long = discoveredCommands({ cwd: f.cwd, env: f.env }).find((c) => c.name === "long")!;
    expect(long.description.length).toBe(100);
    expect(long.description.endsWith("…")).toBe(true);
    expect(long.description).not.toContain("\n");
  });

  test("the plugin store follows storage.dir and ZCODE_STORAGE_DIR", () => {
    const f = fixture();
    const elsewhere = writeTree(join(f.root, "data"), {
      "cli/plugins/cache/zcode-plugins-official/pdf/0.1.8/.zcode-plugin/plugin.json": { name: "pdf" },
      "cli/plugins/cache/zcode-plugins-official/pdf/0.1.8/skills/pdf/SKILL.md": skillMd({ name: "pdf", description: "PDFs" }),
    });
    expect(names(f)).not.toContain("pdf:pdf");
    expect(names({ ...f, env: { ...f.env, ZCODE_STORAGE_DIR: elsewhere } })).toContain("pdf:pdf");
    writeFileSync(join(f.home, ".zcode/cli/config.json"), JSON.stringify({ storage: { dir: join(elsewhere, "cli") } }));
    expect(names(f)).toContain("pdf:pdf");
    expect(names(f)).not.toContain("zcode-guide:zcode-configuration-guide");
  });

  test("the bundled official partition names the official roots when present", () => {
    const f = fixture();
    writeTree(f.home, {
      [`${STORE}/marketplaces/zcode-plugins-official/bundled-marketplace.json`]: {
        version: 1,
        manifest: { plugins: [{ name: "zcode-guide", cachePath: join(f.home, OFFICIAL, "zcode-guide/0.2.0") }] },
      },
    });
    const list = names(f);
    expect(list).toContain("zcode-guide:old-guide");
    expect(list).not.toContain("zcode-guide:zcode-configuration-guide");
  });

  test("inline plugins from plugins.dirs are on by default", () => {
    const f = fixture();
    const dir = writeTree(join(f.root, "my-plugin"), {
      ".codex-plugin/plugin.json": { name: "mine" },
      "skills/hello/SKILL.md": skillMd({ name: "hello", description: "Say hello" }),
      "extra/tools/SKILL.md": skillMd({ name: "tools", description: "Declared in the manifest" }),
    });
    writeFileSync(join(dir, ".codex-plugin/plugin.json"), JSON.stringify({ name: "mine", skills: ["./extra", "../escape"] }));
    writeFileSync(join(f.home, ".zcode/cli/config.json"), JSON.stringify({ plugins: { dirs: [dir] } }));
    expect(names(f)).toEqual(expect.arrayContaining(["mine:hello", "mine:tools"]));
    writeFileSync(
      join(f.home, ".zcode/cli/config.json"),
      JSON.stringify({ plugins: { dirs: [dir], enabledPlugins: { "mine@inline": false } } }),
    );
    expect(names(f)).not.toContain("mine:hello");
  });

  test("a scan is reused until something it read changes", () => {
    const f = fixture();
    const file = join(f.home, ".zcode/skills/pdf-tools/SKILL.md");
    // Whole seconds, so setting the same time again gives the very same mtime.
    const then = 1_700_000_000;
    utimesSync(file, then, then);
    expect(discoveredCommands({ cwd: f.cwd, env: f.env }).find((c) => c.name === "pdf-tools")?.description).toBe("Fill and read PDF forms");

    // Same size, same mtime: invisible to the fingerprint, so the cached answer stands.
    writeFileSync(file, skillMd({ name: "pdf-tools", description: "Fill and read PDF FORMS" }));
    utimesSync(file, then, then);
    expect(discoveredCommands({ cwd: f.cwd, env: f.env }).find((c) => c.name === "pdf-tools")?.description).toBe("Fill and read PDF forms");

    // A real edit (new mtime) is seen.
    utimesSync(file, then, then + 5);
    expect(discoveredCommands({ cwd: f.cwd, env: f.env }).find((c) => c.name === "pdf-tools")?.description).toBe("Fill and read PDF FORMS");

    // A new skill directory, a root that did not exist, a switch in the config.
    writeTree(f.home, { ".zcode/skills/new-one/SKILL.md": skillMd({ name: "new-one", description: "Just added" }) });
    expect(names(f)).toContain("new-one");
    writeTree(f.cwd, { ".agents/skills/fresh/SKILL.md": skillMd({ name: "fresh", description: "New root" }) });
    expect(names(f)).toContain("fresh");
    writeFileSync(
      join(f.home, ".zcode/cli/config.json"),
      JSON.stringify({ skills: { [join(f.home, ".zcode/skills/new-one/SKILL.md")]: { enable: false } } }),
    );
    expect(names(f)).not.toContain("new-one");
  });

  test("never throws: broken config, broken manifest, missing or relative cwd, no home", () => {
    const f = fixture();
    writeFileSync(join(f.home, ".zcode/cli/config.json"), "{ not json");
    writeFileSync(join(f.home, OFFICIAL, "zcode-guide/0.10.0/.zcode-plugin/plugin.json"), "[1, 2");
    writeFileSync(join(f.home, `${STORE}/installed_plugins.json`), '{"plugins": 42}');
    const list = names(f);
    expect(list).toContain("review");
    expect(list).not.toContain("zcode-guide:zcode-configuration-guide");
    expect(names({ cwd: join(f.root, "no-such-dir"), env: f.env })).toEqual(["review", "pdf-tools", "shared"]);
    expect(names({ cwd: "relative/dir", env: f.env })).toEqual([]);
    mkdirSync(join(f.root, "empty"));
    expect(() => names({ cwd: join(f.root, "empty"), env: {} })).not.toThrow();
  });
});
