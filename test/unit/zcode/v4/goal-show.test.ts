// `/goal` (show) on a v4-only ZCode: legacy's answer made from the goal the
// conversation snapshot carries (snapshot.ts goalStateSchema), since v4 has
// no command that shows one (command.ts, goal-compact.ts).
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { ConversationFrameSchema } from "../../../../src/zcode/v4/frame-schemas.ts";
import { goalShown } from "../../../../src/zcode/v4/goal-show.ts";
import { ConversationProjector } from "../../../../src/zcode/v4/row-events.ts";
import type { AssembledFrame } from "../../../../src/zcode/v4/wire-frames.ts";
import { deltasFrame, SESSION, snapshot, snapshotFrame } from "./frames.ts";

/** snapshot.ts goalStateSchema as the CLI projects it. */
function goal(status: string, objective = "Ship the login page") {
  return {
    targetId: "target_1",
    objective,
    summaryTitle: null,
    timeUsedSeconds: 42,
    activeRunStartedAtMs: null,
    status,
    iteration: 1,
    verifications: [],
    iterations: [],
  };
}

function projector() {
  const p = new ConversationProjector(SESSION, { event: () => {}, interaction: () => {}, interactionGone: () => {} });
  const apply = (frame: Record<string, unknown>) =>
    p.apply({ ...v.parse(ConversationFrameSchema, frame), deliveryKind: "online" } as AssembledFrame);
  return { p, apply };
}

describe("goalShown", () => {
  test("the snapshot's goal in legacy's lines; its later state.updated replaces it", () => {
    const { p, apply } = projector();
    apply(snapshotFrame(snapshot([], { goal: goal("active") })));
    expect(goalShown(p.state)).toEqual({ response: "Goal active\nObjective: Ship the login page\nTime: 42 seconds", startedTurn: false });
    apply(deltasFrame(10, [{ op: "state.updated", patch: { goal: goal("paused", "Ship it") } }]));
    expect(goalShown(p.state).response).toBe("Goal paused\nObjective: Ship it\nTime: 42 seconds");
  });

  test("v4's verifier states are an active target; verified is complete", () => {
    const pairs: Array<[string, string]> = [
      ["verifying", "active"],
      ["notSatisfied", "active"],
      ["verified", "complete"],
    ];
    for (const [v4, legacy] of pairs) expect(goalShown({ goal: goal(v4) }).response).toStartWith(`Goal ${legacy}\n`);
  });

  test("no goal: an empty answer (the command says there is none); a state it cannot read likewise", () => {
    const { p, apply } = projector();
    apply(snapshotFrame(snapshot([])));
    expect(goalShown(p.state)).toEqual({ startedTurn: false });
    expect(goalShown(undefined)).toEqual({ startedTurn: false });
    expect(goalShown({ goal: { status: "active" } })).toEqual({ startedTurn: false });
  });
});
