import type { ListSessionsResponse, SessionInfo } from "@agentclientprotocol/sdk/unstable";
import { invalidParams } from "../translate/errors.ts";
import { t } from "../i18n/index.ts";
import type { ListResult } from "../zcode/result-schemas.ts";

// session/list: ZCode's sessions as ACP session infos, newest first, in pages
// behind an opaque cursor.

export const LIST_PAGE = 50;

/** `{updatedAt}` as RFC 3339 when ZCode's epoch milliseconds make a date (one odd record must not fail the list). */
function rfc3339(ms: number | undefined): { updatedAt?: string } {
  if (ms === undefined) return {};
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? {} : { updatedAt: d.toISOString() };
}

function encodeCursor(offset: number): string {
  return Buffer.from(JSON.stringify({ o: offset })).toString("base64url");
}

function decodeCursor(cursor: string): number {
  try {
    const o = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")).o;
    if (Number.isInteger(o) && o >= 0) return o;
  } catch {
    // fall through
  }
  throw invalidParams(t().errors.invalidCursor, { cursor });
}

/** One page of ZCode's list (only sessions of `cwd` when given; sessions without a workspace are left out). */
export function listPage(r: ListResult, cwd: string | undefined, cursor: string | null | undefined): ListSessionsResponse {
  const items = r.sessions
    .filter((x) => {
      const where = x.workspace?.workspacePath;
      return cwd ? where === cwd : !!where;
    })
    .sort((a, b) => (b.updatedAt ?? 0) - (a.updatedAt ?? 0))
    .map(
      (x): SessionInfo => ({
        sessionId: x.sessionId,
        cwd: x.workspace?.workspacePath ?? cwd ?? "",
        ...(x.title ? { title: x.title } : {}),
        ...rfc3339(x.updatedAt),
      }),
    );
  const start = cursor ? decodeCursor(cursor) : 0;
  const page = items.slice(start, start + LIST_PAGE);
  const next = start + LIST_PAGE < items.length ? encodeCursor(start + LIST_PAGE) : undefined;
  return { sessions: page, ...(next ? { nextCursor: next } : {}) };
}
