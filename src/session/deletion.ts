import { log } from "../log.ts";
import { internalError, isNotActive, sessionNotFound } from "../translate/errors.ts";
import { t } from "../i18n/index.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import type { WorkspaceArg } from "../zcode/api.ts";

const logger = log.withTag("bridge");

/** How many of ZCode's sessions are searched for the workspace of one to delete that ZCode has not open. */
const DELETE_LOOKUP_LIMIT = 1000;

/** ACP session/delete's error when ZCode's delete did nothing (the session is not forgotten). */
export function notDeleted(id: string) {
  return internalError(t().errors.notDeleted(id), { sessionId: id });
}

/**
 * ZCode's "delete" (v4 deleteSession, legacy session/close: a close of the
 * live session, session-mgmt.ts:164-181). It takes only a session live in
 * the child: one ZCode holds already (open here, or just resumed by a load
 * under way) is deleted at once, without resuming it again; any other is
 * resumed first in `cwd`, else in the workspace ZCode lists it under.
 * False when ZCode answered that it did nothing.
 */
export async function deleteInZCode(api: ZCodeApi, id: string, cwd: string | undefined): Promise<boolean> {
  await api.conn.start();
  try {
    return await api.deleteSession(id);
  } catch (err) {
    if (!isNotActive(err)) throw err;
  }
  const workspace: WorkspaceArg | undefined =
    cwd ?? (await api.list({ limit: DELETE_LOOKUP_LIMIT })).sessions.find((x) => x.sessionId === id)?.workspace;
  if (!workspace) throw sessionNotFound(id);
  await api.resume({ sessionId: id, workspace });
  logger.debug(`resumed ${id} to delete it`);
  return api.deleteSession(id);
}
