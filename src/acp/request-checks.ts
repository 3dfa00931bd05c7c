import { t } from "../i18n/index.ts";
import { invalidParams } from "../translate/errors.ts";

// Fields of session/new, load, resume and fork that ZCode cannot take. ZCode
// 0.16.9's session/create and session/resume params are strict and carry one
// workspace (`{workspacePath, workspaceIdentity?, remoteSessionId?,
// workspaceKey}`) and no instructions for its system prompt; session/send
// carries none either (jimpablo/ZCode@aac4755:
// packages/shared/src/zcode-protocol/index.ts `zcodeSessionCreateParamsSchema`,
// `zcodeSessionResumeParamsSchema`, `zcodeSessionSendParamsSchema`;
// packages/shared/src/zcode-protocol-legacy-types.ts `zcodeWorkspaceRefSchema`).
// So neither is advertised, and a client that sends one anyway is told so
// rather than getting a session that silently lacks what it asked for
// (ACP: an agent that cannot apply `systemPrompt` MUST return an error).

export function refuseUnsupportedFields(p: object): void {
  const { additionalDirectories, systemPrompt } = p as { additionalDirectories?: unknown; systemPrompt?: unknown };
  if (Array.isArray(additionalDirectories) && additionalDirectories.length > 0) {
    throw invalidParams(t().errors.noAdditionalDirectories, { additionalDirectories });
  }
  if (systemPrompt !== undefined && systemPrompt !== null) {
    throw invalidParams(t().errors.noSystemPrompt);
  }
}
