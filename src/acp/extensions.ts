import * as v from "valibot";
import type { ContentBlock } from "@agentclientprotocol/sdk/unstable";
import { t } from "../i18n/index.ts";
import { invalidParams } from "../translate/errors.ts";

// The goal and steering extensions the Claude and Codex ACP agents offer
// (claude-agent-acp docs/goal-extension.md and docs/air-extensions.md;
// JetBrains Air uses them). They are typed slash commands underneath:
// `_session/goal` runs `/goal …` and `_session/steering` runs `/steer …`
// through the session's command path, so they behave exactly as typed.

export const GOAL_METHOD = "_session/goal";
export const STEERING_METHOD = "_session/steering";

const GOAL_ACTIONS = ["set", "pause", "resume", "clear"] as const;
type GoalAction = (typeof GOAL_ACTIONS)[number];

/** `_meta` of the initialize result: what the two extensions support. */
export function extensionsAdvertised(): Record<string, unknown> {
  return {
    goal: { version: 1, controlMethod: GOAL_METHOD, actions: [...GOAL_ACTIONS] },
    steering: { supported: true },
  };
}

const GoalParams = v.looseObject({
  sessionId: v.string(),
  action: v.picklist(GOAL_ACTIONS),
  objective: v.optional(v.nullable(v.string())),
});

const SteeringParams = v.looseObject({
  sessionId: v.string(),
  prompt: v.array(v.unknown()),
  _meta: v.optional(v.nullable(v.unknown())),
});

function parsed<S extends v.GenericSchema>(schema: S, method: string, params: unknown): v.InferOutput<S> {
  const r = v.safeParse(schema, params);
  if (!r.success) throw invalidParams(`${method}: ${r.issues.map((i) => `${v.getDotPath(i) ?? "params"}: ${i.message}`).join("; ")}`);
  return r.output;
}

/** `_session/goal` params, as the command the user would type. */
export function goalRequest(params: unknown): { sessionId: string; action: GoalAction; typed: string; objective?: string } {
  const p = parsed(GoalParams, GOAL_METHOD, params);
  const objective = p.objective?.trim() ?? "";
  if (p.action === "set") {
    if (!objective) throw invalidParams(t().errors.goalNeedsObjective);
    // `/goal clear` would read as the action: a set always names its objective after `replace`.
    return { sessionId: p.sessionId, action: p.action, typed: `/goal replace ${objective}`, objective };
  }
  return { sessionId: p.sessionId, action: p.action, typed: `/goal ${p.action}` };
}

/** `_session/steering` params: the text to steer with (ZCode steers with text only). */
export function steeringRequest(params: unknown): { sessionId: string; text: string } {
  const p = parsed(SteeringParams, STEERING_METHOD, params);
  const text = (p.prompt as ContentBlock[])
    .filter(
      (b): b is Extract<ContentBlock, { type: "text" }> => !!b && typeof b === "object" && b.type === "text" && typeof b.text === "string",
    )
    .map((b) => b.text)
    .join("\n")
    .trim();
  if (!text) throw invalidParams(t().errors.steeringNeedsText);
  return { sessionId: p.sessionId, text };
}

/** What `_session/steering` answers (the outcomes the Claude and Codex agents use). */
export type SteeringOutcome = { outcome: "injected" } | { outcome: "promptRequired"; reason: "noRunningTurn" };
