// Pending interactions of a v4-only CLI. In 0.16.9 the interaction broker
// sends the legacy reverse request AND registers a deferred under the business
// requestId (= the v4 interactionId) that a `resolveInteraction` command may
// settle first (interaction-registry.ts, file header: "interaction-broker 发起
// 反向请求时按业务 requestId（= v4 的 interactionId）注册一个 deferred"). With the
// legacy file deleted only the v4 half is left: the interaction is published
// as `snapshot.pendingInteractions` (snapshot.ts pendingInteractionSchema) and
// the turn waits for `resolveInteraction`.
import type { Answer } from "./interactions.ts";
import type { Runtime, Sim } from "./sim.ts";
import type { SessionRecord } from "./types.ts";

export interface V4Answer {
  optionId?: string;
  freeText?: string;
  action?: "accept" | "decline" | "cancel";
  content?: Record<string, unknown>;
}

export interface PendingV4Interaction {
  sessionId: string;
  toolCallId: string;
  /** snapshot.ts pendingInteractionSchema, as published. */
  view: Record<string, unknown>;
  resolve(a: V4Answer): void;
}

/** interaction-registry.ts V4InteractionRegistry `pending`: addressed by interactionId across sessions ("登记表按 interactionId 全局寻址"). */
const pending = new Map<string, PendingV4Interaction>();

export function pendingInteractionsOf(sessionId: string): PendingV4Interaction[] {
  return [...pending.values()].filter((p) => p.sessionId === sessionId);
}

/** interaction-registry.ts `resolve`: first answer wins; false when nothing waits (late, unknown or withdrawn). */
export function resolveInteraction(interactionId: string, answer: V4Answer): boolean {
  const p = pending.get(interactionId);
  if (!p) return false;
  pending.delete(interactionId);
  p.resolve(answer);
  return true;
}

/** snapshot.ts permissionOptionSchema kind: the legacy option kinds in camelCase. */
const OPTION_KIND: Record<string, string> = { allow_once: "allowOnce", allow_always: "allowAlways", deny: "deny" };

/** The v4 view of what the legacy reverse request `method` would have carried (snapshot.ts permission / userInput payloads). */
function payloadOf(method: string, params: Record<string, any>): Record<string, unknown> {
  if (method === "interaction/requestPermission") {
    return {
      kind: "permission",
      toolCallId: params.toolCallId,
      toolName: params.toolName,
      summary: params.reason,
      detail: params.input,
      options: (params.options as Record<string, any>[]).map((o) => ({
        optionId: o.optionId,
        label: o.name,
        kind: OPTION_KIND[o.kind] ?? "custom",
        response: o.response,
      })),
    };
  }
  return {
    kind: "userInput",
    prompt: params.prompt,
    freeText: true,
    toolName: params.toolName,
    toolCallId: params.toolCallId,
    input: params.input,
    schema: params.schema,
    questions: params.questions,
  };
}

/**
 * The broker's mapping of a v4 answer onto the legacy answer the turn reads
 * (interaction-registry.ts V4InteractionAnswer: "action 存在时 broker 按
 * accept/decline/cancel 精确映射，content 直传旧 userInput response 的 content 语义";
 * otherwise the optionId/freeText path). A permission answer picks the option
 * whose `response` the legacy client would have returned; an unknown option denies.
 */
function legacyAnswerOf(method: string, params: Record<string, any>, a: V4Answer): Answer {
  if (method === "interaction/requestPermission") {
    const opt = (params.options as Record<string, any>[]).find((o) => o.optionId === a.optionId);
    if (opt) return { result: opt.response };
    return { result: { decision: "deny", ...(a.freeText ? { reason: a.freeText } : {}) } };
  }
  if (a.action) return { result: { action: a.action, ...(a.content ? { content: a.content } : {}) } };
  const answer = a.optionId ?? a.freeText;
  return { result: answer === undefined ? { action: "cancel" } : { action: "accept", content: { answer } } };
}

/**
 * Publishes the interaction and waits for its answer. The turn's stop (signal)
 * withdraws it. `anchorRowId`: the toolCall row it belongs to.
 */
export function askV4(
  sim: Sim,
  s: SessionRecord,
  _r: Runtime,
  method: string,
  params: Record<string, any>,
  anchorRowId: number | null,
  signal: AbortSignal,
): Promise<Answer> {
  const interactionId = params.requestId as string;
  const payload = payloadOf(method, params);
  return new Promise<Answer>((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason);
    const onAbort = () => {
      if (pending.get(interactionId)) pending.delete(interactionId);
      sim.v4Hook?.(s);
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    pending.set(interactionId, {
      sessionId: s.id,
      toolCallId: params.toolCallId,
      view: {
        interactionId,
        kind: payload.kind,
        anchorRowId,
        createdAt: Date.now(),
        payload,
      },
      resolve(a) {
        signal.removeEventListener("abort", onAbort);
        sim.v4Hook?.(s);
        resolve(legacyAnswerOf(method, params, a));
      },
    });
    sim.v4Hook?.(s);
  });
}
