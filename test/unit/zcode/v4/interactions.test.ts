// snapshot.pendingInteractions entries (ZCode's snapshot.ts
// pendingInteractionSchema) → the legacy reverse-request params the session
// layer reads (request-schemas.ts), and the legacy answers → the v4
// resolveInteraction payload ZCode's broker maps back
// (bootstrap/src/conversation-product-protocol/interaction-broker.ts
// v4AnswerToPermissionResponse / v4AnswerToUserInputResponse).
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import { permissionOptions } from "../../../../src/translate/interactions/permission-options.ts";
import { planAnswer } from "../../../../src/translate/interactions/question-forms.ts";
import { PermissionRequestParamsSchema, UserInputRequestParamsSchema } from "../../../../src/zcode/request-schemas.ts";
import { PendingInteractionSchema } from "../../../../src/zcode/v4/frame-schemas.ts";
import { legacyRequestOf, type PendingInteractionView, resolveAnswerOf } from "../../../../src/zcode/v4/interactions.ts";

const view = (raw: unknown): PendingInteractionView => ({ ...v.parse(PendingInteractionSchema, raw), sessionId: "sess_1" });

const permission = view({
  interactionId: "perm-1",
  kind: "permission",
  anchorRowId: 3,
  createdAt: 1,
  payload: {
    kind: "permission",
    toolCallId: "call-3",
    toolName: "Bash",
    summary: "Run npm test",
    detail: { command: "npm test" },
    options: [
      { optionId: "allowOnce", label: "Allow once", kind: "allowOnce" },
      { optionId: "allowAlways", label: "Always allow", kind: "allowAlways" },
      { optionId: "deny", label: "Deny", kind: "deny" },
      // interactions-permission.ts: CreateWorkflow's Refine, a v4-only option that needs free text.
      { optionId: "workflowRefine", label: "Refine", kind: "custom", response: { decision: "deny", reason: "Denied" } },
    ],
    fullAccessOption: { optionId: "fullAccess", label: "Full access", kind: "custom" },
  },
});

describe("interactions", () => {
  test("a permission becomes interaction/requestPermission; the option picked comes back as its optionId", () => {
    const req = legacyRequestOf(permission);
    expect(req?.method).toBe("interaction/requestPermission");
    const params = v.parse(PermissionRequestParamsSchema, req?.params);
    expect(params).toMatchObject({
      requestId: "perm-1",
      sessionId: "sess_1",
      toolCallId: "call-3",
      toolName: "Bash",
      input: { command: "npm test" },
    });
    expect(params.options?.map((o) => [o.optionId, o.kind, o.name])).toEqual([
      ["allowOnce", "allow_once", "Allow once"],
      ["allowAlways", "allow_always", "Always allow"],
      ["deny", "deny", "Deny"],
    ]);
    // As the session layer answers: the picked option's own response, verbatim.
    const offered = permissionOptions(params.options);
    for (const id of ["allowOnce", "allowAlways", "deny"])
      expect(resolveAnswerOf(permission, offered.answerFor(id))).toEqual({ interactionId: "perm-1", answer: { optionId: id } });
    // A cancel (the router's made-up deny) is ZCode's deny.
    expect(resolveAnswerOf(permission, { decision: "deny", reason: "cancelled" }).answer).toEqual({ optionId: "deny" });
  });

  test("questions become interaction/requestUserInput; the answer's action and content pass through", () => {
    const i = view({
      interactionId: "ask-1",
      kind: "userInput",
      anchorRowId: null,
      createdAt: 1,
      payload: {
        kind: "userInput",
        prompt: "Pick one",
        freeText: true,
        toolName: "AskUserQuestion",
        toolCallId: "call-4",
        input: { questions: [] },
        questions: [{ question: "Which DB?", header: "DB", options: [{ value: "pg", label: "Postgres" }], multiSelect: false }],
      },
    });
    const req = legacyRequestOf(i);
    expect(req?.method).toBe("interaction/requestUserInput");
    const params = v.parse(UserInputRequestParamsSchema, req?.params);
    expect(params.questions?.[0]).toMatchObject({ question: "Which DB?", header: "DB", options: [{ label: "Postgres", value: "pg" }] });
    const accepted = { action: "accept", content: { answers: { "Which DB?": "Postgres" } } };
    expect(resolveAnswerOf(i, accepted)).toEqual({ interactionId: "ask-1", answer: accepted as never });
    expect(resolveAnswerOf(i, { action: "cancel" }).answer).toEqual({ action: "cancel" });
  });

  test("a plan approval is asked as the legacy plan_approval and its verdict passed on", () => {
    // interactions-permission.ts createPendingInteractionFromPermissionEvent: ExitPlanMode is a userInput.
    const i = view({
      interactionId: "plan-1",
      kind: "userInput",
      anchorRowId: 7,
      createdAt: 1,
      payload: {
        kind: "userInput",
        prompt: "Ready to code?",
        freeText: true,
        toolCallId: "call-7",
        toolName: "ExitPlanMode",
        input: { plan: "1. do it" },
        schema: { interaction: "plan_approval", toolName: "ExitPlanMode" },
        questions: [{ question: "Review this implementation plan.", header: "Plan", options: [{ value: "approve", label: "Approve" }] }],
      },
    });
    const req = legacyRequestOf(i);
    expect(req?.method).toBe("interaction/requestUserInput");
    const params = v.parse(UserInputRequestParamsSchema, req?.params);
    expect(params.schema?.interaction).toBe("plan_approval");
    expect(params.input?.plan).toBe("1. do it");
    const approve = planAnswer(params, { approve: true });
    expect(resolveAnswerOf(i, approve).answer).toEqual({
      action: "accept",
      content: { answers: { "Review this implementation plan.": "approve" }, answer_0: "approve" },
    });
    expect(resolveAnswerOf(i, { action: "decline" }).answer).toEqual({ action: "decline" });
  });

  test("a kind the bridge cannot ask (workspaceHookReview) has no legacy request", () => {
    const i = view({
      interactionId: "hook-1",
      kind: "workspaceHookReview",
      anchorRowId: null,
      createdAt: 1,
      payload: { kind: "workspaceHookReview" },
    });
    expect(legacyRequestOf(i)).toBeUndefined();
  });
});
