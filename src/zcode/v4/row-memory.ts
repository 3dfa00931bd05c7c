import type { Row } from "./schemas.ts";

// What has been told of each row, so that a row told again (row.upserted
// after row.delta, a resync snapshot, actions recomputed on an old row) adds
// only what is new: text past what was streamed, a tool's next status. The
// legacy payloads each row kind becomes are the ones the session layer reads
// (event-schemas.ts; translate/events.ts, tools/tracker.ts, subagents.ts).
// Bounded: the newest rows only, like the state.

export type Emit = (type: string, payload: Record<string, unknown>) => void;

interface Seen {
  /** assistantText / reasoning: characters streamed. toolCall: output characters reported as progress. */
  len: number;
  /** toolCall / subagent / timelineMarker: the last status told. */
  status?: string;
  /** toolCall: JSON of the input told (dropped once the tool is done). */
  input?: string;
  started?: boolean;
  /** subagent: the summaryText the row had when it was announced. */
  summary?: string;
}

/** A running tool's output is reported as a cumulative tail of this many characters (tools/output-tail.ts reads tails). */
const OUTPUT_TAIL = 16 * 1024;
const TOOL_DONE = new Set(["success", "error", "cancelled"]);
/** subagent row status (rows.ts) → the status of ZCode's SubagentStopped event (subagents.ts). */
const SUBAGENT_STOPPED: Record<string, string> = { success: "completed", failed: "failed", cancelled: "stopped" };

export interface RowContext {
  /** The title ZCode gives a running subagent (state.subagents), for its description. */
  subagentTitle(childSessionId: string): string | undefined;
  /** The input of the parent's tool call of this id (a subagent's Agent call), if its row is known. */
  toolInput(toolCallId: string): Record<string, unknown> | undefined;
  /** The queue item (the legacy pendingInputId) a guide's command became, if it was seen queued. */
  steerIdOf(sourceCommandId: string): string | undefined;
}

export class RowMemory {
  private readonly seen = new Map<number, Seen>();

  constructor(private readonly max: number) {}

  knows(rowId: number): boolean {
    return this.seen.has(rowId);
  }

  clear(): void {
    this.seen.clear();
  }

  forgetFrom(fromRowId: number): void {
    for (const id of [...this.seen.keys()]) if (id >= fromRowId) this.seen.delete(id);
  }

  /** A row of the past: remembered as already told, nothing emitted. */
  baseline(row: Row): void {
    const s = this.entry(row.rowId);
    s.len = row.kind === "toolCall" ? (row.output?.text?.length ?? 0) : (row.text?.length ?? 0);
    s.status = row.kind === "timelineMarker" ? (row.marker as { status?: string } | undefined)?.status : row.status;
    s.started = true;
  }

  /** Emits what this row adds to what was told of it. */
  project(row: Row, emit: Emit, ctx: RowContext): void {
    const s = this.entry(row.rowId);
    switch (row.kind) {
      case "assistantText":
      case "reasoning": {
        const text = row.text ?? "";
        if (text.length <= s.len) return;
        const delta = text.slice(s.len);
        s.len = text.length;
        emit("model.streaming", {
          kind: row.kind === "reasoning" ? "reasoning_delta" : "text_delta",
          delta,
          ...(row.assistantResponseId ? { assistantMessageId: row.assistantResponseId } : {}),
        });
        return;
      }
      case "toolCall":
        return this.tool(row, s, emit);
      case "userInput":
        // A steer that reached the running turn: the legacy drain (translate/events.ts shows it as the user's words).
        if (row.guided === true && !s.started && row.text) {
          const pendingInputId = row.sourceCommandId ? (ctx.steerIdOf(row.sourceCommandId) ?? row.sourceCommandId) : undefined;
          emit("turn.steerDrained", { drainedInputs: [{ ...(pendingInputId ? { pendingInputId } : {}), text: row.text }] });
        }
        s.started = true;
        return;
      case "subagent":
        return this.subagent(row, s, emit, ctx);
      case "timelineMarker":
        return this.marker(row, s, emit);
    }
  }

