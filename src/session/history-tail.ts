import type { Message } from "../zcode/schemas.ts";

// The tail of a conversation read page by page, newest page first (ZCode's
// v4 `rowsRange`: the newest rows, then `beforeRowId` = the oldest row read
// while `hasMore`; transport.ts v4ConversationRowsRangeParamsSchema), until
// it holds the replay window: only the window is ever held, never the whole
// conversation, and older pages are never read once it is full. The editor
// needs the window oldest first, so it is replayed once its oldest page is in.

/** One page of history as legacy messages (ZCodeApi.historyPage). */
export interface TailPage {
  messages: Message[];
  /** The oldest row of the page: `beforeRowId` of the page before it. */
  oldestRowId: number | undefined;
  hasMore: boolean;
}

export interface TailWindow {
  /** The last `limit` messages (fewer when the conversation is shorter), oldest first. */
  messages: Message[];
  /** Older messages remain unread in ZCode. */
  truncated: boolean;
  /** rowsRange pages read. */
  pages: number;
}

/**
 * Reads pages back from the newest until `limit` messages are held or the
 * conversation's start is reached. A message whose rows a page boundary
 * split (an assistant reply whose first rows ended the older page) is joined
 * again, so the window is what one read of all its rows would give.
 * `maxPages` bounds the reads whatever ZCode answers (a page with no rows, or
 * one that repeats, ends it too).
 */
export async function readTail(
  page: (beforeRowId: number | undefined) => Promise<TailPage>,
  limit: number,
  maxPages = 1000,
): Promise<TailWindow> {
  const pages: Message[][] = [];
  let held = 0;
  let before: number | undefined;
  let truncated = false;
  let read = 0;
  while (read < maxPages) {
    const p = await page(before);
    read++;
    const messages = [...p.messages];
    const newer = pages.find((x) => x.length > 0);
    if (newer && messages.length && continues(messages[messages.length - 1]!, newer[0]!)) {
      const tail = messages.pop()!;
      newer[0] = { ...tail, parts: [...tail.parts, ...newer[0]!.parts] };
    }
    pages.unshift(messages);
    held += messages.length;
    const older = p.oldestRowId;
    const more = p.hasMore && older !== undefined && (before === undefined || older < before);
    if (!more) break;
    before = older;
    // One more message than the window: the window's first message is then whole (its rows may begin the page before).
    if (held > limit) {
      truncated = true;
      break;
    }
  }
  if (read >= maxPages) truncated = true;
  const messages = pages.flat();
  pages.length = 0;
  if (messages.length > limit) {
    truncated = true;
    messages.splice(0, messages.length - limit);
  }
  return { messages, truncated, pages: read };
}

/**
 * Does `next` (the first message of a newer page) continue `last` (the last of
 * the page before)? rowsToMessages starts a new assistant message only after
 * a user message or a compaction, so two assistant messages in a row across
 * a page boundary are one reply, unless one of them is a compaction.
 */
function continues(last: Message, next: Message): boolean {
  const isCompaction = (m: Message) => m.parts.some((p) => p.type === "compaction");
  return last.info.role === "assistant" && next.info.role === "assistant" && !isCompaction(last) && !isCompaction(next);
}
