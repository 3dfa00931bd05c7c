import type { ZCodeConnection } from "../connection.ts";
import { V4Channel } from "./channel.ts";

// A stored session made live in the child without session/resume's answer.
// session/resume answers with the conversation's whole snapshot, every
// message of it (server-operations.ts resumeSession → snapshot() without a
// messageLimit): hundreds of MB for a long conversation, all of it read,
// parsed and dropped by the bridge before the first update of a load. A v4
// read of a session that is not live cold-resumes it instead
// (activateSessionForResume, server-operations.ts: "只恢复 session runtime
// 生命周期，不物化任何协议表示", the path V4 cold subscribe took for this very
// reason), after which legacy session/read, subscribe and messages serve it
// as after a resume. That read takes no workspace and no MCP servers: the
// session comes back in the workspace it was stored with and with what its
// record has (activateSessionForResume: `params.workspace ?? …session.path`).

/** One row (the smallest read ZCode allows: core.ts rowsRange limit ≥ 1) of the session, read to make it live. */
export async function coldOpen(conn: ZCodeConnection, sessionId: string): Promise<void> {
  await new V4Channel(conn).rows(sessionId, { limit: 1 });
}
