import { log } from "../log.ts";
import type { Snapshot } from "../zcode/result-schemas.ts";
import { emitUsage, usageUpdate } from "../translate/events.ts";
import { historyUpdates } from "../translate/history.ts";
import { t } from "../i18n/index.ts";
import type { Message } from "../zcode/schemas.ts";
import type { ZCodeApi, ZCodeMcpServer } from "../zcode/api.ts";
import { coldOpen } from "../zcode/v4/cold-open.ts";
import { readTail, type TailPage } from "./history-tail.ts";
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

/** How long a wait for idle gives the events ZCode numbered before its idle read to arrive (a hole's recovery included). */
const CATCH_UP_MS = 5_000;

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
      if (r.projection?.status !== "running") {
        // The work's last events (its text's held tail, its end) may still be on their way or behind a hole the
        // intake is filling: shown before the waiter answers, they are not taken for the next prompt's.
        const seq = r.runtime?.eventSeq;
        if (seq !== undefined && !(await s.intake.reached(seq, CATCH_UP_MS)))
          logger.debug(`${s.id}: events up to seq ${seq} had not all arrived ${CATCH_UP_MS} ms after ZCode said idle`);
        return true;
      }
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

/**
 * The snapshot of a stored session the editor loads or resumes, the session
 * made live in the child. session/resume answers with every message of the
 * conversation; on a CLI with v4 a one-row v4 read makes it live without
 * that (src/zcode/v4/cold-open.ts), and session/read of one message gives
 * the same snapshot. Only when nothing session/resume would carry is lost:
 * no MCP servers from the editor (only session/resume applies them), and
 * ZCode has the session in this very cwd (a v4 read brings it back in the
 * workspace it was stored with; session/resume would move it to `cwd`).
 * Otherwise, and whenever the quiet way fails, session/resume.
 */
export async function openStored(api: ZCodeApi, id: string, cwd: string, mcpServers: ZCodeMcpServer[] | undefined): Promise<Snapshot> {
  if (!mcpServers?.length) {
    try {
      // A child that speaks v4 alone is resumed by its v4 subscribe, which carries no transcript either.
      const legacy = async () => (await api.protocol()) === "legacy";
      // Asked again after the list: a child found v4-only by it (auto) is one from then on.
      if ((await api.hasV4()) && (await legacy()) && (await storedIn(api, id, cwd)) && (await legacy())) {
        await coldOpen(api.conn, id);
        const snapshot = await api.read(id);
        logger.debug(`${id} opened by a v4 read, without session/resume's transcript`);
        return snapshot;
      }
    } catch (err) {
      logger.debug(`${id}: opening it by a v4 read failed, resuming it:`, err);
    }
  }
  return api.resume({ sessionId: id, workspace: cwd, mcpServers });
}

/** Is `id` among ZCode's sessions stored in `cwd`? (session/list reads the store; it makes nothing live.) */
async function storedIn(api: ZCodeApi, id: string, cwd: string): Promise<boolean> {
  const { sessions } = await api.list({ workspace: cwd });
  return sessions.some((s) => s.sessionId === id && (s.workspace?.workspacePath ?? cwd) === cwd);
}

/** What session/load replays: the conversation's tail, and whether older messages were left out. */
interface ReplayTail {
  messages: Message[];
  /** Older messages stay in ZCode: the replay says so first. */
  earlier: boolean;
  /** Even the tail was over ZCode's line limit: its answer came without it. */
  elided: boolean;
}

/**
 * The last REPLAY_MESSAGES messages. A child that speaks v4 alone gives its
 * history in rowsRange pages, read newest first only as far back as the
 * window goes (history-tail.ts); a legacy child answers session/messages
 * with its last messages, counted from the end, in one line.
 */
async function replayTail(s: SessionHost): Promise<ReplayTail> {
  const first = await s.withActive(() => s.api.historyPage(s.id));
  if (first) {
    let next: TailPage | undefined = first;
    const tail = await readTail(async (before) => {
      if (next) {
        const p = next;
        next = undefined;
        return p;
      }
      return (await s.withActive(() => s.api.historyPage(s.id, before))) ?? { messages: [], oldestRowId: undefined, hasMore: false };
    }, REPLAY_MESSAGES);
    logger.debug(`replay of ${s.id}: ${tail.messages.length} messages from ${tail.pages} rowsRange pages`);
    return { messages: tail.messages, earlier: tail.truncated, elided: false };
  }
  const history = await s.withActive(() => s.api.messages(s.id, { limit: REPLAY_MESSAGES }));
  return {
    messages: history.messages,
    earlier: history.messages.length >= REPLAY_MESSAGES,
    elided: (history as { messagesElided?: unknown }).messagesElided === true,
  };
}

/** session/load: the conversation as ZCode has it (its tail), replayed to the editor before the answer. */
export async function replayHistory(s: SessionHost, snapshot: Snapshot): Promise<void> {
  // Resuming a long conversation streamed its whole snapshot past us (src/zcode/elide-transcript.ts):
  // collect that garbage now, not while the tail below is read.
  Bun.gc(true);
  // Closed or deleted while ZCode resumed it: nobody to replay to (the load answers not-found).
  if (s.winding) return;
  const history = await replayTail(s);
  // The line it came in is garbage now: the replay below makes its own.
  Bun.gc(true);
  const todos = snapshot.todos;
  if (history.elided) {
    // Even the tail was over the line limit (huge messages): ZCode's answer came without it.
    s.emit({
      sessionUpdate: "agent_message_chunk",
      messageId: crypto.randomUUID(),
      content: { type: "text", text: `_${t().bridge.history.tooLarge}_\n\n` },
    });
  } else if (history.earlier) {
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
