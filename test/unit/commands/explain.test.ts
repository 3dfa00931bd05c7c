// ZCode errors any command can meet, as replies a person can act on.
import { describe, expect, test } from "bun:test";
import { errorCode, explainFailure } from "../../../src/commands/explain.ts";
import { compactCommand } from "../../../src/commands/compact.ts";
import { FakeCaps, fakeApi, fakeContext, zerr } from "../support/commands-fakes.ts";

function explain(err: unknown, caps = new FakeCaps()) {
  const { api } = fakeApi({}, caps);
  return explainFailure(compactCommand, fakeContext(api, { version: "0.16.9" }).ctx, err);
}

describe("explainFailure", () => {
  test("-32601: not supported, and the method marked off", () => {
    const caps = new FakeCaps();
    expect(explain(zerr(-32601, "Method not found: session/compact", "session/compact"), caps)).toBe(
      "`/compact` is not supported by ZCode CLI 0.16.9",
    );
    expect(caps.supports("session/compact")).toBe(false);
    // Without a method on the error: the command's own.
    const other = new FakeCaps();
    explain({ code: -32601, message: "Method not found" }, other);
    expect(other.supports("session/compact")).toBe(false);
  });

  test("busy (-32010 on real CLIs, 1308 in the seed document)", () => {
    for (const code of [-32010, 1308])
      expect(explain(zerr(code, "Cannot compact while a prompt is running", "session/compact"))).toContain("busy with a running turn");
  });

  test("-32602: ZCode's reason with the usage", () => {
    expect(explain(zerr(-32602, "Invalid params — instructions: Too long", "session/compact"))).toBe(
      "ZCode rejected `/compact`: Invalid params — instructions: Too long\n\nUsage: `/compact [instructions]`",
    );
  });

  test("anything else is not explained here", () => {
    expect(explain(zerr(-32004, "Session is not active: s", "session/compact"))).toBeUndefined();
    expect(explain(new Error("x"))).toBeUndefined();
  });

  test("errorCode reads a numeric code from anything", () => {
    expect(errorCode({ code: -32010 })).toBe(-32010);
    expect(errorCode({ code: "x" })).toBeUndefined();
    expect(errorCode(null)).toBeUndefined();
    expect(errorCode("e")).toBeUndefined();
  });
});
