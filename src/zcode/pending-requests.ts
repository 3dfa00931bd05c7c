import * as v from "valibot";
import { log as rootLog } from "../log.ts";
import type { CliCapabilities } from "./capabilities.ts";
import { errorFromWire, LOCAL_ERR, ZCODE_ERR, ZCodeError, ZCodeExitedError, ZCodeTimeoutError, type ExitInfo } from "./errors.ts";
import { excerpt, type Frame, type FrameId } from "./frames.ts";
import { summarizeIssues } from "./schemas.ts";

// Our requests to the ZCode child, from the id we give them to the one
// settlement each gets: ZCode's answer (checked against the caller's schema),
// its error, our timeout, or the exit of the child it was sent to. Whichever
// comes first wins; the others find nothing left to settle.

const log = rootLog.withTag("zcode");

interface Pending {
  method: string;
  /** The child the request was written to: only its exit fails it. */
  generation: number;
  schema: v.GenericSchema | undefined;
  timer: ReturnType<typeof setTimeout>;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

export class PendingRequests {
  private nextId = 0;
  private readonly byId = new Map<number, Pending>();

  /**
   * @param warnBadFrame logs an answer nobody waits for (through the connection's bad-frame budget).
   * @param onTimeout a request to child `generation` got no answer within `timeoutMs`.
   */
  constructor(
    private readonly warnBadFrame: (message: string) => void,
    private readonly onTimeout: (generation: number, timeoutMs: number) => void = () => {},
  ) {}

  /** Whether any request still waits for its answer. */
  get waiting(): boolean {
    return this.byId.size > 0;
  }

  /** A fresh request id (ids are never reused, across children too). */
  newId(): number {
    return ++this.nextId;
  }

  /** Whether `id` is ours and still waiting: what tells a response from a request when decoding. */
  readonly isPending = (id: FrameId): boolean => typeof id === "number" && this.byId.has(id);

  /**
   * Waits for the answer to request `id`, sent to child `generation`. Rejects
   * with ZCodeTimeoutError after `timeoutMs`.
   */
  wait<T>(id: number, method: string, generation: number, timeoutMs: number, schema: v.GenericSchema<unknown, T> | undefined): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!this.byId.delete(id)) return;
        reject(new ZCodeTimeoutError(method, timeoutMs));
        this.onTimeout(generation, timeoutMs);
      }, timeoutMs);
      this.byId.set(id, { method, generation, schema, timer, resolve: resolve as (value: unknown) => void, reject });
    });
  }

  /**
   * ZCode answered. A -32601 error also marks the method unsupported in the
   * `capabilities` of the child that answered, so callers can fall back.
   */
  settle(frame: Extract<Frame, { kind: "response" | "error" }>, line: string, capabilities: CliCapabilities): void {
    const p = typeof frame.id === "number" ? this.byId.get(frame.id) : undefined;
    if (!p) {
      this.warnBadFrame(`ZCode answered id ${JSON.stringify(frame.id)}, which nobody is waiting for: ${excerpt(line)}`);
      return;
    }
    this.byId.delete(frame.id as number);
    clearTimeout(p.timer);
    if (frame.kind === "error") {
      if (frame.error.code === ZCODE_ERR.methodNotFound) capabilities.markUnsupported(p.method);
      p.reject(errorFromWire(p.method, frame.error));
      return;
    }
    if (!p.schema) {
      p.resolve(frame.result);
      return;
    }
    const r = v.safeParse(p.schema, frame.result);
    if (r.success) p.resolve(r.output);
    else {
      const why = summarizeIssues(r.issues);
      log.warn(`ZCode answered ${p.method} with an unexpected shape (${why}): ${excerpt(line)}`);
      p.reject(
        new ZCodeError(`The ZCode CLI answered ${p.method} with an unexpected shape (${why})`, {
          code: LOCAL_ERR.internal,
          method: p.method,
        }),
      );
    }
  }

  /** Child `generation` exited: everything sent to it fails at once with how it ended. */
  failGeneration(generation: number, exit: ExitInfo): void {
    for (const [id, p] of this.byId) {
      if (p.generation !== generation) continue;
      this.byId.delete(id);
      clearTimeout(p.timer);
      p.reject(new ZCodeExitedError(exit, p.method));
    }
  }
}
