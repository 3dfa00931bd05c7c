import type { BridgeConfig } from "../config.ts";
import { t } from "../i18n/index.ts";
import type { LanguageChoice } from "../i18n/language.ts";
import { VERSION } from "../version.ts";
import { desktopAppVersion } from "../zcode/app-version.ts";
import { CliCapabilities } from "../zcode/capabilities.ts";
import { BUILTIN_PROVIDER_VAR, PERSONAL_PROVIDER_VAR, launchEnv, providerConfigVars } from "../zcode/launch-env.ts";
import { detectVersion } from "../zcode/cli-version.ts";
import { MIN_ZCODE_VERSION, NodeMissingError, shownMessage } from "../zcode/errors.ts";
import { homeDir } from "../zcode/host.ts";
import type { CliSignIn } from "../zcode/cli-credentials.ts";
import { signInInUse, type SignIn } from "../zcode/sign-in.ts";
import { resolveZCode, type ZCodeLaunch } from "../zcode/resolve.ts";
import { jetbrainsSnippet, zedSnippet } from "./editor-snippets.ts";
import { editorEnv, stableCommand } from "./editor-launch.ts";
import { isCompiledBinary, selfCommand } from "./self.ts";
import { protocolCheck } from "./doctor-protocol.ts";
import { selfChecks } from "./self-check.ts";

// `zcode-acp-server doctor`: everything that decides whether an editor will
// get a working agent, checked in the order a launch needs it, each failure
// with the fix spelled out. Human output, so stdout is fine here; its words
// are the cli.doctor table's.

interface Check {
  ok: boolean;
  /** Worth knowing, but the bridge works: printed as WARN, does not fail doctor. */
  warn?: boolean;
  label: string;
  detail: string;
  fix?: string;
}

export async function runDoctor(config: BridgeConfig, out: (line: string) => void, language: LanguageChoice): Promise<number> {
  const say = t().cli.doctor;
  const checks: Check[] = [...selfChecks(config.env), languageCheck(language)];
  const home = homeDir(config.env);

  let launch: ZCodeLaunch | undefined;
  try {
    launch = resolveZCode({
      bin: config.zcodeBin,
      node: config.zcodeNode,
      env: config.env,
      homedir: home,
    });
    checks.push({ ok: true, label: say.labels.zcodeCli, detail: say.found(launch.entry, say.zcodeSources[launch.source]) });
  } catch (e) {
    if (e instanceof NodeMissingError) {
      // The CLI was found; what it lacks is a Node to run it.
      checks.push({ ok: true, label: say.labels.zcodeCli, detail: say.found(e.entry, say.zcodeSources[e.source]) });
      checks.push({ ok: false, label: say.labels.node, detail: messageOf(e), fix: say.nodeFix });
    } else {
      // The advice ZCode's error ends with (install it, set ZCODE_BIN, run doctor) is the fix below.
      const detail = messageOf(e).replace(t().errors.howToPointAtZCode, "").trimEnd();
      checks.push({ ok: false, label: say.labels.zcodeCli, detail, fix: say.cliFix });
    }
  }

  let versionOk = false;
  if (launch) {
    // resolveZCode only returns a JS entry together with a working Node.
    checks.push({
      ok: true,
      label: say.labels.node,
      detail: launch.node ? (launch.nodeVersion ? say.nodeVersion(launch.node, launch.nodeVersion) : launch.node) : say.nodeNotNeeded,
    });

    checks.push(...providerConfigChecks(launch, config.env));

    try {
      const version = await detectVersion(launch, launchEnv(launch, config.env));
      const caps = new CliCapabilities(version);
      if (caps.supported) versionOk = true;
      checks.push(
        caps.supported
          ? { ok: true, label: say.labels.zcodeVersion, detail: say.versionOk(version) }
          : {
              ok: false,
              label: say.labels.zcodeVersion,
              detail: say.versionTooOld(version, MIN_ZCODE_VERSION),
              fix: say.versionFix,
            },
      );
    } catch (e) {
      checks.push({
        ok: false,
        label: say.labels.zcodeVersion,
        detail: say.versionFailed([...launch.command, "--version"].join(" "), messageOf(e)),
        fix: say.versionFailedFix,
      });
    }
  }

  // Which protocol the sessions get: only worth asking a CLI whose version is supported.
  if (launch && versionOk) checks.push(await protocolCheck(config, launch));

  checks.push(signInCheck(config.env));

  out(say.title(VERSION));
  out("");
  for (const c of checks) {
    const verdict = c.warn ? say.verdicts.warn : c.ok ? say.verdicts.ok : say.verdicts.fail;
    out(say.line(verdict, c.label, c.detail.split("\n").join(`\n${say.indent}`)));
    if (c.fix) for (const l of c.fix.split("\n")) out(say.fix(l.trimStart()));
  }
  const failed = checks.filter((c) => !c.ok).length;
  out("");
  out(failed === 0 ? say.allPassed : say.failed(failed));

  const editor = {
    ...(isCompiledBinary() ? stableCommand(process.execPath, VERSION) : { command: selfCommand(), args: [] }),
    env: editorEnv(config, language.source.kind === "flag" || language.source.kind === "env" ? language.language : undefined),
  };
  out("");
  out(say.zedWhere);
  out(zedSnippet(editor));
  out("");
  out(say.jetbrainsWhere);
  out(jetbrainsSnippet(editor));
  return failed === 0 ? 0 : 1;
}

