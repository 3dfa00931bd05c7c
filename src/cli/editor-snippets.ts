// Ready-to-paste editor settings that launch this binary. Printed by
// `doctor`; install.sh prints the same Zed snippet.

export function zedSnippet(command: string): string {
  return JSON.stringify(
    { agent_servers: { ZCode: { type: "custom", command, args: [], env: {} } } },
    null,
    2,
  );
}

export function jetbrainsSnippet(command: string): string {
  return JSON.stringify({ agent_servers: { ZCode: { command, args: [], env: {} } } }, null, 2);
}
