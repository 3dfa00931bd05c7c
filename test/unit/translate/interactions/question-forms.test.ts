// AskUserQuestion and the plan approval as elicitation forms, and the answers
// back as ZCode's interaction broker reads them.
import { describe, expect, test } from "bun:test";
import * as v from "valibot";
import {
  answersFromForm,
  OTHER_FIELD,
  planAnswer,
  planForm,
  questionsForm,
} from "../../../../src/translate/interactions/question-forms.ts";
import { UserInputRequestParamsSchema, type Question, type UserInputRequestParams } from "../../../../src/zcode/request-schemas.ts";
import { checkAgentMessage } from "../../../support/schema.ts";
import { PLAN_REQUEST, QUESTIONS, questionRequest } from "../../support/bridge-fixtures.ts";

const request = (p: unknown): UserInputRequestParams => v.parse(UserInputRequestParamsSchema, p);
const QS: Question[] = request(questionRequest()).questions!;

/** The form must be an elicitation/create the SDK accepts. */
function expectValidForm(properties: unknown): void {
  const msg = {
    jsonrpc: "2.0",
    id: 1,
    method: "elicitation/create",
    params: { mode: "form", sessionId: "s1", toolCallId: "c", message: "?", requestedSchema: { type: "object", properties } },
  };
  expect(checkAgentMessage(msg, () => undefined)).toEqual([]);
}

describe("questionsForm", () => {
  test("an enum per single choice, an array of enums per multi-select, a free-text field", () => {
    const props = questionsForm(QS) as Record<string, any>;
    expect(props.q_0).toEqual({
      type: "array",
      title: "Which files?",
      description: "Files",
      items: {
        anyOf: [
          { const: "auth.test.ts", title: "auth.test.ts" },
          { const: "user.test.ts", title: "user.test.ts" },
        ],
      },
    });
    expect(props.q_1).toEqual({
      type: "string",
      title: "Framework?",
      description: "Framework",
      oneOf: [
        { const: "Bun", title: "Bun", description: "fast" },
        { const: "Jest", title: "Jest" },
      ],
    });
    expect(props[OTHER_FIELD]).toMatchObject({ type: "string", title: "Other" });
    expectValidForm(props);
  });

  test("the plan form", () => {
    expect(planForm().properties.decision.oneOf.map((o) => o.const)).toEqual(["approve", "reject"]);
    expect(planForm().required).toEqual(["decision"]);
    expectValidForm(planForm().properties);
  });
});

describe("answersFromForm", () => {
  test("{answers: {<question text>: label | [labels]}}", () => {
    expect(answersFromForm(QS, { q_0: ["auth.test.ts", "user.test.ts"], q_1: "Bun" })).toEqual({
      answers: { "Which files?": ["auth.test.ts", "user.test.ts"], "Framework?": "Bun" },
    });
  });

  test("a value a client sent as a label, or a single value for a multi-select, is normalised", () => {
    const qs = [
      {
        question: "Pick",
        multiSelect: true,
        options: [
          { label: "Alpha", value: "a" },
          { label: "Beta", value: "b" },
        ],
      },
    ];
    expect(answersFromForm(qs, { q_0: "Beta" })).toEqual({ answers: { Pick: ["b"] } });
    expect(answersFromForm(qs, { q_0: ["a", "", 7, "Beta"] })).toEqual({ answers: { Pick: ["a", "b"] } });
  });

  test("the free text answers the questions left open", () => {
    expect(answersFromForm(QS, { q_1: "Bun", other: "  the flaky ones " })).toEqual({
      answers: { "Which files?": ["the flaky ones"], "Framework?": "Bun" },
    });
    expect(answersFromForm(QS, { q_0: ["auth.test.ts"], other: "Vitest" })).toEqual({
      answers: { "Which files?": ["auth.test.ts"], "Framework?": "Vitest" },
    });
  });

  test("a leftover note goes to ZCode as an annotation on the first question", () => {
    expect(answersFromForm(QS, { q_0: ["auth.test.ts"], q_1: "Bun", other: "note" })).toEqual({
      answers: { "Which files?": ["auth.test.ts"], "Framework?": "Bun" },
      annotations: { "Which files?": { notes: "note" } },
    });
  });

  test("nothing chosen: no answers (ZCode then reads the questions as skipped)", () => {
    expect(answersFromForm(QS, {})).toEqual({ answers: {} });
    expect(answersFromForm(QS, { other: "   " })).toEqual({ answers: {} });
  });
});

describe("planAnswer", () => {
  const plan = request(PLAN_REQUEST);

  test("approve → accept with the question's answer and answer_0", () => {
    expect(planAnswer(plan, { approve: true })).toEqual({
      action: "accept",
      content: { answers: { "Review this implementation plan.": "approve" }, answer_0: "approve" },
    });
  });

  test("feedback → the feedback as the answer (ZCode keeps planning and reads it)", () => {
    expect(planAnswer(plan, { approve: false, feedback: "  Split step 2.  " })).toEqual({
      action: "accept",
      content: { answers: { "Review this implementation plan.": "Split step 2." }, answer_0: "Split step 2." },
    });
  });

  test("reject without feedback → decline", () => {
    expect(planAnswer(plan, { approve: false })).toEqual({ action: "decline" });
    expect(planAnswer(plan, { approve: false, feedback: "   " })).toEqual({ action: "decline" });
  });

  test("without questions in the request: ZCode's fixed wording", () => {
    const bare = request({ requestId: "r", sessionId: "s", schema: { interaction: "plan_approval" }, input: { plan: "p" } });
    expect(planAnswer(bare, { approve: true })).toEqual({
      action: "accept",
      content: { answers: { "Review this implementation plan.": "approve" }, answer_0: "approve" },
    });
  });

  test("the question as ZCode asked it, and its approve value", () => {
    const asked = request({
      requestId: "r",
      sessionId: "s",
      questions: [
        {
          question: "Approve the plan?",
          options: [
            { label: "Keep planning", value: "keep" },
            { label: "Approve", value: "approve" },
          ],
        },
      ],
    });
    expect(planAnswer(asked, { approve: true })).toEqual({
      action: "accept",
      content: { answers: { "Approve the plan?": "approve" }, answer_0: "approve" },
    });
  });

  test("the fixture's questions match what the broker sends", () => {
    expect(QS.map((q) => q.question)).toEqual(QUESTIONS.map((q) => q.question));
  });
});
