// ZCode's queue of inputs that wait for a turn, as far as /steer meets it
// (jimpablo/ZCode@aac4755, CLI 0.16.9):
// - what becomes of guides a turn never took in: cancelled → fall back to the
//   queue with `guide.turnInterrupted` and the queue is held; failed → no
//   event at all, the queue is held; completed → fall back with
//   `guide.noToolBoundary` and the queue head runs as a turn of its own;
// - a held queue with an idle session makes every v4 sendText without
//   `heldQueueDisposition` fail `heldQueueDispositionRequired`;
// - v4 deleteQueueItem;
// - legacy session/send during a turn a v4 command started: admitted by
//   Core (queued), not refused;
// - ZCODE_SIM_STEER_ACK: a steer's ACK delayed, dropped, garbled or refused.
// Kept apart from v4.ts (rewind/retry) so the two grow without meeting.
import type { CallCtx } from "./methods.ts";
import { parsePrompt, prepareTurn, runTurn } from "./runner.ts";
import type { Runtime, Sim } from "./sim.ts";
import type { Turn } from "./turn.ts";
import type { SessionRecord } from "./types.ts";
import { log } from "./wire.ts";

export interface QueuedInput {
  commandId: string;
  text: string;
}

/** The simulator's pendingInputId of an input (steering.ts: queueItemId ≡ pendingInputId). */
export function queueItemId(q: QueuedInput): string {
  return `queue_${q.commandId}`;
}

/**
 * Guides and queued inputs a turn leaves behind, at its end (before its
 * turn.completed / turn.failed). core `turn.ts` executeTurn catch block:
 * a cancel calls `fallbackPendingGuidesToQueue({reasonCode:
 * "guide.turnInterrupted"})` (steering.ts:479-514: one
 * TurnSteerDeliveryChanged per guide, which has no legacy name and streams
 * as session.updated) and sets `queueAutoDrain = false`; a plain TurnError
 * emits nothing ("普通 TurnError 只结束当前 turn，不撤销已经 accepted 的 future
 * input") and sets `queueAutoDrain = false` too. A successful end with
 * guides left falls back with `guide.noToolBoundary` and keeps draining.
 */
export function settleLeftInputs(sim: Sim, s: SessionRecord, turn: Turn, cancelled: boolean): { left: QueuedInput[]; held: boolean } {
  const guides = turn.guides.splice(0);
  const queued = turn.queued.splice(0);
  const held = cancelled || turn.failure !== undefined;
  if (!turn.failure) {
    for (const g of guides) {
      sim.emit(
        s,
        "session.updated",
        {
          admittedDelivery: "queue",
          fallbackReasonCode: cancelled ? "guide.turnInterrupted" : "guide.noToolBoundary",
          pendingInputId: queueItemId(g),
          requestedDelivery: "guide",
          targetTurnId: turn.id,
        },
        { turnId: turn.id },
      );
    }
  }
  return { left: [...guides, ...queued], held };
}

/**
 * After the turn's end: a held queue keeps its inputs (autoDrain off);
 * otherwise the head is promoted as a turn of its own
 * (`autoDrainV4QueueIfReady` → sendQueuedNow {autoDrainPromotion}, v4-bridge.ts)
 * and the rest waits behind it.
 */
export function afterTurnQueue(sim: Sim, s: SessionRecord, r: Runtime, settled: { left: QueuedInput[]; held: boolean }): void {
  if (settled.held) {
    r.heldGuides.push(...settled.left);
    return;
  }
  const [next, ...rest] = settled.left;
  if (next) runQueuedAsTurn(sim, s, r, next);
  r.heldGuides.push(...rest);
}

/** Starts a turn of its own for a queued input (v4-bridge.ts auto-drain promotion). */
function runQueuedAsTurn(sim: Sim, s: SessionRecord, r: Runtime, g: QueuedInput): void {
  if (r.turn || sim.rt(s.id) !== r) return;
  const turn = prepareTurn(sim, s, r, {
    raw: g.text,
    prompt: parsePrompt(g.text, sim.cfg.defaultScenario),
    inputId: g.commandId,
    queryId: g.commandId,
    sourceCommandId: g.commandId,
  });
  turn.v4Started = true;
  r.revision++;
  sim.stateUpdated(s, "prompt_started", { status: "running" });
  setImmediate(() => runTurn(turn).catch((e) => log(`turn crashed: ${(e as Error).stack ?? e}`)));
}

