import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { JsonRpcId } from "./initialize.ts";

// The CLI answers `initialize` itself before loading the SDK (src/cli/serve.ts),
// then hands the agent everything it read — the initialize line included, so
// the SDK's connection state and the agent's client capabilities are set as
// usual — followed by the rest of stdin. The agent's own answer to that
// replayed initialize has already been sent, so it is dropped here.

export interface Handoff {
  /** What the CLI already read from stdin, then the rest of it. */
  input: ReadableStream<Uint8Array>;
  /** Id of the initialize request the CLI has answered, if it answered one. */
  answeredId?: JsonRpcId;
  /**
   * Called once the agent has produced (and this module dropped) its own
   * answer to that initialize: the SDK refuses other requests until then, so
   * the input holds back what followed the initialize line until this call.
   */
  onAgentInitialized?: () => void;
}

export function dropAnsweredResponse(stream: acp.Stream, id: JsonRpcId, onDropped?: () => void): acp.Stream {
  const writer = stream.writable.getWriter();
  let pending = true;
  const writable = new WritableStream<acp.AnyMessage>({
    write(msg) {
      if (pending && "id" in msg && msg.id === id && !("method" in msg)) {
        pending = false;
        // Let the SDK finish marking the connection initialized first.
        if (onDropped) setImmediate(onDropped);
        return;
      }
      return writer.write(msg);
    },
    close: () => writer.close(),
    abort: (reason) => writer.abort(reason),
  });
  return { readable: stream.readable, writable };
}
