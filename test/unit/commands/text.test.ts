import { describe, expect, test } from "bun:test";
import { code, notSupportedText, quote, usageLine, usageOf } from "../../../src/commands/text.ts";

describe("command text", () => {
  test("usage lines", () => {
    expect(usageOf({ name: "fork" })).toBe("/fork");
    expect(usageOf({ name: "steer", hint: "<instructions>" })).toBe("/steer <instructions>");
    expect(usageLine({ name: "steer", hint: "<instructions>" })).toBe("Usage: `/steer <instructions>`");
    expect(usageLine({ name: "steer", hint: "<instructions>" }, "Needs text.")).toBe("Needs text.\n\nUsage: `/steer <instructions>`");
    expect(notSupportedText("steer", "0.16.9")).toBe("`/steer` is not supported by ZCode CLI 0.16.9");
  });

  test("inline code survives backticks; quotes are per line", () => {
    expect(code("sess_1")).toBe("`sess_1`");
    expect(code("a`b")).toBe("`` a`b ``");
    expect(quote("a\nb")).toBe("> a\n> b");
  });
});
