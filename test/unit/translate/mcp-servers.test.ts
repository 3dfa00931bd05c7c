// The editor's MCP servers rebuilt in ZCode's strict shapes (an extra key such
// as ACP's `_meta` fails the whole session/create).
import { describe, expect, test } from "bun:test";
import type { McpServer } from "@agentclientprotocol/sdk/unstable";
import { zcodeMcpServers } from "../../../src/translate/mcp-servers.ts";

describe("zcodeMcpServers", () => {
  test("stdio: {name, command, args, env:[{name, value}]} and nothing else", () => {
    const acp = [
      {
        name: "fs",
        command: "/usr/bin/mcp-fs",
        args: ["--root", "/w"],
        env: [{ name: "TOKEN", value: "t", _meta: { x: 1 } }],
        _meta: { "zed.dev/source": "settings" },
      },
    ] as McpServer[];
    expect(zcodeMcpServers(acp)).toEqual([
      { name: "fs", command: "/usr/bin/mcp-fs", args: ["--root", "/w"], env: [{ name: "TOKEN", value: "t" }] },
    ]);
    const [s] = zcodeMcpServers(acp)!;
    expect(Object.keys(s!).sort()).toEqual(["args", "command", "env", "name"]);
  });

  test("http and sse: {name, type, url, headers:[{name, value}]}", () => {
    const acp = [
      {
        type: "http",
        name: "web",
        url: "https://mcp.example/mcp",
        headers: [{ name: "Authorization", value: "Bearer x", _meta: {} }],
        _meta: { a: 1 },
      },
      { type: "sse", name: "events", url: "https://mcp.example/sse", headers: [] },
    ] as McpServer[];
    expect(zcodeMcpServers(acp)).toEqual([
      { name: "web", type: "http", url: "https://mcp.example/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] },
      { name: "events", type: "sse", url: "https://mcp.example/sse", headers: [] },
    ]);
  });

  test("the args and env arrays are copies, not the editor's own", () => {
    const args = ["a"];
    const [s] = zcodeMcpServers([{ name: "x", command: "c", args, env: [] }])! as Array<{ args: string[] }>;
    expect(s!.args).toEqual(["a"]);
    expect(s!.args).not.toBe(args);
  });

  test("a transport ZCode cannot run (acp) is left out; none left: undefined (the workspace's own config applies)", () => {
    const acp = { type: "acp", name: "in-editor", id: "srv_1" } as unknown as McpServer;
    expect(zcodeMcpServers([acp, { name: "fs", command: "c", args: [], env: [] }])).toEqual([
      { name: "fs", command: "c", args: [], env: [] },
    ]);
    expect(zcodeMcpServers([acp])).toBeUndefined();
    expect(zcodeMcpServers([])).toBeUndefined();
    expect(zcodeMcpServers(undefined)).toBeUndefined();
  });
});
