import * as v from "valibot";
import type { WorkspaceArg } from "../api-types.ts";
import { workspaceOf } from "../api-types.ts";
import type { MessagesResult, Snapshot } from "../result-schemas.ts";
import type { V4Channel } from "./channel.ts";
import { isWorking, ProjectedStateSchema } from "./feed.ts";
import { rowsToMessages } from "./rows-history.ts";
import type { Row } from "./schemas.ts";

// Reads of a v4-only child's sessions in the legacy shapes: the snapshot
// (session, settings, title) from the conversation's projected state
// (feed.ts), and history from `v4/conversation/rowsRange` pages (rowId
// ascending, newest first with `beforeRowId` paging back while `hasMore`:
// transport.ts v4ConversationRowsRangeParamsSchema), mapped by v4feed's
// rowsToMessages.

/** The most rowsRange pages one history read asks for (200 rows each). */
const MAX_PAGES = 50;

/**
 * Legacy's projection status from v4's control phase: "running" while a
 * turn is under way (a wait for an answer included), else the phase as it
 * is (idle, a draft, how the last turn ended: snapshot.ts
 * `sessionPhaseSchema` draft | prewarming | running | completedSuccess |
 * completedInterrupted | error). The bridge asks only "running or not"
 * (turn.ts checkIdle, reads.ts waitIdle): a phase read as running that is
 * not would hold a wait for idle to its end.
 */
export function statusOf(phase: string): string {
  return /^(draft|idle|completed|failed|error|cancelled|interrupted|ended)/i.test(phase) ? phase : "running";
}

/** A legacy snapshot of the session from its projected state (what v4 has of it: no model list). */
export function snapshotOf(sessionId: string, state: unknown, workspace?: WorkspaceArg): Snapshot {
  const r = v.safeParse(ProjectedStateSchema, state);
  const s = r.success ? r.output : {};
  const config = s.config;
  const levels = config?.thoughtLevels ?? [];
  const window = s.usage?.contextWindow;
  return {
    // What legacy's projection, todos and goal target carried: context use, the plan's items, the goal.
    projection: {
      // Active work (a compaction: snapshot.ts activeWorkSummarySchema) is running whatever the phase says.
      ...(s.control?.phase ? { status: isWorking(state) ? "running" : statusOf(s.control.phase) } : {}),
      ...(config?.mode ? { mode: config.mode } : {}),
      ...(window ? { contextUsed: window.usedTokens, contextWindow: window.maxTokens } : {}),
      target: s.goal ? { objective: s.goal.objective, ...(s.goal.status ? { status: s.goal.status } : {}) } : null,
    },
    ...(s.plan ? { todos: s.plan.items.map((i) => ({ content: i.content, ...(i.status ? { status: i.status } : {}) })) } : {}),
    session: {
      sessionId,
      ...(s.meta?.title !== undefined ? { title: s.meta.title } : {}),
      ...(workspace ? { workspace: workspaceOf(workspace) } : {}),
      ...(config?.mode ? { mode: config.mode } : {}),
    },
    ...(config
      ? {
          settings: {
            model: {
              current: {
                providerId: config.provider,
                modelId: config.model,
                ...(config.thought ? { options: { reasoningLevel: config.thought } } : {}),
              },
              // The conversation tells its own model only (the catalog is the workspace-config topic's): one entry,
              // with the levels the snapshot lists for it.
              available: [
                {
                  ref: { providerId: config.provider, modelId: config.model },
                  label: config.model,
                  ...(levels.length
                    ? {
                        reasoning: {
                          levels: levels.map((value) => ({ value })),
                          ...(config.thought ? { defaultLevel: config.thought } : {}),
                        },
                      }
                    : {}),
                },
              ],
            },
            thoughtLevel: {
              enabled: levels.length > 0,
              ...(config.thought ? { current: config.thought } : {}),
              available: levels.map((value) => ({ value })),
            },
            ...(config.mode ? { mode: { current: config.mode } } : {}),
          },
        }
      : {}),
  };
}

/** One page of history: the newest rows, or those before `beforeRowId`, as legacy messages. */
export interface HistoryPage {
  messages: MessagesResult["messages"];
  /** The oldest row of the page: pass it as `beforeRowId` for the page before. */
  oldestRowId: number | undefined;
  hasMore: boolean;
}

export async function historyPage(channel: V4Channel, sessionId: string, beforeRowId?: number): Promise<HistoryPage> {
  const page = await channel.rows(sessionId, { clientMode: "desktop-continuous", ...(beforeRowId !== undefined ? { beforeRowId } : {}) });
  return {
    messages: rowsToMessages(page.rows as Row[]),
    oldestRowId: page.rows[0]?.rowId,
    hasMore: page.hasMore === true && page.rows.length > 0,
  };
}

/** The transcript, or its last `limit` messages: pages read back until they hold `limit` messages. */
export async function messagesOf(channel: V4Channel, sessionId: string, limit?: number): Promise<MessagesResult> {
  let rows: Row[] = [];
  let before: number | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const r = await channel.rows(sessionId, { clientMode: "desktop-continuous", ...(before !== undefined ? { beforeRowId: before } : {}) });
    rows = [...(r.rows as Row[]), ...rows];
    before = r.rows[0]?.rowId;
    if (r.hasMore !== true || before === undefined) break;
    if (limit !== undefined && rowsToMessages(rows).length > limit) break;
  }
  const messages = rowsToMessages(rows);
  return { messages: limit !== undefined ? messages.slice(-limit) : messages };
}
