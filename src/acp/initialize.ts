import type * as acp from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { VERSION } from "../version.ts";
import { extensionsAdvertised } from "./extensions.ts";

// The answer to ACP `initialize`, as a plain value with no runtime import of
// the SDK: the CLI sends it before the SDK and the agent are loaded (most of
// start-up, see scripts/bench/startup.ts), and the agent returns the same
// value when the SDK handles the replayed request (see src/acp/handoff.ts).

/** The ids of the agent authMethods offered below: `authenticate` takes only these. */
export const AUTH_METHOD_IDS = ["zcode-app"] as const;

/**
 * The terminal method: the client runs this program again with `login`,
 * which runs `zcode login` (src/zcode/cli-auth.ts). Offered only to a client
 * that said it runs terminal auth (ACP: agents MUST NOT offer it otherwise),
 * and never passed to `authenticate`.
 */
export const TERMINAL_AUTH_ID = "zcode-login";

/** The client runs terminal auth methods (`clientCapabilities.auth.terminal`). */
export function takesTerminalAuth(caps: unknown): boolean {
  const auth = (caps as { auth?: { terminal?: unknown } } | null | undefined)?.auth;
  return typeof auth === "object" && auth !== null && auth.terminal === true;
}

export function initializeResult(clientCapabilities?: unknown): acp.InitializeResponse {
  // No child is started here: initialize must answer with no ZCode installed
  // (serve mode starts one only after this answer is out: src/cli/prewarm.ts).
  return {
    protocolVersion: 1,
    agentInfo: { name: "zcode-acp-server", title: "ZCode", version: VERSION },
    agentCapabilities: {
      loadSession: true,
      // Images and files go to ZCode as attachments; ZCode has no audio input.
      promptCapabilities: { image: true, audio: false, embeddedContext: true },
      // delete is ACP session/delete: the one request that deletes a conversation.
      sessionCapabilities: { list: {}, resume: {}, close: {}, delete: {}, fork: {} },
      // The transports ZCode's session/create accepts besides stdio.
      mcpCapabilities: { http: true, sse: true },
      // ACP logout runs `zcode logout` (src/zcode/cli-auth.ts).
      auth: { logout: {} },
    },
    // The goal and steering extensions (src/acp/extensions.ts), where claude-agent-acp's docs put them.
    _meta: extensionsAdvertised(),
    authMethods: [
      {
        id: AUTH_METHOD_IDS[0],
        name: t().bridge.auth.name,
        description: t().bridge.auth.description,
        type: "agent",
      } as acp.AuthMethod,
      ...(takesTerminalAuth(clientCapabilities)
        ? [
            {
              id: TERMINAL_AUTH_ID,
              name: t().bridge.auth.terminalName,
              description: t().bridge.auth.terminalDescription,
              type: "terminal",
              args: ["login"],
            } as acp.AuthMethod,
          ]
        : []),
    ],
  };
}

export type JsonRpcId = string | number;

/** The SDK's `ProtocolVersion`: an integer in 0..65535 (a uint16 in the schema). */
const MAX_PROTOCOL_VERSION = 65535;

/**
 * A well-formed `initialize` request that the fast path may answer: one the
 * SDK's agent is certain to accept, so the canned answer is exactly the one
 * the agent would give. A success sent for a request the agent then rejects
 * leaves the connection uninitialized behind the editor's back (every later
 * request fails with "must be initialized"). So this accepts a strict subset
 * of what the SDK accepts (its JSON-RPC envelope checks and its zod schema for
 * InitializeRequest), and anything doubtful returns undefined and goes to the
 * SDK, which answers it (errors included) itself.
 */
export function plainInitializeId(msg: unknown): JsonRpcId | undefined {
  if (typeof msg !== "object" || msg === null || Array.isArray(msg)) return undefined;
  const m = msg as Record<string, unknown>;
  if (m.jsonrpc !== "2.0" || m.method !== "initialize") return undefined;
  // The SDK takes finite numbers only (1e400 parses to Infinity, which it
  // rejects and which JSON would print as null).
  if (!(typeof m.id === "string" || (typeof m.id === "number" && Number.isFinite(m.id)))) return undefined;
  const p = m.params as Record<string, unknown> | undefined;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return undefined;
  const v = p.protocolVersion;
  if (typeof v !== "number" || !Number.isInteger(v) || v < 0 || v > MAX_PROTOCOL_VERSION) return undefined;
  const caps = p.clientCapabilities;
  if (caps !== undefined && (typeof caps !== "object" || caps === null || Array.isArray(caps))) return undefined;
  // The canned answer is the one for a client without terminal auth; one with
  // it gets an extra method, so the agent answers (doubtful, as above).
  if (caps !== undefined && (caps as { auth?: unknown }).auth !== undefined) return undefined;
  return m.id;
}

/**
 * The id of a plain initialize the CLI may answer itself: one asking for ACP
 * v1 (or older). A client asking for v2 or newer is answered by the agent,
 * which picks the version (src/acp/v2/route.ts); the CLI still holds back
 * what follows it until then (plainInitializeId).
 */
export function fastAnswerableId(msg: unknown): JsonRpcId | undefined {
  const id = plainInitializeId(msg);
  if (id === undefined) return undefined;
  const v = (msg as { params: { protocolVersion: number } }).params.protocolVersion;
  return v < 2 ? id : undefined;
}
