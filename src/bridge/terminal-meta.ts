// Zed's terminal extension (clients that send `_meta.terminal_output: true`
// in initialize): a command's tool call shows a live terminal. These build the
// `_meta` objects exactly as Zed reads them.

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
