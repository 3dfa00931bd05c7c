import type { ZCodeApi } from "../zcode/api.ts";
import type { SlashCommand } from "./registry.ts";
import { code } from "./text.ts";

export interface ForkedSession {
  /** The new session's id (ZCode's and ACP's: the bridge uses ZCode ids). */
  sessionId: string;
  title: string;
}

/**
 * Forks a session at its latest checkpoint. Shared by `/fork` and ACP's
 * `session/fork`, so both send exactly the same request.
 */
export async function forkSession(api: ZCodeApi, sessionId: string): Promise<ForkedSession> {
  const result = await api.fork({ sessionId, target: { kind: "latestCheckpoint" } });
  return { sessionId: result.forkedSessionId, title: result.snapshot?.session?.title ?? "" };
}

export const forkCommand: SlashCommand = {
  name: "fork",
  description: "Fork this conversation into a new session (from the latest checkpoint)",
  requires: "session/fork",
  async run(ctx) {
    const fork = await forkSession(ctx.api, ctx.sessionId);
    const title = fork.title.trim() ? `“${fork.title.trim()}”` : "(untitled)";
    await ctx.say(
      `Forked this conversation into a new session ${code(fork.sessionId)}: ${title}.\n\n` +
        "It is in the session list: open it there to continue from this point. This session is unchanged.",
    );
  },
};
