// Slash names ZCode keeps for itself (shared/src/zcode-slash-command-help.ts
// BUILTIN_ZCODE_SLASH_COMMAND_HELP_ENTRIES with their aliases, plus `plan`
// and `compress`; bootstrap/src/slash-command-surface.ts). ZCode never
// expands a custom command of such a name, and a skill of such a name is
// shadowed by the built-in, so neither is worth a menu entry.
export const ZCODE_RESERVED_NAMES: ReadonlySet<string> = new Set([
  "help",
  "login",
  "logout",
  "compact",
  "compress",
  "init",
  "expert",
  "effort",
  "variant",
  "dwf",
  "fork",
  "locale",
  "language",
  "mcp",
  "plugins",
  "plugin",
  "mode",
  "model",
  "new",
  "clear",
  "resume",
  "continue",
  "rewind",
  "skill",
  "goal",
  "target",
  "workflow",
  "plan",
]);
