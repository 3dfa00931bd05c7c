import { describe, expect, test } from "bun:test";
import { CliCapabilities, compareVersions, extractVersion, parseVersion } from "../../../src/zcode/capabilities.ts";

describe("versions", () => {
  test("parse and compare, four parts included", () => {
    expect(parseVersion("v0.14.8")).toEqual([0, 14, 8, 0]);
    expect(parseVersion("zcode 0.14.8.2 (abc)")).toEqual([0, 14, 8, 2]);
    expect(parseVersion("dev")).toBeUndefined();
    expect(compareVersions("0.14.8", "0.14.7")).toBeGreaterThan(0);
    expect(compareVersions("0.14.8.1", "0.14.8")).toBeGreaterThan(0);
    expect(compareVersions("0.15.0", "0.15.0")).toBe(0);
    expect(compareVersions("0.9.9", "0.10.0")).toBeLessThan(0);
    expect(extractVersion("ZCode CLI version 0.16.2\n")).toBe("0.16.2");
  });
});

describe("CliCapabilities follows the compatibility table", () => {
  const methods = [
    "session/create",
    "session/subscribe",
    "session/fork",
    "session/goal",
    "session/compact",
    "session/setMode",
    "session/setThoughtLevel",
    "session/steer",
    "session/rewind",
    "workspace/list",
  ];
  const table: [string, boolean, string[]][] = [
    ["0.14.7", false, []],
    [
      "0.14.8",
      true,
      [
        "session/create",
        "session/subscribe",
        "session/fork",
        "session/goal",
        "session/compact",
        "session/setMode",
        "session/setThoughtLevel",
      ],
    ],
    [
      "0.14.8.3",
      true,
      [
        "session/create",
        "session/subscribe",
        "session/fork",
        "session/goal",
        "session/compact",
        "session/setMode",
        "session/setThoughtLevel",
      ],
    ],
    ["0.15.3", true, methods],
    ["0.16.0", true, methods.filter((m) => m !== "session/steer" && m !== "session/rewind")],
    ["0.16.2", true, methods.filter((m) => m !== "session/steer" && m !== "session/rewind")],
  ];
  for (const [version, supported, yes] of table) {
    test(version, () => {
      const c = new CliCapabilities(version);
      expect(c.version).toBe(version);
      expect(c.supported).toBe(supported);
      expect(methods.filter((m) => c.supports(m))).toEqual(yes);
    });
  }

  test("an unreadable version is given the benefit of the doubt", () => {
    const c = new CliCapabilities("dev-build");
    expect(c.supported).toBe(true);
    expect(c.supports("session/steer")).toBe(true);
  });

  test("markUnsupported removes a method once and tells listeners once", () => {
    const c = new CliCapabilities("0.15.3");
    let calls = 0;
    const off = c.onChange(() => calls++);
    c.markUnsupported("session/goal");
    c.markUnsupported("session/goal");
    expect(c.supports("session/goal")).toBe(false);
    expect(calls).toBe(1);
    off();
    c.markUnsupported("session/fork");
    expect(calls).toBe(1);
    expect(c.supports("session/fork")).toBe(false);
  });
});
