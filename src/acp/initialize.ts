import type * as acp from "@agentclientprotocol/sdk/unstable";
import { VERSION } from "../version.ts";

// The answer to ACP `initialize`, as a plain value with no runtime import of
// the SDK: the CLI sends it before the SDK (whose schemas cost ~30 ms and
// ~15 MB at import) is loaded, and the agent returns the same value when the
// SDK handles the replayed request (see src/acp/handoff.ts).

export function initializeResult(): acp.InitializeResponse {
  // No child is started here: initialize must answer with no ZCode installed.
  return {
    protocolVersion: 1,
    agentInfo: { name: "zcode-acp-server", title: "ZCode", version: VERSION },
    agentCapabilities: {
      loadSession: true,
      // Images and files go to ZCode as attachments; ZCode has no audio input.
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      sessionCapabilities: { list: {}, resume: {}, close: {}, fork: {} },
      // The transports ZCode's session/create accepts besides stdio.
      mcpCapabilities: { http: true, sse: true },
    },
    authMethods: [
      {
        id: "zcode-app",
        name: "ZCode app login",
        description:
          "zcode-acp-server uses the login of the ZCode app (stored in ~/.zcode by the app). " +
          "Sign in once in ZCode; no API key is needed in the editor.",
        type: "agent",
      } as acp.AuthMethod,
    ],
  };
}

export type JsonRpcId = string | number;

/**
 * A well-formed `initialize` request that the fast path may answer. Anything
 * doubtful returns undefined and goes to the SDK, which answers errors
 * properly.
 */
export function plainInitializeId(msg: unknown): JsonRpcId | undefined {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return undefined;
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || m.method !== "initialize") return undefined;
  if (typeof m.id !== "number" && typeof m.id !== "string") return undefined;
  const p = m.params as Record<string, unknown> | undefined;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return undefined;
  if (typeof p.protocolVersion !== "number" || !Number.isInteger(p.protocolVersion) || p.protocolVersion < 0) return undefined;
  const caps = p.clientCapabilities;
  if (caps !== undefined && (typeof caps !== "object" || caps === null || Array.isArray(caps))) return undefined;
  return m.id;
}
