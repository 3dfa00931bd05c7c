import type { PendingInteraction } from "./frame-schemas.ts";

// snapshot.pendingInteractions ↔ the legacy reverse requests the session
// layer answers (interaction/requestPermission, interaction/requestUserInput)
// ↔ the v4 `resolveInteraction` payload (command.ts).

/** A pending interaction as the projector hands it out: ZCode's entry plus the session it belongs to. */
export type PendingInteractionView = PendingInteraction & { sessionId: string };

/** command.ts `resolveInteraction` payload. */
export interface ResolveInteractionPayload {
  interactionId: string;
  answer: { optionId?: string; freeText?: string; action?: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
}

/** The legacy reverse request (method and params) that asks the editor this interaction. */
export function legacyRequestOf(i: PendingInteractionView): { method: string; params: unknown } {
  throw new Error(`not implemented yet: ${i.interactionId}`);
}

/** The bridge's answer to that legacy request → ZCode's resolveInteraction payload. */
export function resolveAnswerOf(i: PendingInteractionView, legacyAnswer: unknown): ResolveInteractionPayload {
  throw new Error(`not implemented yet: ${i.interactionId} ${String(legacyAnswer)}`);
}
