// The user's ZCode skills and plugin commands in the editor's `/` menu: the
// compiled bridge reads them from a temporary HOME and workspace, advertises
// them after session/new next to its own, and passes what is typed to ZCode
// unchanged; ZCode's terminal-only commands answer without reaching ZCode.
import { expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { withBridge } from "../support/acp-harness.ts";
import { EXPECTED_COMMANDS, promptAndCollect, waitForCommands } from "./commands-support.ts";

function write(root: string, files: Record<string, string | object>): void {
  for (const [rel, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, rel)), { recursive: true });
    writeFileSync(join(root, rel), typeof content === "string" ? content : JSON.stringify(content));
  }
}

const skill = (name: string, description: string) => `---\nname: ${name}\ndescription: ${description}\n---\n\nInstructions for ${name}.\n`;

async function withTrees(body: (home: string, workspace: string) => Promise<void>): Promise<void> {
  const root = mkdtempSync(join(tmpdir(), "zcode-e2e-discovery-"));
  const home = join(root, "home");
  const workspace = join(root, "workspace");
  const store = ".zcode/cli/plugins";
  write(home, {
    ".zcode/skills/pdf-tools/SKILL.md": skill("pdf-tools", "Fill and read PDF forms"),
    ".zcode/skills/old-habit/SKILL.md": skill("old-habit", "Switched off in config.json"),
    ".zcode/cli/config.json": {
      skills: { [join(home, ".zcode/skills/old-habit/SKILL.md")]: { enable: false } },
      plugins: { enabledPlugins: { "git-tools@acme": true, "noisy@acme": false } },
    },
    [`${store}/installed_plugins.json`]: {
      version: 1,
      plugins: { "git-tools@acme": [{ version: "1.0.0", scope: "user" }], "noisy@acme": [{ version: "0.1.0", scope: "user" }] },
    },
    [`${store}/cache/acme/git-tools/1.0.0/.claude-plugin/plugin.json`]: { name: "git-tools" },
    [`${store}/cache/acme/git-tools/1.0.0/commands/commit.md`]:
      "---\ndescription: Commit with a good message\nargument-hint: [scope]\n---\nCommit $ARGUMENTS\n",
    [`${store}/cache/acme/noisy/0.1.0/.claude-plugin/plugin.json`]: { name: "noisy" },
    [`${store}/cache/acme/noisy/0.1.0/commands/shout.md`]: "---\ndescription: A disabled plugin's command\n---\n",
  });
  write(workspace, { ".agents/skills/deploy/SKILL.md": skill("deploy", "Deploy this workspace") });
  try {
    await body(home, workspace);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

test("skills and enabled plugins' commands are advertised after session/new, next to ours; disabled ones are not", () =>
  withTrees((home, workspace) =>
    withBridge({ env: { HOME: home } }, async (h) => {
      const { sessionId } = await h.newSession(workspace);
      const names = await waitForCommands(h, sessionId);
      expect(names).toEqual([...EXPECTED_COMMANDS["0.16.9"]!, "commit", "pdf-tools", "deploy"]);
      const list = h.updatesOfKind(sessionId, "available_commands_update").at(-1)!.availableCommands;
      expect(list.find((c) => c.name === "commit")).toEqual({
        name: "commit",
        description: "Commit with a good message",
        input: { hint: "[scope]" },
      });
      expect(list.find((c) => c.name === "deploy")).toEqual({
        name: "deploy",
        description: "Deploy this workspace",
        input: { hint: "[task]" },
      });
      expect(names).not.toContain("old-habit");
      expect(names).not.toContain("shout");
    }),
  ));

test("a skill or plugin command typed goes to ZCode unchanged; /login answers and sends nothing", () =>
  withTrees((home, workspace) =>
    withBridge({ env: { HOME: home }, record: true }, async (h) => {
      const { sessionId } = await h.newSession(workspace);
      await waitForCommands(h, sessionId);

      for (const text of ["/pdf-tools fill tax-form.pdf with my address", "/commit the parser fix"]) {
        const out = await promptAndCollect(h, sessionId, text);
        expect(out.response.stopReason).toBe("end_turn");
        expect(out.frames.filter((f) => f.method === "session/send").map((f) => f.params)).toEqual([{ sessionId, content: text }]);
      }

      const login = await promptAndCollect(h, sessionId, "/login");
      expect(login.response.stopReason).toBe("end_turn");
      expect(login.text).toBe(
        "`/login` needs the ZCode terminal app; run `zcode` in a terminal and type it there. Here, sign in with `zcode-acp-server login` in a terminal (it runs `zcode login`; choose an API key), or set ZCODE_API_KEY in the agent's settings, or sign in in the ZCode app (Settings → Models); `zcode-acp-server logout` signs out. `zcode-acp-server doctor` shows the sign-in in use.",
      );
      // (A read left over from the turns before may still arrive meanwhile; nothing of /login may.)
      expect(login.frames.map((f) => f.method)).not.toContain("session/send");
      expect(JSON.stringify(login.frames)).not.toContain("login");

      const plugins = await promptAndCollect(h, sessionId, "/plugins enable noisy@acme");
      expect(plugins.text).toStartWith("`/plugins` needs the ZCode terminal app");
      expect(plugins.frames.map((f) => f.method)).not.toContain("session/send");
      expect(JSON.stringify(plugins.frames)).not.toContain("noisy");
    }),
  ));

test("a workspace without skills gets only ours (the harness's empty HOME)", () =>
  withBridge({}, async (h) => {
    const { sessionId } = await h.newSession();
    expect(await waitForCommands(h, sessionId)).toEqual(EXPECTED_COMMANDS["0.16.9"]!);
  }));

test("a link loop in ~/.zcode/commands lists each command once (no /loop:loop:…)", () =>
  withTrees(async (home, workspace) => {
    write(home, { ".zcode/commands/git/commit-all.md": "---\ndescription: Commit everything\n---\n" });
    symlinkSync(".", join(home, ".zcode/commands/loop"));
    symlinkSync("..", join(home, ".zcode/commands/git/up"));
    await withBridge({ env: { HOME: home } }, async (h) => {
      const { sessionId } = await h.newSession(workspace);
      const names = await waitForCommands(h, sessionId);
      expect(names.filter((n) => n.includes("loop") || n.includes("up:"))).toEqual([]);
      expect(names.filter((n) => n === "git:commit-all")).toHaveLength(1);
    });
  }));
