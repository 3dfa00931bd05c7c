import type { errors as english } from "../../i18n/en/errors.ts";

// ZCode's reasonCodes (command.ts, command-inbox.ts, the handlers) → the
// sentence the user reads. Codes are ZCode's contract; their `message` is not.
// Some are not namespaced in ZCode (prompt-turn.ts `restoreWarning`,
// `activePrompt`; input-admission.ts `heldQueueDispositionRequired`).

type V4Texts = (typeof english)["v4"];

const BY_CODE: Record<string, (t: V4Texts) => string> = {
  "proto.sessionNotFound": (t) => t.sessionNotFound,
  "proto.staleRevision": (t) => t.staleRevision,
  "proto.staleLogEpoch": (t) => t.staleRevision,
  "proto.staleTarget": (t) => t.staleTarget,
  "proto.invalidPayload": (t) => t.invalidPayload,
  "proto.payloadTooLarge": (t) => t.payloadTooLarge,
  "guard.actionUnavailable": (t) => t.actionUnavailable,
  "guard.latestQueryEditOnly": (t) => t.latestOnly,
  "guard.latestAssistantRetryOnly": (t) => t.latestOnly,
  "guard.stopTargetChanged": (t) => t.stopTargetChanged,
  "guard.heldQueueConfirmationStale": (t) => t.heldQueueStale,
  "guard.workspaceRewindUnsafeFiles": (t) => t.workspaceRewindUnsafeFiles,
  "guard.workspaceRewindIgnoredFiles": (t) => t.workspaceRewindIgnoredFiles,
  "guard.workspaceRewindUnavailable": (t) => t.workspaceRewindUnavailable,
  "guard.workspaceRewindApplyConflict": (t) => t.workspaceRewindApplyConflict,
  heldQueueDispositionRequired: (t) => t.heldQueueDispositionRequired,
  restoreWarning: (t) => t.restoreWarning,
  activePrompt: (t) => t.activePrompt,
  "fault.command.inputRejected": (t) => t.inputRejected,
  "fault.command.queryUnavailable": (t) => t.queryUnavailable,
  "fault.command.notImplemented": (t) => t.notImplemented,
  "fault.command.executionFailed": (t) => t.executionFailed,
};

/**
 * The sentence for an ACK that did not do what was asked. A stale answer
 * says whether it came once (a command sent once) or twice in a row (a
 * targeted command re-read and sent again).
 */
export function reasonSay(
  reasonCode: string | undefined,
  status: string,
  opts: { staleTwice?: boolean } = {},
): (e: typeof english) => string {
  return (e) => {
    if (status === "stale" && !opts.staleTwice && reasonCode !== "proto.staleTarget") return e.v4.staleOnce;
    const known = reasonCode ? BY_CODE[reasonCode] : undefined;
    return known ? known(e.v4) : e.v4.other(status, reasonCode);
  };
}
