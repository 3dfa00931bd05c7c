import { describe, expect, test } from "bun:test";
import { CAPS_015, CAPS_016, runCommand } from "../support/commands-fakes.ts";

const USAGES = [
  "`/fork`",
  "`/rewind [new prompt]`",
  "`/goal [objective | replace <objective> | clear | pause | resume]`",
  "`/compact [instructions]`",
  "`/steer <instructions>`",
  "`/mode <mode>`",
  "`/model <name or id>`",
  "`/thought <level>`",
  "`/quota`",
  "`/help`",
];

describe("/help", () => {
  test("every command with its usage; on 0.16 steer and rewind marked unsupported", async () => {
    const r = await runCommand("/help", {}, { caps: CAPS_016(), version: "0.16.9" });
    expect(r.calls).toEqual([]);
    const text = r.said.join("");
    for (const usage of USAGES) expect(text).toContain(usage);
    expect(text).toContain(
      "- `/steer <instructions>` — Add instructions to the turn that is running, without stopping it (not supported by ZCode CLI 0.16.9)",
    );
    expect(text.match(/not supported/g)).toHaveLength(2);
  });

  test("on 0.15 nothing is marked", async () => {
    const r = await runCommand("/help", {}, { caps: CAPS_015(), version: "0.15.3" });
    expect(r.said.join("")).not.toContain("not supported");
  });
});
