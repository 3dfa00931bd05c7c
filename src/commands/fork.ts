import { t } from "../i18n/index.ts";
import type { ZCodeApi } from "../zcode/api.ts";
import { ZCODE_ERR } from "../zcode/errors.ts";
import { errorCode } from "./explain.ts";
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
  get description() {
    return t().commands.fork.description;
  },
  requires: "session/fork",
  async run(ctx) {
    let fork: ForkedSession;
    try {
      fork = await forkSession(ctx.api, ctx.sessionId);
    } catch (err) {
      if (!isNoCheckpoint(err)) throw err;
      await ctx.say(t().commands.fork.noCheckpoint);
      return;
    }
    await ctx.say(t().commands.fork.forked(code(fork.sessionId), fork.title.trim()));
  },
};

/**
 * ZCode has no checkpoint to fork from. Its code for that (the one /rewind
 * gets) or, since forkFromCheckpoint fails with a plain Error, its words.
 */
function isNoCheckpoint(err: unknown): boolean {
  if (errorCode(err) === ZCODE_ERR.noCheckpoint) return true;
  return /\bno checkpoint\b/i.test((err as Error | undefined)?.message ?? "");
}
