import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk/unstable";
import {
  commandOutputText,
  presentTool,
  resultContent,
  resultLocations,
  streamsOutput,
  textContent,
  type ToolPresentation,
} from "./tool-presentation.ts";
import type { ModelToolCall, ToolUpdated } from "../zcode/schemas.ts";

// Turns ZCode's tool events into ACP tool_call / tool_call_update updates.
//
// ZCode tells about one tool in up to two places before it runs
// (model.streaming `tool_call` with the input, tool.updated `scheduled` which
// may omit it) and then started / progress / result / error, or a batch that
// finishes several tools. The tracker announces a tool on the first sign of
// it, sends an update only when something new is known, never moves a
// finished tool back, and turns cumulative output tails into appends.

/** What a permission request needs to show about a tool. */
export interface ToolCallView {
  toolCallId: string;
  title: string;
  kind: ToolKind;
  status: ToolCallStatus;
  rawInput: unknown;
  locations: ToolCallLocation[];
  content: ToolCallContent[];
}

/** Shown where a tail did not continue what was seen before (see `tailDelta`). */
export const OUTPUT_GAP_MARKER = "[… output skipped …]\n";
/** Overlap needed before a moved tail counts as a continuation of the last one. */
const MIN_OVERLAP = 32;
/**
 * Finished tools remembered so late or repeated events (a batch) about them
 * are ignored. A tracker lives as long as its session, so this bounds it.
 */
const FINISHED_KEPT = 512;
/** Live (fenced) output kept per stream; the final result replaces it anyway. */
const LIVE_MAX = 64 * 1024;

interface StreamState {
  /** The last tail ZCode sent (what the next tail is compared with). */
  tail: string;
  /** Everything shown so far in fenced mode (capped to LIVE_MAX). */
  shown: string;
}

interface ToolState {
  id: string;
  name: string;
  input: unknown;
  hasInput: boolean;
  announced: boolean;
  status: ToolCallStatus;
  finished: boolean;
  view: ToolPresentation;
  /** Output goes through Zed's terminal extension. */
  terminal: boolean;
  out: StreamState;
  err: StreamState;
}

/** Length of the longest suffix of `prev` that is a prefix of `next` (KMP, linear). */
export function suffixPrefixOverlap(prev: string, next: string): number {
  const m = Math.min(next.length, prev.length);
  if (m === 0) return 0;
  const pat = next.slice(0, m);
  const fail = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && pat[i] !== pat[k]) k = fail[k - 1]!;
    if (pat[i] === pat[k]) k++;
    fail[i] = k;
  }
  let k = 0;
  for (let i = prev.length - m; i < prev.length; i++) {
    while (k > 0 && (k === m || prev[i] !== pat[k])) k = fail[k - 1]!;
    if (prev[i] === pat[k]) k++;
  }
  return k;
}

/**
 * Fast path for a window that slid: the longest suffix of `prev` that is a
 * prefix of `next`, found with native indexOf/startsWith from the first
 * MIN_OVERLAP characters of `next` (the earliest match in `prev` that
 * continues to its end is the longest overlap). 0 when there is no overlap
 * of at least MIN_OVERLAP (tailDelta treats a shorter one as a gap anyway);
 * undefined when repetitive text makes the candidates many, and then the
 * linear KMP decides.
 */
function slidOverlap(prev: string, next: string): number | undefined {
  if (next.length < MIN_OVERLAP || prev.length < MIN_OVERLAP) return undefined;
  const head = next.slice(0, MIN_OVERLAP);
  // An overlap of k <= next.length characters starts at prev.length - k.
  let at = prev.indexOf(head, Math.max(0, prev.length - next.length));
  for (let tries = 0; tries < 8; tries++) {
    if (at < 0) return 0; // no overlap of MIN_OVERLAP or more: a gap either way
    if (next.startsWith(prev.slice(at))) return prev.length - at;
    at = prev.indexOf(head, at + 1);
  }
  return undefined;
}

/**
 * What is new in `next`, a cumulative output tail, given the tail seen before.
 *
 * A tail is the END of the output so far, possibly bounded: while it grows,
 * `next` starts with `prev` and the new part is the rest. Once the bound is
 * reached the window slides: the start of `next` is then the end of `prev`,
 * found as the longest suffix of `prev` that is a prefix of `next` — accepted
 * only from MIN_OVERLAP characters on, because a short overlap is as likely to
 * be chance. Anything else (the tail shrank, was replaced, or slid further
 * than its own length between two events) is a discontinuity: the whole new
 * tail is sent after a marker, so nothing is lost; at worst some text shows
 * twice after the marker. Tails carry no offsets, so repetitive output (the
 * same line over and over) cannot be told apart from no output; that case
 * errs on the side of sending less.
 */
