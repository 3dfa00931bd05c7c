import type * as acp2 from "@agentclientprotocol/sdk/experimental/v2/unstable";
import type * as v1 from "@agentclientprotocol/sdk/unstable";
import { elicitationRequest, permissionRequest } from "./shapes.ts";
import type { V2Updates } from "./updates.ts";

// What the session layer sends the editor (v1 shapes), said in ACP v2 to a
// v2 client: updates through V2Updates, and the two requests v2 has
// (permission, elicitation) in their v2 form. The client's file system and
// terminal do not exist in v2: the session layer is told so by the
// capabilities (initialize.ts), and a call that came anyway is refused here.

export interface EditorChannel {
  notify(n: v1.SessionNotification): Promise<void>;
  request(method: string, params: unknown, opts: { cancellationSignal: AbortSignal }): Promise<unknown>;
}

/** Runs `ask` (a request the running work waits for) for the session, reporting the wait. */
export type Waiting = <T>(sessionId: string, ask: () => Promise<T>) => Promise<T>;

export function v2Editor(client: acp2.AgentContext, updates: V2Updates, waiting: Waiting): EditorChannel {
  return {
    async notify(n) {
      for (const out of updates.translate(n)) await client.notify("session/update", out);
    },
    async request(method, params, opts) {
      const sessionId = String((params as { sessionId?: unknown }).sessionId ?? "");
      switch (method) {
        case "session/request_permission": {
          const req = permissionRequest(params as v1.RequestPermissionRequest);
          return waiting(sessionId, () => client.request("session/request_permission", req, opts));
        }
        case "elicitation/create": {
          const req = elicitationRequest(params as v1.CreateElicitationRequest);
          return waiting(sessionId, () => client.request("elicitation/create", req, opts));
        }
        default:
          throw new Error(`ACP v2 has no client method ${method} (a v2 client offers no file system or terminal)`);
      }
    },
  };
}
