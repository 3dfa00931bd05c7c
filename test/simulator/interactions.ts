// Requests the simulator sends to the bridge (session/requestRuntimePreferences,
// interaction/*, unknown ones). Ids are strings `server-1`, `server-2`, … from
// one counter, as the CLI's requestClient. An interaction that must be answered
// by a person is re-announced — the same params (same requestId) under a NEW id
// — after 1, 2, 4, 8 and then every 10 base intervals (base ZCODE_SIM_RESEND_MS,
// the CLI's 1000 ms) until any copy is answered; answers to the other copies
// are then ignored.
import type { Out } from "./wire.ts";
import { log } from "./wire.ts";

export type Answer = { result: unknown } | { error: { code: number; message: string; data?: unknown } };

interface Pending {
  method: string;
  resolve: (a: Answer) => void;
  ids: string[];
}

/** The CLI's reannounce schedule: the interval doubles from the base, capped at 10× the base. */
export function reannounceDelays(base: number, n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(Math.min(base * 2 ** i, base * 10));
  return out;
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
    return `server-${this.next++}`;
  }

  /**
   * Sends a request; resolves with its answer. `reannounce`: re-sent on the
   * CLI's schedule until answered. An aborted `signal` rejects with its reason
   * (the CLI's -32021 "Client request cancelled", never sent to the client).
   */
  request(method: string, params: unknown, opts: { reannounce?: boolean; signal?: AbortSignal } = {}): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      if (opts.signal?.aborted) return reject(opts.signal.reason);
      const p: Pending = { method, resolve: () => {}, ids: [] };
      let timer: ReturnType<typeof setTimeout> | undefined;
      let copies = 0;
      const send = () => {
        const id = this.newId();
        p.ids.push(id);
        this.byId.set(id, p);
        this.out.frame({ id, method, params });
        if (opts.reannounce && this.resendMs > 0) timer = setTimeout(send, Math.min(this.resendMs * 2 ** copies++, this.resendMs * 10));
      };
      const finish = () => {
        if (timer) clearTimeout(timer);
        for (const id of p.ids) {
          this.byId.delete(id);
          this.settled.add(id);
        }
        opts.signal?.removeEventListener("abort", onAbort);
      };
      const onAbort = () => {
        finish();
        reject(opts.signal!.reason);
      };
      p.resolve = (a) => {
        finish();
        resolve(a);
      };
      opts.signal?.addEventListener("abort", onAbort, { once: true });
      send();
    });
  }

  /** Routes a response frame; false when its id is unknown. */
  onResponse(frame: { id: unknown; result?: unknown; error?: unknown }): boolean {
    const id = String(frame.id);
    const p = this.byId.get(id);
    if (!p) return this.settled.has(id);
    if ("error" in frame && frame.error !== undefined) {
      const e = frame.error as { code: number; message: string; data?: unknown };
      p.resolve({ error: { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) } });
    } else p.resolve({ result: frame.result });
    return true;
  }

  /** Ids of requests still waiting (snapshot runtime.pendingRequestIds). */
  pendingIds(): string[] {
    return [...this.byId.keys()];
  }

  pendingCount(): number {
    return new Set(this.byId.values()).size;
  }

  describeStray(frame: unknown): void {
    log(`response to an id nobody asked for, ignored: ${JSON.stringify(frame).slice(0, 200)}`);
  }
}
