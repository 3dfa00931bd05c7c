// Faults of the v4 channel, switched on by environment (a real CLI has none
// of them on purpose; they are what a slow machine, a busy Core or a newer
// ZCode can make the bridge see):
// - ZCODE_SIM_V4_PROBE=<kind>[*<n>]: the first n `v4/commands/query` (all
//   when no n) fail: `error` (-32603, as server.ts toProtocolError answers a
//   thrown Error), `garbage` (a result that is no query result), `hang` (no
//   answer; the request queue moves on, as hang-request does).
// - ZCODE_SIM_V4_ACK=<type>:<kind>[*<n>],…: the first n `v4/command` of that
//   type (all when no n): `delay=<ms>` (the command waits that long before
//   it runs: its ACK is late, ZCode's serial queue being busy), `garbage`
//   (the command runs, its ACK has a shape no schema knows), `stale`
//   (proto.staleRevision, the inbox's CAS answer: command-inbox.ts),
//   `rejected=<code>` / `failed=<code>` (that answer, without running it),
//   `activePrompt` (retryTurn: the conversation is cut, then Core's admission
//   refuses the new turn: fork-edit-retry.ts retryTurn runs
//   submitConversationRewind before startCanonicalIntent, and prompt-turn.ts
//   throws V4PromptRejectedError("activePrompt") on `admission.kind ===
//   "rejected"`; the gateway passes the reasonCode through, v4-gateway.ts
//   handleCommand).

export type ProbeFault = { kind: "error" | "garbage" | "hang" };
export type AckFault =
  | { kind: "delay"; ms: number }
  | { kind: "garbage" | "stale" | "activePrompt" }
  | { kind: "rejected" | "failed"; reasonCode: string };

interface Counted<F> {
  fault: F;
  /** Uses left (Infinity: every one). */
  left: number;
}

function counted(spec: string): { body: string; left: number } {
  const star = spec.lastIndexOf("*");
  if (star < 0) return { body: spec, left: Number.POSITIVE_INFINITY };
  const n = Number(spec.slice(star + 1));
  if (!Number.isInteger(n) || n < 1) throw new Error(`bad count in ${JSON.stringify(spec)}`);
  return { body: spec.slice(0, star), left: n };
}

function probeFault(body: string): ProbeFault {
  if (body === "error" || body === "garbage" || body === "hang") return { kind: body };
  throw new Error(`ZCODE_SIM_V4_PROBE: unknown fault ${JSON.stringify(body)} (error, garbage, hang)`);
}

function ackFault(body: string): AckFault {
  const [kind, arg] = body.split("=", 2) as [string, string | undefined];
  if (kind === "delay" && arg !== undefined && Number(arg) >= 0) return { kind, ms: Number(arg) };
  if ((kind === "garbage" || kind === "stale" || kind === "activePrompt") && arg === undefined) return { kind };
  if ((kind === "rejected" || kind === "failed") && arg) return { kind, reasonCode: arg };
  throw new Error(
    `ZCODE_SIM_V4_ACK: unknown fault ${JSON.stringify(body)} (delay=ms, garbage, stale, rejected=code, failed=code, activePrompt)`,
  );
}

export class V4Faults {
  private readonly probe: Counted<ProbeFault> | undefined;
  private readonly acks = new Map<string, Counted<AckFault>[]>();

  constructor(probeSpec: string | undefined, ackSpec: string | undefined) {
    if (probeSpec) {
      const { body, left } = counted(probeSpec);
      this.probe = { fault: probeFault(body), left };
    }
    for (const entry of (ackSpec ?? "").split(",").map((x) => x.trim())) {
      if (!entry) continue;
      const colon = entry.indexOf(":");
      if (colon <= 0) throw new Error(`ZCODE_SIM_V4_ACK: ${JSON.stringify(entry)} is not <type>:<fault>`);
      const { body, left } = counted(entry.slice(colon + 1));
      const list = this.acks.get(entry.slice(0, colon)) ?? [];
      list.push({ fault: ackFault(body), left });
      this.acks.set(entry.slice(0, colon), list);
    }
  }

  /** The fault of this probe, if one is due (each use counts). */
  nextProbe(): ProbeFault | undefined {
    return take(this.probe);
  }

  /** The fault of this command of `type`, if one is due: the first entry with uses left. */
  nextAck(type: string): AckFault | undefined {
    for (const c of this.acks.get(type) ?? []) {
      const f = take(c);
      if (f) return f;
    }
    return undefined;
  }
}

function take<F>(c: Counted<F> | undefined): F | undefined {
  if (!c || c.left <= 0) return undefined;
  c.left--;
  return c.fault;
}
