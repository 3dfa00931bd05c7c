import { existsSync } from "node:fs";
import { join } from "node:path";
import type { BridgeConfig } from "../config.ts";
import { VERSION } from "../version.ts";
import { desktopAppVersion } from "../zcode/app-version.ts";
import { CliCapabilities } from "../zcode/capabilities.ts";
import { BUILTIN_PROVIDER_VAR, PERSONAL_PROVIDER_VAR, launchEnv, providerConfigVars } from "../zcode/launch-env.ts";
import { detectVersion } from "../zcode/cli-version.ts";
import { NodeMissingError } from "../zcode/errors.ts";
import { homeDir } from "../zcode/host.ts";
import { resolveZCode, type ZCodeLaunch } from "../zcode/resolve.ts";
import { jetbrainsSnippet, zedSnippet } from "./editor-snippets.ts";
import { selfCommand } from "./self.ts";
import { selfChecks } from "./self-check.ts";

// `zcode-acp-server doctor`: everything that decides whether an editor will
// get a working agent, checked in the order a launch needs it, each failure
// with the fix spelled out. Human output, so stdout is fine here.

const SOURCE_TEXT: Record<ZCodeLaunch["source"], string> = {
  env: "from ZCODE_BIN / --zcode-bin",
  path: "found on PATH",
  "app-bundle": "bundled in the ZCode desktop app",
};

const NODE_FIX = "Install Node.js 22 or newer, or set ZCODE_NODE=/path/to/node (or --zcode-node).";

interface Check {
  ok: boolean;
  /** Worth knowing, but the bridge works: printed as WARN, does not fail doctor. */
  warn?: boolean;
  label: string;
  detail: string;
  fix?: string;
}

export async function runDoctor(config: BridgeConfig, out: (line: string) => void): Promise<number> {
  const checks: Check[] = [...selfChecks(config.env)];
  const home = homeDir(config.env);

  let launch: ZCodeLaunch | undefined;
  try {
    launch = resolveZCode({
      bin: config.zcodeBin,
      node: config.zcodeNode,
      env: config.env,
      homedir: home,
    });
    checks.push({ ok: true, label: "ZCode CLI", detail: `${launch.entry} (${SOURCE_TEXT[launch.source]})` });
  } catch (e) {
    if (e instanceof NodeMissingError) {
      // The CLI was found; what it lacks is a Node to run it.
      checks.push({ ok: true, label: "ZCode CLI", detail: `${e.entry} (${SOURCE_TEXT[e.source]})` });
      checks.push({ ok: false, label: "Node for the JS entry", detail: messageOf(e), fix: NODE_FIX });
    } else {
      checks.push({
        ok: false,
        label: "ZCode CLI",
        detail: messageOf(e),
        fix:
          "Install the ZCode CLI (or the ZCode desktop app), or point the bridge at it:\n" +
          "  set ZCODE_BIN=/path/to/zcode in the editor's agent env, or pass --zcode-bin /path/to/zcode",
      });
    }
  }

  if (launch) {
    // resolveZCode only returns a JS entry together with a working Node.
    checks.push({
      ok: true,
      label: "Node for the JS entry",
      detail: launch.node
        ? `${launch.node}${launch.nodeVersion ? ` (${launch.nodeVersion})` : ""}`
        : "not needed (native binary)",
    });

    checks.push(...providerConfigChecks(launch, config.env));

    try {
      const version = await detectVersion(launch, launchEnv(launch, config.env));
      const caps = new CliCapabilities(version);
      checks.push(
        caps.supported
          ? { ok: true, label: "ZCode version", detail: `${version} (supported)` }
          : {
              ok: false,
              label: "ZCode version",
              detail: `${version} is too old (0.14.8 or newer is needed)`,
              fix: "Update ZCode (the desktop app updates its bundled CLI; or reinstall the CLI).",
            },
      );
    } catch (e) {
      checks.push({
        ok: false,
        label: "ZCode version",
        detail: `\`${[...launch.command, "--version"].join(" ")}\` failed: ${messageOf(e)}`,
        fix: "Check that this ZCode CLI runs from a terminal; reinstall it if it does not.",
      });
    }
  }

  checks.push(signInCheck(home));


  out(`zcode-acp-server ${VERSION} doctor`);
  out("");
  for (const c of checks) {
    out(`${c.warn ? "WARN" : c.ok ? "ok  " : "FAIL"}  ${c.label}: ${c.detail.split("\n").join("\n      ")}`);
    if (c.fix) for (const l of c.fix.split("\n")) out(`      fix: ${l.trimStart()}`);
  }
  const failed = checks.filter((c) => !c.ok).length;
  out("");
  out(failed === 0 ? "All checks passed." : `${failed} check(s) failed; see the fixes above.`);

  const self = selfCommand();
  out("");
  out("Zed: add to ~/.config/zed/settings.json (Windows: %APPDATA%\\Zed\\settings.json):");
  out(zedSnippet(self));
  out("");
  out("JetBrains IDEs: add to ~/.jetbrains/acp.json:");
  out(jetbrainsSnippet(self));
  return failed === 0 ? 0 : 1;
}

/** The provider tables the app's bundled CLI needs (desktop 3.12+), and the app's version. */
function providerConfigChecks(launch: ZCodeLaunch, env: BridgeConfig["env"]): Check[] {
  if (!launch.node) return [];
  const vars = providerConfigVars(launch, env);
  const from = (v: { from: "user" | "bridge" }) => (v.from === "user" ? "set in the environment" : "found next to the CLI");
  const app = desktopAppVersion(launch.entry);
  return [
    { ok: true, label: "ZCode desktop app", detail: app ? `version ${app}` : "version not found (not an app bundle, or an unknown layout)" },
    vars.builtin
      ? { ok: true, label: BUILTIN_PROVIDER_VAR, detail: `${vars.builtin.path} (${from(vars.builtin)})` }
      : {
          ok: true,
          label: BUILTIN_PROVIDER_VAR,
          detail: "not set and no zcode-builtin.json next to the CLI (needed by the CLI of desktop 3.12 and later)",
        },
    vars.personal
      ? { ok: true, label: PERSONAL_PROVIDER_VAR, detail: `${vars.personal.path} (${from(vars.personal)})` }
      : { ok: true, label: PERSONAL_PROVIDER_VAR, detail: "not set (no ~/.zcode/v2/provider_config.json)" },
  ];
}

function signInCheck(home: string | undefined): Check {
  const label = "ZCode sign-in";
  if (!home) {
    return {
      ok: false,
      label,
      detail: "cannot tell: HOME is not set (or not an absolute path)",
      fix: "Set HOME to your home directory in the editor's agent env.",
    };
  }
  // Existence only: the file holds credentials and is never read here.
  const credentials = join(home, ".zcode", "v2", "config.json");
  if (existsSync(credentials)) return { ok: true, label, detail: `${credentials} exists` };
  return {
    ok: false,
    label,
    detail: `${credentials} not found`,
    fix: "Open the ZCode app (or run `zcode` in a terminal) once and sign in.",
  };
}

function messageOf(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
