// Scenario registry: the name after `#scenario:` → what the turn does.
import type { Turn } from "../turn.ts";
import { basicScenarios } from "./basic.ts";
import { faultScenarios } from "./faults.ts";
import { interactiveScenarios } from "./interactive.ts";
import { subagentScenarios } from "./subagent.ts";
import { toolScenarios } from "./tools.ts";

export type Scenario = (t: Turn) => Promise<void>;

export const scenarios: Record<string, Scenario> = {
  ...basicScenarios,
  ...toolScenarios,
  ...interactiveScenarios,
  ...faultScenarios,
  ...subagentScenarios,
};
