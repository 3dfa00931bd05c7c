// The log level is one setting for every logger: a tagged logger made at
// import time, before the CLI resolved --log-level, obeys the level set later.
import { describe, expect, test } from "bun:test";
import { captureStderr } from "./support/captured-stderr.ts";
import { log, setLogLevel } from "../../src/log.ts";

// Made before any level is set, as a module-level `log.withTag(...)` is.
const early = log.withTag("early");
const earlyNested = early.withTag("nested");

const stderr = captureStderr();

describe("log level", () => {
  test("a tagged logger created before setLogLevel follows the level set afterwards, up and down", () => {
    setLogLevel("debug");
    early.debug("seen at debug");
    earlyNested.debug("nested too");
    setLogLevel("error");
    early.warn("not seen at error");
    earlyNested.warn("nor this");
    early.error("errors still seen");
    setLogLevel("silent");
    early.error("nothing at silent");
    const text = stderr.lines.join("");
    expect(text).toContain("DEBUG [early] seen at debug");
    expect(text).toContain("DEBUG [early:nested] nested too");
    expect(text).not.toContain("not seen at error");
    expect(text).not.toContain("nor this");
    expect(text).toContain("ERROR [early] errors still seen");
    expect(text).not.toContain("nothing at silent");
  });

  test("loggers created after the level was set see it too, and all report the one level", () => {
    setLogLevel("info");
    const late = log.withTag("late");
    late.info("info from late");
    early.info("info from early");
    expect(stderr.lines.join("")).toContain("INFO [late] info from late");
    expect(stderr.lines.join("")).toContain("INFO [early] info from early");
    expect([log.level, early.level, earlyNested.level, late.level]).toEqual([log.level, log.level, log.level, log.level]);
    setLogLevel("trace");
    expect(early.level).toBe(log.level);
    expect(log.level).toBeGreaterThan(3);
  });
});
