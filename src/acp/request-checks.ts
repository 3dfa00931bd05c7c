// Checks every ACP version's handlers make of a request before anything
// reaches the bridge: a sign-in method we offer, an absolute cwd, no field
// ZCode cannot take.
import { isAbsolute } from "node:path";
import { t } from "../i18n/index.ts";
import { AUTH_METHOD_IDS } from "./initialize.ts";
import { invalidParams } from "../translate/errors.ts";

// The fields: of session/new, load, resume and fork that ZCode cannot take. ZCode
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

/** The cwd of a session request: absolute, or the client's mistake. */
export function checkCwd(cwd: string): void {
  if (!isAbsolute(cwd)) throw invalidParams(t().errors.cwdNotAbsolute(cwd), { cwd });
}

/** What every session/new, load, resume and fork must hold (an absolute cwd, nothing ZCode cannot take). */
export function checkSetup(p: { cwd: string }): void {
  checkCwd(p.cwd);
  refuseUnsupportedFields(p);
}

/** authenticate / auth/login: sign-in is the ZCode app's; the method offered only confirms it, any other id is the client's mistake. */
export function checkAuthMethod(methodId: string): void {
  if (!(AUTH_METHOD_IDS as readonly string[]).includes(methodId)) {
    throw invalidParams(t().errors.unknownAuthMethod(methodId, AUTH_METHOD_IDS), { methodId, authMethods: AUTH_METHOD_IDS });
  }
}
