import type * as acp from "@agentclientprotocol/sdk/unstable";
import { log as rootLog } from "../log.ts";
import { LineSplitter } from "../lines.ts";
import { answerableId, PEEK_CHARS, peekMessage } from "./request-peek.ts";

// The editor's newline-delimited JSON as an ACP message stream: our own
// replacement of the SDK's ndJsonStream, for what an adversarial editor broke
// there:
//
// - Size. The SDK's stream errors on a line over its limit, which closes the
//   connection: one oversized line ended the bridge and every session with
//   it, with nothing answered and nothing logged. Here a line over
//   `maxMessageBytes` is skipped as it arrives (never buffered: memory stays
//   bounded however long it is), and answered with an error carrying its id
//   when the start of the line shows it is a request.
// - Ids. The SDK answers an invalid request (a wrong `jsonrpc`, a `method`
//   that is not a string) and a line that is not JSON with `id: null`, even
//   when the id is plain to read, and the editor then waits forever for an
//   answer to its id. Here such a request gets its error with its own id.
//
// Everything else is what the SDK's stream does: each line trimmed and parsed,
// blank lines ignored, batches refused with one -32600 (id null) (taken
// entry by entry on an ACP v2 connection, which allows them), valid
// messages handed to the connection, whose own checks still apply.

const log = rootLog.withTag("acp");

export interface NdJsonStreamOptions {
  /** Longest accepted line, in bytes, newline excluded. */
  maxMessageBytes: number;
  /** Trace tap: each line read (a short note instead of a skipped one). */
  onLine?: (line: string) => void;
  /** Whether a JSON array is a batch to take entry by entry (ACP v2), read per line; refused otherwise. */
  batches?: () => boolean;
}

type Reply = { jsonrpc: "2.0"; id: string | number | null; error: { code: number; message: string; data?: unknown } };

const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

export interface NdJsonMessageStream extends acp.Stream {
  /**
   * Resolves once every message written so far has been handed to `output`
   * and no new one followed for a moment (the SDK writes its queue one
   * message at a time), or at `deadline` (epoch ms).
   */
  settled(deadline: number): Promise<void>;
}

