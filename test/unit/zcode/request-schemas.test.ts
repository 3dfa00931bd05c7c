// Requests the CLI sends us (interaction/*, session/requestRuntimePreferences),
// in the shapes ZCode's interaction broker builds them.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  PermissionRequestParamsSchema,
  PLAN_APPROVAL_APPROVE,
  PLAN_APPROVAL_QUESTION,
  ProviderHeadersParamsSchema,
  RUNTIME_PREFERENCES,
  UserInputRequestParamsSchema,
} from "../../../src/zcode/request-schemas.ts";
import { summarizeIssues } from "../../../src/zcode/schemas.ts";
import { PERMISSION_OPTIONS, permissionParams, PLAN_REQUEST } from "../support/bridge-fixtures.ts";

const ok = <S extends v.GenericSchema>(schema: S, value: unknown): v.InferOutput<S> => {
  const r = v.safeParse(schema, value);
  if (!r.success) throw new Error(`expected to parse: ${summarizeIssues(r.issues)}`);
  return r.output;
};
const bad = (schema: v.GenericSchema, value: unknown) => expect(v.safeParse(schema, value).success).toBe(false);

const PERMISSION_PARAMS = permissionParams();

describe("PermissionRequestParamsSchema", () => {
  test("the broker's request reads whole, each option with its own response", () => {
    const p = ok(PermissionRequestParamsSchema, PERMISSION_PARAMS);
    expect(p).toMatchObject({ requestId: "perm_1", sessionId: "s1", toolCallId: "call_1", toolName: "Bash", riskLevel: "high" });
    expect(p.options?.map((o) => [o.optionId, o.kind])).toEqual([
      ["allow_once", "allow_once"],
      ["allow_project", "allow_always"],
      ["deny", "deny"],
    ]);
    // The response is kept verbatim, permissionUpdates included (loose: nothing stripped).
    expect(p.options?.[1]?.response).toEqual(PERMISSION_OPTIONS[1]!.response);
  });

  test("requestId and sessionId are required; an unreadable option is dropped", () => {
    bad(PermissionRequestParamsSchema, { ...PERMISSION_PARAMS, requestId: undefined });
    bad(PermissionRequestParamsSchema, { ...PERMISSION_PARAMS, sessionId: 3 });
    const p = ok(PermissionRequestParamsSchema, { ...PERMISSION_PARAMS, options: [{ kind: "allow_once" }, ...PERMISSION_OPTIONS] });
    expect(p.options).toHaveLength(3);
    const noResponse = ok(PermissionRequestParamsSchema, {
      ...PERMISSION_PARAMS,
      options: [{ optionId: "x", kind: "allow_once", response: "allow" }],
    });
    expect(noResponse.options?.[0]?.response).toBeUndefined();
  });
});

describe("UserInputRequestParamsSchema", () => {
  test("a plan approval (ExitPlanMode)", () => {
    const p = ok(UserInputRequestParamsSchema, PLAN_REQUEST);
    expect(p.schema?.interaction).toBe("plan_approval");
    expect(p.input?.plan).toBe("1. a\n2. b");
    expect(p.questions?.[0]?.options[0]).toEqual({
      label: "Approve",
      value: "approve",
      description: "Exit plan mode and start implementation.",
    });
    expect(PLAN_APPROVAL_QUESTION).toBe("Review this implementation plan.");
    expect(PLAN_APPROVAL_APPROVE).toBe("approve");
  });

  test("questions (AskUserQuestion): value equals label, multiSelect per question", () => {
    const p = ok(UserInputRequestParamsSchema, {
      requestId: "r",
      sessionId: "s",
      schema: { toolName: "AskUserQuestion" },
      input: { questions: [{ question: "Which?", header: "Pick", multiSelect: false, options: [{ label: "A", description: "a" }] }] },
      questions: [
        {
          question: "Which?",
          header: "Pick",
          multiSelect: false,
          options: [{ label: "A", value: "A", description: "a", preview: "" }, { nolabel: true }],
        },
        { header: "no question text", options: [] },
      ],
    });
    expect(p.questions).toHaveLength(1);
    expect(p.questions?.[0]?.options).toEqual([{ label: "A", value: "A", description: "a", preview: "" }]);
    expect(p.input?.questions?.[0]?.question).toBe("Which?");
    bad(UserInputRequestParamsSchema, { sessionId: "s" });
  });
});

describe("provider headers and runtime preferences", () => {
  test("interaction/requestProviderRuntimeHeaders needs the provider id", () => {
    expect(
      ok(ProviderHeadersParamsSchema, {
        requestId: "h1",
        sessionId: "s",
        providerId: "account:zai-individual-coding-plan",
        modelSelection: { providerId: "account:zai-individual-coding-plan", modelId: "GLM-5.3" },
      }).providerId,
    ).toBe("account:zai-individual-coding-plan");
    bad(ProviderHeadersParamsSchema, { sessionId: "s" });
  });

  test("the runtime preferences answer has exactly ZCode's strict keys, memory and auto-answers off", () => {
    expect(RUNTIME_PREFERENCES).toEqual({
      nativeSearchEnhancementsEnabled: false,
      memoryEnabled: false,
      askUserQuestionAutoResolutionEnabled: false,
    });
  });
});
