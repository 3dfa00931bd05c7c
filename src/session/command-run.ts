import type { PromptResponse, SessionUpdate } from "@agentclientprotocol/sdk/unstable";
import { type CommandContext, matchCommand, type SlashCommand } from "../commands/registry.ts";
import { t } from "../i18n/index.ts";
import { log } from "../log.ts";
import type { SessionHost } from "./host.ts";
import { waitIdle } from "./reads.ts";
import { Turn } from "./turn.ts";
import { textContent } from "../translate/tools/format.ts";

// Slash commands run by the session: as a prompt of their own (holding the
// session's queue like a turn, and cancellable like one), or beside a running
// turn (/steer). A command runs through the session's withActive path, so a
// session ZCode evicted meanwhile is resumed and the command run once more.

const logger = log.withTag("commands");

/** A command cancelled before ZCode was asked to work for it; its prompt answered `cancelled` already. */
class CommandCancelledError extends Error {
  constructor() {
    super("the command was cancelled before ZCode was asked");
  }
}

interface Run {
  signal: AbortSignal;
  /** Tool calls the command opened and has not finished: failed on cancel. */
  openTools: Set<string>;
  /** ZCode is doing work for the command (a goal, a compaction) while it waits. */
  zcodeWorking: boolean;
}

function contextFor(s: SessionHost, args: string, run?: Run): CommandContext {
  const messageId = crypto.randomUUID();
  // Once the prompt answered `cancelled`, the command goes on unseen.
  const emit = (u: SessionUpdate) => {
    if (run?.signal.aborted) return;
    if (run && (u.sessionUpdate === "tool_call" || u.sessionUpdate === "tool_call_update")) {
      if (u.status === "completed" || u.status === "failed") run.openTools.delete(u.toolCallId);
      else if (u.sessionUpdate === "tool_call") run.openTools.add(u.toolCallId);
    }
    s.emit(u);
  };
  return {
    sessionId: s.id,
    cwd: s.cwd,
    args,
    env: s.env,
    api: s.api,
    say: async (text) => emit({ sessionUpdate: "agent_message_chunk", messageId, content: { type: "text", text } }),
    update: async (u) => emit(u),
    features: s.features,
    trackCompaction: (id) => s.memory.compactionStarted(id),
    notice: async (level, text) => {
      if (!run?.signal.aborted) s.notice(level, text);
    },
    turnRunning: () => s.work.turnRunning(),
    cancelled: () => run?.signal.aborted === true,
    goalChanged: () => s.refreshGoalQuietly(),
    waitIdle: async (budgetMs) => {
      if (run) run.zcodeWorking = true;
      try {
        return await waitIdle(s, budgetMs, () => run?.signal.aborted === true);
      } finally {
        if (run) run.zcodeWorking = false;
      }
    },
    zcodeWorks: () => {
      // Cancelled while it got ready (the editor left, the prompt was withdrawn):
      // the request never goes out, so there is nothing to stop afterwards.
      if (run?.signal.aborted) throw new CommandCancelledError();
      if (run) run.zcodeWorking = true;
    },
    options: () => s.options,
    setMode: (mode) => s.setMode(mode),
    setThoughtLevel: (level) => s.setThoughtLevel(level),
    setModel: (value) => s.setModel(value),
    cliVersion: () => s.api.capabilities()?.version ?? "unknown",
    holdingEvents: async (fn) => {
      const release = s.work.holdEvents();
      try {
        return await fn();
      } finally {
        release();
      }
    },
    runTurn: async (start) => {
      if (run?.signal.aborted) return;
      await new Turn(s, { text: args, attachments: [] }, { start }).run();
    },
  };
}

async function runIn(s: SessionHost, command: SlashCommand, ctx: CommandContext, run?: Run): Promise<void> {
  // A command that needs nothing from ZCode must not wait for (or fail on) a child restart.
  if (command.bridgeOnly) await command.run(ctx);
  else {
    await s.withActive(async () => {
      // Cancelled while the session was being resumed: ZCode never hears of it.
      if (run?.signal.aborted) return;
      await command.run(ctx);
    });
  }
  await s.flush();
}

