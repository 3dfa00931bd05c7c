import type * as v1 from "@agentclientprotocol/sdk/unstable";
import type * as v2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import { AUTH_METHOD_IDS, initializeResult } from "../initialize.ts";

// ACP v2's `initialize`: the same agent as v1's answer (src/acp/initialize.ts),
// in v2's shape, and the client's v2 capabilities as the v1 ones the session
// layer reads.

export const PROTOCOL_V2 = 2;

export function initializeResultV2(): v2.InitializeResponse {
  const r = initializeResult();
  const auth = r.authMethods?.[0] as { name: string; description?: string } | undefined;
  return {
    protocolVersion: PROTOCOL_V2,
    info: r.agentInfo ?? { name: "zcode-acp-server", version: "0" },
    capabilities: {
      session: {
        // v2's baseline (no entry needed): new, list, resume (with replay: v1's load), close, prompt, cancel.
        // Images and files go to ZCode as attachments; ZCode has no audio input.
        prompt: { image: {}, embeddedContext: {} },
        // The transports ZCode's session/create accepts besides stdio (v2 has no SSE).
        mcp: { stdio: {}, http: {} },
        // delete is ACP session/delete: the one request that deletes a conversation.
        delete: {},
        fork: {},
      },
      // The goal and steering extensions (src/acp/extensions.ts): where v2 puts
      // vendor extensions (capabilities._meta), not v1's result-level _meta.
      ...(r._meta ? { _meta: r._meta } : {}),
    },
    authMethods: auth
      ? [{ type: "agent", methodId: AUTH_METHOD_IDS[0], name: auth.name, ...(auth.description ? { description: auth.description } : {}) }]
      : [],
  };
}

/**
 * The v1 capabilities the session layer reads for a v2 client. v2 has no
 * client file system or terminal (they are never called), and what v1 asked
 * a client to opt in to is baseline in v2: notices, plan updates, boolean
 * options, compaction, subagents. Elicitation stays the client's choice.
 */
export function v1CapabilitiesOf(caps: v2.ClientCapabilities | undefined): v1.ClientCapabilities {
  const meta = { ...(caps?._meta ?? {}) };
  // Zed's terminal-output extension rides on v1 client terminals, which v2 has not.
  delete meta.terminal_output;
  return {
    fs: { readTextFile: false, writeTextFile: false },
    terminal: false,
    session: { notices: {}, configOptions: { boolean: {} }, compaction: {} },
    plan: {},
    subagents: {},
    ...(caps?.elicitation ? { elicitation: caps.elicitation as v1.ClientCapabilities["elicitation"] } : {}),
    ...(Object.keys(meta).length ? { _meta: meta } : {}),
  } as v1.ClientCapabilities;
}
