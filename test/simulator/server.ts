// Frame handling as the CLI's transport.ts + server.ts do it:
// - a line that is not JSON → {"error":{"code":-32700,"message":"Parse error"},"id":"parse-error"};
// - a frame that is none of the four strict message shapes (request {id,
//   method, params?, trace?}, notification {method, params?, trace?},
//   response {id, result}, error {id, error:{code, message, data?}}) — e.g. one
//   carrying `jsonrpc` — → -32600 "Invalid ZCode Protocol message" with id
//   "invalid-message" (the frame's own id is not echoed), and it is dropped;
// - notifications are IGNORED (logged on stderr): only requests are acted on;
// - requests are handled STRICTLY SERIALLY: the next handler starts after the
//   previous one settled — except session/stop, which waits only until the last
//   queued request has started;
// - answers to the simulator's own requests bypass the queue.
// Params are parsed with ZCode's strict schemas (-32602 "Invalid params — …").
import { lookup, RpcError } from "./methods.ts";
import { paramsMessage, validate } from "./schema.ts";
import type { Sim } from "./sim.ts";
import { log } from "./wire.ts";
import { params as PARAMS } from "./zcode-schemas.ts";

type Frame = Record<string, unknown>;

/** Methods that bypass the request queue (the CLI's list, as far as the simulator has them). */
const BYPASS = new Set(["session/stop", "workspace/cancelGenerateText"]);

function short(line: string): string {
  return line.length > 200 ? `${line.slice(0, 200)}… (${line.length} chars)` : line;
}

const isId = (v: unknown) => typeof v === "string" || (typeof v === "number" && Number.isInteger(v));
const nonEmpty = (v: unknown) => typeof v === "string" && v.trim().length > 0;
const isObj = (v: unknown): v is Frame => !!v && typeof v === "object" && !Array.isArray(v);

type Classified =
  | { kind: "request"; id: string | number; method: string; params: unknown }
  | { kind: "notification"; method: string }
  | { kind: "response"; frame: Frame }
  | { kind: "invalid"; issues: { code: string; message: string; path: (string | number)[] }[] };

function onlyKeys(f: Frame, allowed: string[]): string[] {
  return Object.keys(f).filter((k) => !allowed.includes(k));
}

/** zcodeProtocolMessageSchema: a union of four strict objects. */
export function classify(f: unknown): Classified {
  if (!isObj(f)) return { kind: "invalid", issues: [{ code: "invalid_type", message: "Expected object", path: [] }] };
  const traceOk = f.trace === undefined || isObj(f.trace);
  if ("method" in f) {
    const extra = onlyKeys(f, ["id", "method", "params", "trace"]);
    if (extra.length === 0 && nonEmpty(f.method) && traceOk) {
      if (!("id" in f)) return { kind: "notification", method: f.method as string };
      if (isId(f.id)) return { kind: "request", id: f.id as string | number, method: f.method as string, params: f.params };
    }
    const issues = [];
    if (extra.length)
      issues.push({
        code: "unrecognized_keys",
        message: `Unrecognized key(s) in object: ${extra.map((k) => `'${k}'`).join(", ")}`,
        path: [],
      });
    if (!nonEmpty(f.method)) issues.push({ code: "invalid_type", message: "Expected a non-empty string", path: ["method"] });
    if ("id" in f && !isId(f.id)) issues.push({ code: "invalid_union", message: "Invalid input", path: ["id"] });
    if (!traceOk) issues.push({ code: "invalid_type", message: "Expected object", path: ["trace"] });
    return { kind: "invalid", issues };
  }
  if ("error" in f) {
    const e = f.error;
    const ok =
      onlyKeys(f, ["id", "error"]).length === 0 &&
      isId(f.id) &&
      isObj(e) &&
      onlyKeys(e, ["code", "message", "data"]).length === 0 &&
      typeof e.code === "number" &&
      Number.isInteger(e.code) &&
      nonEmpty(e.message);
    if (ok) return { kind: "response", frame: f };
    return { kind: "invalid", issues: [{ code: "invalid_union", message: "Invalid error response", path: ["error"] }] };
  }
  const extra = onlyKeys(f, ["id", "result"]);
  if (extra.length === 0 && isId(f.id)) return { kind: "response", frame: f };
  return {
    kind: "invalid",
    issues: extra.length
      ? [{ code: "unrecognized_keys", message: `Unrecognized key(s) in object: ${extra.map((k) => `'${k}'`).join(", ")}`, path: [] }]
      : [{ code: "invalid_union", message: "Invalid input", path: [] }],
  };
}

