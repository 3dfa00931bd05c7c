// The entry proposed for acpx's AGENT_DEFINITIONS (src/agent-registry.ts,
// acpx 0.19.1), shaped like its `kilocode` and `opencode` entries: run
// through npx when the command is not installed, the installed command when it
// is (acpx's inspection prefers installedArgv).
export const zcode = {
  name: "ZCode",
  argv: ["npx", "-y", "@zcode-acp/server"],
  installedArgv: ["zcode-acp-server"],
};
