import type { EditorLaunch } from "./editor-launch.ts";

// Ready-to-paste editor settings that launch this binary. Printed by
// `doctor`; install.sh prints the same Zed snippet.

export function zedSnippet(l: EditorLaunch): string {
  return JSON.stringify({ agent_servers: { ZCode: { type: "custom", command: l.command, args: l.args, env: l.env } } }, null, 2);
}

export function jetbrainsSnippet(l: EditorLaunch): string {
  return JSON.stringify({ agent_servers: { ZCode: { command: l.command, args: l.args, env: l.env } } }, null, 2);
}
