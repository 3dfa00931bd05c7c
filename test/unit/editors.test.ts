// The editor integrations proposed upstream (editors/): each names this
// bridge the way it is installed and signs in with the bridge's one auth
// method, has the shape of its client's own agent files (acpx 0.19.1's
// AGENT_DEFINITIONS, CodeCompanion's adapters/acp/*.lua, agent-shell's
// agent-shell-*.el), and comes with a one-paragraph PR text. Loaded by its
// interpreter when that is installed (a visible SKIP otherwise).
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { zcode as acpxEntry } from "../../editors/acpx/agent-definition.ts";
import { AUTH_METHOD_IDS } from "../../src/acp/initialize.ts";
import { NPM_PACKAGE } from "../../src/cli/distribution.ts";
import { ROOT, run } from "../e2e/cli-support.ts";

const EDITORS = join(ROOT, "editors");
const read = (p: string) => readFileSync(join(EDITORS, p), "utf8");
const COMMAND = "zcode-acp-server";

function skip(what: string, tool: string): true {
  console.warn(`SKIP ${what}: ${tool} is not installed`);
  return true;
}

test("acpx: an AGENT_DEFINITIONS entry (npx of the npm package, the installed command first) and its docs row", () => {
  // The keys acpx 0.19.1's AgentDefinition has.
  const known = new Set(["name", "argv", "installedArgv", "requiredCommands", "package", "packageExecFallback"]);
  expect(Object.keys(acpxEntry).filter((k) => !known.has(k))).toEqual([]);
  expect(acpxEntry).toEqual({ name: "ZCode", argv: ["npx", "-y", NPM_PACKAGE], installedArgv: [COMMAND] });
  const docs = read("acpx/docs-agents.md");
  expect(docs).toMatch(new RegExp(`^\\| \`zcode\` +\\| \`npx -y ${NPM_PACKAGE}\` +\\|`, "m"));
  expect(docs).toContain("### ZCode");
  expect(docs).toContain(AUTH_METHOD_IDS[0]);
});

test("CodeCompanion: an adapters/acp file like kimi_cli.lua that launches the bridge and names its auth method", async () => {
  const lua = read("codecompanion/zcode.lua");
  expect(lua).toContain('require("codecompanion.adapters.acp.helpers")');
  expect(lua).toMatch(/name = "zcode",/);
  expect(lua).toMatch(/type = "acp",/);
  expect(lua).toContain(`default = {\n      "${COMMAND}",\n    },`);
  expect(lua).toContain(`auth_method = "${AUTH_METHOD_IDS[0]}"`);
  expect(lua).not.toMatch(/\bauth = function/);
  const interpreter = Bun.which("lua5.4") ?? Bun.which("lua");
  if (!interpreter && skip("loading the CodeCompanion adapter", "lua5.4")) return;
  const probe = `package.loaded["codecompanion.adapters.acp.helpers"] = { form_messages = function() return 2 end }
local a = dofile(arg[1])
print(a.name, a.type, a.commands.default[1], a.defaults.auth_method, a.defaults.timeout, a.handlers.setup(a), a.handlers.form_messages(a, {}, {}))`;
  const r = await run([interpreter!, "-e", probe.replaceAll("arg[1]", JSON.stringify(join(EDITORS, "codecompanion/zcode.lua")))]);
  expect(r.stderr).toBe("");
  expect(r.stdout.trim().split("\t")).toEqual(["zcode", "acp", COMMAND, AUTH_METHOD_IDS[0], "120000", "true", "2"]);
});

test("agent-shell: a file like agent-shell-qoder.el that launches the bridge with Emacs' environment", async () => {
  const el = read("agent-shell/agent-shell-zcode.el");
  for (const name of [
    "agent-shell-zcode-acp-command",
    "agent-shell-zcode-environment",
    "agent-shell-zcode-make-agent-config",
    "agent-shell-zcode-start-agent",
    "agent-shell-zcode-make-client",
  ]) {
    expect(el).toContain(name);
  }
  expect(el).toContain(`'("${COMMAND}")`);
  expect(el).toContain("(agent-shell-make-environment-variables :inherit-env t)");
  expect(el).toContain(":identifier 'zcode");
  expect(el).toContain("(provide 'agent-shell-zcode)");
  const emacs = Bun.which("emacs");
  if (!emacs && skip("reading agent-shell-zcode.el", "emacs")) return;
  const file = join(EDITORS, "agent-shell/agent-shell-zcode.el");
  const r = await run([
    emacs!,
    "-Q",
    "--batch",
    "--eval",
    `(with-temp-buffer (insert-file-contents ${JSON.stringify(file)}) (goto-char (point-min)) (condition-case nil (while t (read (current-buffer))) (end-of-file (princ "ok"))))`,
  ]);
  expect(r.stdout).toBe("ok");
});

test("each has a pull-request text: a title and one paragraph", () => {
  for (const client of ["acpx", "codecompanion", "agent-shell"]) {
    const text = read(`${client}/PR.md`).trim();
    const [title, ...rest] = text.split("\n\n");
    expect(title).toMatch(/^# \S/);
    expect(rest).toHaveLength(1);
    expect(rest[0]!.length).toBeGreaterThan(300);
  }
  // And the README points at them.
  expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("(editors/)");
});