export class Server {
  private processing: Promise<void> = Promise.resolve();
  /** Settles when the most recently queued request has started. */
  private lastStarted: Promise<void> = Promise.resolve();

  constructor(private readonly sim: Sim) {}

  handleLine(line: string): void {
    const sim = this.sim;
    if (line.trim() === "") return;
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      log(`not JSON: ${short(line)}`);
      sim.out.frame({ error: { code: -32700, message: "Parse error" }, id: "parse-error" });
      return;
    }
    const c = classify(msg);
    switch (c.kind) {
      case "invalid":
        log(`invalid ZCode Protocol message dropped: ${short(line)}`);
        sim.out.frame({
          error: { code: -32600, data: { issues: c.issues }, message: "Invalid ZCode Protocol message" },
          id: "invalid-message",
        });
        return;
      case "notification":
        log(`notification ${c.method} ignored (the CLI acts on requests only)`);
        return;
      case "response":
        if (!sim.outgoing.onResponse(c.frame as { id: unknown })) sim.outgoing.describeStray(c.frame);
        return;
      case "request": {
        const run = () => this.dispatch(c.method, c.params, c.id);
        if (c.method === "v4/command" && (c.params as { type?: unknown } | undefined)?.type === "stop") sim.stopsArrived++;
        if (BYPASS.has(c.method)) {
          void this.lastStarted.then(run);
          return;
        }
        let started!: () => void;
        this.lastStarted = new Promise<void>((r) => {
          started = r;
        });
        this.processing = this.processing.then(async () => {
          started();
          // ZCODE_SIM_HANDLER_DELAY_MS: a slow handler holds the queue (stop does not wait for it).
          if (sim.cfg.handlerDelayMs > 0) await Bun.sleep(sim.cfg.handlerDelayMs);
          return run();
        });
      }
    }
  }

  private async dispatch(method: string, rawParams: unknown, id: string | number): Promise<void> {
    const sim = this.sim;
    const after: (() => void)[] = [];
    let drop = false;
    let ok = false;
    const answer = (body: { result: unknown } | { error: { code: number; message: string; data?: unknown } }) => {
      if (drop) return;
      sim.out.frame({ id, ...sim.fuzz.answer(id, body) });
    };
    try {
      const handler = lookup(sim, method);
      if (!handler) throw new RpcError(-32601, `Method not found: ${method}`);
      const schema = PARAMS[method];
      let p: Record<string, unknown> = (rawParams ?? {}) as Record<string, unknown>;
      if (schema) {
        const v = validate(schema, rawParams ?? {});
        if (!v.ok) throw new RpcError(-32602, paramsMessage(v.issues), { name: "ZodError", issues: v.issues });
        p = v.value as Record<string, unknown>;
      }
      const result = await handler(sim, p, {
        after: (fn) => after.push(fn),
        dropAnswer: () => {
          drop = true;
        },
      });
      // ZCODE_SIM_ACK_WITH_FIRST_TEXT (main.ts): this answer goes out with the turn's first text, in one write.
      if (method === "v4/command" && after.length > 0 && sim.cfg.ackWithFirstText)
        sim.out.cork((line) => line.includes('"kind":"text_delta"'), 5_000);
      answer({ result });
      ok = true;
    } catch (e) {
      if (e instanceof RpcError) {
        answer({ error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } });
      } else if (e instanceof Error) {
        const code = (e as Error & { code?: unknown }).code;
        log(`${method} failed: ${e.message}`);
        answer({
          error: {
            code: -32603,
            message: e.message,
            data: { name: e.name, stack: e.stack, ...(typeof code === "string" ? { code } : {}) },
          },
        });
      } else answer({ error: { code: -32603, message: String(e) } });
    }
    if (ok) {
      for (const fn of after) {
        try {
          fn();
        } catch (e) {
          log(`after ${method}: ${(e as Error).stack ?? e}`);
        }
      }
    }
  }
}
