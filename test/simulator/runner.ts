// Starts and ends turns: prompt parsing (#scenario tags), the turn.started /
// turn.completed|turn.failed frame around a scenario, checkpoints and usage.
import { scenarios } from "./scenarios/index.ts";
import type { Sim } from "./sim.ts";
import { newId } from "./store.ts";
import { Stopped, Turn } from "./turn.ts";
import type { SessionRecord } from "./types.ts";
import { log } from "./wire.ts";

export interface ParsedPrompt {
  scenario: string;
  params: Record<string, string>;
  /** The prompt without the tag and its key=value words. */
  text: string;
}

const TAG = /#scenario:([A-Za-z0-9_-]+)((?:[ \t]+[A-Za-z_][A-Za-z0-9_]*=\S*)*)/;

export function parsePrompt(content: string, dflt: string): ParsedPrompt {
  const m = TAG.exec(content);
  if (!m) return { scenario: dflt, params: {}, text: content.trim() };
  const params: Record<string, string> = {};
  for (const w of m[2]!.trim().split(/\s+/)) {
    if (!w) continue;
    const eq = w.indexOf("=");
    params[w.slice(0, eq)] = w.slice(eq + 1);
  }
  const text = (content.slice(0, m.index) + content.slice(m.index + m[0].length)).replace(/\s+/g, " ").trim();
  return { scenario: m[1]!, params, text };
}

/**
 * Claims the session for a turn synchronously (so a second send in the same
 * tick gets 1308 and an early stop is not lost); `runTurn` then plays it.
 */
export function prepareTurn(sim: Sim, s: SessionRecord, raw: string, p: ParsedPrompt): Turn {
  const turn = new Turn(sim, s, p.text, raw, p.scenario, p.params);
  sim.rt(s.id).turn = turn;
  s.status = "running";
  s.currentTurnId = turn.id;
  s.projectionMode = s.mode;
  if (!s.title) s.title = (p.text || raw).slice(0, 50);
  return turn;
}

/** Runs a prepared turn to its end. Resolves when the final events are stored. */
export async function runTurn(turn: Turn): Promise<void> {
  const { sim, s, raw } = turn;
  const rt = sim.rt(s.id);
  const scenario = scenarios[turn.scenario];
  const messagesBefore = s.messages.length;
  const todosBefore = structuredClone(s.todos);
  s.messages.push({ info: { id: newId("msg"), role: "user", createdAt: Date.now() }, parts: [{ type: "text", text: raw }] }, turn.assistant);
  sim.store.touch(s);
  try {
    // Not via turn.emit: even a turn stopped before it began is framed by started/completed.
    sim.emit(s, "turn.started", { turnId: turn.id, inputSource: "user" }, { turnId: turn.id });
    turn.check();
    if (!scenario) {
      turn.failure = { code: 1500, message: `unknown simulator scenario "${turn.scenario}" (known: ${Object.keys(scenarios).join(", ")})` };
    } else await scenario(turn);
  } catch (e) {
    if (e instanceof Stopped) turn.resultType = "cancelled";
    else {
      log(`scenario ${turn.scenario} threw: ${(e as Error).stack ?? e}`);
      turn.failure = { code: 1500, message: `simulator scenario failed: ${(e as Error).message}` };
    }
  }
  if (turn.stopped && !turn.failure) turn.resultType = "cancelled";
  for (const part of turn.assistant.parts) {
    if (part.type === "tool" && (part.state.status === "pending" || part.state.status === "running")) {
      part.state = { status: "error", error: turn.failure ? turn.failure.message : "Interrupted by user" };
    }
  }
  const usage = turn.usage();
  s.usage = {
    inputTokens: s.usage.inputTokens + usage.inputTokens,
    outputTokens: s.usage.outputTokens + usage.outputTokens,
    totalTokens: s.usage.totalTokens + usage.totalTokens,
  };
  s.contextUsed = usage.inputTokens + usage.outputTokens;
  turn.assistant.info.finish = turn.failure ? "error" : turn.resultType;
  // Idle before turn.completed goes out, so a prompt sent on seeing it is accepted.
  s.status = "idle";
  s.currentTurnId = null;
  rt.turn = undefined;
  const opts = { turnId: turn.id };
  if (turn.failure) {
    sim.emit(s, "turn.failed", { turnId: turn.id, error: turn.failure }, { ...opts, live: turn.live("turn.failed") });
  } else {
    s.turnCount++;
    s.checkpoints.push({
      checkpointId: newId("ckpt"),
      turnId: turn.id,
      messagesBefore,
      messagesAfter: s.messages.length,
      todosBefore,
      todosAfter: structuredClone(s.todos),
      createdAt: Date.now(),
    });
    sim.emit(s, "turn.completed", { turnId: turn.id, resultType: turn.resultType, usage }, { ...opts, live: turn.live("turn.completed") });
  }
  sim.emit(s, "session.updated", { usage: { inputTokens: usage.inputTokens, outputTokens: usage.outputTokens }, contextWindow: turn.contextWindow() }, { live: turn.live("session.updated") });
  sim.store.touch(s);
}
