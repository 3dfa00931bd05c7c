// --auto-compact's values: N% of the context window, or N / Nk tokens at or
// above a minimum; a bare 80 is refused with the % it probably meant.
import { expect, test } from "bun:test";
import { MIN_AUTO_COMPACT_PERCENT, MIN_AUTO_COMPACT_TOKENS, parseAutoCompact, resolveConfig } from "../../../src/cli/config.ts";
import { UsageError } from "../../../src/cli/usage-error.ts";

const parse = (raw: string) => parseAutoCompact(raw, "--auto-compact");
const refusal = (raw: string) => {
  try {
    parse(raw);
  } catch (e) {
    expect(e).toBeInstanceOf(UsageError);
    return (e as Error).message;
  }
  throw new Error(`${raw} was accepted`);
};

test("percentages, token counts and k-suffixed counts", () => {
  expect(parse("80%")).toEqual({ percent: 80 });
  expect(parse("12.5%")).toEqual({ percent: 12.5 });
  expect(parse(`${MIN_AUTO_COMPACT_PERCENT}%`)).toEqual({ percent: MIN_AUTO_COMPACT_PERCENT });
  expect(parse("100%")).toEqual({ percent: 100 });
  expect(parse("150000")).toEqual({ tokens: 150_000 });
  expect(parse("150k")).toEqual({ tokens: 150_000 });
  expect(parse("12.5K")).toEqual({ tokens: 12_500 });
  expect(parse(String(MIN_AUTO_COMPACT_TOKENS))).toEqual({ tokens: MIN_AUTO_COMPACT_TOKENS });
});

test("a bare number up to 100 is refused with the percentage it probably meant, and why", () => {
  const m = refusal("80");
  expect(m).toContain("'80' tokens is below 10k");
  expect(m).toContain("compacted after nearly every turn");
  expect(m).toContain("write 80%");
  expect(refusal("9999")).not.toContain("9999%");
  expect(refusal("9.9k")).toContain("below 10k");
});

test("a percentage below 10% is refused for the reason a count below 10k is: one clear minimum", () => {
  for (const raw of ["0.001%", "1%", "9.9%", "0%"]) {
    const m = refusal(raw);
    expect(m).toContain(`'${raw}' is below 10% of the context window`);
    expect(m).toContain("compacted after nearly every turn");
  }
  // A bare 5 is not suggested as 5%, which would be refused too.
  expect(refusal("5")).not.toContain("5%");
});

test("not a threshold at all", () => {
  for (const raw of ["lots", "120%", "15000.5", "-5", "1e6", "k", ""]) {
    expect(refusal(raw)).toContain("is not a token count");
  }
});

test("--mode and ZCODE_ACP_MODE are checked against ZCode's modes, naming where the value came from", () => {
  expect(resolveConfig({ mode: "guarded" }, {}).mode).toBe("guarded");
  expect(() => resolveConfig({ mode: "bogus" }, {})).toThrow(
    "--mode: 'bogus' is not a mode ZCode knows (one of plan, build, edit, yolo, guarded, auto)",
  );
  expect(() => resolveConfig({}, { ZCODE_ACP_MODE: "Plan" })).toThrow("ZCODE_ACP_MODE: 'Plan' is not a mode ZCode knows");
});
