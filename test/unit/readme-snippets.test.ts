// Every code block in the README is checked: JSON parses and has the shape
// its editor reads; shell blocks pass `sh -n`; the CodeCompanion (Lua) and
// agent-shell (Elisp) snippets are syntax-checked and then run by their
// interpreters against stand-ins with the real API's names and keywords
// (test/fixtures/editor-snippets/). A missing interpreter or pwsh is a
// visible SKIP (apt-get install lua5.4 emacs-nox), never a silent pass.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import registryAgent from "../../registry/agent.json" with { type: "json" };
import { initializeResult } from "../../src/acp/initialize.ts";
import { CONFIG_IDS } from "../../src/translate/options/options.ts";
import { REGISTRY_AGENT_ID } from "../../src/cli/distribution.ts";
import { doctorFlags, serveFlags, upgradeFlags } from "../../src/cli/flags.ts";
import { cli as cliEn } from "../../src/i18n/en/cli.ts";
import { ROOT, run } from "../e2e/cli-support.ts";

const README = readFileSync(join(ROOT, "README.md"), "utf8");
const blocks = [...README.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, code: m[2]! }));
const of = (lang: string) => blocks.filter((b) => b.lang === lang).map((b) => b.code);
const FIXTURES = join(ROOT, "test/fixtures/editor-snippets");
const COMMAND = "/home/you/.local/bin/zcode-acp-server";

let tmp: string;
beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), "zcode-acp-readme-"));
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function snippetFile(name: string, code: string): string {
  const p = join(tmp, name);
  writeFileSync(p, code);
  return p;
}

const HOW: Record<string, string> = {
  "luac5.4": "apt-get install lua5.4",
  "lua5.4": "apt-get install lua5.4",
  emacs: "apt-get install emacs-nox",
  pwsh: "not packaged by Debian; Microsoft's packages",
};

function skip(what: string, tool: string): true {
  console.warn(`SKIP ${what}: ${tool} is not installed (${HOW[tool] ?? tool})`);
  return true;
}

test("every block has a language this test checks (untagged blocks are listings, not snippets)", () => {
  const langs = new Set(blocks.map((b) => b.lang));
  for (const l of langs) expect(["json", "lua", "elisp", "sh", "powershell", ""]).toContain(l);
  expect(of("json").length).toBeGreaterThanOrEqual(4);
  expect(of("lua").length).toBe(1);
  expect(of("elisp").length).toBe(1);
});

