import { planEntries } from "./history.ts";
import type { ClientFeatures } from "./client-features.ts";
import type { EventState } from "./events.ts";
import type { SessionOptions } from "./options/options.ts";
import type { ToolCallTracker } from "./tools/tracker.ts";
import type { Todo } from "../zcode/schemas.ts";

/**
 * What a session remembers of what the editor was told, so the next event
 * is translated against it: the options shown, the title, the tool calls in
 * flight, the message ids of the current runs, the last plan and usage sent.
 * The session owns one; events write it through `EventContext.session`, and
 * everything else through the few methods below.
 */
export class TranslationMemory implements EventState {
  options: SessionOptions = {};
  title: string | undefined;
  tracker: ToolCallTracker;
  messageIds: { text?: string; reasoning?: string } = {};
  lastPlanKey: string | undefined;
  lastUsage: { used: number; size: number } | undefined;
  /** Steers admitted into the running turn and not yet taken in, by ZCode's pendingInputId (bounded by the events). */
  steers = new Map<string, string>();
  /** The compaction in progress as the editor knows it (compaction_update's id). */
  compactionId: string | undefined;

  constructor(
    private readonly newTracker: () => ToolCallTracker,
    private readonly clientFeatures: () => Pick<ClientFeatures, "plans" | "compaction">,
  ) {
    this.tracker = newTracker();
  }

  /** What the client opted in to, read on every use. */
  get features(): Pick<ClientFeatures, "plans" | "compaction"> {
    return this.clientFeatures();
  }

  /** A compaction the bridge started (/compact): ZCode's own progress events patch the same entity. */
  compactionStarted(id: string | undefined): void {
    this.compactionId = id;
  }

  /** Tool calls are shown relative to a new cwd from now on. */
  resetTracker(): void {
    this.tracker = this.newTracker();
  }

  /** A title read from ZCode; true when the editor has not been told it yet. */
  learnTitle(title: string): boolean {
    if (title === this.title) return false;
    this.title = title;
    return true;
  }

  /** A replay showed these todos as the plan: an unchanged list is not sent again. */
  planShown(todos: readonly Todo[]): void {
    this.lastPlanKey = JSON.stringify(planEntries(todos));
  }

  /** A replay showed these figures as usage. */
  usageShown(used: number, size: number): void {
    this.lastUsage = { used, size };
  }
}
