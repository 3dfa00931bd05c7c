import type { ConversationFrame } from "./frame-schemas.ts";

/** A logical conversation frame, whole and validated, with what it was delivered for (initial|online|recovery). */
export type AssembledFrame = ConversationFrame & { deliveryKind: string };

export class FrameAssembler {
  /** The params of one `v4/conversation/frame` notification → the frames it completes, or why to resync. */
  push(params: unknown, now = Date.now()): AssembledFrame[] | { resync: string } {
    throw new Error(`not implemented yet: ${typeof params} ${now}`);
  }
}
