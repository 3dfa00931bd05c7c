// readTail: a conversation's last messages from rowsRange-like pages read
// newest first; only as many pages as the window needs, replies split by a
// page boundary joined again, bounded whatever the pages say.
import { describe, expect, test } from "bun:test";
import { readTail, type TailPage } from "../../../src/session/history-tail.ts";
import type { Message } from "../../../src/zcode/schemas.ts";

const user = (id: number): Message => ({ info: { messageId: `u${id}`, role: "user" }, parts: [{ type: "text", text: `q${id}` }] });
const reply = (id: number, ...texts: string[]): Message => ({
  info: { messageId: `a${id}`, role: "assistant" },
  parts: texts.map((text) => ({ type: "text" as const, text })),
});

/** Pages of `perPage` messages over `all`, newest first, as ZCode pages rows (rowId = index). */
function pager(all: Message[], perPage: number) {
  const asked: Array<number | undefined> = [];
  const page = async (before: number | undefined): Promise<TailPage> => {
    asked.push(before);
    const end = before ?? all.length;
    const start = Math.max(0, end - perPage);
    return { messages: all.slice(start, end), oldestRowId: start, hasMore: start > 0 };
  };
  return { page, asked };
}

function conversation(turns: number): Message[] {
  return Array.from({ length: turns }, (_, i) => [user(i), reply(i, `r${i}`)]).flat();
}

describe("readTail", () => {
  test("a short conversation: every message, oldest first, one page, not truncated", async () => {
    const all = conversation(3);
    const { page, asked } = pager(all, 10);
    const tail = await readTail(page, 500);
    expect(tail.messages).toEqual(all);
    expect(tail).toMatchObject({ truncated: false, pages: 1 });
    expect(asked).toEqual([undefined]);
  });

  test("a long one: pages back only until the window is held; exactly the last `limit` messages", async () => {
    const all = conversation(1000);
    const { page, asked } = pager(all, 7);
    const tail = await readTail(page, 20);
    expect(tail.messages).toEqual(all.slice(-20));
    expect(tail.truncated).toBe(true);
    // 21 messages need three pages of 7 (one more than the window, so its first is whole), never the rest.
    expect(asked).toEqual([undefined, 1993, 1986]);
  });

  test("a reply split by a page boundary is joined again, its parts in order", async () => {
    // ZCode's rows of one reply on two pages: rowsToMessages makes a message of each part.
    const pages: TailPage[] = [
      { messages: [reply(1, "c")], oldestRowId: 20, hasMore: true },
      { messages: [user(1), reply(1, "a", "b")], oldestRowId: 10, hasMore: false },
    ];
    const tail = await readTail(async () => pages.shift()!, 500);
    expect(tail.messages).toEqual([user(1), reply(1, "a", "b", "c")]);
  });

  test("a compaction next to a reply stays apart", async () => {
    const compaction: Message = { info: { messageId: "c", role: "assistant" }, parts: [{ type: "compaction", auto: true }] };
    const pages: TailPage[] = [
      { messages: [reply(2, "after")], oldestRowId: 20, hasMore: true },
      { messages: [user(1), compaction], oldestRowId: 10, hasMore: false },
    ];
    const tail = await readTail(async () => pages.shift()!, 500);
    expect(tail.messages).toEqual([user(1), compaction, reply(2, "after")]);
  });

  test("pages that do not move back, or never end, stop the reads", async () => {
    let calls = 0;
    const stuck = await readTail(async () => {
      calls++;
      return { messages: [user(calls)], oldestRowId: 5, hasMore: true };
    }, 500);
    expect(calls).toBe(2);
    expect(stuck.messages.map((m) => m.info.messageId)).toEqual(["u2", "u1"]);

    let n = 1_000_000;
    const endless = await readTail(async () => ({ messages: [], oldestRowId: --n, hasMore: true }), 500, 50);
    expect(endless).toMatchObject({ messages: [], truncated: true, pages: 50 });
  });
});
