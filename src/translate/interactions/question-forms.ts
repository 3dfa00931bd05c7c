import type { ElicitationPropertySchema } from "@agentclientprotocol/sdk/unstable";
import { t } from "../../i18n/index.ts";
import {
  PLAN_APPROVAL_APPROVE,
  PLAN_APPROVAL_QUESTION,
  type Question,
  type UserInputAnswer,
  type UserInputRequestParams,
} from "../../zcode/request-schemas.ts";

// ZCode's questions (AskUserQuestion) and plan approval as ACP elicitation
// forms, and the form's answer back as ZCode's interaction broker reads it:
// `content.answers` keyed by the question's text, a label (or labels for a
// multi-select) as the value.

function optionValue(o: Question["options"][number]): string {
  return o.value ?? o.label;
}

/** Property key of question i in the form (question texts make poor keys). */
function questionKey(i: number): string {
  return `q_${i}`;
}

export const OTHER_FIELD = "other";

/** One form for all questions: an enum per single choice, an array of enums per multi-select, free text. */
export function questionsForm(questions: readonly Question[]): Record<string, ElicitationPropertySchema> {
  const props: Record<string, ElicitationPropertySchema> = {};
  questions.forEach((q, i) => {
    const choices = q.options.map((o) => ({
      const: optionValue(o),
      title: o.label,
      ...(o.description ? { description: o.description } : {}),
    }));
    const base = { title: q.question, ...(q.header ? { description: q.header } : {}) };
    props[questionKey(i)] = q.multiSelect
      ? { type: "array", ...base, items: { anyOf: choices } }
      : { type: "string", ...base, oneOf: choices };
  });
  const words = t().bridge.question;
  props[OTHER_FIELD] = { type: "string", title: words.otherTitle, description: words.otherDescription };
  return props;
}

/** Maps a chosen value (or a label a client sent back instead) to the option value. */
function normalizeChoice(q: Question, raw: unknown): string | undefined {
  if (typeof raw !== "string" || raw === "") return undefined;
  const byValue = q.options.find((o) => optionValue(o) === raw);
  if (byValue) return optionValue(byValue);
  const byLabel = q.options.find((o) => o.label === raw);
  return byLabel ? optionValue(byLabel) : raw;
}

/**
 * Form answer → ZCode's accept content. The free-text field answers every
 * question left without a choice; when all have one, it goes to ZCode as a
 * note on the first question (`annotations`) rather than being lost.
 */
export function answersFromForm(questions: readonly Question[], content: Record<string, unknown>): Record<string, unknown> {
  const answers: Record<string, unknown> = {};
  const otherRaw = content[OTHER_FIELD];
  const other = typeof otherRaw === "string" && otherRaw.trim() ? otherRaw.trim() : undefined;
  let otherUsed = false;
  questions.forEach((q, i) => {
    const raw = content[questionKey(i)];
    if (q.multiSelect) {
      const list = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw])
        .map((x) => normalizeChoice(q, x))
        .filter((x): x is string => x !== undefined);
      if (list.length > 0) answers[q.question] = list;
      else if (other) {
        answers[q.question] = [other];
        otherUsed = true;
      }
    } else {
      const choice = normalizeChoice(q, raw);
      if (choice !== undefined) answers[q.question] = choice;
      else if (other) {
        answers[q.question] = other;
        otherUsed = true;
      }
    }
  });
  const first = questions[0];
  if (other && !otherUsed && first) return { answers, annotations: { [first.question]: { notes: other } } };
  return { answers };
}

/** The question and value ZCode reads a plan approval from (as it asked, else its fixed wording). */
function planQuestion(p: UserInputRequestParams): { question: string; approve: string } {
  const q = (p.questions ?? p.input?.questions ?? [])[0];
  const approve = q?.options.find((o) => optionValue(o).toLowerCase() === PLAN_APPROVAL_APPROVE) ?? q?.options[0];
  return { question: q?.question ?? PLAN_APPROVAL_QUESTION, approve: approve ? optionValue(approve) : PLAN_APPROVAL_APPROVE };
}

/**
 * A plan approval's answer. ZCode approves only when the answer is "approve";
 * any other text is feedback that keeps it planning (it reads the text as the
 * user's reply); an accept with no answer at all would be read as a rejection.
 */
export function planAnswer(p: UserInputRequestParams, verdict: { approve: true } | { approve: false; feedback?: string }): UserInputAnswer {
  const { question, approve } = planQuestion(p);
  const answer = verdict.approve ? approve : verdict.feedback?.trim();
  if (!answer) return { action: "decline" };
  return { action: "accept", content: { answers: { [question]: answer }, answer_0: answer } };
}

/** The plan approval form: approve or keep planning, with an optional note for the agent. */
export function planForm() {
  const words = t().bridge.plan;
  return {
    type: "object" as const,
    title: words.formTitle,
    properties: {
      decision: {
        type: "string" as const,
        title: words.decision,
        oneOf: [
          { const: "approve", title: words.approve },
          { const: "reject", title: words.reject },
        ],
        default: "approve",
      },
      feedback: {
        type: "string" as const,
        title: words.feedbackTitle,
        description: words.feedbackDescription,
      },
    },
    required: ["decision"],
  };
}