export function tailDelta(prev: string, next: string): { data: string; gap: boolean } {
  if (next === prev) return { data: "", gap: false };
  if (prev === "" || next.startsWith(prev)) return { data: next.slice(prev.length), gap: false };
  const k = slidOverlap(prev, next) ?? suffixPrefixOverlap(prev, next);
  if (k >= MIN_OVERLAP) return { data: next.slice(k), gap: false };
  return { data: next, gap: true };
}

/**
 * What the complete output in a tool's result adds to the last tail seen.
 * The usual case is that the last tail already ended the output; otherwise
 * the tail is located in the full text (its last occurrence, the most recent).
 */
export function finalDelta(prev: string, full: string): { data: string; gap: boolean } {
  if (prev === "") return { data: full, gap: false };
  if (full.endsWith(prev)) return { data: "", gap: false };
  if (full.startsWith(prev)) return { data: full.slice(prev.length), gap: false };
  const at = full.lastIndexOf(prev);
  if (at >= 0) return { data: full.slice(at + prev.length), gap: false };
  return tailDelta(prev, full);
}

function asString(v: unknown): string | undefined {
  return typeof v === "string" ? v : undefined;
}

function obj(v: unknown): Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
}

function errorMessage(e: unknown): string {
  if (typeof e === "string" && e) return e;
  const m = asString(obj(e).message);
  return m && m.length > 0 ? m : "Tool failed";
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function keepLast(text: string, max: number): string {
  return text.length <= max ? text : `[…]\n${text.slice(text.length - max)}`;
}

export class ToolCallTracker {
  private readonly cwd: string;
  private readonly terminalOutput: boolean;
  private readonly tools = new Map<string, ToolState>();
  /** Finished tools in finishing order; the oldest are forgotten past FINISHED_KEPT. */
  private readonly finishedOrder: string[] = [];

  constructor(opts: { cwd: string; terminalOutput: boolean }) {
    this.cwd = opts.cwd;
    this.terminalOutput = opts.terminalOutput;
  }

  /** model.streaming `tool_call`: the name and the full input. */
  onModelToolCall(p: ModelToolCall): SessionUpdate[] {
    if (!p.toolCallId) return [];
    return this.learn(p.toolCallId, p.toolName, p.input);
  }

  /** tool.updated, every kind. */
  onToolUpdated(p: ToolUpdated): SessionUpdate[] {
    if (p.kind === "batch") return this.onBatch(p.items);
    const id = p.toolCallId;
    if (!id) return [];
    switch (p.kind) {
      case "scheduled":
        // inputOmitted: the input is the one model.streaming already gave.
        return this.learn(id, p.toolName, p.inputOmitted === true ? undefined : p.input);
      case "started": {
        // Some CLI builds repeat (or first give) the input here.
        const learned = p.input !== undefined ? this.learn(id, p.toolName, p.input) : [];
        return [...learned, ...this.onStarted(id, p.toolName)];
      }
      case "progress":
        return this.onProgress(id, p.toolName, p.stdoutTail ?? "", p.stderrTail ?? "");
      case "result":
        return this.onResult(id, p.toolName, p.output, p.result);
      case "error":
        return this.onError(id, p.toolName, errorMessage(p.error), p.error);
      default:
        return [];
    }
  }

  /**
   * Makes sure the client knows the tool (before a permission request for it).
   * `fallback` fills in what ZCode did not say in events yet.
   */
  ensureAnnounced(toolCallId: string, fallback?: { toolName?: string; input?: unknown }): SessionUpdate[] {
    let s = this.tools.get(toolCallId);
    if (!s) {
      s = this.create(toolCallId, fallback?.toolName ?? "", fallback?.input);
    } else if (!s.hasInput && fallback?.input !== undefined) {
      // Not announced yet, or announced without input: the request's input is better.
      const upd = this.learn(toolCallId, fallback.toolName, fallback.input);
      if (s.announced) return upd;
    }
    if (s.announced) return [];
    return [this.announce(s)];
  }

  /** The tool as the client sees it, for session/request_permission. */
  get(toolCallId: string): ToolCallView | undefined {
    const s = this.tools.get(toolCallId);
    if (!s) return undefined;
    return {
      toolCallId: s.id,
      title: s.view.title,
      kind: s.view.kind,
      status: s.status,
      rawInput: s.input ?? {},
      locations: s.view.locations,
      content: s.view.content,
    };
  }

  /** Fails every announced tool that has not finished (the turn ended under it). */
  failOpen(message: string): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    for (const s of this.tools.values()) {
      if (s.announced && !s.finished) out.push(...this.fail(s, message, { message }));
    }
    return out;
  }

  /**
   * Forgets finished tools (optional: the tracker bounds itself; useful when a
   * session is reset). Tools still open are kept.
   */
  clear(): void {
    for (const [id, s] of this.tools) if (s.finished) this.tools.delete(id);
    this.finishedOrder.length = 0;
  }

  // ---- internals -------------------------------------------------------

  private create(id: string, name: string, input: unknown): ToolState {
    const hasInput = input !== undefined;
    const s: ToolState = {
      id,
      name,
      input: hasInput ? input : {},
      hasInput,
      announced: false,
      status: "pending",
      finished: false,
      view: presentTool(name, hasInput ? input : {}, this.cwd),
      terminal: this.terminalOutput && streamsOutput(name),
      out: { tail: "", shown: "" },
      err: { tail: "", shown: "" },
    };
    this.tools.set(id, s);
    return s;
  }

  /** Records name/input; announces a new tool, or updates one if the input adds information. */
  private learn(id: string, name: string | undefined, input: unknown): SessionUpdate[] {
    const s = this.tools.get(id);
    if (!s) return [this.announce(this.create(id, name ?? "", input))];
    if (s.finished) return [];
    const nameChanged = !!name && name !== s.name;
    const inputChanged = input !== undefined && !(s.hasInput && sameJson(input, s.input));
    if (!nameChanged && !inputChanged) return [];
    if (nameChanged) s.name = name!;
    if (inputChanged) {
      s.input = input;
      s.hasInput = true;
    }
    s.view = presentTool(s.name, s.input, this.cwd);
    if (!s.announced) return [this.announce(s)];
    const u: SessionUpdate = {
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      title: s.view.title,
      kind: s.view.kind,
      locations: s.view.locations,
      rawInput: s.input,
    };
    // Before the tool runs, its preview is the content; afterwards output owns it.
    if (s.status === "pending" && !s.terminal && s.view.content.length > 0) u.content = s.view.content;
    return [u];
  }

  private announce(s: ToolState): SessionUpdate {
    s.announced = true;
    const u: SessionUpdate = {
      sessionUpdate: "tool_call",
      toolCallId: s.id,
      title: s.view.title,
      kind: s.view.kind,
      status: s.status,
      rawInput: s.input,
      locations: s.view.locations,
      content: s.terminal ? [{ type: "terminal", terminalId: s.id }] : s.view.content,
    };
    if (s.terminal) u._meta = { terminal_info: { terminal_id: s.id, cwd: this.cwd } };
    return u;
  }

  /** The tool's state, announcing it first if ZCode skipped the earlier events. */
  private known(id: string, name: string | undefined, out: SessionUpdate[]): ToolState {
    let s = this.tools.get(id);
    if (!s) {
      s = this.create(id, name ?? "", undefined);
      out.push(this.announce(s));
    } else if (!s.announced) {
      out.push(this.announce(s));
    }
    return s;
  }

  private onStarted(id: string, name: string | undefined): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    const s = this.known(id, name, out);
    if (s.finished || s.status !== "pending") return out;
    s.status = "in_progress";
    out.push({ sessionUpdate: "tool_call_update", toolCallId: id, status: "in_progress" });
    return out;
  }

  private onProgress(id: string, name: string | undefined, stdoutTail: string, stderrTail: string): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    const s = this.known(id, name, out);
    if (s.finished) return out;
    const o = this.advance(s.out, stdoutTail, tailDelta);
    const e = this.advance(s.err, stderrTail, tailDelta);
    const statusChange = s.status === "pending";
    if (statusChange) s.status = "in_progress";
    if (s.terminal) {
      const data = o + e;
      if (data || statusChange) {
        const u: SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: id };
        if (statusChange) u.status = "in_progress";
        if (data) u._meta = { terminal_output: { terminal_id: id, data } };
        out.push(u);
      }
      return out;
    }
    if (!o && !e && !statusChange) return out;
    const u: SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: id };
    if (statusChange) u.status = "in_progress";
    const text = commandOutputText(s.out.shown, s.err.shown);
    // tool_call_update content replaces the whole list: send all that is shown.
    if (text) u.content = [textContent(text)];
    out.push(u);
    return out;
  }

  /** Moves a stream to its new tail; returns the new data (with a gap marker if needed). */
  private advance(st: StreamState, next: string, delta: typeof tailDelta): string {
    const prev = st.tail;
    const d = delta(prev, next);
    st.tail = next;
    let data = d.data;
    if (d.gap && data) {
      // The marker goes on a line of its own.
      data = `${prev === "" || prev.endsWith("\n") ? "" : "\n"}${OUTPUT_GAP_MARKER}${data}`;
    }
    if (data) st.shown = keepLast(st.shown + data, LIVE_MAX);
    return data;
  }

  private onResult(id: string, name: string | undefined, output: unknown, result: unknown): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    const s = this.known(id, name, out);
    if (s.finished) return out;
    const outputText = asString(output);
    if (s.terminal) {
      const r = obj(result);
      const stdout = asString(r.stdout);
      const stderr = asString(r.stderr);
      let data: string;
      if (stdout !== undefined || stderr !== undefined) {
        data = this.advance(s.out, stdout ?? s.out.tail, finalDelta) + this.advance(s.err, stderr ?? s.err.tail, finalDelta);
      } else {
        data = s.out.shown === "" && s.err.shown === "" ? (outputText ?? "") : "";
      }
      if (data) out.push({ sessionUpdate: "tool_call_update", toolCallId: id, _meta: { terminal_output: { terminal_id: id, data } } });
      const code = r.exitCode ?? r.exit_code;
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: id,
        _meta: { terminal_exit: { terminal_id: id, exit_code: typeof code === "number" ? code : null, signal: null } },
      });
    }
    s.status = "completed";
    const u: SessionUpdate = {
      sessionUpdate: "tool_call_update",
      toolCallId: id,
      status: "completed",
      rawOutput: result !== undefined ? result : (outputText ?? null),
    };
    if (!s.terminal) {
      const content = resultContent(s.name, s.input, outputText, result, this.cwd);
      if (content.length > 0) u.content = content;
    }
    const locations = resultLocations(s.name, s.input, result, this.cwd);
    if (locations.length > 0 && !sameJson(locations, s.view.locations)) u.locations = locations;
    out.push(u);
    this.finish(s);
    return out;
  }

  /** Marks a tool final and drops what only a running tool needs (input, output buffers). */
  private finish(s: ToolState): void {
    s.finished = true;
    s.input = {};
    s.out = { tail: "", shown: "" };
    s.err = { tail: "", shown: "" };
    s.view = { ...s.view, content: [] };
    this.finishedOrder.push(s.id);
    while (this.finishedOrder.length > FINISHED_KEPT) {
      const old = this.finishedOrder.shift()!;
      if (this.tools.get(old)?.finished) this.tools.delete(old);
    }
  }

  private onError(id: string, name: string | undefined, message: string, raw: unknown): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    const s = this.known(id, name, out);
    if (s.finished) return out;
    out.push(...this.fail(s, message, raw));
    return out;
  }

  private fail(s: ToolState, message: string, raw: unknown): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    s.status = "failed";
    let content: ToolCallContent[];
    if (s.terminal) {
      out.push({
        sessionUpdate: "tool_call_update",
        toolCallId: s.id,
        _meta: { terminal_exit: { terminal_id: s.id, exit_code: null, signal: null } },
      });
      content = [{ type: "terminal", terminalId: s.id }, textContent(message)];
    } else {
      const shown = commandOutputText(s.out.shown, s.err.shown);
      content = shown ? [textContent(shown), textContent(message)] : [textContent(message)];
    }
    out.push({
      sessionUpdate: "tool_call_update",
      toolCallId: s.id,
      status: "failed",
      content,
      rawOutput: raw ?? { message },
    });
    this.finish(s);
    return out;
  }

  private onBatch(items: unknown): SessionUpdate[] {
    if (!Array.isArray(items)) return [];
    const out: SessionUpdate[] = [];
    for (const it of items) {
      const item = obj(it);
      const id = asString(item.toolCallId);
      if (!id) continue;
      // A batch repeats tools that already reported on their own (often with
      // no output): those are final and must not be overwritten.
      if (this.tools.get(id)?.finished) continue;
      const name = asString(item.toolName);
      if (item.kind === "error") out.push(...this.onError(id, name, errorMessage(item.error), item.error));
      else out.push(...this.onResult(id, name, item.output, item.result));
    }
    return out;
  }
}