/** The provider tables the app's bundled CLI needs (desktop 3.12+), and the app's version. */
function providerConfigChecks(launch: ZCodeLaunch, env: BridgeConfig["env"]): Check[] {
  if (!launch.node) return [];
  const say = t().cli.doctor;
  const vars = providerConfigVars(launch, env);
  const found = (v: { path: string; from: "user" | "bridge" }) =>
    say.found(v.path, v.from === "user" ? say.providerFromUser : say.providerFromBridge);
  const app = desktopAppVersion(launch.entry);
  return [
    { ok: true, label: say.labels.desktopApp, detail: app ? say.appVersion(app) : say.appVersionUnknown },
    { ok: true, label: BUILTIN_PROVIDER_VAR, detail: vars.builtin ? found(vars.builtin) : say.builtinMissing },
    { ok: true, label: PERSONAL_PROVIDER_VAR, detail: vars.personal ? found(vars.personal) : say.personalMissing },
  ];
}

/** The language doctor (and the bridge) speaks, and what chose it: a surprising choice can be traced. */
function languageCheck(choice: LanguageChoice): Check {
  const say = t().cli.doctor;
  const from = say.languageSources;
  const s = choice.source;
  const source = s.kind === "app" ? from.app(s.path) : s.kind === "locale" ? from.locale(s.variable, s.value) : from[s.kind];
  return { ok: true, label: say.labels.language, detail: say.language(choice.language, source) };
}

/** The sign-in that answers ZCode's credential requests (src/zcode/sign-in.ts signInInUse); no key is ever printed. */
function signInCheck(env: BridgeConfig["env"]): Check {
  const say = t().cli.doctor;
  const label = say.labels.signIn;
  const s = signInInUse(env);
  const names = (ps: readonly { id: string; name?: string }[]) => ps.map((p) => p.name ?? p.id).join(", ");
  switch (s.kind) {
    case "env":
      return { ok: true, label, detail: say.signedInEnv(s.variable) };
    case "app":
      return s.signIn.kind === "plan"
        ? { ok: true, label, detail: say.signedInPlan(names(s.signIn.plans), s.signIn.file) }
        : { ok: true, label, detail: say.signedInKey(names(s.signIn.keyed), s.signIn.file) };
    case "cli":
      return { ok: true, label, detail: say.signedInCli(s.usable.map((p) => p.providerId).join(", "), s.signIn.file) };
    case "none":
      return { ok: false, label, detail: noSignInDetail(s.app, s.cli), fix: s.app.kind === "no-home" ? say.noHomeFix : say.signInFix };
  }
}

/** Why nothing signs in, the most telling reason first. */
function noSignInDetail(app: SignIn, cli: CliSignIn): string {
  const say = t().cli.doctor;
  if (app.kind === "no-home" || cli.kind === "no-home") return say.noHome;
  if (cli.kind === "signed-in") {
    const of = (kind: string) => cli.providers.filter((p) => p.kind === kind).map((p) => p.providerId);
    const oauth = of("oauth");
    const keychain = of("keychain");
    const what =
      oauth.length > 0
        ? say.cliOAuthOnly(oauth.join(", "))
        : keychain.length > 0
          ? say.cliKeychain(keychain.join(", "))
          : say.cliUnreadable(cli.file);
    return say.notUsable(what, cli.file);
  }
  if (cli.kind === "unreadable") return say.cliUnreadable(cli.file);
  if (app.kind === "none" && app.exists) return say.noKeyIn(app.file);
  return say.nothing(app.kind === "none" ? app.file : "", cli.file);
}

/** In the language in use: ZCode's errors carry their words for every table. */
function messageOf(e: unknown): string {
  return shownMessage(e);
}
