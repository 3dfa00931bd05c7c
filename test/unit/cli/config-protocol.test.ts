// --zcode-protocol / ZCODE_ACP_ZCODE_PROTOCOL, and what doctor makes of a
// CLI's answers under each setting (v4/only-choice.ts decideProtocol).
import { describe, expect, test } from "bun:test";
import { resolveConfig } from "../../../src/cli/config.ts";
import { UsageError } from "../../../src/cli/usage-error.ts";
import { decideProtocol } from "../../../src/zcode/v4/only-choice.ts";

const protocol = (flags: Record<string, string | boolean>, env: Record<string, string | undefined>) =>
  resolveConfig(flags, env).zcodeProtocol;

describe("the setting", () => {
  test("auto by default, and for an empty variable", () => {
    expect(protocol({}, {})).toBe("auto");
    expect(protocol({}, { ZCODE_ACP_ZCODE_PROTOCOL: "" })).toBe("auto");
  });
  test("the flag wins over the variable; case and blanks do not matter", () => {
    expect(protocol({ "zcode-protocol": "v4" }, { ZCODE_ACP_ZCODE_PROTOCOL: "legacy" })).toBe("v4");
    expect(protocol({}, { ZCODE_ACP_ZCODE_PROTOCOL: " Legacy " })).toBe("legacy");
  });
  test("anything else is a usage error naming where it came from and the choices", () => {
    expect(() => protocol({ "zcode-protocol": "v3" }, {})).toThrow(UsageError);
    expect(() => protocol({}, { ZCODE_ACP_ZCODE_PROTOCOL: "new" })).toThrow(
      "ZCODE_ACP_ZCODE_PROTOCOL: 'new' is not a ZCode protocol (one of auto, legacy, v4)",
    );
  });
});

describe("doctor's verdict", () => {
  const cli015 = { v4: "no", legacy: "yes" } as const;
  const cli016 = { v4: "yes", legacy: "yes" } as const;
  const v4only = { v4: "yes", legacy: "no" } as const;
  test("auto: legacy for 0.15 and 0.16, v4 for a v4-only CLI", () => {
    expect(decideProtocol("auto", cli015)).toEqual({ protocol: "legacy", reason: "autoLegacyOnly" });
    expect(decideProtocol("auto", cli016)).toEqual({ protocol: "legacy", reason: "autoLegacyAndV4" });
    expect(decideProtocol("auto", v4only)).toEqual({ protocol: "v4", reason: "autoV4Only" });
    expect(decideProtocol("auto", { v4: "no", legacy: "no" })).toEqual({ reason: "neither" });
    expect(decideProtocol("auto", { v4: "unknown", legacy: "unknown" })).toEqual({ protocol: "legacy", reason: "autoUnknown" });
  });
  test("forced: what was asked, or a failure when the CLI lacks it", () => {
    expect(decideProtocol("v4", cli016)).toEqual({ protocol: "v4", reason: "forcedV4" });
    expect(decideProtocol("v4", cli015)).toEqual({ reason: "forcedV4Missing" });
    expect(decideProtocol("legacy", cli016)).toEqual({ protocol: "legacy", reason: "forcedLegacy" });
    expect(decideProtocol("legacy", v4only)).toEqual({ reason: "forcedLegacyGone" });
  });
});
