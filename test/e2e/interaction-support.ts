// Helpers for the presentation/interaction e2e tests: folds tool_call and
// tool_call_update notifications into each tool's final state, the way an
// editor applies them (content and locations replace, other fields merge).
import type * as acp from "@agentclientprotocol/sdk/unstable";
import type { Harness } from "../support/acp-harness.ts";

export interface ToolView {
  toolCallId: string;
  title?: string;
  kind?: string;
  status?: string | null;
  content?: acp.ToolCallContent[] | null;
  locations?: acp.ToolCallLocation[] | null;
  rawInput?: unknown;
  rawOutput?: unknown;
  /** Every update for this tool, in order. */
  history: Array<{ sessionUpdate: string; toolCallId: string; [k: string]: any }>;
}

export function toolViews(h: Harness, sessionId: string): Map<string, ToolView> {
  const out = new Map<string, ToolView>();
  for (const u of h.updates(sessionId)) {
    if (u.sessionUpdate !== "tool_call" && u.sessionUpdate !== "tool_call_update") continue;
    const v = out.get(u.toolCallId) ?? { toolCallId: u.toolCallId, history: [] };
    v.history.push(u);
    for (const k of ["title", "kind", "status", "content", "locations", "rawInput", "rawOutput"] as const) {
      if (k in u && (u as Record<string, unknown>)[k] !== undefined)
        (v as unknown as Record<string, unknown>)[k] = (u as Record<string, unknown>)[k];
    }
    out.set(u.toolCallId, v);
  }
  return out;
}

export function byTitle(views: Map<string, ToolView>, prefix: string): ToolView {
  const v = [...views.values()].find((x) => x.title?.startsWith(prefix));
  if (!v) throw new Error(`no tool titled ${prefix}…; titles: ${[...views.values()].map((x) => x.title).join(" | ")}`);
  return v;
}

export function contentText(v: ToolView): string {
  return (v.content ?? []).map((c) => (c.type === "content" && c.content.type === "text" ? c.content.text : "")).join("\n");
}
