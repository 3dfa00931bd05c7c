// --no-prewarm and ZCODE_ACP_PREWARM: serve mode starts ZCode ahead of the
// first session unless one of them says not to; a value that is neither on
// nor off is a usage error naming the variable (the cli table's notOnOff,
// as for ZCODE_ACP_APP_HISTORY).
import { expect, test } from "bun:test";
import { resolveConfig } from "../../../src/cli/config.ts";
import { UsageError } from "../../../src/cli/usage-error.ts";

const prewarm = (flags: Record<string, string | boolean>, env: Record<string, string | undefined>) => resolveConfig(flags, env).prewarm;

test("on by default, and for an empty variable (editors' settings templates)", () => {
  expect(prewarm({}, {})).toBe(true);
  expect(prewarm({}, { ZCODE_ACP_PREWARM: "" })).toBe(true);
});

test("off with --no-prewarm, whatever the variable says", () => {
  expect(prewarm({ "no-prewarm": true }, {})).toBe(false);
  expect(prewarm({ "no-prewarm": true }, { ZCODE_ACP_PREWARM: "1" })).toBe(false);
});

test("the variable takes 0/1, false/true, no/yes, off/on, in any case", () => {
  for (const v of ["0", "false", "No", "OFF", " off "]) expect(prewarm({}, { ZCODE_ACP_PREWARM: v })).toBe(false);
  for (const v of ["1", "true", "Yes", "ON"]) expect(prewarm({}, { ZCODE_ACP_PREWARM: v })).toBe(true);
});

test("anything else is a usage error that names the variable", () => {
  expect(() => prewarm({}, { ZCODE_ACP_PREWARM: "maybe" })).toThrow(UsageError);
  expect(() => prewarm({}, { ZCODE_ACP_PREWARM: "2" })).toThrow(/ZCODE_ACP_PREWARM: '2' is not 0 or 1/);
});