  /** toolCall row → tool.updated scheduled / started / progress / result / error (tools/tracker.ts). */
  private tool(row: Row, s: Seen, emit: Emit): void {
    const id = row.toolCallId;
    if (!id || (s.status !== undefined && TOOL_DONE.has(s.status))) return;
    const name = row.toolName;
    const input = row.input !== undefined ? JSON.stringify(row.input) : undefined;
    if (s.status === undefined || (input !== undefined && input !== s.input)) {
      emit("tool.updated", {
        kind: "scheduled",
        toolCallId: id,
        ...(name ? { toolName: name } : {}),
        ...(row.input !== undefined ? { input: row.input } : {}),
      });
      s.input = input;
    }
    const status = row.status ?? "inputStreaming";
    const wasAsking = s.status === "pendingApproval" || row.approvalInteractionId !== undefined;
    s.status = status;
    // A denied permission leaves the tool cancelled (interactions-permission.ts settlePermission): the legacy
    // permission.resolved deny, which the tracker shows as a denial, not a failure.
    if (status === "cancelled" && wasAsking && !s.started) {
      s.input = undefined;
      emit("permission.resolved", { toolCallId: id, decision: "deny" });
      return;
    }
    if ((status === "running" || TOOL_DONE.has(status)) && !s.started) {
      s.started = true;
      emit("tool.updated", { kind: "started", toolCallId: id, ...(name ? { toolName: name } : {}) });
    }
    const out = row.output?.text ?? "";
    if (status === "running" && out.length > s.len) {
      s.len = out.length;
      emit("tool.updated", { kind: "progress", toolCallId: id, stdoutTail: out.slice(-OUTPUT_TAIL) });
    }
    if (!TOOL_DONE.has(status)) return;
    s.input = undefined;
    // product-projection.ts onToolCallResult: a ToolCallResult (success or not) leaves `output` on the row; a
    // ToolCallError (onToolCallError) leaves only `error`. Each is told as the legacy event it came from.
    if (status === "success" || (status === "error" && row.output !== undefined)) {
      emit("tool.updated", { kind: "result", toolCallId: id, ...(name ? { toolName: name } : {}), result: resultOf(row) });
      return;
    }
    // error carries ZCode's code and message (rows.ts: required when status is error); a cancelled tool may have none.
    // The code is the legacy error's type (onToolCallError: `code: payload.error.type`).
    const code = row.error?.code ?? (status === "cancelled" ? "cancelled" : undefined);
    emit("tool.updated", {
      kind: "error",
      toolCallId: id,
      ...(name ? { toolName: name } : {}),
      error: { ...(code ? { type: code, code } : {}), ...(row.error?.message ? { message: row.error.message } : {}) },
    });
  }

