import { renderUsage, type ArgsDef, type CommandDef } from "citty";
import { writeSync } from "node:fs";
import type { BridgeConfig } from "../config.ts";
import { setLogFile, setLogLevel } from "../log.ts";
import { VERSION } from "../version.ts";
import { rootCommand, SUBCOMMANDS, type SubcommandName } from "./commands.ts";
import { setLanguage, t } from "../i18n/index.ts";
import { languageChoice, type LanguageChoice } from "../i18n/language.ts";
import { explicitLanguage, languageInArgv, resolveConfig } from "./config.ts";
import { serveFlags, doctorFlags, upgradeFlags } from "./flags.ts";
import { helpWidth, layOutHelp } from "./help-layout.ts";
import { parseStrict } from "./strict-args.ts";
import { USAGE_EXIT_CODE, UsageError } from "./usage-error.ts";

// The CLI: pick the command, parse its flags strictly, resolve settings once,
// run. Returns the exit code. Only serve mode owns stdout (for ACP); help,
// version, doctor and upgrade print for people.

const PROGRAM = "zcode-acp-server";
const ALL_FLAGS = { ...upgradeFlags, ...doctorFlags, ...serveFlags };

export async function runCli(argv: readonly string[]): Promise<number> {
  const { subName, first, rest } = splitCommand(argv);
  const cmd = (subName ? SUBCOMMANDS[subName] : rootCommand) as unknown as CommandDef<ArgsDef>;

  // Before anything is said: a mistake in the flags is reported in the
  // language they (or the environment) ask for. Settled again once parsed.
  setLanguage(languageChoice(languageInArgv(argv, process.env), process.env).language);
  try {
    if (!subName && first !== undefined) {
      throw new UsageError(t().cli.usage.unknownCommand(first, Object.keys(SUBCOMMANDS).join(", ")));
    }
    const defs = (cmd.args ?? {}) as ArgsDef;
    const parsed = parseStrict(rest, defs);
    const language = languageChoice(explicitLanguage(parsed.flags, process.env), process.env);
    setLanguage(language.language);
    if (parsed.help) {
      const parent = subName ? localizedHelp(rootCommand as unknown as CommandDef<ArgsDef>) : undefined;
      const usage = localizedClosing(await renderUsage(localizedHelp(cmd), parent));
      await writeOut(`${layOutHelp(plain(usage), helpWidth(process.stdout))}\n`);
      return 0;
    }
    if (!subName && parsed.flags.version === true) {
      await writeOut(`${VERSION}\n`);
      return 0;
    }
    const config = resolveConfig(parsed.flags, process.env);
    applyLogging(config);

    switch (subName) {
      case "doctor":
        return await doctor(config, language);
      case "upgrade":
        return await upgrade(parsed.positionals[0]);
      case "login":
      case "logout":
        return await zcodeAuth(subName, config);
      default:
        return await serve(config);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      const help = subName ? `${PROGRAM} ${subName} --help` : `${PROGRAM} --help`;
      await writeErr(`${PROGRAM}: ${e.message}\n${t().cli.usage.runHelp(help)}\n`);
      return USAGE_EXIT_CODE;
    }
    throw e;
  }
}

/**
 * The command named anywhere among the flags (`--zcode-bin X doctor` as well
 * as `doctor --zcode-bin X`, as --help's `[OPTIONS] doctor|upgrade` reads):
 * the first argument that is neither a flag nor a flag's value. Returns that
 * first positional too, and argv without the command's name.
 */
export function splitCommand(argv: readonly string[]): {
  subName?: SubcommandName;
  first?: string;
  rest: readonly string[];
} {
  const takesValue = (name: string) => {
    const def = (ALL_FLAGS as ArgsDef)[name];
    return def !== undefined && def.type !== "boolean" && def.type !== "positional";
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") break;
    if (arg.startsWith("-") && arg !== "-") {
      // As the strict parser reads it: `--log-file --mode` is a missing value, not a value.
      const next = argv[i + 1];
      if (arg.startsWith("--") && !arg.includes("=") && takesValue(arg.slice(2)) && !next?.startsWith("--")) i++;
      continue;
    }
    if (Object.hasOwn(SUBCOMMANDS, arg)) {
      return { subName: arg as SubcommandName, first: arg, rest: [...argv.slice(0, i), ...argv.slice(i + 1)] };
    }
    return { first: arg, rest: argv };
  }
  return { rest: argv };
}

/**
 * The command, its flags, arguments and subcommands described in the language
 * in use: the tables are built at import, before the language is known.
 * citty's own headings (USAGE, OPTIONS) stay as it prints them.
 */
function localizedHelp(cmd: CommandDef<ArgsDef>): CommandDef<ArgsDef> {
  const words = t().cli;
  const described = (table: Record<string, string>, name: string, def: ArgsDef[string]) =>
    Object.hasOwn(table, name) ? { ...def, description: table[name] } : def;
  const args = Object.fromEntries(
    Object.entries((cmd.args ?? {}) as ArgsDef).map(([name, def]) => [
      name,
      described(def.type === "positional" ? words.arguments : words.flags, name, def),
    ]),
  ) as ArgsDef;
  const meta = (cmd.meta ?? {}) as { name?: string; description?: string };
  const commands: Record<string, string> = words.commands;
  const description = meta.name && Object.hasOwn(commands, meta.name) ? commands[meta.name] : meta.description;
  const subCommands = cmd.subCommands as Record<string, CommandDef<ArgsDef>> | undefined;
  return {
    ...cmd,
    meta: { ...meta, description },
    args,
    subCommands: subCommands ? Object.fromEntries(Object.entries(subCommands).map(([name, sub]) => [name, localizedHelp(sub)])) : undefined,
  };
}

