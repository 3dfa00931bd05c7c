import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import type { ZCodeMcpServer } from "../zcode/api.ts";

// The editor's MCP servers as ZCode's session/create and session/resume take
// them. ZCode's schema is strict (an extra key such as ACP's `_meta` fails the
// whole request), so every entry is rebuilt from the fields ZCode knows.

const logger = log.withTag("mcp");

const pairs = (list: ReadonlyArray<{ name: string; value: string }>) => list.map(({ name, value }) => ({ name, value }));

export function zcodeMcpServers(servers: readonly McpServer[] | undefined): ZCodeMcpServer[] | undefined {
  const out: ZCodeMcpServer[] = [];
  for (const s of servers ?? []) {
    if ("type" in s && (s.type === "http" || s.type === "sse")) {
      out.push({ name: s.name, type: s.type, url: s.url, headers: pairs(s.headers ?? []) });
    } else if (!("type" in s) && "command" in s) {
      out.push({ name: s.name, command: s.command, args: [...(s.args ?? [])], env: pairs(s.env ?? []) });
    } else {
      // Not advertised in mcpCapabilities, so a client should not send it.
      logger.warn(`MCP server ${JSON.stringify(s.name)} uses a transport ZCode cannot run; left out`);
    }
  }
  return out.length > 0 ? out : undefined;
}
