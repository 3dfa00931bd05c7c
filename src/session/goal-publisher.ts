import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";

// The goal extension (JetBrains Air, `_session/goal`): ZCode's goal
// (projection.target) in session_info_update `_meta.goal`, null once cleared,
// sent only when it changed and only to a client that takes it (it advertised
// the goal extension, or drives this session's goal through `_session/goal`).

export type GoalTarget = { objective: string; status?: string | undefined } | null | undefined;

export class GoalPublisher {
  /** JSON of the goal last published (undefined: never published). */
  private lastKey: string | undefined;
  /** The client drove this session's goal through `_session/goal`: it gets the goal's state too. */
  private controlled = false;

  constructor(
    private readonly clientTakesGoals: () => boolean,
    private readonly emit: (u: SessionUpdate) => void,
  ) {}

  /** The client drives this session's goal through `_session/goal`: it gets the goal's state from now on. */
  drivenByClient(): void {
    this.controlled = true;
  }

  /** `target` undefined: not known (nothing is said); null: cleared. */
  publish(target: GoalTarget): void {
    if (target === undefined || !(this.clientTakesGoals() || this.controlled)) return;
    const goal = target ? { objective: target.objective, status: target.status ?? "active", controlMethod: "_session/goal" } : null;
    const key = JSON.stringify(goal);
    if (key === this.lastKey || (this.lastKey === undefined && goal === null)) return;
    this.lastKey = key;
    this.emit({ sessionUpdate: "session_info_update", _meta: { goal } });
  }
}
