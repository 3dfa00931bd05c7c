// Which of v4's session phases (snapshot.ts sessionPhaseSchema) the bridge reads as running.
import { expect, test } from "bun:test";
import { statusOf } from "../../../../src/zcode/v4/only-reads.ts";

test("only prewarming and running are running; a failed session (error) is not, so a wait for idle ends", () => {
  const phases = ["draft", "prewarming", "running", "completedSuccess", "completedInterrupted", "error"];
  expect(phases.map((p) => statusOf(p) === "running")).toEqual([false, true, true, false, false, false]);
});
