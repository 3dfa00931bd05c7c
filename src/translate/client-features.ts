import type { ClientCapabilities, SessionUpdate } from "@agentclientprotocol/sdk/unstable";

// What the editor said it understands, read once from its `initialize`. Every
// update kind newer than the first ACP editors is sent only to a client that
// opted in (the spec forbids it otherwise); the rest get the older form.

export interface ClientFeatures {
  /** `session.notices`: the bridge's own words as `notice` updates. */
  notices: boolean;
  /** `session.compaction`: `compaction_update` / `compaction_summary_chunk`. */
  compaction: boolean;
  /** `plan`: `plan_update` / `plan_removed` (items or Markdown plans with ids). */
  plans: boolean;
  /** `session.configOptions.boolean`: on/off switches as `type: "boolean"` options. */
  booleanOptions: boolean;
  /** `_meta.terminal_output` (Zed): command output through the terminal extension. */
  terminalOutput: boolean;
  /** JetBrains Air (`_meta.jetbrains.air`) or `_meta.goal`: the goal's state in session_info_update `_meta.goal`. */
  goal: boolean;
  /** `subagents`: ZCode's subagents as child sessions (subagent_update, session_message). */
  subagents: boolean;
}

const present = (v: unknown) => v !== undefined && v !== null;

export function clientFeatures(caps: ClientCapabilities | undefined): ClientFeatures {
  const c = caps ?? {};
  const session = c.session ?? undefined;
  return {
    notices: present(session?.notices),
    compaction: present(session?.compaction),
    plans: present((c as { plan?: unknown }).plan),
    booleanOptions: present(session?.configOptions?.boolean),
    terminalOutput: c._meta?.["terminal_output"] === true,
    goal: present((c._meta?.["jetbrains"] as { air?: unknown } | undefined)?.air) || present(c._meta?.["goal"]),
    subagents: present((c as { subagents?: unknown }).subagents),
  };
}

/** How loud a notice is (ACP's severities). */
export type NoticeLevel = "info" | "warning" | "error";

/**
 * Something the bridge itself says (not ZCode's model): a `notice` for a
 * client that opted in, else an agent message of its own (a fresh message
 * id, set apart by blank lines and italics) that never continues the
 * model's text.
 */
export function noticeUpdate(features: Pick<ClientFeatures, "notices">, level: NoticeLevel, text: string): SessionUpdate {
  if (features.notices) {
    const [title, ...rest] = text.split("\n");
    const description = rest.join("\n").trim();
    return { sessionUpdate: "notice", severity: level, title: title!.trim() || text, ...(description ? { description } : {}) };
  }
  return { sessionUpdate: "agent_message_chunk", messageId: crypto.randomUUID(), content: { type: "text", text: `\n\n_${text}_\n\n` } };
}
