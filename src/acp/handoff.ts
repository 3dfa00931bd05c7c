import type * as acp from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";
import { initializeResult, type JsonRpcId } from "./initialize.ts";

// The CLI reads the first line of stdin itself (src/cli/serve.ts). When it is
// a plain `initialize`, the CLI usually answers it before loading the SDK,
// then hands the agent everything it read — the initialize line included, so
// the SDK's connection state and the agent's client capabilities are set as
// usual — followed by the rest of stdin. The agent's own answer to that
// replayed initialize has already been sent, so it is dropped here. With a
// trace, the CLI does not answer (the trace must record the agent's answer):
// the agent's answer goes out as usual.
//
// Either way, what followed the initialize line is held back until the agent
// has answered it: the SDK refuses every other request until then, and an
// editor (or `printf`) may send `session/new` in the same write.

export interface Handoff {
  /** What the CLI already read from stdin, then the rest of it. */
  input: ReadableStream<Uint8Array>;
  /** Id of the initialize request the CLI has answered, if it answered one. */
  answeredId?: JsonRpcId;
  /** Id of the initialize request the CLI read but left to the agent to answer. */
  initializeId?: JsonRpcId;
  /**
   * Called once the agent has produced its answer to that initialize (dropped
   * when the CLI answered it already): the input holds back what followed
   * the initialize line until this call.
   */
  onAgentInitialized?: () => void;
  /**
   * Called once the agent's own signal handlers are installed: the CLI's
   * early ones can go then, with no moment in between without a handler.
   */
  onSignalsHandled?: () => void;
}

/** The agent's stream, wrapped as the handoff needs (see above). */
export function handoffStream(stream: acp.Stream, handoff: Handoff): acp.Stream {
  const drop = handoff.answeredId !== undefined;
  const id = drop ? handoff.answeredId : handoff.initializeId;
  if (id === undefined) return stream;
  const writer = stream.writable.getWriter();
  let pending = true;
  // Let the SDK finish marking the connection initialized first.
  const initialized = () => {
    if (handoff.onAgentInitialized) setImmediate(handoff.onAgentInitialized);
  };
  const writable = new WritableStream<acp.AnyMessage>({
    async write(msg) {
      if (pending && "id" in msg && msg.id === id && !("method" in msg)) {
        pending = false;
        if (drop) checkSameAnswer(msg);
        else await writer.write(msg);
        initialized();
        return;
      }
      return writer.write(msg);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable: stream.readable, writable };
}

/**
 * The CLI answered initialize before the agent could: its answer must be the
 * one the agent gives (src/acp/initialize.ts plainInitializeId keeps the fast
 * path to requests the agent accepts). A difference cannot be taken back from
 * the editor, but it must not go unnoticed.
 */
function checkSameAnswer(msg: acp.AnyMessage): void {
  const got = "error" in msg ? { error: msg.error } : { result: (msg as { result?: unknown }).result };
  const sent = { result: initializeResult() };
  if (JSON.stringify(got) !== JSON.stringify(sent)) {
    log.error("internal error: the agent's answer to initialize differs from the one already sent (please report it):", got);
  }
}
