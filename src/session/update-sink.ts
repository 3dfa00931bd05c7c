import type { SessionNotification, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { log } from "../log.ts";

const logger = log.withTag("sink");

/** Sends one `session/update` notification; resolves when the transport took it. */
export type NotifyFn = (notification: SessionNotification) => Promise<void>;

type Item = { sessionId: string; update: SessionUpdate; size: number };

/**
 * A merged text chunk (or terminal output) stops growing here: an editor
 * parses each notification in one go, and one huge string is slower to
 * serialise than several moderate ones.
 */
export const MAX_MERGED_CHARS = 64 * 1024;
/**
 * Backlog (in characters of queued updates) above which the ZCode child's
 * stdout is no longer read, so a slow editor slows ZCode down through the
 * pipe instead of growing our memory; reading resumes below the low mark.
 */
export const BACKLOG_HIGH_CHARS = 4 * 1024 * 1024;
export const BACKLOG_LOW_CHARS = 1024 * 1024;

/**
 * The single path every `session/update` of a connection takes.
 *
 * At most one notification is in flight. While it is pending (the editor
 * reads slower than ZCode writes), new updates queue up, and a text chunk that
 * continues the chunk at the tail of the queue (same session, same kind, same
 * messageId) is merged into it. A slow editor therefore sees fewer, larger
 * chunks instead of an ever-growing queue; nothing is lost and order is kept.
 */
export class UpdateSink {
  private readonly queue: Item[] = [];
  private head = 0;
  private sending = false;
  private closed = false;
  /** Queued-but-unsent updates per session, and who waits for them to reach zero. */
  private readonly pendingBySession = new Map<string, number>();
  private readonly waiters = new Map<string, Array<() => void>>();
  /** Characters queued (approximate size of what is not yet on the wire). */
  private queuedChars = 0;
  private relieved: { promise: Promise<void>; resolve: () => void } | undefined;

  constructor(private readonly notify: NotifyFn) {}

  /** Number of updates waiting to be sent (for tests and benchmarks). */
  get backlog(): number {
    return this.queue.length - this.head;
  }

  /**
   * Undefined while the backlog is small; otherwise a promise that resolves
   * once it has drained below the low mark (or the sink closed). The ZCode
   * connection awaits it before reading more of the child's output.
   */
  backpressure(): Promise<void> | undefined {
    if (this.closed || this.queuedChars < BACKLOG_HIGH_CHARS) return undefined;
    if (!this.relieved) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.relieved = { promise, resolve };
    }
    return this.relieved.promise;
  }

  private relieve(): void {
    if (this.relieved && (this.closed || this.queuedChars < BACKLOG_LOW_CHARS)) {
      this.relieved.resolve();
      this.relieved = undefined;
    }
  }

  push(sessionId: string, update: SessionUpdate): void {
    if (this.closed) return;
    if (isEmptyChunk(update)) return;
    // queue[head] is the notification in flight; only items behind it may merge.
    const tail = this.queue.length - 1 > this.head ? this.queue[this.queue.length - 1] : undefined;
    const size = sizeOf(update);
    this.queuedChars += size;
    if (tail && tail.sessionId === sessionId && mergeInto(tail, update)) {
      tail.size += size;
      return;
    }
    this.queue.push({ sessionId, update, size });
    this.pendingBySession.set(sessionId, (this.pendingBySession.get(sessionId) ?? 0) + 1);
    if (!this.sending) void this.pump();
  }

  pushAll(sessionId: string, updates: readonly SessionUpdate[]): void {
    for (const u of updates) this.push(sessionId, u);
  }

  /** Resolves once every update of `sessionId` queued so far has been sent. */
  flush(sessionId: string): Promise<void> {
    if (!this.pendingBySession.get(sessionId) || this.closed) return Promise.resolve();
    return new Promise((resolve) => {
      const list = this.waiters.get(sessionId) ?? [];
      list.push(resolve);
      this.waiters.set(sessionId, list);
    });
  }

  /** The connection is gone: drop everything and release every waiter. */
  close(): void {
    this.closed = true;
    this.queue.length = 0;
    this.head = 0;
    this.queuedChars = 0;
    this.relieve();
    this.pendingBySession.clear();
    for (const list of this.waiters.values()) for (const w of list) w();
    this.waiters.clear();
  }

  private async pump(): Promise<void> {
    this.sending = true;
    try {
      while (this.head < this.queue.length && !this.closed) {
        const item = this.queue[this.head]!;
        try {
          await this.notify({ sessionId: item.sessionId, update: item.update });
        } catch (err) {
          // The SDK rejects only when the connection is closing; the update
          // cannot be delivered anyway.
          logger.debug("session/update not delivered:", err);
        }
        // Only now is the item off the queue, so a merge never lands in an
        // update that is already on the wire.
        this.queue[this.head] = undefined as unknown as Item;
        this.head++;
        this.queuedChars -= item.size;
        this.relieve();
        if (this.head > 1024 && this.head * 2 > this.queue.length) {
          this.queue.splice(0, this.head);
          this.head = 0;
        }
        this.settle(item.sessionId);
      }
      if (this.head >= this.queue.length) {
        this.queue.length = 0;
        this.head = 0;
      }
    } finally {
      this.sending = false;
    }
  }

  private settle(sessionId: string): void {
    const n = (this.pendingBySession.get(sessionId) ?? 1) - 1;
    if (n > 0) {
      this.pendingBySession.set(sessionId, n);
      return;
    }
    this.pendingBySession.delete(sessionId);
    const list = this.waiters.get(sessionId);
    if (list) {
      this.waiters.delete(sessionId);
      for (const w of list) w();
    }
  }
}

