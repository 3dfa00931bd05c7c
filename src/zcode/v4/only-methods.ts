// The legacy methods v4 stands in for on a child that speaks v4 alone
// (imported by capabilities.ts and only-choice.ts; no imports, so no cycle).

/**
 * Legacy methods whose -32601 means the legacy protocol is gone, not merely
 * this one method (0.16 answers session/steer and session/rewind -32601
 * while serving every other one). A list of names to recognise, not of
 * calls to make: session/close is sent for ACP session/delete alone.
 */
export const LEGACY_SESSION_METHODS: ReadonlySet<string> = new Set([
  "runtime/capabilities",
  "session/create",
  "session/resume",
  "session/list",
  "session/read",
  "session/messages",
  "session/subscribe",
  "session/send",
  "session/stop",
  "session/close",
  "session/fork",
  "session/compact",
  "session/goal",
  "session/setMode",
  "session/setModel",
  "session/setThoughtLevel",
]);
