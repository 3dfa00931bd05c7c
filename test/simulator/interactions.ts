// Requests the simulator sends to the bridge (interaction/*,
// session/requestRuntimePreferences, unknown ones). Like the real CLI, an
// unanswered interaction is re-sent with a new JSON-RPC id and the same params
// (same requestId) until one copy is answered.
import type { Out } from "./wire.ts";
import { log } from "./wire.ts";

export type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

interface Pending {
  method: string;
  resolve: (a: Answer) => void;
  reject: (e: unknown) => void;
  timer?: ReturnType<typeof setInterval>;
  ids: string[];
}

export class Outgoing {
  private next = 1;
  private readonly byId = new Map<string, Pending>();
  /** Ids whose request is settled: late answers to them are expected, not strays. */
  private readonly settled = new Set<string>();

  constructor(
    private readonly out: Out,
    private readonly resendMs: number,
  ) {}

  newId(): string {
    return `zc-${this.next++}`;
  }

  request(method: string, params: unknown, opts: { resend?: boolean; signal?: AbortSignal } = {}): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      const p: Pending = { method, resolve, reject, ids: [] };
      const send = () => {
        const id = this.newId();
        p.ids.push(id);
        this.byId.set(id, p);
        this.out.frame({ id, method, params });
      };
      const finish = () => {
        if (p.timer) clearInterval(p.timer);
        for (const id of p.ids) {
          this.byId.delete(id);
          this.settled.add(id);
        }
      };
      p.resolve = (a) => {
        finish();
        resolve(a);
      };
      p.reject = (e) => {
        finish();
        reject(e);
      };
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      opts.signal?.addEventListener("abort", () => p.reject(opts.signal!.reason), { once: true });
      send();
      if (opts.resend && this.resendMs > 0) p.timer = setInterval(send, this.resendMs);
    });
  }

  /** Routes a response frame; false when its id is unknown. */
  onResponse(frame: { id: unknown; result?: unknown; error?: unknown }): boolean {
    const id = String(frame.id);
    const p = this.byId.get(id);
    if (!p) {
      if (this.settled.has(id)) return true;
      return false;
    }
    if ("error" in frame && frame.error !== undefined) {
      const e = frame.error as { code?: unknown; message?: unknown; data?: unknown };
      const code = typeof e?.code === "number" ? e.code : -32603;
      const message = typeof e?.message === "string" ? e.message : "error without message";
      p.resolve({ error: { code, message, data: e?.data } });
    } else p.resolve({ result: frame.result });
    return true;
  }

  pendingCount(): number {
    return new Set(this.byId.values()).size;
  }

  describeStray(frame: unknown): void {
    log(`response to an id nobody asked for: ${JSON.stringify(frame).slice(0, 200)}`);
  }
}
