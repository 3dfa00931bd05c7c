import { log } from "../log.ts";
import type { Snapshot } from "../zcode/result-schemas.ts";
import { emitUsage, usageUpdate } from "../translate/events.ts";
import { historyUpdates } from "../translate/history.ts";
import { t } from "../i18n/index.ts";
import type { SessionHost } from "./host.ts";

// The session/read and session/messages calls a session makes around its
// prompts: after a turn, while waiting for ZCode to be idle, and on load.

const logger = log.withTag("session");

/**
 * After a turn: one session/read tells whether ZCode changed the mode or the
 * title behind our back, and how much context is in use now.
 */
export async function refreshAfterTurn(s: SessionHost): Promise<void> {
  const read = s.withActive(() => s.api.read(s.id));
  const r = await Promise.race([read, Bun.sleep(s.timings.endReadMs).then(() => undefined)]).catch((err) => {
    logger.debug("session/read after turn failed:", err);
    return undefined;
  });
  if (!r) return;
  if (r.settings) s.applySettings(r.settings);
  const title = r.session?.title;
  if (title && s.memory.learnTitle(title)) {
    s.emit({ sessionUpdate: "session_info_update", title });
  }
  emitUsage(s.eventContext(), r.projection?.contextUsed, r.projection?.contextWindow);
  s.goal.publish(r.projection?.target ?? null);
}

/**
 * Polls session/read until ZCode reports the session idle, the budget is
 * spent, or the waiter gave up (`abandoned`: its prompt ended meanwhile, and
 * polling on would start a new child for nobody).
 */
export async function waitIdle(s: SessionHost, budgetMs: number, abandoned: () => boolean = () => false): Promise<boolean> {
  const end = Date.now() + budgetMs;
  // Quick at first (a cancelled turn ends in a moment), then gentler (a compaction takes minutes).
  let pollMs = s.timings.idlePollMs;
  for (;;) {
    if (abandoned()) return false;
    try {
      const r = await s.withActive(() => s.api.read(s.id));
      if (r.projection?.status !== "running") return true;
    } catch (err) {
      logger.debug("session/read while waiting for idle failed:", err);
    }
    if (Date.now() >= end) return false;
    await Bun.sleep(Math.min(pollMs, Math.max(1, end - Date.now())));
    pollMs = Math.min(pollMs * 1.5, 1000);
  }
}

/**
 * How many of the last messages session/load replays. ZCode answers
 * session/messages in one line, counted from the end: a transcript of tens
 * of thousands of messages (hundreds of MB of tool output) would not fit the
 * line limit nor the memory bound, and an editor does not need all of it to
 * go on. Older messages stay in ZCode (and in the app).
 */
export const REPLAY_MESSAGES = 500;
/** Updates sent between two looks at the editor's backlog while replaying. */
const REPLAY_BATCH = 64;

/** session/load: the conversation as ZCode has it (its tail), replayed to the editor before the answer. */
export async function replayHistory(s: SessionHost, snapshot: Snapshot): Promise<void> {
  // Resuming a long conversation streamed its whole snapshot past us (src/zcode/elide-transcript.ts):
  // collect that garbage now, not while the tail below is read.
  Bun.gc(true);
  // Closed or deleted while ZCode resumed it: nobody to replay to (the load answers not-found).
  if (s.winding) return;
  const history = await s.withActive(() => s.api.messages(s.id, { limit: REPLAY_MESSAGES }));
  // The line it came in is garbage now: the replay below makes its own.
  Bun.gc(true);
  const todos = snapshot.todos;
  if ((history as { messagesElided?: unknown }).messagesElided === true) {
    // Even the tail was over the line limit (huge messages): ZCode's answer came without it.
    s.emit({
      sessionUpdate: "agent_message_chunk",
      messageId: crypto.randomUUID(),
      content: { type: "text", text: `_${t().bridge.history.tooLarge}_\n\n` },
    });
  } else if (history.messages.length >= REPLAY_MESSAGES) {
    s.emit({
      sessionUpdate: "agent_message_chunk",
      messageId: crypto.randomUUID(),
      content: { type: "text", text: `_${t().bridge.history.earlierNotShown(REPLAY_MESSAGES)}_\n\n` },
    });
  }
  let sent = 0;
  // One message at a time, pausing while the editor's backlog is high: memory stays bounded whatever the transcript's size.
  for (const u of historyUpdates(history.messages, {
    cwd: s.cwd,
    compaction: s.features.compaction,
    plans: s.features.plans,
    ...(todos ? { todos } : {}),
  })) {
    if (s.winding) break;
    s.emit(u);
    if (++sent % REPLAY_BATCH === 0) {
      await s.backlogRelieved();
      // The replay makes garbage faster than the collector's own pace: RSS stays bounded only if it keeps up.
      if (sent % (REPLAY_BATCH * 4) === 0) Bun.gc(true);
    }
  }
  history.messages.length = 0;
  if (todos?.length) s.memory.planShown(todos);
  const usage = usageUpdate(snapshot.projection?.contextUsed ?? 0, snapshot.projection?.contextWindow ?? s.options.model?.contextWindow);
  if (usage) {
    s.emit(usage);
    s.memory.usageShown(usage.used, usage.size);
  }
  if (s.memory.title) s.emit({ sessionUpdate: "session_info_update", title: s.memory.title });
  await s.flush();
}
