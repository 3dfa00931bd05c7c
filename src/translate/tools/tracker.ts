import type { SessionUpdate, ToolCallContent, ToolCallLocation, ToolCallStatus, ToolKind } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import type { ModelStreaming, ToolResult, ToolUpdated } from "../../zcode/event-schemas.ts";
import { advanceStream, emptyStream, restAfterStreams, type StreamState } from "./output-tail.ts";
import { terminalContent, terminalExitUpdate, terminalInfo, terminalOutput, terminalOutputUpdate } from "./terminal-meta.ts";
import { commandOutputText, textContent } from "./format.ts";
import { commandText, denialOr, denialText, outcomeOfResult } from "./outcome.ts";
import { presentTool, rawResult, resultContent, resultLocations, streamsOutput, type ToolPresentation } from "./presentation.ts";

// Turns ZCode's tool events into ACP tool_call / tool_call_update updates.
//
// ZCode tells about one tool in several places before it runs (model.streaming
// `tool_input_start` with the name, `tool_call` with the input, tool.updated
// `scheduled` which usually omits it) and then started / progress / result /
// error; a `batch` closes a parallel group, and a denied permission ends a
// tool with no result at all. The tracker announces a tool on the first sign
// of it, sends an update only when something new is known, never moves a
// finished tool back, and turns cumulative output tails into appends (the
// tail arithmetic is output-tail.ts; the terminal `_meta` is terminal-meta.ts).

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

/**
 * Finished tools remembered so late or repeated events (a batch) about them
 * are ignored. A tracker lives as long as its session, so this bounds it.
 */
