import type { Config, Control, Goal, Meta, PendingInteraction, Plan, Queue, Subagents, UsageState } from "./frame-schemas.ts";
import type { Row } from "./schemas.ts";

/** What the projector knows of a conversation: the state keys and a bounded set of rows. */
export interface ConversationStateView {
  logEpoch: string | undefined;
  revision: number;
  control: Control | undefined;
  config: Config | undefined;
  meta: Meta | undefined;
  usage: UsageState | undefined;
  queue: Queue | undefined;
  pendingInteractions: readonly PendingInteraction[];
  plan: Plan | null | undefined;
  goal: Goal | null | undefined;
  subagents: Subagents | undefined;
  /** rowId ascending, at most maxRows. */
  rows: readonly Row[];
  totalCount: number;
  firstRowId: number | null;
}
