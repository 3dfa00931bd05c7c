// ZCODE_SIM_FUZZ=<seed>: besides its normal behaviour, the simulator writes
// random-but-bounded junk — bytes that are not UTF-8, JSON that is not a frame,
// frames with missing fields and wrong types, unknown methods and requests,
// stray and duplicate responses, re-sent old events, huge numbers, state.updated
// notifications with odd patches — and real events a bridge may not expect:
// unknown event types and odd-but-valid payloads, which (like every event the
// CLI sends) consume a seq. It occasionally mangles a real answer. Turns still
// run to completion, so a fuzz test can check the bridge neither crashes nor
// hangs nor opens a seq gap.
import type { Sim } from "./sim.ts";
import type { SessionRecord } from "./types.ts";

/** mulberry32: small, fast, seedable. */
export function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const HUGE = [1e308, -1e308, 2 ** 64, -(2 ** 63), Number.MAX_SAFE_INTEGER + 2, 0.5, -1];
const WORDS = [
  "session/event",
  "turn.completed",
  "tool.updated",
  "model.streaming",
  "interaction/requestPermission",
  "💥",
  "\u0000",
  "\\",
  '"',
];

export function installFuzz(sim: Sim, seed: number): void {
  const r = rng(seed);
  const int = (n: number) => Math.floor(r() * n);
  const pick = <T>(xs: readonly T[]): T => xs[int(xs.length)]!;
  const chance = (p: number) => r() < p;

  const str = (max = 40): string => {
    let s = "";
    const n = int(max);
    for (let i = 0; i < n; i++) {
      const k = int(10);
      s += k < 6 ? String.fromCharCode(32 + int(95)) : k < 8 ? pick(WORDS) : String.fromCodePoint(0x80 + int(0x2ff00));
    }
    return s.replaceAll("\n", " ");
  };

  const value = (depth = 0): unknown => {
    switch (int(depth > 2 ? 5 : 8)) {
      case 0:
        return null;
      case 1:
        return chance(0.5);
      case 2:
        return pick(HUGE);
      case 3:
        return int(1000);
      case 4:
        return str();
      case 5:
        return Array.from({ length: int(4) }, () => value(depth + 1));
      default: {
        const o: Record<string, unknown> = {};
        for (let i = int(4); i > 0; i--) o[pick(["kind", "delta", "seq", "id", "type", "payload", str(8)])] = value(depth + 1);
        return o;
      }
    }
  };

  /** A frame that fails the event schema (written raw: it consumes no seq). */
  const badEvent = (s: SessionRecord): Record<string, unknown> => {
    const seq = sim.rt(s.id)?.seq ?? 0;
    const env: Record<string, unknown> = {
      eventId: `fuzz-${int(1e9)}`,
      sessionId: s.id,
      seq,
      timestamp: Date.now(),
      type: pick(["model.streaming", "tool.updated", "turn.completed", "session.updated"]),
      payload: value(),
    };
    switch (int(7)) {
      case 0:
        delete env.sessionId;
        break;
      case 1:
        env.seq = pick([String(seq), null, -1, 1.5, "NaN"]);
        break;
      case 2:
        env.payload = { kind: "text_delta", delta: pick([42, null, { a: 1 }, ["x"]]) };
        break;
      case 3:
        env.type = pick([7, null, "", str(12)]);
        break;
      case 4:
        env.sessionId = pick(["sess_unknown", 12, ""]);
        break;
      case 5:
        env.payload = {
          kind: pick(["progress", "result", "batch", "scheduled"]),
          toolCallId: pick([null, 5, "call_nope"]),
          items: value(),
        };
        break;
      default:
        env.payload = { usage: { inputTokens: pick(HUGE), outputTokens: pick(HUGE) }, contextWindow: pick(HUGE) };
    }
    return { method: "session/event", params: env };
  };

  /** Real events (stored, with the next seq) of unknown types or with odd-but-valid payloads. */
  const oddEvent = (s: SessionRecord): void => {
    const obj = () => {
      const v = value();
      return v && typeof v === "object" && !Array.isArray(v) ? (v as Record<string, unknown>) : { value: v };
    };
    const odd: [string, Record<string, unknown>][] = [
      [pick(["mystery.event", "session.somethingNew", "turn.paused", "x"]), obj()],
      ["session.updated", {}],
      ["session.updated", obj()],
      ["session.updated", { usage: { inputTokens: 0 }, contextWindow: null }],
      ["tool.updated", { kind: "raw", toolCallId: "call_fuzz_raw", payload: obj() }],
      ["model.streaming", { kind: "tool_input_delta", toolCallId: "call_never_started", delta: "{" }],
      ["model.streaming", { kind: "text_delta", delta: "" }],
      ["message.upserted", { content: "" }],
      ["part.delta", { messageId: "msg_fuzz", partId: "prt_fuzz", delta: "x" }],
      ["userInput.resolved", { requestId: "perm_fuzz", cancelled: true }],
      ["turn.steerDrained", { pendingInputIds: [], targetTurnId: "turn_fuzz", injectedMessageIds: [] }],
      [
        "streamRecovery.updated",
        {
          attemptId: "a",
          anchorId: "b",
          failedRequestId: "r",
          retryNumber: 1,
          maxRetries: 3,
          streamMode: "sse",
          _meta: {
            zcode: {
              apiRetry: {
                kind: "api_retry",
                attempt: 1,
                maxRetries: 3,
                retryDelayMs: 0,
                errorStatus: null,
                error: "Model stream recovery retry started",
              },
            },
          },
        },
      ],
      [
        "checkpoint.created",
        { checkpointId: "checkpoint_fuzz", messageId: "msg_fuzz", scope: "conversation", snapshotRef: "zcode-artifact://x" },
      ],
    ];
    const [type, payload] = pick(odd);
    sim.emit(s, type, payload, { noFuzz: true });
  };

  const stateUpdated = (s: SessionRecord): Record<string, unknown> => ({
    method: "state.updated",
    params: pick([
      {
        type: "state.updated",
        scope: "session",
        sessionId: s.id,
        workspace: s.workspace,
        revision: int(1000),
        reason: pick(["prompt_started", "mode_changed", "mystery_reason", str(8)]),
        patch: value(),
      },
      { type: "state.updated", scope: pick(["server", "workspace"]), revision: int(1000), patch: value() },
      { type: "state.updated", scope: "session", sessionId: "sess_unknown", revision: pick(HUGE), patch: null },
      value(),
    ]),
  });

  const junk = (s?: SessionRecord): void => {
    const out = sim.out;
    switch (int(s ? 11 : 7)) {
      case 0: {
        const b = new Uint8Array(1 + int(200));
        for (let i = 0; i < b.length; i++) b[i] = int(256);
        out.bytes(b.map((x) => (x === 10 ? 0xff : x)));
        break;
      }
      case 1:
        out.raw(str(200));
        break;
      case 2:
        out.raw(JSON.stringify(value()));
        break;
      case 3:
        out.frame({ id: pick([`server-stray-${int(1e6)}`, int(1e6), pick(HUGE), null]), result: value() });
        break;
      case 4:
        out.frame({ id: int(1e6), error: pick([value(), { code: "x" }, { message: 5 }]) });
        break;
      case 5:
        out.frame({ method: pick(["zcode/notice", "session/unknownThing", str(10)]), params: value() });
        break;
      case 6:
        // An unknown request: the bridge must answer it (-32601); the answer is not awaited.
        void sim.outgoing.request(pick(["zcode/fuzzRequest", "workspace/changed", str(10) || "x/y"]), value());
        break;
      case 7:
        out.frame(badEvent(s!));
        break;
      case 8:
        oddEvent(s!);
        break;
      case 9:
        out.frame(stateUpdated(s!));
        break;
      default: {
        // An old event again (same seq): delivered twice on the wire, must reach the editor once.
        const r = sim.rt(s!.id);
        const old = r?.events[int(r.events.length)];
        if (old) out.frame({ method: "session/event", params: sim.mapEvent(old, r!.deliveryKind) });
      }
    }
    if (chance(0.02)) out.raw(JSON.stringify({ method: "zcode/padding", params: { data: "x".repeat(64 * 1024) } }));
  };

  const mangle = (body: Record<string, unknown>): Record<string, unknown> => {
    if (!("result" in body) || !body.result || typeof body.result !== "object") return body;
    const result = { ...(body.result as Record<string, unknown>) };
    const keys = Object.keys(result);
    if (keys.length === 0) return body;
    const k = pick(keys);
    if (chance(0.5)) delete result[k];
    else result[k] = value();
    return { ...body, result };
  };

  sim.fuzz = {
    between(s) {
      if (!chance(0.3)) return;
      for (let i = 1 + int(3); i > 0; i--) junk(s);
    },
    answer(id, body) {
      if (chance(0.15)) junk();
      if (chance(0.1)) {
        // A duplicate answer right after the real one.
        setImmediate(() => sim.out.frame({ id, result: value() }));
      }
      return chance(0.05) ? mangle(body) : body;
    },
  };
}