const FINISHED_KEPT = 512;

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

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
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

  /** model.streaming: `tool_input_start` names a tool (shown at once), `tool_call` gives its input. */
  onModelStreaming(p: ModelStreaming): SessionUpdate[] {
    if (!p.toolCallId) return [];
    if (p.kind === "tool_input_start" && p.toolName) return this.learn(p.toolCallId, p.toolName, undefined);
    if (p.kind === "tool_call") return this.learn(p.toolCallId, p.toolName, p.input);
    return [];
  }

  /** tool.updated, every kind. */
  onToolUpdated(p: ToolUpdated): SessionUpdate[] {
    if (p.kind === "batch") return this.onBatch(p.toolCallIds ?? [], p.errorCount ?? 0);
    const id = p.toolCallId;
    if (!id) return [];
    switch (p.kind) {
      case "scheduled":
        // inputOmitted: the input is the one model.streaming already gave.
        return this.learn(id, p.toolName, p.inputOmitted === true ? undefined : p.input);
      case "started":
        return this.onStarted(id, p.toolName);
      case "progress":
        return this.onProgress(id, p.toolName, p.stdoutTail ?? "", p.stderrTail ?? "");
      case "result":
        return this.onResult(id, p.toolName, p.result);
      case "error":
        return this.onError(id, p.toolName, p.error?.message ? denialOr(p.error.message) : t().tools.failed);
      default:
        return [];
    }
  }

  /** permission.resolved: a denied tool never runs and gets no result of its own. */
  onPermissionResolved(toolCallId: string | undefined, decision: string | undefined, reason: string | undefined): SessionUpdate[] {
    if (!toolCallId || decision !== "deny") return [];
    const s = this.tools.get(toolCallId);
    if (!s || s.finished) return [];
    const out: SessionUpdate[] = s.announced ? [] : [this.announce(s)];
    return [...out, ...this.fail(s, denialText(reason))];
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
      rawInput: s.hasInput ? s.input : undefined,
      locations: s.view.locations,
      content: s.view.content,
    };
  }

  /** Name and input of a tool that has not finished (what its result event may not repeat). */
  pending(toolCallId: string): { name: string; input: unknown } | undefined {
    const s = this.tools.get(toolCallId);
    return s && !s.finished ? { name: s.name, input: s.input } : undefined;
  }

  /** Fails every announced tool that has not finished (the turn ended under it). */
  failOpen(message: string): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    for (const s of this.tools.values()) {
      if (s.announced && !s.finished) out.push(...this.fail(s, message));
    }
    return out;
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
      out: emptyStream(),
      err: emptyStream(),
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
    if (nameChanged) {
      s.name = name!;
      // Known only now to be a command: the terminal starts before any output.
      if (!s.announced) s.terminal = this.terminalOutput && streamsOutput(s.name);
    }
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
    };
    if (s.hasInput) u.rawInput = s.input;
    if (nameChanged) u.name = s.name;
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
      locations: s.view.locations,
      content: s.terminal ? [terminalContent(s.id)] : s.view.content,
    };
    // Announced on its name alone: the input follows in an update once ZCode gives it.
    if (s.hasInput) u.rawInput = s.input;
    if (s.name) u.name = s.name;
    if (s.terminal) u._meta = terminalInfo(s.id, this.cwd);
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
    const o = advanceStream(s.out, stdoutTail);
    const e = advanceStream(s.err, stderrTail);
    const statusChange = s.status === "pending";
    if (statusChange) s.status = "in_progress";
    if (s.terminal) {
      const data = o + e;
      if (data || statusChange) {
        const u: SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: id };
        if (statusChange) u.status = "in_progress";
        if (data) u._meta = terminalOutput(id, data);
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

  private onResult(id: string, name: string | undefined, result: ToolResult | undefined): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    const s = this.known(id, name, out);
    if (s.finished) return out;
    const outcome = outcomeOfResult(streamsOutput(s.name), result);
    if (s.terminal) {
      const data = restAfterStreams(s.out, s.err, commandText(outcome));
      if (data) out.push(terminalOutputUpdate(id, data));
      out.push(terminalExitUpdate(id, outcome.exitCode ?? null));
    }
    s.status = outcome.failed ? "failed" : "completed";
    const u: SessionUpdate = { sessionUpdate: "tool_call_update", toolCallId: id, status: s.status };
    const raw = rawResult(s.name, s.input, outcome);
    if (raw !== undefined) u.rawOutput = raw;
    if (!s.terminal) {
      const content = resultContent(s.name, s.input, outcome, this.cwd);
      if (content.length > 0) u.content = content;
    } else if (outcome.failed && outcome.exitCode === undefined && outcome.error) {
      // The tool itself failed (not the command): the terminal alone would not say why.
      u.content = [terminalContent(id), textContent(outcome.error)];
    }
    const locations = resultLocations(s.name, s.input, outcome, this.cwd);
    if (locations.length > 0 && !sameJson(locations, s.view.locations)) u.locations = locations;
    out.push(u);
    this.finish(s);
    return out;
  }

  /** Marks a tool final and drops what only a running tool needs (input, output buffers). */
  private finish(s: ToolState): void {
    s.finished = true;
    s.input = {};
    s.out = emptyStream();
    s.err = emptyStream();
    s.view = { ...s.view, content: [] };
    this.finishedOrder.push(s.id);
    while (this.finishedOrder.length > FINISHED_KEPT) {
      const old = this.finishedOrder.shift()!;
      if (this.tools.get(old)?.finished) this.tools.delete(old);
    }
  }

  private onError(id: string, name: string | undefined, message: string): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    const s = this.known(id, name, out);
    if (s.finished) return out;
    out.push(...this.fail(s, message));
    return out;
  }

  /** Ends a tool as failed; `message` (why, in the user's terms) is its rawOutput too. */
  private fail(s: ToolState, message: string): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    s.status = "failed";
    let content: ToolCallContent[];
    if (s.terminal) {
      out.push(terminalExitUpdate(s.id, null));
      content = [terminalContent(s.id), textContent(message)];
    } else {
      const shown = commandOutputText(s.out.shown, s.err.shown);
      content = shown ? [textContent(shown), textContent(message)] : [textContent(message)];
    }
    out.push({
      sessionUpdate: "tool_call_update",
      toolCallId: s.id,
      status: "failed",
      content,
      rawOutput: message,
    });
    this.finish(s);
    return out;
  }

  /**
   * A parallel group finished. Tools of it we saw finish are final; one we
   * never saw finish (a denial ZCode did not report, a lost event) is closed
   * here: failed when the group had errors, else completed.
   */
  private onBatch(ids: readonly string[], errorCount: number): SessionUpdate[] {
    const out: SessionUpdate[] = [];
    for (const id of ids) {
      const s = this.tools.get(id);
      if (!s || s.finished || !s.announced) continue;
      if (errorCount > 0) {
        out.push(...this.fail(s, t().tools.didNotRun));
        continue;
      }
      s.status = "completed";
      out.push({ sessionUpdate: "tool_call_update", toolCallId: id, status: "completed" });
      this.finish(s);
    }
    return out;
  }
}
