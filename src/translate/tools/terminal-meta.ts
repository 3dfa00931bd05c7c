import type { SessionUpdate } from "@agentclientprotocol/sdk/unstable";

// Zed's terminal extension (clients that send `_meta.terminal_output: true`
// in initialize): a command's tool call shows a live terminal. These build the
// `_meta` objects exactly as Zed reads them, and the updates that carry them.

export function terminalInfo(terminalId: string, cwd: string) {
  return { terminal_info: { terminal_id: terminalId, cwd } };
}

/** Only the new data: Zed appends it to what the terminal shows. */
export function terminalOutput(terminalId: string, data: string) {
  return { terminal_output: { terminal_id: terminalId, data } };
}

/** The last update of a terminal, sent on its own. */
export function terminalExit(terminalId: string, exitCode: number | null) {
  return { terminal_exit: { terminal_id: terminalId, exit_code: exitCode, signal: null } };
}

/** The tool call's content while it has a terminal: Zed draws the terminal there. */
export function terminalContent(terminalId: string) {
  return { type: "terminal" as const, terminalId };
}

/** New output for the terminal of tool call `toolCallId` (the terminal id is the tool call id). */
export function terminalOutputUpdate(toolCallId: string, data: string): SessionUpdate {
  return { sessionUpdate: "tool_call_update", toolCallId, _meta: terminalOutput(toolCallId, data) };
}

/** The command ended (`null`: no exit code, e.g. it never ran or was killed). */
export function terminalExitUpdate(toolCallId: string, exitCode: number | null): SessionUpdate {
  return { sessionUpdate: "tool_call_update", toolCallId, _meta: terminalExit(toolCallId, exitCode) };
}
