import type { AvailableCommand } from "@agentclientprotocol/sdk/unstable";
import type { AutoCompact } from "../config.ts";
import type { ClientFeatures } from "../translate/client-features.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { Env } from "../zcode/host.ts";
import type { QuotaPort } from "./host.ts";
import type { Timings } from "./timings.ts";
import type { UpdateSink } from "./update-sink.ts";

/** What sessions share: the ZCode api, the way to the editor, and a few facts about the connection. */
export interface SessionDeps {
  api: ZCodeApi;
  sink: UpdateSink;
  timings: Timings;
  env: Env;
  /** The client asked for Zed's terminal extension. */
  terminalOutput(): boolean;
  /** What the client opted in to (notices, compaction, plans, …), read on every use. */
  features(): ClientFeatures;
  /** Withdraws the session's open permission and question prompts. */
  withdrawInteractions(sessionId: string): void;
  /** The slash menu in `cwd` (depends on the running CLI and the user's skills there). */
  commands(cwd: string): AvailableCommand[];
  /** --auto-compact: the context use after which a turn is followed by a compaction. */
  autoCompact?: AutoCompact;
  /** The threshold in words, for the auto-compact option's description. */
  autoCompactWords?: string;
  /** The plan's quota pushed after turns (src/session/quota-push.ts). */
  quota?: QuotaPort;
  /** The editor has gone: nothing new may start. */
  closing(): boolean;
  /** The most a prompt may be as sent to ZCode (config.ts promptWireLimit). */
  maxPromptWireBytes?: number;
  /** A title the editor is told (the ZCode app's history follows it). */
  titleKnown(sessionId: string, title: string): void;
  /** Resumed in a (possibly new) child behind the editor's back. */
  onResumed(sessionId: string): void;
  /** A subagent's session was announced to the editor as a child of `parentId` (read-only for the editor). */
  childAnnounced(childId: string, parentId: string): void;
}

/**
 * Why a turn or a command ends early:
 * - editor: session/cancel, or `$/cancel_request` on the prompt;
 * - close: ACP session/close (the conversation stays in ZCode);
 * - editor-gone: stdin closed; nothing new may start after it.
 */
export type CancelReason = "editor" | "close" | "editor-gone";