/**
 * input-admission.ts `applyHeldQueueDisposition` (called by session-flow.ts
 * sendText): routing is `choice` when the session is idle with a held queue
 * (snapshot.ts `inputRoutingSchema`: "held (completed+queue>0+autoDrain=false)");
 * then no disposition → `heldQueueDispositionRequired`; `clearQueueAndSend`
 * clears the queue first; `keepQueueAndSend` leaves it. A reasonCode to fail
 * with, or undefined to go on.
 */
export function heldQueueDisposition(r: Runtime, disposition: string | undefined): string | undefined {
  if (r.turn || r.heldGuides.length === 0) return undefined;
  if (!disposition) return "heldQueueDispositionRequired";
  if (disposition === "clearQueueAndSend") r.heldGuides = [];
  return undefined;
}

/**
 * handlers/queue.ts `deleteQueueItem`: removed, or `noop queue.itemMissing`
 * (a concurrent drain or a second delete). True when it was there.
 */
export function deleteQueueItem(r: Runtime, id: string): boolean {
  const at = r.heldGuides.findIndex((q) => queueItemId(q) === id);
  if (at < 0) return false;
  r.heldGuides.splice(at, 1);
  return true;
}

/**
 * server-operations.ts `sendPrompt` refuses (-32010) only while the legacy
 * `activeAbortController` is set; a turn a v4 command started holds none
 * (prompt-turn.ts:3-5), so the input goes to Core admission, which queues it
 * behind the running turn (core steering.ts `enqueueDeferredInput`,
 * TurnSteerQueued with delivery "queue"). True when admitted so.
 */
export function admitLegacySendIntoV4Turn(sim: Sim, s: SessionRecord, r: Runtime, text: string, inputId: string): boolean {
  const turn = r.turn;
  if (!turn?.v4Started || turn.stopped) return false;
  const q = { commandId: inputId, text };
  turn.queued.push(q);
  sim.emit(
    s,
    "turn.steerQueued",
    {
      inputId,
      queryId: inputId,
      pendingInputId: queueItemId(q),
      input: text,
      inputPreview: text.slice(0, 80),
      inputSize: Buffer.byteLength(text),
      delivery: "queue",
      targetTurnId: turn.id,
      queueLength: turn.guides.length + turn.queued.length,
    },
    { turnId: turn.id },
  );
  log(`session/send on ${s.id} during a v4-started turn: queued behind it (Core admission)`);
  return true;
}

/**
 * ZCODE_SIM_STEER_ACK (tests only): what happens to the ACK of a v4
 * sendText guide after ZCode executed it. `drop`: never answered;
 * `delay=<ms>`: answered late (the request queue waits, as the CLI's does);
 * `garble`: an ACK no schema accepts; `reject`: `failed
 * fault.command.inputRejected` instead (the guide was not admitted: the
 * command is not executed).
 */
export type SteerAckSwitch = { kind: "drop" } | { kind: "delay"; ms: number } | { kind: "garble" } | { kind: "reject" };

export function steerAckSwitch(env: Record<string, string | undefined> = process.env): SteerAckSwitch | undefined {
  const v = env.ZCODE_SIM_STEER_ACK?.trim();
  if (!v) return undefined;
  if (v === "drop" || v === "garble" || v === "reject") return { kind: v };
  const m = /^delay=(\d+)$/.exec(v);
  if (m) return { kind: "delay", ms: Number(m[1]) };
  throw new Error(`ZCODE_SIM_STEER_ACK: expected drop, garble, reject or delay=<ms>, got ${v}`);
}

function isGuide(raw: unknown): boolean {
  const env = raw as { type?: unknown; payload?: { requestedDelivery?: unknown } } | null;
  return env?.type === "sendText" && env.payload?.requestedDelivery === "guide";
}

/** Runs `decide` for a `v4/command`, with the steer ACK switch applied to guides. */
export async function withSteerAckSwitch<T extends { commandId: string }>(
  raw: unknown,
  ctx: CallCtx,
  decide: () => Promise<T>,
): Promise<unknown> {
  const sw = isGuide(raw) ? steerAckSwitch() : undefined;
  if (sw?.kind === "reject") {
    const commandId = String((raw as { commandId?: unknown }).commandId ?? "");
    return {
      commandId,
      status: "failed",
      reasonCode: "fault.command.inputRejected",
      message: "deferred input rejected",
      revisionAtDecision: 0,
    };
  }
  const ack = await decide();
  if (!sw) return ack;
  switch (sw.kind) {
    case "drop":
      log(`the ACK of steer ${ack.commandId} is never written (ZCODE_SIM_STEER_ACK=drop)`);
      ctx.dropAnswer();
      return {};
    case "delay":
      await Bun.sleep(sw.ms);
      return ack;
    case "garble":
      return { commandId: ack.commandId, status: "maybe", revisionAtDecision: "soon" };
  }
}
