// The harnesses' stdout tap: the bridge's stdout forwarded line by line to
// the SDK client, each line shown to `inspect` (schema checks, recording)
// before the client reads it. A last line without its newline is still
// forwarded, so a bridge that dies mid-line is seen, not hidden.

export async function forwardLines(
  source: ReadableStream<Uint8Array>,
  sink: WritableStream<Uint8Array>,
  inspect: (line: string) => void,
): Promise<void> {
  const writer = sink.getWriter();
  const dec = new TextDecoder();
  const enc = new TextEncoder();
  let buf = "";
  try {
    for await (const chunk of source) {
      buf += dec.decode(chunk, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        inspect(line);
        await writer.write(enc.encode(`${line}\n`));
      }
    }
    if (buf.trim()) {
      inspect(buf);
      await writer.write(enc.encode(`${buf}\n`));
    }
  } catch {
    // The client side closed; nothing more to forward.
  } finally {
    try {
      await writer.close();
    } catch {
      /* already closed */
    }
  }
}
