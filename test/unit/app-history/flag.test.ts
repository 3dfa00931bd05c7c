// --no-app-history and ZCODE_ACP_APP_HISTORY, resolved like every other setting.

import { describe, expect, test } from "bun:test";
import { resolveConfig } from "../../../src/cli/config.ts";
import { defaultConfig } from "../../../src/config.ts";
import { serveFlags } from "../../../src/cli/flags.ts";
import { parseStrict } from "../../../src/cli/strict-args.ts";
import { UsageError } from "../../../src/cli/usage-error.ts";

describe("the app-history setting", () => {
  test("a config built in code (as tests build them) leaves the developer's app alone", () => {
    expect(defaultConfig().appHistory).toBe(false);
  });

  test("on by default from the command line; an empty variable counts as unset", () => {
    expect(resolveConfig({}, {}).appHistory).toBe(true);
    expect(resolveConfig({}, { ZCODE_ACP_APP_HISTORY: "" }).appHistory).toBe(true);
  });

  test("--no-app-history turns it off, whatever the variable says", () => {
    const { flags } = parseStrict(["--no-app-history"], serveFlags);
    expect(resolveConfig(flags, {}).appHistory).toBe(false);
    expect(resolveConfig(flags, { ZCODE_ACP_APP_HISTORY: "1" }).appHistory).toBe(false);
    expect(() => parseStrict(["--no-app-history=1"], serveFlags)).toThrow(UsageError);
  });

  test("ZCODE_ACP_APP_HISTORY=0 turns it off; a value that is not a switch is a usage error", () => {
    for (const v of ["0", "false", "off", "no", " OFF "]) expect(resolveConfig({}, { ZCODE_ACP_APP_HISTORY: v }).appHistory).toBe(false);
    for (const v of ["1", "true", "on", "yes"]) expect(resolveConfig({}, { ZCODE_ACP_APP_HISTORY: v }).appHistory).toBe(true);
    expect(() => resolveConfig({}, { ZCODE_ACP_APP_HISTORY: "maybe" })).toThrow(/ZCODE_ACP_APP_HISTORY/);
  });
});
