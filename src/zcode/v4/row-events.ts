import type { RawEvent } from "../event-schemas.ts";
import type { ConversationStateView } from "./conversation-state.ts";
import type { PendingInteractionView } from "./interactions.ts";
import type { AssembledFrame } from "./wire-frames.ts";

// Conversation frames → the legacy `session/event` envelopes the session layer
// already consumes (event-schemas.ts), and pending interactions → the sink.

export interface ProjectorSink {
  /** A synthetic legacy session/event envelope; seq increases by one per event of the session. */
  event(e: RawEvent): void;
  /** A new pending interaction (once per interactionId). */
  interaction(i: PendingInteractionView): void;
  /** An interaction resolved elsewhere or removed. */
  interactionGone(interactionId: string): void;
}

export interface ProjectorOptions {
  /** Rows kept in memory (the current turn's and the newest others); default 2000. */
  maxRows?: number;
}

export class ConversationProjector {
  constructor(
    readonly sessionId: string,
    private readonly out: ProjectorSink,
    private readonly opts: ProjectorOptions = {},
  ) {}

  /** A snapshot or deltas frame, in order. */
  apply(frame: AssembledFrame): void {
    void this.out;
    void this.opts;
    throw new Error(`not implemented yet: ${frame.toSeq}`);
  }

  get revision(): number {
    return 0;
  }
  get logEpoch(): string | undefined {
    return undefined;
  }
  get state(): ConversationStateView {
    throw new Error("not implemented yet");
  }
}
