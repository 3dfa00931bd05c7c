import { t } from "../i18n/index.ts";
import type { SlashCommand } from "./types.ts";

/** `/name <hint>`: how a command is typed. */
export function usageOf(cmd: Pick<SlashCommand, "name" | "hint">): string {
  return cmd.hint ? `/${cmd.name} ${cmd.hint}` : `/${cmd.name}`;
}

/** The reply to bad or missing arguments: a usage line, never an error. */
export function usageLine(cmd: Pick<SlashCommand, "name" | "hint">, problem?: string): string {
  const usage = t().commands.usage(usageOf(cmd));
  return problem ? `${problem}\n\n${usage}` : usage;
}

export function notSupportedText(name: string, version: string): string {
  return t().commands.notSupported(name, version);
}

/** Inline code that survives backticks inside the value. */
export function code(value: string): string {
  return value.includes("`") ? `\`\` ${value} \`\`` : `\`${value}\``;
}

export function quote(text: string): string {
  return text
    .split("\n")
    .map((l) => `> ${l}`)
    .join("\n");
}
