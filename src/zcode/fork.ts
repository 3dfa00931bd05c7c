import type { ZCodeApi } from "./api.ts";

// The one fork the bridge makes: at the session's latest checkpoint. Shared by
// `/fork` and ACP's `session/fork`, so both send exactly the same request.

export interface ForkedSession {
  /** The new session's id (ZCode's and ACP's: the bridge uses ZCode ids). */
  sessionId: string;
  title: string;
}

export async function forkAtLatestCheckpoint(api: ZCodeApi, sessionId: string): Promise<ForkedSession> {
  const result = await api.fork({ sessionId, target: { kind: "latestCheckpoint" } });
  return { sessionId: result.forkedSessionId, title: result.snapshot?.session?.title ?? "" };
}
