import * as v from "valibot";
import { loose, maybe, str, bool, tolerantArray } from "./schemas.ts";

// Requests the CLI sends us (ids are strings such as "server-1"), read
// tolerantly, and the answers we send, typed exactly as ZCode's strict schema
// reads them (packages/shared/src/zcode-protocol/index.ts and the interaction
// broker beside the CLI's server).

// ---------------------------------------------------------------- interaction/requestPermission

/** ZCode's answer for an option, to be sent back verbatim ("always" options carry permissionUpdates). */
export const PermissionResponseSchema = loose({ decision: str });

export const PermissionOptionSchema = loose({
  optionId: str,
  /** allow_once, allow_always, deny (and allow_session on newer builds). */
  kind: maybe(str),
  name: maybe(str),
  description: maybe(str),
  response: maybe(PermissionResponseSchema),
});
export type PermissionOption = v.InferOutput<typeof PermissionOptionSchema>;

export const PermissionRequestParamsSchema = loose({
  requestId: str,
  sessionId: str,
  toolCallId: maybe(str),
  toolName: maybe(str),
  reason: maybe(v.nullable(str)),
  riskLevel: maybe(str),
  input: maybe(v.unknown()),
  options: maybe(tolerantArray(PermissionOptionSchema)),
});
export type PermissionRequestParams = v.InferOutput<typeof PermissionRequestParamsSchema>;

/** What ZCode's broker accepts (strict): the option's own response, or a decision we make up when it gave none. */
export type PermissionAnswer = {
  decision: "allow" | "deny" | "escalate" | "modify";
  reason?: string;
  modifiedInput?: unknown;
  permissionUpdates?: unknown[];
};

// ---------------------------------------------------------------- interaction/requestUserInput

export const QuestionOptionSchema = loose({ label: str, value: maybe(str), description: maybe(str) });
export const QuestionSchema = loose({
  question: str,
  header: maybe(str),
  multiSelect: maybe(bool),
  options: tolerantArray(QuestionOptionSchema),
});
export type Question = v.InferOutput<typeof QuestionSchema>;

export const UserInputRequestParamsSchema = loose({
  requestId: str,
  sessionId: str,
  toolCallId: maybe(str),
  toolName: maybe(str),
  prompt: maybe(str),
  /** `{interaction:"plan_approval"}` for an ExitPlanMode approval. */
  schema: maybe(loose({ interaction: maybe(str), toolName: maybe(str) })),
  input: maybe(loose({ plan: maybe(str), questions: maybe(tolerantArray(QuestionSchema)) })),
  questions: maybe(tolerantArray(QuestionSchema)),
});
export type UserInputRequestParams = v.InferOutput<typeof UserInputRequestParamsSchema>;

/**
 * ZCode reads `content.answers[<question text>]` (a label, or labels for a
 * multi-select) and, for the plan approval, also `content.answer_0`; an accept
 * without an answer is a rejection.
 */
export type UserInputAnswer = { action: "accept"; content: Record<string, unknown> } | { action: "decline" } | { action: "cancel" };

/** The plan approval's one question, as ZCode asks it. */
export const PLAN_APPROVAL_QUESTION = "Review this implementation plan.";
export const PLAN_APPROVAL_APPROVE = "approve";

// ---------------------------------------------------------------- interaction/requestProviderRuntimeHeaders

export const ProviderHeadersParamsSchema = loose({
  requestId: maybe(str),
  sessionId: maybe(str),
  providerId: str,
  modelSelection: maybe(loose({ providerId: maybe(str), modelId: maybe(str) })),
  reason: maybe(str),
  /** A re-ask after the provider refused a key: the SHA-256 (hex) of that key, never to be answered again. */
  rejectedProjectTokenFingerprint: maybe(str),
  expectedAccountScope: maybe(str),
});
export type ProviderHeadersParams = v.InferOutput<typeof ProviderHeadersParamsSchema>;

export type ProviderHeadersAnswer =
  | { headersApplied: true; requestAuth: { apiKey: string; accountScope?: string } }
  | { headersApplied: false; errorMessage: string };

// ---------------------------------------------------------------- session/requestRuntimePreferences

/**
 * Strict on ZCode's side. Memory and question auto-resolution stay off: an
 * editor session should not learn behind the user's back, and a question must
 * wait for the person in front of the editor.
 */
export const RUNTIME_PREFERENCES = {
  nativeSearchEnhancementsEnabled: false,
  memoryEnabled: false,
  askUserQuestionAutoResolutionEnabled: false,
} as const;
