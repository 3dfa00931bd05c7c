import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import type { ToolUpdated } from "../zcode/event-schemas.ts";
import type { Row } from "../zcode/v4/schemas.ts";
import { t } from "../i18n/index.ts";
import type { ToolCallTracker } from "./tools/tracker.ts";

// A subagent's session, shown from ZCode's v4 rows (rows.ts). A running
// child has no legacy record, so its events never reach us; its rows do
// (v4/conversation/rowsRange {sessionId: child}). Each read gives the newest
// rows whole: text and reasoning rows grow while `streaming`, a toolCall row
// changes status. This remembers what the editor was told of each row (by
// its canonical entityId, stable across a new logEpoch) and turns a read into
// only what is new: the grown tail of a text, a tool's next step. userInput
// rows are the parent's tasks (shown as session_message on the parent);
// turn headers, markers, hooks and artifacts carry nothing the editor shows.

/** Rows remembered per child; the oldest are forgotten past this (memory stays bounded). */
const MAX_ROWS = 4096;

const TEXT_KIND = { assistantText: "agent_message_chunk", reasoning: "agent_thought_chunk" } as const;

const FINAL_TOOL = new Set(["success", "error", "cancelled"]);

interface TextMark {
  kind: "text";
  messageId: string;
  sent: number;
  done: boolean;
}
interface ToolMark {
  kind: "tool";
  status: string;
}
/** A row with nothing to show (the parent's task, a turn header, a marker): only remembered as seen. */
interface SeenMark {
  kind: "seen";
}
type Mark = TextMark | ToolMark | SeenMark;

function keyOf(r: Row): string {
  return r.entityId ? `${r.kind}:${r.entityId}` : r.toolCallId ? `toolCall:${r.toolCallId}` : `${r.kind}@${r.rowId}`;
}

export class ChildRows {
  private readonly marks = new Map<string, Mark>();
  /** The state of the child's newest turn header (running until ZCode ends it). */
  private lastTurn: string | undefined;

  constructor(private readonly tracker: ToolCallTracker) {}

  /** Has this row been seen (a page read further back can stop here)? */
  knows(r: Row): boolean {
    return this.marks.has(keyOf(r));
  }

  /** Nothing the last reads showed is still growing: the turn ended, every text complete, every tool final. */
  get settled(): boolean {
    if (this.lastTurn === "running") return false;
    for (const m of this.marks.values()) {
      if (m.kind === "text" ? !m.done : m.kind === "tool" && !FINAL_TOOL.has(m.status)) return false;
    }
    return true;
  }

  /** The updates a read adds to what the editor has (rows in ascending rowId). */
  apply(rows: readonly Row[]): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    for (const r of rows) {
      if (r.kind === "assistantText" || r.kind === "reasoning") this.text(r, TEXT_KIND[r.kind], out);
      else if (r.kind === "toolCall" && r.toolCallId) this.tool(r, r.toolCallId, out);
      else {
        if (r.kind === "turnHeader") this.lastTurn = r.state;
        if (!this.marks.has(keyOf(r))) this.marks.set(keyOf(r), { kind: "seen" });
      }
    }
    while (this.marks.size > MAX_ROWS) this.marks.delete(this.marks.keys().next().value!);
    return out;
  }

  private text(r: Row, sessionUpdate: (typeof TEXT_KIND)[keyof typeof TEXT_KIND], out: SessionUpdate[]): void {
    const key = keyOf(r);
    let m = this.marks.get(key) as TextMark | undefined;
    if (!m) this.marks.set(key, (m = { kind: "text", messageId: crypto.randomUUID(), sent: 0, done: false }));
    const text = r.text ?? "";
    // Text only grows while streaming; a row that came back shorter has nothing new.
    if (text.length > m.sent) {
      out.push({ sessionUpdate, messageId: m.messageId, content: { type: "text", text: text.slice(m.sent) } });
      m.sent = text.length;
    }
    m.done = r.state !== "streaming";
  }

  /**
   * A tool as the tracker knows tools: scheduled with its input, started,
   * then its result or error. The same tracker takes the child's tools
   * mirrored into the parent (same toolCallId), so one never shows twice.
   */
  private tool(r: Row, toolCallId: string, out: SessionUpdate[]): void {
    const key = keyOf(r);
    const m = this.marks.get(key) as ToolMark | undefined;
    const status = r.status ?? "running";
    if (m?.status === status) return;
    const base = { toolCallId, ...(r.toolName ? { toolName: r.toolName } : {}) };
    const feed = (p: ToolUpdated) => out.push(...this.tracker.onToolUpdated(p));
    if (!m) feed({ ...base, kind: "scheduled", ...(r.input !== undefined ? { input: r.input } : {}) });
    this.marks.set(key, { kind: "tool", status });
    if (status === "running") feed({ ...base, kind: "started" });
    else if (status === "success") feed({ ...base, kind: "result", result: { success: true, content: r.output?.text ?? "" } });
    else if (status === "error" || status === "cancelled")
      feed({
        ...base,
        kind: "error",
        error: { message: r.error?.message ?? (status === "cancelled" ? t().tools.cancelled : t().tools.failed) },
      });
  }
}
