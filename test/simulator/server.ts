// Frame dispatch for the live simulator: classify each received line by
// id/method as the real CLI does, reject frames carrying `jsonrpc`, route
// responses to our outgoing requests, run handlers and answer exactly once.
import { lookup, RpcError } from "./methods.ts";
import type { Sim } from "./sim.ts";
import { log } from "./wire.ts";

type Frame = Record<string, unknown>;

function short(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}… (${line.length} chars)` : line;
}

export function handleLine(sim: Sim, line: string): void {
  if (line.trim() === "") return;
  let msg: unknown;
  try {
    msg = JSON.parse(line);
  } catch {
    log(`not JSON, ignored: ${short(line)}`);
    return;
  }
  if (!msg || typeof msg !== "object" || Array.isArray(msg)) {
    log(`not a JSON object, ignored: ${short(line)}`);
    return;
  }
  const f = msg as Frame;
  const hasId = "id" in f && f.id !== undefined && f.id !== null;
  if ("jsonrpc" in f) {
    // The CLI's validator rejects JSON-RPC 2.0 framing.
    if (hasId) sim.out.frame({ id: f.id, error: { code: -32600, message: "jsonrpc field not allowed" } });
    else log(`frame with a jsonrpc field rejected: ${short(line)}`);
    return;
  }
  if (hasId && typeof f.id !== "number" && typeof f.id !== "string") {
    sim.out.frame({ id: f.id, error: { code: -32600, message: "id must be a number or a string" } });
    return;
  }
  if (typeof f.method === "string") {
    void call(sim, f.method, f.params, hasId ? (f.id as string | number) : undefined);
    return;
  }
  if (hasId && ("result" in f || "error" in f)) {
    if (!sim.outgoing.onResponse(f as { id: unknown })) sim.outgoing.describeStray(f);
    return;
  }
  if (hasId) sim.out.frame({ id: f.id, error: { code: -32600, message: "Invalid request: no method" } });
  else log(`frame without id or method ignored: ${short(line)}`);
}

async function call(sim: Sim, method: string, params: unknown, id: string | number | undefined): Promise<void> {
  const isRequest = id !== undefined;
  const answer = (body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) => {
    if (!isRequest) return;
    sim.out.frame({ id, ...sim.fuzz.answer(id, body) });
  };
  const handler = lookup(sim, method);
  if (!handler) {
    if (isRequest) answer({ error: { code: -32601, message: `Method not found: ${method}` } });
    else log(`unknown notification ${method} ignored`);
    return;
  }
  if (params !== undefined && (params === null || typeof params !== "object" || Array.isArray(params))) {
    answer({ error: { code: -32602, message: "Invalid params: params must be an object" } });
    return;
  }
  try {
    const result = await handler(sim, (params ?? {}) as Record<string, unknown>, { isRequest });
    answer({ result });
  } catch (e) {
    if (e instanceof RpcError) {
      const error: { code: number; message: string; data?: unknown } = { code: e.code, message: e.message };
      if (e.data !== undefined) error.data = e.data;
      answer({ error });
      if (!isRequest) log(`notification ${method} failed: ${e.message}`);
    } else {
      log(`${method} threw: ${(e as Error).stack ?? e}`);
      answer({ error: { code: -32603, message: `Internal error: ${(e as Error).message}` } });
    }
  }
}