/**
 * /steer and the like: runs at once, beside whatever turn is running. A
 * cancel (session/cancel, `$/cancel_request`, close) answers it `cancelled`
 * at once, whatever ZCode still has to say; nothing of it reaches the editor
 * after that. `steered`: ZCode admitted the steer.
 */
export async function runCommandBesideTurn(
  s: SessionHost,
  command: SlashCommand,
  args: string,
  signal?: AbortSignal,
): Promise<{ response: PromptResponse; steered: boolean }> {
  const abort = new AbortController();
  const holder = { cancel: () => abort.abort() };
  const cancel = () => abort.abort();
  s.work.besideBegan(holder);
  signal?.addEventListener("abort", cancel, { once: true });
  if (signal?.aborted) abort.abort();
  const cancelled = new Promise<void>((r) => abort.signal.addEventListener("abort", () => r(), { once: true }));
  const run: Run = { signal: abort.signal, openTools: new Set(), zcodeWorking: false };
  let steered = false;
  const ctx = contextFor(s, args, run);
  ctx.steered = () => {
    if (!abort.signal.aborted) steered = true;
  };
  try {
    const running = runIn(s, command, ctx, run);
    if (await Promise.race([running.then(() => true), cancelled.then(() => false)]))
      return { response: { stopReason: "end_turn" }, steered };
    running.catch((err) => logger.debug("cancelled command failed:", err));
    await s.flush();
    return { response: { stopReason: "cancelled" }, steered: false };
  } finally {
    signal?.removeEventListener("abort", cancel);
    s.work.besideEnded(holder);
  }
}

/**
 * `_session/steering`: `/steer <text>` beside the running turn, as typed.
 * True only when ZCode admitted the steer.
 */
export async function steerBesideTurn(s: SessionHost, text: string, signal: AbortSignal): Promise<boolean> {
  const match = matchCommand(`/steer ${text}`);
  if (!match) return false;
  return (await runCommandBesideTurn(s, match.command, match.args, signal)).steered;
}

/**
 * A slash command as a prompt: `end_turn` once it is done, `cancelled` at
 * once when the session cancels it (session/cancel, `$/cancel_request`,
 * close, the editor leaving). ZCode finishes its request unseen: nothing of
 * the command reaches the editor after the answer, a tool call it left open
 * is failed first, and work ZCode does for it (a goal, a compaction) is stopped.
 */
export async function runCommandPrompt(s: SessionHost, command: SlashCommand, args: string, signal: AbortSignal): Promise<PromptResponse> {
  const abort = new AbortController();
  const cancel = () => abort.abort();
  const holder = { cancel };
  s.work.commandBegan(holder);
  signal.addEventListener("abort", cancel, { once: true });
  const cancelled = new Promise<void>((r) => abort.signal.addEventListener("abort", () => r(), { once: true }));
  const run: Run = { signal: abort.signal, openTools: new Set(), zcodeWorking: false };
  try {
    const running = runIn(s, command, contextFor(s, args, run), run);
    if (await Promise.race([running.then(() => true), cancelled.then(() => false)])) return { stopReason: "end_turn" };
    running.catch((err) => logger.debug("cancelled command failed:", err));
    if (run.zcodeWorking) {
      s.work.expectLeftovers({ idleWait: true });
      // Stopping the work toward a goal pauses the goal in ZCode: said, or the user thinks it still runs.
      if (command.name === "goal") s.notice("info", t().commands.goal.pausedByCancel);
    }
    for (const toolCallId of run.openTools) {
      s.emit({ sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [textContent(t().tools.cancelled)] });
    }
    await s.flush();
    return { stopReason: "cancelled" };
  } finally {
    signal.removeEventListener("abort", cancel);
    s.work.commandEnded(holder);
  }
}