/** citty's one sentence of its own, under COMMANDS, in the language in use. */
function localizedClosing(usage: string): string {
  return usage.replace(/^Use (.+) for more information about a command\.$/m, (_, command: string) =>
    t().cli.help.moreAboutCommand(command),
  );
}

function applyLogging(config: BridgeConfig): void {
  setLogLevel(config.logLevel);
  if (config.logFile) {
    try {
      setLogFile(config.logFile);
    } catch (e) {
      throw new UsageError(t().cli.usage.cannotOpenLogFile(config.logFile, (e as Error).message));
    }
  }
}

async function serve(config: BridgeConfig): Promise<number> {
  // Loaded only here: --version, --help and doctor never load the agent, and
  // serve.ts loads it only after answering initialize.
  const { serve: run } = await import("./serve.ts");
  return run(config);
}

async function doctor(config: BridgeConfig, language: LanguageChoice): Promise<number> {
  const { runDoctor } = await import("./doctor.ts");
  const lines: string[] = [];
  const code = await runDoctor(config, (l) => lines.push(l), language);
  await writeOut(`${lines.join("\n")}\n`);
  return code;
}

/** `login` / `logout`: ZCode's own command, at this terminal; its exit code is ours. */
async function zcodeAuth(command: "login" | "logout", config: BridgeConfig): Promise<number> {
  const { runZCodeAuth } = await import("../zcode/cli-auth.ts");
  const { shownMessage } = await import("../zcode/errors.ts");
  try {
    const r = await runZCodeAuth(command, { bin: config.zcodeBin, node: config.zcodeNode, env: config.env, stdio: "inherit" });
    return r.code ?? 1;
  } catch (e) {
    // ZCode not found, or no Node for its JS entry: the same words as everywhere.
    await writeErr(`${PROGRAM}: ${shownMessage(e)}\n`);
    return 1;
  }
}

async function upgrade(version: string | undefined): Promise<number> {
  const { runUpgrade, UpgradeError } = await import("./upgrade.ts");
  const progress = process.stderr.isTTY ? progressLine() : undefined;
  try {
    await runUpgrade({
      version,
      downloadBase: process.env.ZCODE_ACP_DOWNLOAD_BASE,
      // A command for a person, not serve mode: synchronous writes keep the
      // progress lines in order and leave nothing to flush before exit.
      out: (l) => {
        progress?.end();
        writeSync(1, `${l}\n`);
      },
      progress: progress?.update,
      limits: upgradeLimits(process.env),
    });
    return 0;
  } catch (e) {
    progress?.end();
    if (!(e instanceof UpgradeError)) throw e;
    // Said to the person who ran it, in their language, whatever the log
    // level; the log (English, for developers) gets no copy.
    writeSync(2, `${PROGRAM}: ${t().cli.upgrade.failed(e.message)}\n`);
    return 1;
  }
}

/**
 * The download's progress on one terminal line of stderr, rewritten in place
 * (at most ten times a second); end() finishes the line before anything else
 * is printed.
 */
function progressLine() {
  let shown = false;
  let lastAt = 0;
  const mb = (n: number) => (n / 1_000_000).toFixed(1);
  return {
    update: (received: number, total: number | undefined) => {
      const now = Date.now();
      const done = total !== undefined && received >= total;
      if (!done && now - lastAt < 100) return;
      lastAt = now;
      const percent = total ? Math.floor((received * 100) / total) : undefined;
      writeSync(2, `\r${t().cli.upgrade.progress(mb(received), total ? mb(total) : undefined, percent)}\u001b[K`);
      shown = true;
    },
    end: () => {
      if (shown) writeSync(2, "\n");
      shown = false;
    },
  };
}

/** Hidden, for tests: lower limits of `upgrade` (ms for the new binary's --version, bytes extracted). */
function upgradeLimits(env: NodeJS.ProcessEnv) {
  const n = (raw: string | undefined) => (raw && /^\d+$/.test(raw) && Number(raw) > 0 ? Number(raw) : undefined);
  return { probeMs: n(env.ZCODE_ACP_UPGRADE_PROBE_MS), maxExtractedBytes: n(env.ZCODE_ACP_UPGRADE_MAX_EXTRACTED_BYTES) };
}

/** citty colours its usage unconditionally; keep escapes out of pipes and files. */
function plain(text: string): string {
  return process.stdout.isTTY ? text : text.replace(/\u001B\[[0-9;]*m/g, "");
}

async function writeOut(text: string): Promise<void> {
  await Bun.write(Bun.stdout, text);
}

async function writeErr(text: string): Promise<void> {
  await Bun.write(Bun.stderr, text);
}