  /**
   * subagent row → ZCode's SubagentSpawned / SubagentMessage / SubagentStopped payloads as legacy
   * session.updated carried them (product-projection.ts onSubagentSpawned / onSubagentMessage /
   * onSubagentStopped made the row of them).
   */
  private subagent(row: Row, s: Seen, emit: Emit, ctx: RowContext): void {
    const child = row.childSessionId;
    if (!child) return;
    // onSubagentSpawned keys the row by ZCode's agentId (its entity), which legacy's events named; the child session is another id.
    const agentId = row.entityId ?? child;
    const base = {
      agentId,
      childSessionId: child,
      ...(row.subagentType ? { agentType: row.subagentType } : {}),
      ...(row.parentToolCallId ? { parentToolCallId: row.parentToolCallId } : {}),
    };
    const words = row.summaryText ?? "";
    if (!s.started) {
      s.started = true;
      s.summary = words;
      // SubagentSpawned's description and prompt are the Agent tool call's input (subagent/runner.ts), which the
      // parent's toolCall row carries; else the running summary's title, else the row's words at spawn
      // (onSubagentSpawned: the description, or the prompt when there is none).
      const input = row.parentToolCallId ? ctx.toolInput(row.parentToolCallId) : undefined;
      const description = textOf(input?.description) ?? ctx.subagentTitle(child) ?? (words.trim() || undefined);
      const prompt = textOf(input?.prompt) ? (input?.prompt as string) : undefined;
      emit("session.updated", {
        ...base,
        status: "running",
        ...(description ? { description } : {}),
        ...(prompt ? { prompt } : {}),
      });
    }
    // What the row says beyond what was told: onSubagentMessage appends to summaryText (a row.delta), onSubagentStopped
    // replaces it (the stop's summaryText ?? result ?? error ?? description ?? the row's own).
    const told = s.summary ?? "";
    let replaced: string | undefined;
    if (words !== told) {
      s.summary = words;
      const appended = words.startsWith(told) ? words.slice(told.length) : undefined;
      if (appended !== undefined) {
        if (appended.trim()) emit("session.updated", { agentId, childSessionId: child, summaryText: appended });
      } else if (words.trim()) replaced = words;
    }
    const stopped = SUBAGENT_STOPPED[row.status ?? ""];
    if (!stopped || s.status === row.status) {
      if (replaced) emit("session.updated", { agentId, childSessionId: child, summaryText: replaced });
      return;
    }
    s.status = row.status;
    // A failure's new words are its error.
    emit("session.updated", {
      ...base,
      status: stopped,
      ...(replaced ? (stopped === "failed" ? { error: replaced } : { summaryText: replaced }) : {}),
    });
  }

  /** A compact marker (rows.ts timelineMarker) → the compaction progress legacy session.updated gave (translate/events.ts compactionUpdate). */
  private marker(row: Row, s: Seen, emit: Emit): void {
    const m = row.marker as { type?: string; origin?: string; status?: string; tokensBefore?: number; tokensAfter?: number } | undefined;
    if (m?.type !== "compact" || !m.status || m.status === s.status) return;
    s.status = m.status;
    const before = typeof m.tokensBefore === "number" ? m.tokensBefore : 0;
    const base = { trigger: m.origin ?? "manual", preCompactTokenCount: before };
    if (m.status === "running") return emit("session.updated", base);
    if (m.status === "success" || m.status === "noop")
      return emit("session.updated", { ...base, postCompactTokenCount: typeof m.tokensAfter === "number" ? m.tokensAfter : before });
    emit("session.updated", { ...base, status: m.status === "cancelled" ? "interrupted" : "failed" });
  }

  private entry(rowId: number): Seen {
    let s = this.seen.get(rowId);
    if (!s) {
      this.seen.set(rowId, (s = { len: 0 }));
      while (this.seen.size > this.max) this.seen.delete(this.seen.keys().next().value as number);
    }
    return s;
  }
}

function textOf(v: unknown): string | undefined {
  return typeof v === "string" && v.trim() ? v.trim() : undefined;
}

/**
 * A finished toolCall row → the legacy `tool.updated` result (event-schemas.ts ToolResultSchema) its ToolCallResult
 * carried: `content` is output.text (projection-rows.ts buildToolOutput: the content, cut to 32 KiB head + tail when
 * longer, then `truncated {totalBytes, ref}`), `display` is output.display, or row.display for the one kind
 * buildToolOutput moves there (node_repl_images; toolDisplay.ts toolCallDisplaySchema). A failed result's error is
 * the row's `{code, message}` (code = the legacy error type). The exit code legacy kept in `perf` has no v4 field.
 */
export function resultOf(row: Row): Record<string, unknown> {
  const display = row.output?.display ?? row.display;
  const success = row.status === "success";
  const err = row.error;
  return {
    success,
    content: row.output?.text ?? "",
    ...(display !== undefined && display !== null ? { display } : {}),
    ...(row.output?.truncated !== undefined ? { truncated: true } : {}),
    ...(!success && err ? { error: { ...(err.code ? { type: err.code } : {}), ...(err.message ? { message: err.message } : {}) } } : {}),
  };
}
