// A tiny stand-in for `zcode app-server --stdio`, for the connection's unit
// tests: it speaks ZCode's framing (no jsonrpc field, "server-N" ids for its
// own requests) and does what each test method asks. Not the simulator: only
// the wire behaviour the connection itself must handle.
export {};

const args = process.argv.slice(2);
if (args.includes("--version")) {
  process.stdout.write("ZCode CLI version 0.16.9\n");
  process.exit(0);
}

type Frame = { id?: string | number | null; method?: string; params?: any; result?: unknown; error?: unknown };

const write = (f: Frame) => process.stdout.write(`${JSON.stringify(f)}\n`);
/** Our own requests to the bridge, waiting for its answer: server id → the test request to answer with it. */
const asked = new Map<string, string | number>();
let next = 0;

function handle(f: Frame): void {
  if (f.method === undefined) {
    // The bridge's answer to one of our requests: report it to the test, with the id we asked under.
    const original = asked.get(String(f.id));
    if (original === undefined) return;
    asked.delete(String(f.id));
    write({ id: original, result: { answer: f, askedAs: String(f.id) } });
    return;
  }
  if (f.id === undefined || f.id === null) {
    process.stderr.write(`ignored notification ${f.method}\n`);
    return;
  }
  const p = f.params ?? {};
  switch (f.method) {
    case "session/read":
      write({ id: f.id, result: { session: { sessionId: p.sessionId }, runtime: { eventSeq: 1 }, echo: p } });
      return;
    case "session/stop":
      write({ id: f.id, result: {} });
      return;
    case "session/badshape":
      write({ id: f.id, result: { settings: {} } });
      return;
    case "session/busy":
      write({ id: f.id, error: { code: -32010, message: "A prompt is already running for this session" } });
      return;
    case "session/slow":
      return; // never answered
    case "test/env":
      write({ id: f.id, result: { baseUrl: process.env.ZCODE_BASE_URL ?? null, marker: process.env.FAKE_MARKER ?? null } });
      return;
    case "test/events":
      // Envelopes as the CLI writes them, then one it could not have meant.
      for (const e of p.events as unknown[]) write({ method: "session/event", params: e });
      write({ method: "session/event", params: { seq: 99, type: "turn.started" } });
      write({ method: "state.updated", params: { sessionId: p.sessionId, reason: "mode_changed" } });
      write({ id: f.id, result: {} });
      return;
    case "test/ask": {
      const id = `server-${++next}`;
      asked.set(id, f.id);
      write({ id, method: p.method, params: p.params });
      return;
    }
    case "test/garbage":
      process.stdout.write("this is not json\n");
      write({ id: 424242, result: {} });
      write({ id: f.id, result: { ok: true } });
      return;
    case "test/exit":
      process.stderr.write("fatal: the test asked me to exit\n");
      process.exit(3);
      return;
    default:
      write({ id: f.id, error: { code: -32601, message: `Method not found: ${f.method}` } });
  }
}

let buf = "";
for await (const chunk of Bun.stdin.stream()) {
  buf += new TextDecoder().decode(chunk);
  let nl: number;
  while ((nl = buf.indexOf("\n")) >= 0) {
    const line = buf.slice(0, nl);
    buf = buf.slice(nl + 1);
    if (line.trim()) handle(JSON.parse(line) as Frame);
  }
}