type TextChunk = Extract<SessionUpdate, { sessionUpdate: "agent_message_chunk" | "agent_thought_chunk" }> & {
  content: { type: "text"; text: string };
};

function asTextChunk(u: SessionUpdate): TextChunk | undefined {
  if (u.sessionUpdate !== "agent_message_chunk" && u.sessionUpdate !== "agent_thought_chunk") return undefined;
  return u.content.type === "text" ? (u as TextChunk) : undefined;
}

function isEmptyChunk(u: SessionUpdate): boolean {
  const c = asTextChunk(u);
  return c !== undefined && c.content.text.length === 0;
}

/** Folds `next` into `tail` (not yet on the wire) when the editor would end up seeing the same thing. */
function mergeInto(tail: Item, next: SessionUpdate): boolean {
  return mergeText(tail, next) || mergeToolUpdate(tail, next);
}

type ToolUpdate = Extract<SessionUpdate, { sessionUpdate: "tool_call_update" }>;
type TerminalOutput = { terminal_id: string; data: string };

/** The terminal_output of an update whose _meta holds nothing else (undefined: no _meta; null: other keys). */
function terminalOutputOf(u: ToolUpdate): TerminalOutput | undefined | null {
  const meta = u._meta;
  if (!meta) return undefined;
  const keys = Object.keys(meta);
  if (keys.length !== 1 || keys[0] !== "terminal_output") return null;
  const t = meta.terminal_output as Partial<TerminalOutput> | undefined;
  return t && typeof t.data === "string" && typeof t.terminal_id === "string" ? (t as TerminalOutput) : null;
}

/**
 * Two updates of one tool call: later fields win (a tool_call_update's
 * content replaces the whole list anyway) and terminal output data is
 * appended. terminal_info/terminal_exit updates are never merged: Zed wants
 * them on their own.
 */
function mergeToolUpdate(tail: Item, next: SessionUpdate): boolean {
  const a = tail.update;
  if (a.sessionUpdate !== "tool_call_update" || next.sessionUpdate !== "tool_call_update") return false;
  if (a.toolCallId !== next.toolCallId) return false;
  const ta = terminalOutputOf(a);
  const tb = terminalOutputOf(next);
  if (ta === null || tb === null) return false;
  if (ta && tb && ta.terminal_id !== tb.terminal_id) return false;
  const merged: ToolUpdate = { ...a, ...next };
  if (ta && tb && ta.data.length + tb.data.length > MAX_MERGED_CHARS) return false;
  const out = ta && tb ? { terminal_id: ta.terminal_id, data: ta.data + tb.data } : (tb ?? ta);
  if (out) merged._meta = { terminal_output: out };
  else delete merged._meta;
  tail.update = merged;
  return true;
}

function mergeText(tail: Item, next: SessionUpdate): boolean {
  const a = asTextChunk(tail.update);
  const b = asTextChunk(next);
  if (!a || !b || a.sessionUpdate !== b.sessionUpdate) return false;
  if ((a.messageId ?? null) !== (b.messageId ?? null)) return false;
  // Anything carrying extra data is kept as sent.
  if (a._meta || b._meta || a.content._meta || b.content._meta || a.content.annotations || b.content.annotations) {
    return false;
  }
  if (a.content.text.length + b.content.text.length > MAX_MERGED_CHARS) return false;
  tail.update = { ...a, content: { ...a.content, text: a.content.text + b.content.text } };
  return true;
}

/**
 * Applies the sink's merge rules to a list of one session's updates: what an
 * editor ends up seeing, whatever the timing. Tests compare runs with it.
 */
export function foldUpdates(updates: readonly SessionUpdate[]): SessionUpdate[] {
  const out: Item[] = [];
  for (const u of updates) {
    const tail = out[out.length - 1];
    if (tail && mergeInto(tail, u)) continue;
    out.push({ sessionId: "", update: u, size: 0 });
  }
  return out.map((i) => i.update);
}

/** Rough size of an update on the wire, for the backlog; text dominates. */
function sizeOf(u: SessionUpdate): number {
  const c = asTextChunk(u);
  if (c) return c.content.text.length;
  if (u.sessionUpdate === "tool_call_update") {
    const t = terminalOutputOf(u);
    if (t) return t.data.length + 256;
  }
  if (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update") {
    // A replayed or finished tool carries its output: counted, or a replay would queue it all unchecked.
    let n = 512 + (typeof u.rawOutput === "string" ? u.rawOutput.length : 0);
    for (const c of u.content ?? []) if (c.type === "content" && c.content.type === "text") n += c.content.text.length;
    return n;
  }
  return 512;
}
