import { log as rootLog } from "../log.ts";
import { LOCAL_ERR, ZCODE_ERR } from "./errors.ts";
import { encodeError, encodeResult, type FrameId } from "./frames.ts";
import { RUNTIME_PREFERENCES } from "./request-schemas.ts";

// Requests the ZCode child sends us (permission prompts, questions, runtime
// preferences): each answered exactly once, by the handler registered for its
// method, with -32601 when there is none, and with the handler's error (its
// code when it has one) when the handler fails. Whether the answer is still
// worth writing (the child that asked may be gone) is the caller's `send`.

const log = rootLog.withTag("zcode");

export type RequestHandler = (params: unknown) => Promise<unknown>;

const RUNTIME_PREFERENCES_METHOD = "session/requestRuntimePreferences";

export class ChildRequests {
  private readonly handlers = new Map<string, RequestHandler>();

  /** One handler per method; a later one replaces it. */
  set(method: string, handler: RequestHandler): void {
    this.handlers.set(method, handler);
  }

  /**
   * The registered handler's answer to `params`, without a request from the
   * child (a v4 pending interaction put to the legacy handler); -32601 when
   * none is registered.
   */
  async ask(method: string, params: unknown): Promise<unknown> {
    const handler = this.handlers.get(method);
    if (!handler) throw Object.assign(new Error(`Method not found: ${method}`), { code: ZCODE_ERR.methodNotFound });
    return handler(params);
  }

  /** Answers request `id`; `send` gets the encoded answer line, once. */
  answer(id: FrameId, method: string, params: unknown, send: (line: string) => void): void {
    let answered = false;
    const answer = (line: string) => {
      if (answered) return;
      answered = true;
      send(line);
    };
    // Our strict defaults (request-schemas.ts) answer this unless the bridge registered its own handler.
    if (method === RUNTIME_PREFERENCES_METHOD && !this.handlers.has(method)) {
      answer(encodeResult(id, RUNTIME_PREFERENCES));
      return;
    }
    const handler = this.handlers.get(method);
    if (!handler) {
      log.debug(`answered unknown request ${method} from ZCode with -32601`);
      answer(encodeError(id, ZCODE_ERR.methodNotFound, `Method not found: ${method}`));
      return;
    }
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(handler(params));
    } catch (e) {
      result = Promise.reject(e);
    }
    result.then(
      (value) => answer(encodeResult(id, value ?? {})),
      (e: unknown) => {
        const err = e as { code?: unknown; message?: unknown };
        const code = typeof err?.code === "number" ? err.code : LOCAL_ERR.internal;
        const message = typeof err?.message === "string" ? err.message : String(e);
        if (code === LOCAL_ERR.internal) log.warn(`handler for ${method} failed: ${message}`);
        answer(encodeError(id, code, message));
      },
    );
  }
}
