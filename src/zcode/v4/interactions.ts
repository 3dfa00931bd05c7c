import type { PendingInteraction } from "./frame-schemas.ts";

// snapshot.pendingInteractions (snapshot.ts `pendingInteractionSchema`) → the
// legacy reverse requests the session layer already answers
// (interaction/requestPermission, interaction/requestUserInput, read by
// request-schemas.ts and session/interaction-router.ts), and the legacy answer
// → the v4 `resolveInteraction` payload (command.ts). How ZCode reads that
// payload: bootstrap/src/zcode-protocol-v4/interaction-registry.ts
// `V4InteractionAnswer` and the broker beside the legacy server
// (`v4AnswerToPermissionResponse`: an optionId of the pending entry, else
// allowOnce/allowAlways, anything else is a deny with freeText as feedback;
// `v4AnswerToUserInputResponse` / `v4AnswerToPlanApprovalResponse`: an
// `action` is passed through with its `content`, exactly as the legacy
// userInput response).

/** A pending interaction as the projector hands it out: ZCode's entry plus the session it belongs to. */
export type PendingInteractionView = PendingInteraction & { sessionId: string };

/** command.ts `resolveInteraction` payload. */
export interface ResolveInteractionPayload {
  interactionId: string;
  answer: { optionId?: string; freeText?: string; action?: "accept" | "decline" | "cancel"; content?: Record<string, unknown> };
}

/** The legacy request method for each v4 interaction. */
export const PERMISSION_METHOD = "interaction/requestPermission";
export const USER_INPUT_METHOD = "interaction/requestUserInput";

/** The broker's plan question (interaction-broker `EXIT_PLAN_MODE_APPROVAL_QUESTION`); request-schemas.ts has the same words. */
const PLAN_QUESTION = "Review this implementation plan.";
const PLAN_TOOLS = /^exitplanmode$/i;

/** v4 permission option kind (snapshot.ts) → the legacy option kind the bridge maps to ACP. */
const LEGACY_KIND: Record<string, string> = { allowOnce: "allow_once", allowAlways: "allow_always", deny: "deny" };

type Obj = Record<string, unknown>;
const isObj = (x: unknown): x is Obj => typeof x === "object" && x !== null && !Array.isArray(x);
const str = (x: unknown): string | undefined => (typeof x === "string" ? x : undefined);

/** The legacy reverse request (method and params) that asks the editor this interaction; undefined for a kind the bridge cannot ask. */
export function legacyRequestOf(i: PendingInteractionView): { method: string; params: unknown } | undefined {
  const p = i.payload as Obj;
  const base = { requestId: i.interactionId, sessionId: i.sessionId };
  if (p.kind === "permission") {
    const toolName = str(p.toolName) ?? "";
    if (PLAN_TOOLS.test(toolName)) return planRequest(base, str(p.toolCallId), toolName, p.detail, str(p.summary));
    const options = (Array.isArray(p.options) ? (p.options as Obj[]) : []).flatMap((o) => {
      // custom options (workflow Refine, full access) need what an ACP permission prompt cannot give: left out.
      const kind = LEGACY_KIND[String(o.kind)];
      if (!kind || typeof o.optionId !== "string") return [];
      // The answer carries the v4 option back: the legacy answer is the option's own response, verbatim.
      const decision = kind.startsWith("allow") ? "allow" : "deny";
      return [{ optionId: o.optionId, kind, name: str(o.label), response: { decision, v4OptionId: o.optionId } }];
    });
    return {
      method: PERMISSION_METHOD,
      params: {
        ...base,
        toolCallId: str(p.toolCallId),
        toolName,
        reason: str(p.summary) ?? null,
        ...(p.detail !== undefined ? { input: p.detail } : {}),
        options,
      },
    };
  }
  if (p.kind === "userInput") {
    const schema = isObj(p.schema) ? p.schema : undefined;
    const toolName = str(p.toolName);
    if (schema?.interaction === "plan_approval" || (toolName && PLAN_TOOLS.test(toolName)))
      return planRequest(base, str(p.toolCallId), toolName ?? "ExitPlanMode", p.input, str(p.prompt));
    let questions = Array.isArray(p.questions) ? (p.questions as Obj[]) : [];
    // A prompt with options and no questions (a generic ask): one question the router can show.
    if (questions.length === 0 && Array.isArray(p.options) && p.options.length > 0)
      questions = [
        {
          question: str(p.prompt) ?? "",
          options: (p.options as Obj[]).map((o) => ({ label: str(o.label) ?? "", value: str(o.optionId) })),
        },
      ];
    return {
      method: USER_INPUT_METHOD,
      params: {
        ...base,
        toolCallId: str(p.toolCallId),
        toolName,
        prompt: str(p.prompt),
        ...(schema ? { schema } : {}),
        ...(p.input !== undefined ? { input: p.input } : {}),
        questions: questions.map((q) => ({
          question: str(q.question) ?? "",
          header: str(q.header),
          multiSelect: q.multiSelect === true,
          options: (Array.isArray(q.options) ? (q.options as Obj[]) : []).map((o) => ({
            label: str(o.label) ?? "",
            value: str(o.value),
            description: str(o.description),
          })),
        })),
      },
    };
  }
  return undefined;
}

/** A plan approval as the legacy server asked it (interaction-broker `requestExitPlanModeApproval`). */
function planRequest(
  base: { requestId: string; sessionId: string },
  toolCallId: string | undefined,
  toolName: string,
  input: unknown,
  prompt?: string,
) {
  return {
    method: USER_INPUT_METHOD,
    params: {
      ...base,
      toolCallId,
      toolName,
      prompt,
      schema: { interaction: "plan_approval", toolName },
      ...(input !== undefined ? { input } : {}),
      questions: [
        {
          question: PLAN_QUESTION,
          header: "Plan",
          options: [{ label: "Approve", value: "approve", description: "Exit plan mode and start implementation." }],
        },
      ],
    },
  };
}

/** The bridge's answer to that legacy request → ZCode's resolveInteraction payload. */
export function resolveAnswerOf(i: PendingInteractionView, legacyAnswer: unknown): ResolveInteractionPayload {
  const a = isObj(legacyAnswer) ? legacyAnswer : {};
  const interactionId = i.interactionId;
  const request = legacyRequestOf(i);
  if (request?.method === PERMISSION_METHOD) {
    const options = ((request.params as { options: { optionId: string; kind: string }[] }).options ?? []).map((o) => o);
    const picked = str(a.v4OptionId);
    if (picked && options.some((o) => o.optionId === picked)) return { interactionId, answer: { optionId: picked } };
    // An answer the bridge made up (no option offered, or a cancel): allow or deny by ZCode's own ids.
    const allow = a.decision === "allow";
    const optionId = options.find((o) => (allow ? o.kind === "allow_once" : o.kind === "deny"))?.optionId ?? (allow ? "allowOnce" : "deny");
    return { interactionId, answer: { optionId } };
  }
  // userInput and plan approval: the legacy response is passed on as it is (action + content).
  const action = a.action === "accept" || a.action === "decline" || a.action === "cancel" ? a.action : "decline";
  const content = isObj(a.content) ? a.content : undefined;
  return { interactionId, answer: { action, ...(action === "accept" ? { content: content ?? {} } : {}) } };
}
