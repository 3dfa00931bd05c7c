import type { ArgsDef } from "citty";
import { t } from "../i18n/index.ts";
import { UsageError } from "./usage-error.ts";

export interface ParsedFlags {
  /** Flag values keyed by their kebab-case name as defined. */
  flags: Record<string, string | boolean>;
  positionals: string[];
  help: boolean;
}

/**
 * Parse argv strictly against a command's flag table. citty's own parser is
 * lenient (an unknown `--flag` is silently accepted, a bad value exits 1), which
 * is wrong for a program an editor launches: a typo in the settings must fail
 * loudly with exit code 2, not run with a setting silently ignored.
 */
export function parseStrict(argv: readonly string[], defs: ArgsDef): ParsedFlags {
  const named = new Map<string, ArgsDef[string]>();
  const positionalNames: string[] = [];
  for (const [name, def] of Object.entries(defs)) {
    if (def.type === "positional") positionalNames.push(name);
    else named.set(name, def);
  }

  const say = t().cli.usage;
  const out: ParsedFlags = { flags: {}, positionals: [], help: false };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") {
      out.positionals.push(...argv.slice(i + 1));
      break;
    }
    if (arg === "-h" || arg === "--help") {
      out.help = true;
      continue;
    }
    if (!arg.startsWith("-") || arg === "-") {
      out.positionals.push(arg);
      continue;
    }
    if (!arg.startsWith("--")) throw new UsageError(say.unknownOption(arg));
    const eq = arg.indexOf("=");
    const name = arg.slice(2, eq === -1 ? undefined : eq);
    const def = named.get(name);
    if (!def) throw new UsageError(say.unknownOption(`--${name}`));
    if (def.type === "boolean") {
      if (eq !== -1) throw new UsageError(say.takesNoValue(`--${name}`));
      out.flags[name] = true;
      continue;
    }
    let value: string | undefined;
    if (eq !== -1) value = arg.slice(eq + 1);
    else {
      value = argv[i + 1];
      // `--log-file --mode x` is a forgotten value, not a file named "--mode".
      if (value === undefined || value.startsWith("--")) {
        throw new UsageError(say.needsValue(`--${name}`));
      }
      i++;
    }
    if (value === "") throw new UsageError(say.needsNonEmptyValue(`--${name}`));
    out.flags[name] = value;
  }
  if (!out.help && out.positionals.length > positionalNames.length) {
    const extra = out.positionals[positionalNames.length] as string;
    throw new UsageError(positionalNames.length === 0 ? say.unexpectedArgument(extra) : say.tooManyArguments(extra));
  }
  return out;
}
