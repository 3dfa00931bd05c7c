// Scenario registry: the name after `#scenario:` → what the turn does.
import type { Turn } from "../turn.ts";
import { basicScenarios } from "./basic.ts";
import { faultScenarios } from "./faults.ts";
import { interactiveScenarios } from "./interactive.ts";
import { subagentScenarios } from "./subagent.ts";
import { readSpec } from "./fixtures.ts";
import { toolScenarios, useTools } from "./tools.ts";

export type Scenario = (t: Turn) => Promise<void>;

export const scenarios: Record<string, Scenario> = {
  ...basicScenarios,
  ...toolScenarios,
  ...interactiveScenarios,
  ...faultScenarios,
  ...subagentScenarios,
};

/**
 * `rows=N`, taken by every scenario: N Reads (one parallel group) before
 * the scenario runs, so the turn has more rows than a rowsRange page holds
 * (200: core.ts rowsRangeMaxLimit).
 */
export async function extraRows(t: Turn): Promise<void> {
  const n = t.num("rows", 0);
  if (n > 0)
    await useTools(
      t,
      Array.from({ length: n }, () => readSpec(t.ws)),
      { parallel: true },
    );
}
