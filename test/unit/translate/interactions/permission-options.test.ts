// ZCode's permission options as ACP options; the answer for the option the
// user picked is that option's own `response`, verbatim.
import { describe, expect, test } from "bun:test";
import { acpOptionKind, permissionOptions } from "../../../../src/translate/interactions/permission-options.ts";
import type { PermissionOption } from "../../../../src/zcode/request-schemas.ts";
import { DENIED_BY_USER, PERMISSION_OPTIONS } from "../../support/bridge-fixtures.ts";

describe("acpOptionKind", () => {
  test("ZCode's kinds", () => {
    expect(acpOptionKind("allow_once")).toBe("allow_once");
    expect(acpOptionKind("allow_always")).toBe("allow_always");
    // "Always allow in this session": not asked again, which is what allow_always promises.
    expect(acpOptionKind("allow_session")).toBe("allow_always");
    expect(acpOptionKind("deny")).toBe("reject_once");
  });

  test("other spellings: exact, by prefix (always making it permanent), by option id", () => {
    expect(acpOptionKind("deny_once")).toBe("reject_once");
    expect(acpOptionKind("deny_always")).toBe("reject_always");
    expect(acpOptionKind("reject")).toBe("reject_once");
    expect(acpOptionKind("allow_always_for_project")).toBe("allow_always");
    expect(acpOptionKind("approve")).toBe("allow_once");
    expect(acpOptionKind("ALLOW_ONCE")).toBe("allow_once");
    expect(acpOptionKind(undefined, "deny_always")).toBe("reject_always");
    expect(acpOptionKind("weird", "allow")).toBe("allow_once");
    expect(acpOptionKind("weird", "x")).toBeUndefined();
    expect(acpOptionKind(undefined)).toBeUndefined();
  });
});

describe("permissionOptions", () => {
  const offered = permissionOptions(PERMISSION_OPTIONS as PermissionOption[]);

  test("ZCode's three options, on ACP's kinds, with ZCode's names and ids", () => {
    expect(offered.options).toEqual([
      { optionId: "allow_once", name: "Allow once", kind: "allow_once" },
      { optionId: "allow_project", name: "Always allow in this project", kind: "allow_always" },
      { optionId: "deny", name: "Deny", kind: "reject_once" },
    ]);
  });

  test("the chosen option's response is the answer, verbatim (permissionUpdates included)", () => {
    expect(offered.answerFor("allow_once")).toEqual({ decision: "allow", reason: "Approved once" });
    expect(offered.answerFor("allow_project")).toEqual({
      decision: "allow",
      permissionUpdates: [{ behavior: "allow", rules: [{ toolName: "Bash", ruleContent: "rm -rf build" }], type: "addRules" }],
      reason: "Approved for this project",
    });
    expect(offered.answerFor("deny")).toEqual({ decision: "deny", reason: DENIED_BY_USER });
    // The very object ZCode sent: nothing rebuilt, nothing dropped.
    expect(offered.answerFor("allow_project")).toBe(PERMISSION_OPTIONS[1]!.response as never);
  });

  test("an id the request did not offer is a denial naming it", () => {
    expect(offered.answerFor("bogus")).toEqual({ decision: "deny", reason: 'unknown option "bogus"' });
  });

  test("the session option of newer builds", () => {
    const o = permissionOptions([
      { optionId: "allow_once", kind: "allow_once", name: "Allow once", response: { decision: "allow" } },
      {
        optionId: "allowSession",
        kind: "allow_session",
        name: "Always allow in this session",
        response: { decision: "allow", reason: "Approved for this session" },
      },
    ]);
    expect(o.options.map((x) => x.kind)).toEqual(["allow_once", "allow_always"]);
    expect(o.answerFor("allowSession")).toEqual({ decision: "allow", reason: "Approved for this session" });
  });

  test("options without a response: allow or deny by kind; without a name: a default one", () => {
    const o = permissionOptions([
      { optionId: "ok", kind: "allow_once" },
      { optionId: "no", kind: "deny" },
    ]);
    expect(o.options).toEqual([
      { optionId: "ok", name: "Allow", kind: "allow_once" },
      { optionId: "no", name: "Reject", kind: "reject_once" },
    ]);
    expect(o.answerFor("ok")).toEqual({ decision: "allow" });
    expect(o.answerFor("no")).toEqual({ decision: "deny", reason: "Rejected by the user" });
  });

  test("unknown kinds are dropped; none usable → Allow / Reject", () => {
    expect(
      permissionOptions([
        { optionId: "x", kind: "weird" },
        { optionId: "ok", kind: "allow_once" },
      ]).options,
    ).toEqual([{ optionId: "ok", name: "Allow", kind: "allow_once" }]);
    for (const none of [undefined, [], [{ optionId: "x", kind: "weird" }]]) {
      const o = permissionOptions(none);
      expect(o.options.map((x) => [x.optionId, x.kind])).toEqual([
        ["allow", "allow_once"],
        ["reject", "reject_once"],
      ]);
      expect(o.answerFor("allow")).toEqual({ decision: "allow" });
      expect(o.answerFor("reject")).toEqual({ decision: "deny", reason: "Rejected by the user" });
    }
  });
});
