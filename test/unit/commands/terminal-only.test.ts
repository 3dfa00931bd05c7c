import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { allCommands, availableCommands, matchCommand } from "../../../src/commands/registry.ts";
import { TERMINAL_ONLY_COMMANDS } from "../../../src/commands/terminal-only.ts";
import { skillMd, tempDir, writeTree } from "../support/file-tree.ts";
import { FakeCaps, runCommand } from "../support/commands-fakes.ts";

describe("ZCode's terminal-only commands", () => {
  test("/login answers where it works, and how to sign in the editor's ZCode, and calls nothing", async () => {
    const r = await runCommand("/login", {});
    expect(r.calls).toEqual([]);
    expect(r.said).toEqual([
      "`/login` needs the ZCode terminal app; run `zcode` in a terminal and type it there. Here, sign in with `zcode-acp-server login` in a terminal (it runs `zcode login`; choose an API key), or set ZCODE_API_KEY in the agent's settings, or sign in in the ZCode app (Settings → Models); `zcode-acp-server logout` signs out. `zcode-acp-server doctor` shows the sign-in in use.",
    ]);
    expect((await runCommand("/logout", {})).said.join("")).toContain("`zcode-acp-server logout` signs out");
  });

  test("every one, aliases included, in the name typed (any case, with arguments)", async () => {
    for (const name of [
      "login",
      "logout",
      "plugins",
      "plugin",
      "mcp",
      "locale",
      "language",
      "effort",
      "variant",
      "new",
      "clear",
      "resume",
      "continue",
      "expert",
      "dwf",
      "skill",
    ]) {
      const r = await runCommand(`/${name.toUpperCase()} some args`, {});
      expect(r.calls).toEqual([]);
      expect(r.said.join("")).toStartWith(`\`/${name}\` needs the ZCode terminal app`);
    }
  });

  test("where the editor has its own way, the reply says so", async () => {
    expect((await runCommand("/effort high", {})).said.join("")).toContain("use `/thought <level>`");
    expect((await runCommand("/skill pdf", {})).said.join("")).toContain("`/<skill-name> [task]`");
  });

  test("matched, but neither advertised nor among our commands", () => {
    expect(matchCommand("/plugins enable x")?.command.name).toBe("plugins");
    const advertised = availableCommands().map((c) => c.name);
    for (const c of TERMINAL_ONLY_COMMANDS) {
      expect(advertised).not.toContain(c.name);
      expect(allCommands().map((o) => o.name)).not.toContain(c.name);
    }
  });

  test("what ZCode expands itself still goes through: /init, /workflow, skills, custom commands", () => {
    for (const text of ["/init", "/workflow ship it", "/pdf-tools fill the form", "/git:commit", "/logins"])
      expect(matchCommand(text)).toBeUndefined();
  });
});

describe("availableCommands with a session's cwd", () => {
  test("ours first, then the discovered ones; a discovered name that is ours or terminal-only is left out", () => {
    const home = writeTree(tempDir(), {
      ".zcode/skills/steer/SKILL.md": skillMd({ name: "steer", description: "same name as ours" }),
      ".zcode/skills/Login/SKILL.md": skillMd({ name: "Login", description: "same name as a terminal-only one" }),
      ".zcode/skills/pdf-tools/SKILL.md": skillMd({ name: "pdf-tools", description: "Fill PDF forms" }),
      ".zcode/commands/review.md": "---\ndescription: Review the diff\n---\n",
    });
    const cwd = join(home, "project");
    const caps = new FakeCaps("0.15.3").asCaps();
    const list = availableCommands(caps, { cwd, env: { HOME: home } });
    const ours = availableCommands(caps).map((c) => c.name);
    expect(list.map((c) => c.name)).toEqual([...ours, "review", "pdf-tools"]);
    expect(list.filter((c) => c.name === "steer")).toHaveLength(1);
    expect(list.find((c) => c.name === "steer")?.description).toStartWith("Add instructions");
  });

  test("without a cwd, only ours (as before)", () => {
    expect(availableCommands().map((c) => c.name)).toEqual(allCommands().map((c) => c.name));
  });
});