export function ndJsonMessageStream(
  output: WritableStream<Uint8Array>,
  input: ReadableStream<Uint8Array>,
  opts: NdJsonStreamOptions,
): NdJsonMessageStream {
  const max = opts.maxMessageBytes;
  const encoder = new TextEncoder();
  const headDecoder = new TextDecoder();

  // One queue for the connection's messages and our own replies: lines never interleave.
  let outputWrite: Promise<void> = Promise.resolve();
  const writeJson = (message: unknown): Promise<void> => {
    const bytes = encoder.encode(`${JSON.stringify(message)}\n`);
    const write = outputWrite.then(async () => {
      const writer = output.getWriter();
      try {
        await writer.write(bytes);
      } finally {
        writer.releaseLock();
      }
    });
    outputWrite = write.catch(() => {});
    return write;
  };
  const reply = (r: Reply) => void writeJson(r).catch(() => {});

  let deliver: (msg: acp.AnyMessage) => void = () => {};

  const onLine = (line: string) => {
    opts.onLine?.(line);
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      // The SDK trims each line (a BOM, stray spaces): so do we, but only
      // when the fast path failed.
      const trimmed = line.trim();
      if (!trimmed) return;
      try {
        msg = JSON.parse(trimmed);
      } catch {
        const id = answerableId(peekMessage(trimmed, true));
        reply({ jsonrpc: "2.0", id: id ?? null, error: { code: PARSE_ERROR, message: "Parse error" } });
        return;
      }
    }
    if (Array.isArray(msg)) {
      // ACP v2 allows batches: each entry is taken as if it came on its own
      // line (answered one by one; a notification never is). v1 refuses them.
      if (msg.length > 0 && opts.batches?.()) {
        for (const entry of msg) one(entry);
        return;
      }
      reply({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message: "Invalid request: JSON-RPC batches are not supported" } });
      return;
    }
    one(msg);
  };

  const one = (msg: unknown) => {
    if (typeof msg !== "object" || msg === null || Array.isArray(msg)) {
      reply({ jsonrpc: "2.0", id: null, error: { code: INVALID_REQUEST, message: "Invalid request", data: msg } });
      return;
    }
    const bad = invalidRequestWithId(msg as Record<string, unknown>);
    if (bad) {
      reply({ jsonrpc: "2.0", id: bad.id, error: { code: INVALID_REQUEST, message: `Invalid request: ${bad.why}` } });
      return;
    }
    deliver(msg as acp.AnyMessage);
  };

  const onOverlong = (bytes: number, head: Uint8Array) => {
    const id = answerableId(peekMessage(headDecoder.decode(head), false));
    opts.onLine?.(`[zcode-acp-server: skipped a line of ${bytes} bytes, over the ${max}-byte limit]`);
    if (id !== undefined) {
      log.warn(`request ${JSON.stringify(id)} is ${bytes} bytes, over the ${max}-byte limit: answered with an error, not read`);
      reply({
        jsonrpc: "2.0",
        id,
        error: {
          code: INVALID_REQUEST,
          message:
            `Invalid request: the message is ${bytes} bytes, over zcode-acp-server's limit of ${max} bytes ` +
            "(--max-message-bytes / ZCODE_ACP_MAX_MESSAGE_BYTES)",
          data: { bytes, maxMessageBytes: max },
        },
      });
    } else {
      log.warn(`skipped a message of ${bytes} bytes from the editor, over the ${max}-byte limit (no request id at its start to answer)`);
    }
  };

  const splitter = new LineSplitter(onLine, { maxLineBytes: max, onOverlong, overlongHeadBytes: PEEK_CHARS });
  type Reader = { read(): Promise<{ done: boolean; value?: Uint8Array }>; cancel(reason?: unknown): Promise<void> };
  let reader: Reader | undefined;

  const readable = new ReadableStream<acp.AnyMessage>({
    async pull(controller) {
      let delivered = false;
      deliver = (msg) => {
        delivered = true;
        controller.enqueue(msg);
      };
      const r0 = (reader ??= input.getReader() as unknown as Reader);
      // Read until at least one message is delivered (a chunk may hold only
      // part of a line, or only lines we answered ourselves).
      while (!delivered) {
        let r: { done: boolean; value?: Uint8Array };
        try {
          r = await r0.read();
        } catch (e) {
          controller.error(e);
          return;
        }
        if (r.done) {
          splitter.end();
          controller.close();
          return;
        }
        if (r.value) splitter.push(r.value);
      }
    },
    cancel(reason) {
      return reader?.cancel(reason).catch(() => {});
    },
  });

  const writable = new WritableStream<acp.AnyMessage>({
    write: (message) => writeJson(message),
  });

  const settled = async (deadline: number): Promise<void> => {
    for (;;) {
      const tail = outputWrite;
      const left = deadline - Date.now();
      if (left <= 0) return;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([tail, new Promise<void>((r) => (timer = setTimeout(r, left)))]);
      clearTimeout(timer);
      await new Promise((r) => setImmediate(r));
      await new Promise((r) => setImmediate(r));
      if (outputWrite === tail) return;
    }
  };
  return { readable, writable, settled };
}

/**
 * A request the SDK would refuse with `id: null` although its id can be read:
 * it has a `method` and an id JSON-RPC allows, but not the rest of a request
 * (the SDK's isRequestMessage). Anything else is left to the SDK.
 */
function invalidRequestWithId(m: Record<string, unknown>): { id: string | number; why: string } | undefined {
  if (!("method" in m) || !("id" in m)) return undefined;
  const id = m.id;
  if (!(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)))) return undefined;
  if (m.jsonrpc !== "2.0") return { id, why: 'jsonrpc must be "2.0"' };
  if (typeof m.method !== "string") return { id, why: "method must be a string" };
  return undefined;
}
