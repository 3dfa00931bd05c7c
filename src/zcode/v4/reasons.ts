import type { errors as english } from "../../i18n/en/errors.ts";

// ZCode's reasonCodes (command.ts, command-inbox.ts, the handlers) → the
// sentence the user reads. Codes are ZCode's contract; their `message` is not.

type V4Texts = (typeof english)["v4"];

const BY_CODE: Record<string, (t: V4Texts) => string> = {
  "proto.sessionNotFound": (t) => t.sessionNotFound,
  "proto.staleRevision": (t) => t.staleRevision,
  "proto.staleLogEpoch": (t) => t.staleRevision,
  "proto.staleTarget": (t) => t.staleTarget,
  "proto.invalidPayload": (t) => t.invalidPayload,
  "guard.actionUnavailable": (t) => t.actionUnavailable,
  "guard.latestQueryEditOnly": (t) => t.latestOnly,
  "guard.latestAssistantRetryOnly": (t) => t.latestOnly,
  "guard.stopTargetChanged": (t) => t.stopTargetChanged,
  "fault.command.notImplemented": (t) => t.notImplemented,
  "fault.command.executionFailed": (t) => t.executionFailed,
};

/** The sentence for an ACK that did not do what was asked. */
export function reasonSay(reasonCode: string | undefined, status: string): (e: typeof english) => string {
  return (e) => {
    const known = reasonCode ? BY_CODE[reasonCode] : undefined;
    return known ? known(e.v4) : e.v4.other(status, reasonCode);
  };
}
