import { renderUsage, type ArgsDef, type CommandDef } from "citty";
import { writeSync } from "node:fs";
import type { BridgeConfig } from "../config.ts";
import { log, setLogFile, setLogLevel } from "../log.ts";
import { VERSION } from "../version.ts";
import { rootCommand, SUBCOMMANDS, type SubcommandName } from "./commands.ts";
import { setLanguage, t } from "../i18n/index.ts";
import { resolveLanguage } from "../i18n/language.ts";
import { explicitLanguage, resolveConfig } from "./config.ts";
import { parseStrict } from "./strict-args.ts";
import { USAGE_EXIT_CODE, UsageError } from "./usage-error.ts";

// The CLI: pick the command, parse its flags strictly, resolve settings once,
// run. Returns the exit code. Only serve mode owns stdout (for ACP); help,
// version, doctor and upgrade print for people.

const PROGRAM = "zcode-acp-server";

export async function runCli(argv: readonly string[]): Promise<number> {
  const first = argv[0];
  const subName = first !== undefined && Object.hasOwn(SUBCOMMANDS, first) ? (first as SubcommandName) : undefined;
  const cmd = (subName ? SUBCOMMANDS[subName] : rootCommand) as unknown as CommandDef<ArgsDef>;
  const rest = subName ? argv.slice(1) : argv;

  try {
    if (!subName && first !== undefined && !first.startsWith("-")) {
      throw new UsageError(`unknown command '${first}' (commands: ${Object.keys(SUBCOMMANDS).join(", ")})`);
    }
    const defs = (cmd.args ?? {}) as ArgsDef;
    const parsed = parseStrict(rest, defs);
    // Before anything is said, --help included.
    setLanguage(resolveLanguage(explicitLanguage(parsed.flags, process.env), process.env));
    if (parsed.help) {
      const parent = subName ? localizedHelp(rootCommand as unknown as CommandDef<ArgsDef>) : undefined;
      await writeOut(`${plain(await renderUsage(localizedHelp(cmd), parent))}\n`);
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
        return await doctor(config);
      case "upgrade":
        return await upgrade(parsed.positionals[0]);
      default:
        return await serve(config);
    }
  } catch (e) {
    if (e instanceof UsageError) {
      const help = subName ? `${PROGRAM} ${subName} --help` : `${PROGRAM} --help`;
      await writeErr(`${PROGRAM}: ${e.message}\nRun '${help}' for usage.\n`);
      return USAGE_EXIT_CODE;
    }
    throw e;
  }
}

/** The command with its flags described in the language in use (citty's own headings stay as they are). */
function localizedHelp(cmd: CommandDef<ArgsDef>): CommandDef<ArgsDef> {
  const words = t().cli.flags;
  const args = Object.fromEntries(
    Object.entries((cmd.args ?? {}) as ArgsDef).map(([name, def]) => [name, words[name] ? { ...def, description: words[name] } : def]),
  ) as ArgsDef;
  return { ...cmd, args };
}

function applyLogging(config: BridgeConfig): void {
  setLogLevel(config.logLevel);
  if (config.logFile) {
    try {
      setLogFile(config.logFile);
    } catch (e) {
      throw new UsageError(`cannot open log file ${config.logFile}: ${(e as Error).message}`);
    }
  }
}

async function serve(config: BridgeConfig): Promise<number> {
  // Loaded only here: --version, --help and doctor never load the agent, and
  // serve.ts loads it only after answering initialize.
  const { serve: run } = await import("./serve.ts");
  return run(config);
}

async function doctor(config: BridgeConfig): Promise<number> {
  const { runDoctor } = await import("./doctor.ts");
  const lines: string[] = [];
  const code = await runDoctor(config, (l) => lines.push(l));
  await writeOut(`${lines.join("\n")}\n`);
  return code;
}

async function upgrade(version: string | undefined): Promise<number> {
  const { runUpgrade, UpgradeError } = await import("./upgrade.ts");
  try {
    await runUpgrade({
      version,
      downloadBase: process.env.ZCODE_ACP_DOWNLOAD_BASE,
      // A command for a person, not serve mode: synchronous writes keep the
      // progress lines in order and leave nothing to flush before exit.
      out: (l) => writeSync(1, `${l}\n`),
    });
    return 0;
  } catch (e) {
    if (!(e instanceof UpgradeError)) throw e;
    log.error(`upgrade failed: ${e.message}`);
    return 1;
  }
}

/** citty colours its usage unconditionally; keep escapes out of pipes and files. */
function plain(text: string): string {
  // biome-ignore lint: the escape character is the point
  return process.stdout.isTTY ? text : text.replace(/\u001B\[[0-9;]*m/g, "");
}

async function writeOut(text: string): Promise<void> {
  await Bun.write(Bun.stdout, text);
}

async function writeErr(text: string): Promise<void> {
  await Bun.write(Bun.stderr, text);
}
