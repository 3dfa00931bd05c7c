import type * as acp from "@agentclientprotocol/sdk/unstable";
import { log } from "../../log.ts";

// One connection, one protocol version, chosen once from the editor's first
// request: an `initialize` asking for ACP v2 or newer (an integer
// protocolVersion >= 2) gets the v2 agent, everything else the v1 agent,
// exactly as before v2 existed (what precedes initialize, a refused or odd
// initialize, a v1 client: all answered by the v1 SDK, byte for byte the
// same). The SDK's own AgentProtocolRouter would also do this, but it
// answers what comes before `initialize` itself, differently from the v1
// agent the editors we serve already rely on.
//
// Notifications and responses that come before the first request are held
// and handed, in order, to the agent chosen.

/** What the server needs of a connected SDK agent, whatever its version. */
export interface Connected {
  readonly closed: Promise<void>;
  close(): void;
}

export type ProtocolChoice = 1 | 2;

/** The highest ACP version ProtocolVersion (a uint16) can name. */
const MAX_PROTOCOL_VERSION = 65535;

/** The version an editor's first request asks for: 2 for a v2-or-newer initialize, 1 for anything else. */
export function protocolChoice(first: unknown): ProtocolChoice {
  if (typeof first !== "object" || first === null || Array.isArray(first)) return 1;
  const m = first as { method?: unknown; params?: unknown; id?: unknown };
  if (m.method !== "initialize") return 1;
  // v2 ids are strings or integers (the v2 SDK refuses others): leave the rest to v1's answer.
  if (!(typeof m.id === "string" || Number.isSafeInteger(m.id))) return 1;
  const p = m.params;
  if (typeof p !== "object" || p === null || Array.isArray(p)) return 1;
  const v = (p as { protocolVersion?: unknown }).protocolVersion;
  return typeof v === "number" && Number.isInteger(v) && v >= 2 && v <= MAX_PROTOCOL_VERSION ? 2 : 1;
}

const isRequestOrOther = (m: unknown): boolean => {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return true;
  const o = m as { id?: unknown; method?: unknown };
  // A notification (method, no id) or a response (id, no method) decides nothing.
  return o.id !== undefined && o.id !== null && typeof o.method === "string";
};

/**
 * Reads `stream` until the first request, then connects the agent of the
 * version it asks for (`connect`) on a stream that replays what was read.
 * The returned connection closes when the chosen one does (or at EOF before
 * any request, after the v1 agent has seen it).
 */
export function connectByVersion(
  stream: acp.Stream,
  connect: (version: ProtocolChoice, stream: acp.Stream) => Connected | Promise<Connected>,
): Connected & { readonly version: Promise<ProtocolChoice> } {
  const reader = stream.readable.getReader();
  let chosen: Connected | undefined;
  let closedEarly = false;
  let resolveClosed!: () => void;
  const closed = new Promise<void>((r) => (resolveClosed = r));
  let resolveVersion!: (v: ProtocolChoice) => void;
  const version = new Promise<ProtocolChoice>((r) => (resolveVersion = r));

  const route = async () => {
    const held: acp.AnyMessage[] = [];
    let choice: ProtocolChoice = 1;
    let ended = false;
    for (;;) {
      let r: { done: boolean; value?: acp.AnyMessage };
      try {
        r = await reader.read();
      } catch {
        ended = true;
        break;
      }
      if (r.done) {
        ended = true;
        break;
      }
      const msg = r.value as acp.AnyMessage;
      held.push(msg);
      if (isRequestOrOther(msg)) {
        choice = protocolChoice(msg);
        break;
      }
    }
    if (closedEarly) return;
    const readable = new ReadableStream<acp.AnyMessage>({
      async pull(controller) {
        const next = held.shift();
        if (next !== undefined) return controller.enqueue(next);
        if (ended) return controller.close();
        try {
          const r = await reader.read();
          if (r.done) controller.close();
          else controller.enqueue(r.value);
        } catch (e) {
          controller.error(e);
        }
      },
      cancel: (reason) => reader.cancel(reason).catch(() => {}),
    });
    resolveVersion(choice);
    chosen = await connect(choice, { readable, writable: stream.writable });
    if (closedEarly) chosen.close();
    void chosen.closed.finally(resolveClosed);
  };
  void route().catch((e: unknown) => {
    log.error("could not start the ACP agent:", e);
    resolveClosed();
  });

  return {
    closed,
    version,
    close() {
      if (chosen) return chosen.close();
      closedEarly = true;
      void reader.cancel().catch(() => {});
      resolveClosed();
    },
  };
}