describe("JSON snippets", () => {
  const parsed = () => of("json").map((code) => JSON.parse(code) as Record<string, any>);

  test("all parse", () => {
    for (const code of of("json")) expect(() => JSON.parse(code)).not.toThrow();
  });

  test("Zed: a registry entry under the registry id, a custom entry with the command; options the bridge has", () => {
    const zed = parsed().filter((j) => j.agent_servers && Object.values(j.agent_servers).some((s: any) => s.type));
    const servers = zed.flatMap((j) => Object.entries(j.agent_servers as Record<string, any>));
    const registry = servers.filter(([, s]) => s.type === "registry");
    const custom = servers.filter(([, s]) => s.type === "custom");
    expect(registry.map(([k]) => k)).toEqual([REGISTRY_AGENT_ID]);
    expect(registry[0]![1].env.ZCODE_BIN).toBeString();
    expect(custom.length).toBe(1);
    expect(custom[0]![1]).toMatchObject({ command: COMMAND, args: [], env: {} });
    for (const [, s] of servers) {
      for (const [id, value] of Object.entries(s.default_config_options ?? {})) {
        expect(Object.values(CONFIG_IDS) as string[]).toContain(id);
        expect(value).toBeString();
      }
    }
    // The registry install is named as the registry lists it.
    expect(README).toContain(`**${registryAgent.name}**`);
  });

  test("JetBrains acp.json and acpx config", () => {
    const all = parsed();
    const jetbrains = all.filter((j) => j.agent_servers && Object.values(j.agent_servers).every((s: any) => !s.type));
    expect(jetbrains.length).toBe(1);
    expect(Object.values(jetbrains[0]!.agent_servers)).toEqual([{ command: COMMAND, args: [], env: {} }]);
    const acpx = all.filter((j) => j.agents);
    expect(acpx.length).toBe(1);
    expect(acpx[0]!.agents.zcode).toEqual({ argv: [COMMAND] });
    // The shell examples use that configured name, and a prompt comes after the
    // session it needs (acpx exits 4 with "No acpx session found" otherwise).
    const acpxLines = of("sh")
      .flatMap((c) => c.split("\n"))
      .filter((l) => l.startsWith("acpx zcode "));
    const firstPrompt = acpxLines.findIndex((l) => /^acpx zcode '/.test(l));
    expect(firstPrompt).toBeGreaterThan(-1);
    expect(acpxLines.slice(0, firstPrompt).some((l) => l.startsWith("acpx zcode sessions new"))).toBe(true);
  });
});

describe("Configuration table", () => {
  const rows = README.slice(README.indexOf("## Configuration"), README.indexOf("## Troubleshooting"))
    .split("\n")
    .filter((l) => l.startsWith("| "));

  test("every flag --help lists is in the table, with the variable --help names for it", () => {
    const flags = { ...serveFlags, ...doctorFlags, ...upgradeFlags } as Record<string, { type: string }>;
    const names = Object.entries(flags)
      .filter(([, d]) => d.type !== "positional")
      .map(([n]) => n);
    expect(names).toContain("lang");
    for (const name of names) {
      const row = rows.find((r) => r.startsWith(`| \`--${name}`));
      expect({ name, row: row !== undefined }).toEqual({ name, row: true });
      const described = (cliEn.flags as Record<string, string>)[name] ?? "";
      for (const variable of described.match(/\bZCODE_[A-Z_]+\b/g) ?? []) {
        expect({ name, variable, inRow: row!.includes(variable) }).toEqual({ name, variable, inRow: true });
      }
    }
  });
});

test("shell snippets pass sh -n", async () => {
  const sh = Bun.which("dash") ?? Bun.which("sh")!;
  for (const [i, code] of of("sh").entries()) {
    const r = await run([sh, "-n", snippetFile(`snippet-${i}.sh`, code)]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  }
});

test("PowerShell snippets parse (when pwsh is installed)", async () => {
  const pwsh = Bun.which("pwsh");
  if (!pwsh && skip("PowerShell snippets", "pwsh")) return;
  for (const [i, code] of of("powershell").entries()) {
    const f = snippetFile(`snippet-${i}.ps1`, code);
    const r = await run([
      pwsh!,
      "-NoProfile",
      "-Command",
      `$e=$null; [void][System.Management.Automation.Language.Parser]::ParseFile('${f}', [ref]$null, [ref]$e); $e.Count`,
    ]);
    expect(r.stdout.trim()).toBe("0");
  }
});

describe("CodeCompanion (Lua)", () => {
  const code = () => of("lua")[0]!;

  test("a standalone ACP adapter, not an extension of another agent's", () => {
    expect(code()).not.toContain(".extend(");
    expect(code()).not.toMatch(/gemini|GEMINI/);
  });

  test("luac accepts it", async () => {
    const luac = Bun.which("luac5.4") ?? Bun.which("luac");
    if (!luac && skip("Lua syntax check", "luac5.4")) return;
    const r = await run([luac!, "-p", snippetFile("codecompanion.lua", code())]);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
  });

  test("run under Lua: the adapter CodeCompanion gets launches the bridge, signs in with its auth method, waits long enough", async () => {
    const lua = Bun.which("lua5.4") ?? Bun.which("lua");
    if (!lua && skip("running the CodeCompanion snippet", "lua5.4")) return;
    const r = await run([lua!, join(FIXTURES, "codecompanion-stubs.lua"), snippetFile("codecompanion-run.lua", code())]);
    expect(r.stderr).toBe("");
    const got = Object.fromEntries(
      r.stdout
        .trim()
        .split("\n")
        .map((l) => l.split(/=(.*)/s).slice(0, 2) as [string, string]),
    );
    expect(got).toMatchObject({
      chat_adapter: "zcode",
      name: "zcode",
      type: "acp",
      command: COMMAND,
      auth_method: initializeResult().authMethods![0]!.id,
      protocolVersion: "1",
      roles: "assistant,user",
      setup: "true",
      form_messages: "2",
      on_exit: "function",
    });
    // Well above a cold start (the first session starts ZCode itself).
    expect(Number(got.timeout)).toBeGreaterThanOrEqual(60_000);
  });
});

describe("agent-shell (Elisp)", () => {
  test("read by Emacs, then loaded: registered for M-x agent-shell, launches the bridge with Emacs' environment", async () => {
    const emacs = Bun.which("emacs");
    if (!emacs && skip("the agent-shell snippet", "emacs")) return;
    const snippet = snippetFile("zcode.el", of("elisp")[0]!);
    const check = `(progn
      (let* ((configs agent-shell-agent-configs)
             (zcode (seq-find (lambda (c) (eq (alist-get :identifier c) 'zcode)) configs))
             (client (funcall (alist-get :client-maker zcode) 'the-buffer)))
        (princ (format "count=%d\\nfirst=%s\\nlast=%s\\ncommand=%s\\nparams=%S\\nenv=%s\\nbuffer=%s\\nstart=%s\\n"
                       (length configs)
                       (alist-get :identifier (car configs))
                       (alist-get :identifier (car (last configs)))
                       (plist-get client :command)
                       (plist-get client :command-params)
                       (plist-get client :environment-variables)
                       (plist-get client :context-buffer)
                       (alist-get :identifier (plist-get (zcode) :started))))))`;
    const r = await run([
      emacs!,
      "--batch",
      "-Q",
      "--eval",
      '(setenv "HOME" "/home/you")',
      "-l",
      join(FIXTURES, "agent-shell-stubs.el"),
      "-l",
      snippet,
      "--eval",
      check,
    ]);
    expect(r.stderr.split("\n").filter((l) => l && !l.startsWith("Loading"))).toEqual([]);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      [
        "count=2",
        "first=claude-code", // the built-in agents stay, ZCode is added after them
        "last=zcode",
        `command=${COMMAND}`,
        "params=nil",
        "env=inherited-from-emacs",
        "buffer=the-buffer",
        "start=zcode",
        "",
      ].join("\n"),
    );
  });
});
