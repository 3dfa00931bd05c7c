// What a finished tool came to, from real tool results and history parts:
// failure, exit code, error text, and a command's output without ZCode's
// bookkeeping.
import { describe, expect, test } from "bun:test";
import { commandText, outcomeOfPart, outcomeOfResult } from "../../../../src/translate/tools/outcome.ts";
import { streamsOutput } from "../../../../src/translate/tools/presentation.ts";
import { TOOLS } from "../../support/bridge-fixtures.ts";

describe("outcomes", () => {
  test("Bash: the exit code from result.perf.detail.command", () => {
    expect(outcomeOfResult(streamsOutput("Bash"), TOOLS.bash.result)).toMatchObject({
      exitCode: 0,
      failed: false,
      text: "total 0\nfile.txt",
    });
  });

  test("Bash that exited non-zero is still success:true on the wire, but a failed command", () => {
    const o = outcomeOfResult(streamsOutput("Bash"), TOOLS.bashFailed.result);
    expect(o).toMatchObject({ exitCode: 2, failed: true });
    expect(o.error).toContain("make: *** [test] Error 2");
  });

  test("grep's exit 1 without ZCode's `Exit code` line is not a failure", () => {
    expect(outcomeOfResult(streamsOutput("Bash"), TOOLS.bashGrepNothing.result)).toMatchObject({ exitCode: 1, failed: false });
  });

  test("a timed-out or unspawnable command failed; the `Exit code` line alone gives the code", () => {
    expect(
      outcomeOfResult(streamsOutput("Bash"), {
        success: true,
        content: "",
        perf: { detail: { kind: "command", command: { status: "timed_out" } } },
      }).failed,
    ).toBe(true);
    expect(
      outcomeOfResult(streamsOutput("Bash"), {
        success: true,
        content: "x",
        perf: { detail: { kind: "command", command: { status: "spawn_error" } } },
      }).failed,
    ).toBe(true);
    expect(outcomeOfResult(streamsOutput("Bash"), { success: true, content: "Exit code 127\nsh: nope: not found" })).toMatchObject({
      exitCode: 127,
      failed: true,
    });
  });

  test("success:false is a failure, with the error's message when there is one", () => {
    expect(
      outcomeOfResult(streamsOutput("Read"), {
        success: false,
        content: "File does not exist.",
        error: { type: "tool_execution_failed", message: "File does not exist. Note: …" },
      }),
    ).toMatchObject({
      failed: true,
      error: "File does not exist. Note: …",
    });
    expect(outcomeOfResult(streamsOutput("Read"), { success: false, content: "nope" })).toMatchObject({ failed: true, error: "nope" });
    expect(outcomeOfResult(streamsOutput("Read"), undefined)).toEqual({ text: undefined, display: {}, failed: false });
  });

  test("non-command tools have no exit code, even with an `Exit code` text", () => {
    const o = outcomeOfResult(streamsOutput("Read"), { success: true, content: "Exit code 2\nx" });
    expect(o.failed).toBe(false);
    expect("exitCode" in o).toBe(false);
  });

  test("history parts: output, display from metadata, error status, Bash `Exit code N`", () => {
    expect(
      outcomeOfPart(streamsOutput("Edit"), { status: "completed", output: "ok", metadata: { display: { kind: "file_diff" } } }),
    ).toEqual({
      text: "ok",
      display: { kind: "file_diff" },
      failed: false,
    });
    expect(outcomeOfPart(streamsOutput("Edit"), { status: "error", error: "String to replace not found in file." })).toEqual({
      display: {},
      failed: true,
      error: "String to replace not found in file.",
    });
    expect(outcomeOfPart(streamsOutput("Bash"), { status: "error" }).error).toBe("Tool failed");
    expect(outcomeOfPart(streamsOutput("Bash"), { status: "completed", output: "Exit code 3\nboom" })).toMatchObject({
      exitCode: 3,
      failed: true,
    });
    expect(outcomeOfPart(streamsOutput("Bash"), { status: "completed", output: "fine" })).toEqual({
      text: "fine",
      display: {},
      failed: false,
      exitCode: undefined,
    });
  });

  test("commandText: the output without ZCode's exit line or no-output placeholder; bash_output display preferred", () => {
    expect(commandText(outcomeOfResult(streamsOutput("Bash"), TOOLS.bashFailed.result))).toBe("make: *** [test] Error 2");
    expect(commandText(outcomeOfResult(streamsOutput("Bash"), TOOLS.bashSilent.result))).toBe("");
    expect(commandText(outcomeOfResult(streamsOutput("Bash"), TOOLS.bashLarge.result))).toBe("line 1\nline 2\nline 3");
    expect(commandText({ display: {}, failed: false })).toBe("");
  });
});
